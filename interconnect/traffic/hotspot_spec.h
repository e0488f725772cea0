#pragma once
// The destinations of the `hotspot` pattern and their weights, written as a
// list like BookSim 2's hotspot({nodes},{weights}) (Jiang et al., ISPASS
// 2013): every packet goes to one of the listed nodes, node d with
// probability weight(d) / sum of weights.
//
//   spec   := entry (',' entry)*
//   entry  := target [':' weight]
//   target := a node number | '*' (every node not listed by number)
//   weight := a whole number >= 1 (1 when left out)
//
//   "27"          every packet to node 27
//   "0,63"        half to node 0, half to node 63
//   "27:16,*:1"   node 27 weight 16, the other N-1 nodes weight 1: with 64
//                 nodes, 16/79 = 20% of the packets go to node 27 and the
//                 rest are spread uniformly (the source itself included)
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace warpsim::interconnect {

inline constexpr uint64_t kMaxHotspotWeight = 1'000'000;

// The weight of every node 0..nodes-1 (0: never a destination); nullopt with
// `error` set when the spec is malformed, names a node >= nodes or names one
// twice, or gives a weight of 0.
std::optional<std::vector<uint64_t>> parse_hotspot(std::string_view spec, uint32_t nodes,
                                                   std::string& error);

}  // namespace warpsim::interconnect
