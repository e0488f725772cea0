// `checkerboard`: a mesh whose routers alternate between full routers and
// half routers (x + y odd), which cannot turn packets (Bakhoda, PhD thesis,
// UBC 2014, sec. 5.1-5.2). Memory nodes must sit at half routers; the
// checkerboard routing keeps every turn on a full router
// (interconnect.checkerboard).
#include "interconnect/topologies/grid.h"

namespace warpsim::interconnect {

const config::Table<GridConfig>& checkerboard_config_table() {
  static const config::Table<GridConfig> table = [] {
    GridConfig d;
    d.routing = "checkerboard";
    d.placement = "checkerboard";
    return grid_config_table(
        "The `checkerboard` topology: a mesh of alternating full and half routers (half routers at x + y odd)", d);
  }();
  return table;
}

std::optional<RoutedLayout> checkerboard_layout(const NetworkConfig& config, std::span<const NodeRole> roles,
                                                std::string& error) {
  return grid_layout(config, roles, config.topologies.get<GridConfig>("checkerboard"), GridKind::Checkerboard,
                     PlanePolicy::Alternate, error);
}

}  // namespace warpsim::interconnect
