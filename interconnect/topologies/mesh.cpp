// `mesh`: a 2D mesh of routers (interconnect.mesh). With slices = 2 it is a
// combined double network (Bakhoda, PhD thesis, UBC 2014, sec. 5.4).
#include "interconnect/topologies/grid.h"

namespace warpsim::interconnect {

const config::Table<GridConfig>& mesh_config_table() {
  static const config::Table<GridConfig> table = grid_config_table(
      "The `mesh` topology: a 2D mesh of virtual-channel routers ([interconnect.router])", GridConfig{});
  return table;
}

std::optional<RoutedLayout> mesh_layout(const NetworkConfig& config, std::span<const NodeRole> roles,
                                        std::string& error) {
  return grid_layout(config, roles, config.topologies.get<GridConfig>("mesh"), GridKind::Mesh,
                     PlanePolicy::Alternate, error);
}

}  // namespace warpsim::interconnect
