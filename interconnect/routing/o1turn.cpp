// `o1turn`: each packet picks XY or YX at random at injection (Seo et al.,
// "Near-optimal worst-case throughput routing for two-dimensional mesh
// networks", ISCA 2005) and keeps to its own half of the virtual channels:
// class 0 carries XY packets, class 1 YX packets. Each class alone is
// dimension-order routing, deadlock-free on a mesh; no packet moves between
// classes, so no dependency joins them. Meshes only (a torus would need
// dateline classes per order).
#include <memory>
#include <string>

#include "interconnect/routing/grid_steps.h"

namespace warpsim::interconnect {
namespace {

class O1Turn final : public Routing {
 public:
  explicit O1Turn(const Fabric& f) : fabric_(f) {}
  uint32_t classes() const override { return 2; }
  void start(uint32_t, uint32_t dst, Subnet, uint64_t random, RouteState& s) const override {
    s = RouteState{};
    s.dst = dst;
    s.y_first = (random >> 17) & 1;
    s.vc_class = s.y_first ? 1 : 0;
  }
  uint32_t route(uint32_t router, uint32_t, RouteState& s) const override {
    const uint32_t port = grid::dimension_order(fabric_, router, s.dst, s.y_first, s);
    s.vc_class = s.y_first ? 1 : 0;
    return port;
  }

 private:
  const Fabric& fabric_;
};

}  // namespace

std::unique_ptr<Routing> make_o1turn_routing(const Fabric& fabric, std::string& error) {
  if (!fabric.is_grid() || fabric.wraps || fabric.has_half_routers()) {
    error = "o1turn routing needs a mesh without half routers (mesh, cmesh)";
    return nullptr;
  }
  return std::make_unique<O1Turn>(fabric);
}

}  // namespace warpsim::interconnect
