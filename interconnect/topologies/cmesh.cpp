// `cmesh`: a concentrated mesh, several nodes per router (interconnect.cmesh).
#include "interconnect/topologies/grid.h"

namespace warpsim::interconnect {

const config::Table<GridConfig>& cmesh_config_table() {
  static const config::Table<GridConfig> table = [] {
    GridConfig d;
    d.concentration = 4;
    return grid_config_table("The `cmesh` topology: a concentrated 2D mesh, `concentration` nodes per router", d);
  }();
  return table;
}

std::optional<RoutedLayout> cmesh_layout(const NetworkConfig& config, std::span<const NodeRole> roles,
                                         std::string& error) {
  return grid_layout(config, roles, config.topologies.get<GridConfig>("cmesh"), GridKind::Mesh,
                     PlanePolicy::Alternate, error);
}

}  // namespace warpsim::interconnect
