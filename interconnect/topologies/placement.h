#pragma once
// Node placement on a grid: which routers the memory nodes (L2 slices and
// their memory controllers) sit at, by a named pattern or an explicit list;
// the core nodes (the clusters' ports) take the remaining router slots in
// row-major order. Patterns:
//   top-bottom          half the memory nodes on the top row, half on the
//                       bottom row, side by side and centred (Bakhoda, PhD
//                       thesis, UBC 2014, Fig. 4.2)
//   peripheral-row      the top and bottom rows, spread out
//   peripheral-column   the left and right columns, spread out
//   diamond             on the diamond |x - cx| + |y - cy| = r closest to the
//                       grid's edge (Abts et al., ISCA 2009)
//   checkerboard        spread over the half routers (x + y odd): no two
//                       adjacent, at most two per row and column, away from
//                       the centre, the first at the top-right corner
//                       (the rules of Bakhoda's thesis, sec. 6.6)
//   list                the routers named in `memory_routers`, in memory
//                       node order
// A router takes up to `concentration` nodes.
#include <cstdint>
#include <string>
#include <vector>

namespace warpsim::interconnect {

struct GridPlacementRequest {
  uint32_t columns = 0, rows = 0, concentration = 1;
  uint32_t memory_nodes = 0;
  std::string pattern;
  std::string list;  // "list": router indices (y * columns + x), comma-separated
};

// The routers of the memory nodes, in order; empty with `error` set when
// the pattern cannot place them.
std::vector<uint32_t> place_memory_nodes(const GridPlacementRequest& request, std::string& error);

// The placement patterns' names, for the configuration table.
const std::vector<std::string>& placement_patterns();

}  // namespace warpsim::interconnect
