// MemoryActivity: differences, totals and publishing, all through the
// components' statistics tables.
#include "timing/memory/memory_activity.h"

#include <fmt/format.h>

#include "common/invariant.h"
#include "interconnect/network_stats.h"

namespace warpsim::timing {

using interconnect::kSubnets;

namespace {

constexpr const char* kSubnetNames[] = {"request", "reply"};

template <class T, class Scope>
void subtract_each(std::vector<T>& after, const std::vector<T>& before, const stats::StatTable<T, Scope>& table) {
  WARPSIM_INVARIANT(after.size() == before.size(), "snapshots of the same memory system");
  for (size_t i = 0; i < after.size(); ++i) after[i] = table.difference(after[i], before[i]);
}

}  // namespace

const stats::StatTable<MemorySystemStats, MemoryScope>& memory_system_stats_table() {
  static const stats::StatTable<MemorySystemStats, MemoryScope> table = [] {
    using M = MemorySystemStats;
    stats::StatTable<M, MemoryScope> t("The memory below L1, end to end");
    t.counter("replies", &M::replies, "requests", "requests below L1 completed (replies taken by their SM)");
    t.counter("round_trip_ps", &M::round_trip_ps, "ps",
              "summed over them: from the SM sending the request to the SM taking its reply");
    t.counter("icnt2sh_stall_cycles", &M::icnt2sh_stall_cycles, "network cycles",
              "cycles a slice had a reply ready but the reply subnet refused it")
        .headline("gpu_stall_icnt2sh");
    t.formula("average_latency", "core cycles",
              "average round trip of a request below L1, every kind of request",
              [](const M& m, const MemoryScope& s) -> stats::FormulaValue {
                const uint64_t den = m.replies * s.core_period_ps;
                return den ? static_cast<double>(m.round_trip_ps) / den : 0.0;
              })
        .headline("averagemflatency");
    return t;
  }();
  return table;
}

void sum_totals(MemoryActivity& m) {
  m.l2 = {};
  m.slices = {};
  m.dram = {};
  for (const PartitionActivity& p : m.partitions) {
    cache_stats_table().add(m.l2, p.l2);
    l2_slice_stats_table().add(m.slices, p.slices);
    dram_stats_table().add(m.dram, p.dram);
  }
  for (int s = 0; s < kSubnets; ++s) {
    m.net[s] = {};
    for (const interconnect::NodeStats& n : m.nodes[s]) interconnect::node_stats_table().add(m.net[s], n);
  }
}

MemoryActivity difference(const MemoryActivity& after, const MemoryActivity& before) {
  MemoryActivity d = after;
  d.system = memory_system_stats_table().difference(after.system, before.system);
  d.ports = cluster_port_stats_table().difference(after.ports, before.ports);
  WARPSIM_INVARIANT(d.port_mechanisms.size() == before.port_mechanisms.size(), "snapshots of the same memory system");
  for (size_t i = 0; i < d.port_mechanisms.size(); ++i)
    d.port_mechanisms[i] = difference(after.port_mechanisms[i], before.port_mechanisms[i]);
  WARPSIM_INVARIANT(d.partitions.size() == before.partitions.size(), "snapshots of the same memory system");
  for (size_t i = 0; i < d.partitions.size(); ++i) {
    PartitionActivity& p = d.partitions[i];
    const PartitionActivity& b = before.partitions[i];
    p.l2 = cache_stats_table().difference(p.l2, b.l2);
    p.slices = l2_slice_stats_table().difference(p.slices, b.slices);
    p.dram = dram_stats_table().difference(p.dram, b.dram);
  }
  for (int s = 0; s < kSubnets; ++s) {
    subtract_each(d.nodes[s], before.nodes[s], interconnect::node_stats_table());
    d.network[s] = interconnect::network_activity_table().difference(after.network[s], before.network[s]);
  }
  subtract_each(d.routers, before.routers, interconnect::network_activity_table());
  sum_totals(d);
  return d;
}

void publish(StatsRegistry& stats, const MemoryActivity& m, uint64_t launch_cycles, PublishDetail detail) {
  const ClockDomains& clk = m.clocks;
  const uint64_t launch_ps = clk.time(Domain::Core, launch_cycles);
  cache_stats_table().publish(stats, m.l2, kL2Stats);
  l2_slice_stats_table().publish(stats, m.slices, kL2SliceStats);
  dram_stats_table().publish(stats, m.dram, kDramStats, {launch_ps, clk.period(Domain::Dram), m.partitions.size()});
  memory_system_stats_table().publish(stats, m.system, kMemorySystemStats, {clk.period(Domain::Core)});
  cluster_port_stats_table().publish(stats, m.ports, kClusterPortStats);
  for (const MechanismCounters& c : m.port_mechanisms) timing::publish(stats, c);
  const uint64_t network_cycles = launch_ps / clk.period(Domain::Interconnect);
  const uint64_t nodes = m.nodes[0].size();
  const uint64_t injecting[kSubnets] = {m.clusters, nodes - m.clusters};
  for (int s = 0; s < kSubnets; ++s) {
    interconnect::node_stats_table().publish(stats, m.net[s], kSubnetStats[s], {network_cycles, injecting[s], nodes});
    interconnect::network_activity_table().publish(stats, m.network[s], kSubnetStats[s]);
  }
  if (detail == PublishDetail::Totals) return;
  for (size_t p = 0; p < m.partitions.size(); ++p) {
    const std::string prefix = fmt::format("timing.partition.{}.", p);
    dram_stats_table().publish_instance(stats, m.partitions[p].dram, prefix + "dram");
    cache_stats_table().publish_instance(stats, m.partitions[p].l2, prefix + "l2");
  }
  for (uint64_t node = 0; node < nodes; ++node)
    for (int s = 0; s < kSubnets; ++s) {
      const interconnect::NodeStats& n = m.nodes[s][node];
      if (interconnect::node_stats_table().instance_idle(n)) continue;
      interconnect::node_stats_table().publish_instance(stats, n, fmt::format("icnt.node.{}.{}", node, kSubnetNames[s]));
    }
  for (size_t r = 0; r < m.routers.size(); ++r) {
    if (interconnect::network_activity_table().instance_idle(m.routers[r])) continue;
    interconnect::network_activity_table().publish_instance(stats, m.routers[r], fmt::format("icnt.router.{}", r));
  }
}

}  // namespace warpsim::timing
