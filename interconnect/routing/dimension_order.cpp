// `xy` and `yx`: dimension-order routing, X (columns) or Y (rows) first.
// Deadlock-free on a mesh (dimension order forbids every turn back into the
// first dimension, so channel dependencies form no cycle) and on a torus
// with datelines (grid_steps.h). On fabrics with half routers the topology
// must inject each packet where it never turns at one (the double
// checkerboard inverted does; the routed network checks every hop).
#include <memory>
#include <string>

#include "interconnect/routing/grid_steps.h"

namespace warpsim::interconnect {
namespace {

class DimensionOrder final : public Routing {
 public:
  DimensionOrder(const Fabric& f, bool y_first) : fabric_(f), y_first_(y_first) {}
  uint32_t classes() const override { return grid::dateline_classes(fabric_); }
  uint32_t route(uint32_t router, uint32_t, RouteState& s) const override {
    return grid::dimension_order(fabric_, router, s.dst, y_first_, s);
  }

 private:
  const Fabric& fabric_;
  bool y_first_;
};

std::unique_ptr<Routing> make(const Fabric& fabric, bool y_first, std::string& error) {
  if (!fabric.is_grid()) {
    error = std::string(y_first ? "yx" : "xy") + " routing needs a grid topology (mesh, torus, cmesh, checkerboard, dci)";
    return nullptr;
  }
  return std::make_unique<DimensionOrder>(fabric, y_first);
}

}  // namespace

std::unique_ptr<Routing> make_xy_routing(const Fabric& fabric, std::string& error) {
  return make(fabric, false, error);
}
std::unique_ptr<Routing> make_yx_routing(const Fabric& fabric, std::string& error) {
  return make(fabric, true, error);
}

}  // namespace warpsim::interconnect
