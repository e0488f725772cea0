#pragma once
// What the memory system below L1 did: a snapshot of every component's
// counters (per memory partition and network node, and totals), the
// difference of two snapshots (one launch), and its publishing into the
// statistics registry. The snapshot carries the clocks and the counts the
// formulas need, so a launch's activity can be published, or priced by an
// energy model, without the memory system at hand.
#include <cstdint>
#include <vector>

#include "common/stat_table.h"
#include "common/stats.h"
#include "interconnect/network.h"
#include "timing/cache/sectored_cache.h"
#include "timing/clock_domains.h"
#include "timing/dram/dram_channel.h"
#include "timing/memory/cluster_port.h"
#include "timing/memory/l2_slice.h"

namespace warpsim::timing {

// The memory system's own counters: the SMs' requests end to end.
struct MemorySystemStats {
  uint64_t replies = 0;               // requests completed (replies taken by their SM)
  uint64_t round_trip_ps = 0;         // summed over them: from the SM's send to the SM taking the reply
  uint64_t icnt2sh_stall_cycles = 0;  // network cycles a slice had a reply ready that the reply subnet refused
};

// What the memory system's formulas need besides the counters.
struct MemoryScope {
  uint64_t core_period_ps = 1000;
};

// Published at "timing.memory" (averagemflatency, gpu_stall_icnt2sh:
// GPGPU-Sim's names). Table: memory_activity.cpp.
const stats::StatTable<MemorySystemStats, MemoryScope>& memory_system_stats_table();

// One memory partition: its L2 slices (summed) and its DRAM channel.
struct PartitionActivity {
  CacheCounters l2;
  L2SliceStats slices;
  DramStats dram;
};

struct MemoryActivity {
  ClockDomains clocks;
  uint32_t clusters = 0;  // network nodes 0..clusters-1 are the clusters' ports; the L2 slices follow
  MemorySystemStats system;
  ClusterPortStats ports;  // summed over the clusters
  std::vector<MechanismCounters> port_mechanisms;  // the ports' mechanisms', each summed over the clusters
  std::vector<PartitionActivity> partitions;
  std::vector<interconnect::NodeStats> nodes[interconnect::kSubnets];  // per network node
  interconnect::NetworkActivity network[interconnect::kSubnets];      // per subnet
  std::vector<interconnect::NetworkActivity> routers;                 // per router (flit-level networks)
  // Totals over the partitions and the nodes.
  CacheCounters l2;
  L2SliceStats slices;
  DramStats dram;
  interconnect::NodeStats net[interconnect::kSubnets];
};

// Where the memory system's components' counters are published (summed
// over their instances).
inline constexpr stats::Instance kL2Stats{"timing.l2", "L2"};
inline constexpr stats::Instance kL2SliceStats{"timing.l2"};
inline constexpr stats::Instance kDramStats{"timing.dram"};
inline constexpr stats::Instance kMemorySystemStats{"timing.memory"};
inline constexpr stats::Instance kClusterPortStats{"timing.cluster"};
inline constexpr stats::Instance kSubnetStats[interconnect::kSubnets] = {{"icnt.request"}, {"icnt.reply"}};

// Fills the totals of `m` from its partitions and nodes.
void sum_totals(MemoryActivity& m);
// What happened between two snapshots of the same memory system.
MemoryActivity difference(const MemoryActivity& after, const MemoryActivity& before);
// What a publish writes: every figure, or the components' totals only (no
// per-SM, per-partition, per-node or per-router entries, no CTA trace),
// which is all the energy model reads and much cheaper (a power trace
// publishes a snapshot every few thousand cycles).
enum class PublishDetail : uint8_t { All, Totals };

// Publishes one launch of `launch_cycles` core cycles: totals under their
// components' names, and, with PublishDetail::All, per partition
// (timing.partition.N.{l2,dram}) and per network node with traffic
// (icnt.node.N.{request,reply}) and per router with traffic (icnt.router.N).
void publish(StatsRegistry& stats, const MemoryActivity& launch, uint64_t launch_cycles,
             PublishDetail detail = PublishDetail::All);

}  // namespace warpsim::timing
