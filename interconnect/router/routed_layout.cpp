// Building blocks the topologies share when they assemble a RoutedLayout.
#include "interconnect/router/routed_layout.h"

#include <fmt/format.h>

#include "interconnect/routing/routing.h"

namespace warpsim::interconnect {

RoutedLayout single_fabric_layout(const NetworkConfig& config, Fabric fabric, std::string routing) {
  RoutedLayout layout;
  layout.router = config.router;
  layout.flit_bytes = config.flit_bytes;
  layout.routing = std::move(routing);
  if (config.router.subnets == SubnetMode::Physical) {
    layout.planes = {fabric, fabric};
    layout.policy = PlanePolicy::BySubnet;
  } else {
    layout.planes = {std::move(fabric)};
    layout.policy = PlanePolicy::Single;
    layout.protocol_classes = 2;
  }
  return layout;
}

std::string check_layout_routing(const RoutedLayout& layout, const std::string& section) {
  for (const Fabric& f : layout.planes) {
    std::string routing_error;
    const auto routing = routings().make(layout.routing, f, routing_error);
    if (!routing) return section + ": " + routing_error;
    const uint32_t classes = layout.protocol_classes * routing->classes();
    if (layout.router.vcs % classes != 0)
      return fmt::format(
          "interconnect.router.vcs: {} virtual channels cannot be split evenly into {} classes ({} for requests "
          "and replies x {} for {} routing{}); use a multiple of {}",
          layout.router.vcs, classes, layout.protocol_classes, routing->classes(), layout.routing,
          f.wraps && f.datelines ? " with datelines" : "", classes);
  }
  return "";
}

}  // namespace warpsim::interconnect
