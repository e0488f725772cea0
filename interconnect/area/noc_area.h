#pragma once
// The silicon area of a flit-level network, after Bakhoda, PhD thesis, UBC
// 2014, sec. 6.8 (Tables 6.2 and 6.5): a modified ORION 2.0 at 65 nm whose
// crossbar is recalibrated to a measured area per crosspoint. It prices the
// planes a topology builds (RoutedLayout) and sets them against the rest of
// the chip, so `warpsim noc area` can print the NoC's share of it.
//
// Per router (all sizes from the fabric, the router configuration and the
// flit width W in bits):
//   crossbar  = connected (input, output) pairs x W x W crosspoints x crosspoint area.
//             Which pairs count (the thesis's rule, generalised):
//             - full router: every input to every output, U-turns included: the
//               thesis's pessimistic 5x5 square for a mesh router;
//             - half router: each network output is a mux over the opposite
//               network input and the terminal inputs; each terminal output a
//               mux over the network inputs (four 2x1 and one 4x1 mux);
//             - terminal ports: a node's injection ports never reach its own
//               ejection ports (a node does not send to itself), except the one
//               pair of a full router's single-port node, which the thesis's
//               square keeps. Ports of different nodes (concentration) connect.
//             The thesis's 2P routers at 64 b come out so: 0.27 mm^2 full
//             (6x6 less the 2x2 self block = 32 pairs), 0.17 half (20 pairs).
//   buffers   = input ports x VCs x VC depth (flits) x W bits x area per bit
//               (input-queued: injection inputs have buffers, outputs none);
//   allocators= arbiter inputs x area per arbiter input, for a separable
//               input-first VC allocator (each input VC picks among the V VCs
//               of its output; each output VC among all input VCs) and switch
//               allocator (each input among its V VCs; each output among the
//               inputs): I*V*V + O*V*I*V + I*V + O*I for I inputs, O outputs.
//               Ports and VCs only, as the thesis prints the same allocator
//               for full and half routers.
// Per link (one direction of a channel): W bits x length x area per bit-mm,
// drivers included (the thesis counts them in the links). Router-to-router
// channels are as long as the topology laid them out
// (FabricChannel::length_mm: a grid's tile_mm); injection and ejection links
// are terminal_link_mm (the fabric records no injection channel).
//
// With identical_grid_routers (the default) every router of a grid fabric is
// priced with all four network ports, its missing edge ports counted as
// unwired: one router design per tile, as the thesis's totals count 36
// identical 5-port mesh routers. docs/noc-area.md sets the model against
// Table 6.5.
#include <cstdint>
#include <string>
#include <vector>

#include "interconnect/area/area_config.h"
#include "interconnect/router/fabric.h"
#include "interconnect/router/routed_layout.h"
#include "interconnect/router/router_config.h"

namespace warpsim::interconnect {

// What a router's area depends on, read from the fabric.
struct RouterShape {
  bool half = false;
  uint32_t inputs = 0, outputs = 0;
  uint32_t terminal_inputs = 0, terminal_outputs = 0;
  uint32_t nodes = 0;           // distinct nodes attached
  uint32_t ports_per_node = 0;  // a node's most terminal ports here, one way: 2 for a 2P router
  uint64_t pairs = 0;           // (input, output) pairs the crossbar connects, W x W crosspoints each

  bool operator==(const RouterShape&) const = default;
  // "full", "half", "full 2P", "half 2P", "full 4 nodes", ...
  std::string name() const;
};

RouterShape router_shape(const FabricRouter& router);

struct RouterArea {
  double crossbar_mm2 = 0, buffer_mm2 = 0, allocator_mm2 = 0;
  double total_mm2() const { return crossbar_mm2 + buffer_mm2 + allocator_mm2; }
};

// One router of `shape` with `router`'s VCs and buffers and W = width_bits.
RouterArea router_area(const RouterShape& shape, const RouterConfig& router, uint32_t width_bits,
                       const AreaConfig& config);

// The routers of one shape, over all planes.
struct RouterKindArea {
  RouterShape shape;
  RouterArea each;
  uint32_t count = 0;
};

// The links of one length, over all planes.
struct LinkKindArea {
  bool terminal = false;  // injection or ejection link
  double length_mm = 0;
  double each_mm2 = 0;
  uint32_t count = 0;
};

struct NocArea {
  uint32_t planes = 0;
  uint32_t width_bits = 0;
  std::vector<RouterKindArea> routers;  // in order of first appearance
  std::vector<LinkKindArea> links;      // router-to-router kinds first, then terminal
  double routers_mm2 = 0, links_mm2 = 0;
  double total_mm2() const { return routers_mm2 + links_mm2; }
};

NocArea noc_area(const RoutedLayout& layout, const AreaConfig& config);

// The chip outside the network.
struct ChipParts {
  uint32_t cores = 0;               // SMs
  uint32_t memory_controllers = 0;  // memory partitions
  double l2_mib = 0;                // L2 capacity, all slices
};

double non_noc_area_mm2(const ChipParts& parts, const AreaConfig& config);

}  // namespace warpsim::interconnect
