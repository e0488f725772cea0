#pragma once
// The network's statistics tables (common/stat_table.h): the per-node
// counters every topology keeps in the Network base class, published per
// subnet (icnt.request, icnt.reply) and per node with traffic
// (icnt.node.N.request, icnt.node.N.reply), and the activity of each
// subnet's hardware.
#include <cstdint>

#include "common/stat_table.h"
#include "interconnect/network.h"

namespace warpsim::interconnect {

// What the subnet formulas need besides the counters.
struct SubnetScope {
  uint64_t network_cycles = 0;   // the launch's duration in network cycles
  uint64_t injecting_nodes = 0;  // nodes that inject into this subnet (requests: cores; replies: memory nodes)
  uint64_t nodes = 0;            // all nodes of the network
};

const stats::StatTable<NodeStats, SubnetScope>& node_stats_table();
// What the switches and routers of one subnet did (the events an energy
// model prices), published beside node_stats_table()'s rows.
const stats::StatTable<NetworkActivity>& network_activity_table();

}  // namespace warpsim::interconnect
