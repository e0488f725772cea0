// The merge table of intra-cluster coalescing (merge_table.h).
#include "timing/cluster/merge_table.h"

#include <algorithm>
#include <memory>

#include "timing/cluster/port_mechanism_registry.h"

namespace warpsim::timing {

const config::Table<MergeTableConfig>& merge_table_config_table() {
  static const config::Table<MergeTableConfig> table = [] {
    using C = MergeTableConfig;
    config::Table<C> t(
        "Cluster-port mechanism merge_table: intra-cluster coalescing of global read misses (Wang et al., IEEE "
        "TC 2019, sec. 6)");
    t.integer("entries", &C::entries, "entries",
              "fully associative entries, one per line in flight (the paper: 48 for 5 SMs per cluster)")
        .range(1, 4096);
    t.integer("lookup_cycles", &C::lookup_cycles, "port cycles",
              "a load that is not merged enters the injection buffer this much later (the paper: 1)")
        .range(0, 1000);
    return t;
  }();
  return table;
}

const stats::StatTable<MergeTableStats>& merge_table_stats_table() {
  static const stats::StatTable<MergeTableStats> table = [] {
    using S = MergeTableStats;
    stats::StatTable<S> t("The clusters' merge tables (cluster-port mechanism merge_table, summed over the clusters)");
    t.counter("lookups", &S::lookups, "requests", "global loads looked up (read misses of the SMs' L1s)");
    t.counter("hits", &S::hits, "requests",
              "loads merged into a load of the same line in flight from the cluster: no request or reply packet");
    t.counter("allocations", &S::allocations, "entries", "entries allocated by a load that went on tracked");
    t.counter("full_bypasses", &S::full_bypasses, "requests", "loads that went on untracked: no free entry");
    t.counter("sector_bypasses", &S::sector_bypasses, "requests",
              "loads that went on untracked: their line was in flight for fewer sectors");
    t.counter("broadcasts", &S::broadcasts, "replies", "replies delivered to more than one request");
    t.maximum("peak_occupancy", &S::peak_occupancy, "entries", "most entries of one table valid at once");
    t.run_ratio("coalesced_fraction", "timing.cluster.merge_table.hits", "timing.cluster.merge_table.lookups",
                "fraction", "loads merged / loads looked up (the fraction of L1 read misses coalesced)");
    return t;
  }();
  return table;
}

MergeTable::MergeTable(const MergeTableConfig& config, uint64_t cycle_ps)
    : lookup_ps_(config.lookup_cycles * cycle_ps), entries_(config.entries) {}

PortDecision MergeTable::on_request(uint32_t id, const InFlight& r, uint64_t now_ps) {
  if (!is_global_load(r.request)) return PortDecision::forward();
  ++stats_.lookups;
  const uint64_t ready = now_ps + lookup_ps_;
  Entry* free = nullptr;
  for (Entry& e : entries_) {
    if (!e.valid) {
      if (free == nullptr) free = &e;
      continue;
    }
    if (e.line != r.l2_line) continue;
    if ((e.sectors & r.l2_sectors) != r.l2_sectors) {
      ++stats_.sector_bypasses;
      return PortDecision::forward(ready);
    }
    ++stats_.hits;
    ++e.waiters;
    return PortDecision::merge(e.primary);
  }
  if (free == nullptr) {
    ++stats_.full_bypasses;
    return PortDecision::forward(ready);
  }
  *free = {r.l2_line, id, r.l2_sectors, 1, true};
  ++stats_.allocations;
  stats_.peak_occupancy = std::max<uint64_t>(stats_.peak_occupancy, ++used_);
  return PortDecision::forward(ready);
}

void MergeTable::on_reply(uint32_t id, const InFlight&, uint64_t) {
  for (Entry& e : entries_)
    if (e.valid && e.primary == id) {
      if (e.waiters > 1) ++stats_.broadcasts;
      e.valid = false;
      --used_;
      return;
    }
}

std::optional<MechanismCounters> MergeTable::counters() const {
  return counters_of(mechanism_prefix("merge_table"), merge_table_stats_table(), stats_);
}

std::unique_ptr<ClusterPortMechanism> make_merge_table(const PortContext& context) {
  return std::make_unique<MergeTable>(context.section<MergeTableConfig>("merge_table"), context.port_period_ps);
}

}  // namespace warpsim::timing
