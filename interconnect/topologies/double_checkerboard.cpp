// `dci` and `dcie`: the double checkerboard inverted (Bakhoda, PhD thesis,
// UBC 2014, sec. 5.5-5.6.1). Two planes of half-width channels: plane 0 a
// checkerboard (half routers at x + y odd), plane 1 the inverted one, every
// node on one full and one half router. Under XY a packet an even number of
// columns away goes into the source's full router, an odd number into its
// half router, so no packet turns at a half router and nodes may sit
// anywhere (with cdr, replies use the row distance). `dcie` also sends the
// packets that never turn (same row or column) to the less used plane,
// with an up/down counter per node. Both planes carry requests and
// replies, on separate virtual channels.
#include "interconnect/topologies/grid.h"

namespace warpsim::interconnect {
namespace {

GridConfig double_defaults() {
  GridConfig d;
  d.routing = "xy";
  d.placement = "checkerboard";
  return d;
}

}  // namespace

const config::Table<GridConfig>& dci_config_table() {
  static const config::Table<GridConfig> table = grid_config_table(
      "The `dci` topology: a double checkerboard inverted (two planes; the column distance picks the plane)",
      double_defaults());
  return table;
}

const config::Table<GridConfig>& dcie_config_table() {
  static const config::Table<GridConfig> table = grid_config_table(
      "The `dcie` topology: dci with straight packets balanced between the planes", double_defaults());
  return table;
}

std::optional<RoutedLayout> dci_layout(const NetworkConfig& config, std::span<const NodeRole> roles,
                                       std::string& error) {
  return grid_layout(config, roles, config.topologies.get<GridConfig>("dci"), GridKind::DoubleCheckerboard,
                     PlanePolicy::ColumnParity, error);
}

std::optional<RoutedLayout> dcie_layout(const NetworkConfig& config, std::span<const NodeRole> roles,
                                        std::string& error) {
  return grid_layout(config, roles, config.topologies.get<GridConfig>("dcie"), GridKind::DoubleCheckerboard,
                     PlanePolicy::Balanced, error);
}

}  // namespace warpsim::interconnect
