// `cdr`: class-based deterministic routing (Abts et al., "Achieving
// predictable performance through better memory controller placement in
// many-core CMPs", ISCA 2009): requests go XY, replies YX. Requests and
// replies never share a virtual channel (separate physical networks, or the
// protocol classes of one), and within each the routing is dimension order,
// so it is deadlock-free wherever XY and YX are.
#include <memory>
#include <string>

#include "interconnect/routing/grid_steps.h"

namespace warpsim::interconnect {
namespace {

class ClassBased final : public Routing {
 public:
  explicit ClassBased(const Fabric& f) : fabric_(f) {}
  uint32_t classes() const override { return grid::dateline_classes(fabric_); }
  void start(uint32_t, uint32_t dst, Subnet subnet, uint64_t, RouteState& s) const override {
    s = RouteState{};
    s.dst = dst;
    s.y_first = subnet == Subnet::Reply;
  }
  uint32_t route(uint32_t router, uint32_t, RouteState& s) const override {
    return grid::dimension_order(fabric_, router, s.dst, s.y_first, s);
  }

 private:
  const Fabric& fabric_;
};

}  // namespace

std::unique_ptr<Routing> make_cdr_routing(const Fabric& fabric, std::string& error) {
  if (!fabric.is_grid()) {
    error = "cdr routing needs a grid topology (mesh, torus, cmesh, dci)";
    return nullptr;
  }
  return std::make_unique<ClassBased>(fabric);
}

}  // namespace warpsim::interconnect
