#pragma once
// The grid topologies (mesh, torus, cmesh, checkerboard, dci, dcie): their
// shared configuration section and the builder of their fabrics. Each
// topology is its own file (mesh.cpp, ...) with a registry line; they differ
// in the section's defaults and in how the grid is built (wrap-around links,
// half routers, planes).
//
// A grid has columns x rows routers, router r at (x = r % columns,
// y = r / columns), row 0 at the top. Each router has a network port per
// neighbour (East, West, North, South: ports 0..3 where present, in that
// order) and a terminal port (an injection input and an ejection output) per
// attached node; memory nodes get memory_ports of each (multi-port memory
// routers, "2P": Bakhoda, PhD thesis, UBC 2014, sec. 5.3). Links are
// tile_mm long.
#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "common/config.h"
#include "interconnect/network.h"
#include "interconnect/router/routed_layout.h"

namespace warpsim::interconnect {

struct GridConfig {
  uint32_t columns = 0;        // 0 (with rows = 0): the smallest near-square grid for the nodes
  uint32_t rows = 0;
  uint32_t concentration = 1;  // nodes per router
  std::string routing = "xy";  // a name of the routing registry
  std::string placement = "top-bottom";
  std::string memory_routers;  // placement "list": router indices, comma-separated
  uint32_t memory_ports = 1;   // injection and ejection ports per memory node
  uint32_t slices = 1;         // 2: a combined double network (two planes carrying both subnets)
  double tile_mm = 1.0;        // router pitch: the length of a link
  bool datelines = true;       // torus: dateline virtual-channel classes on each ring
};

// The grid shapes.
enum class GridKind : uint8_t {
  Mesh,
  Torus,
  Checkerboard,  // half routers at x + y odd
  DoubleCheckerboard,  // two planes: a checkerboard and the inverted one (dci, dcie)
};

// A grid topology's section table with that topology's defaults.
config::Table<GridConfig> grid_config_table(std::string description, GridConfig defaults);

// The layout of a grid topology for `roles`, or nullopt with `error`.
std::optional<RoutedLayout> grid_layout(const NetworkConfig& config, std::span<const NodeRole> roles,
                                        const GridConfig& grid, GridKind kind, PlanePolicy double_policy,
                                        std::string& error);

}  // namespace warpsim::interconnect
