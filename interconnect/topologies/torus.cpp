// `torus`: a 2D torus, every row and column a ring (interconnect.torus).
// Dimension-order routings take the shorter way round and, with
// datelines, change virtual-channel class at each ring's wrap-around link.
#include "interconnect/topologies/grid.h"

namespace warpsim::interconnect {

const config::Table<GridConfig>& torus_config_table() {
  static const config::Table<GridConfig> table = grid_config_table(
      "The `torus` topology: a 2D torus of virtual-channel routers with dateline classes", GridConfig{});
  return table;
}

std::optional<RoutedLayout> torus_layout(const NetworkConfig& config, std::span<const NodeRole> roles,
                                         std::string& error) {
  return grid_layout(config, roles, config.topologies.get<GridConfig>("torus"), GridKind::Torus,
                     PlanePolicy::Alternate, error);
}

}  // namespace warpsim::interconnect
