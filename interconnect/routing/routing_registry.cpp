// The routing registry, from routings.def.
#include "interconnect/routing/routing.h"

namespace warpsim::interconnect {

#define WARPSIM_PLUGIN(name, factory, description) \
  std::unique_ptr<Routing> factory(const Fabric& fabric, std::string& error);
#include "interconnect/routing/routings.def"
#undef WARPSIM_PLUGIN

void Routing::start(uint32_t, uint32_t dst, Subnet, uint64_t, RouteState& state) const {
  state = RouteState{};
  state.dst = dst;
}

const RoutingRegistry& routings() {
  static const RoutingRegistry registry("routing function", {
#define WARPSIM_PLUGIN(name, factory, description) {name, description, factory},
#include "interconnect/routing/routings.def"
#undef WARPSIM_PLUGIN
  });
  return registry;
}

}  // namespace warpsim::interconnect
