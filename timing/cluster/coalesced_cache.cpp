// The coalesced cache (coalesced_cache.h).
#include "timing/cluster/coalesced_cache.h"

#include <memory>

#include "timing/cluster/port_mechanism_registry.h"

namespace warpsim::timing {

const config::Table<CoalescedCacheConfig>& coalesced_cache_config_table() {
  static const config::Table<CoalescedCacheConfig> table = [] {
    using C = CoalescedCacheConfig;
    config::Table<C> t(
        "Cluster-port mechanism coalesced_cache: lines several of the cluster's loads waited for (Wang et al., "
        "IEEE TC 2019, sec. 6.3)");
    t.integer("entries", &C::entries, "lines", "fully associative L2-sized lines, LRU (the paper: 24)")
        .range(1, 4096);
    t.integer("lookup_cycles", &C::lookup_cycles, "port cycles",
              "a hit's reply enters the response FIFO this much later; a miss goes on this much later (the "
              "paper: 1)")
        .range(0, 1000);
    t.boolean("invalidate_on_write", &C::invalidate_on_write,
              "a store or atomic from the cluster drops the line (the paper: not said; off)");
    t.boolean("flush_at_launch", &C::flush_at_launch,
              "empty the cache when a kernel launch begins (the paper: not said; off)");
    return t;
  }();
  return table;
}

const stats::StatTable<CoalescedCacheStats>& coalesced_cache_stats_table() {
  static const stats::StatTable<CoalescedCacheStats> table = [] {
    using S = CoalescedCacheStats;
    stats::StatTable<S> t(
        "The clusters' coalesced caches (cluster-port mechanism coalesced_cache, summed over the clusters)");
    t.counter("lookups", &S::lookups, "requests", "global loads looked up (read misses of the SMs' L1s)");
    t.counter("hits", &S::hits, "requests", "loads answered at the port without a packet");
    t.counter("fills", &S::fills, "lines", "lines written: replies more than one request waited for");
    t.counter("evictions", &S::evictions, "lines", "valid lines a fill replaced");
    t.counter("invalidations", &S::invalidations, "lines", "lines a store or atomic dropped (invalidate_on_write)");
    t.counter("flushes", &S::flushes, "launches", "launches that emptied the cache (flush_at_launch)");
    t.run_ratio("hit_rate", "timing.cluster.coalesced_cache.hits", "timing.cluster.coalesced_cache.lookups",
                "fraction", "hits / lookups");
    return t;
  }();
  return table;
}

CoalescedCache::CoalescedCache(const CoalescedCacheConfig& config, uint64_t cycle_ps)
    : config_(config), lookup_ps_(config.lookup_cycles * cycle_ps), lines_(config.entries) {}

CoalescedCache::Line* CoalescedCache::find(uint64_t line) {
  for (Line& l : lines_)
    if (l.valid && l.line == line) return &l;
  return nullptr;
}

const CoalescedCache::Line* CoalescedCache::find(uint64_t line) const {
  return const_cast<CoalescedCache*>(this)->find(line);
}

PortDecision CoalescedCache::on_request(uint32_t, const InFlight& r, uint64_t now_ps) {
  if (is_global_load(r.request)) {
    ++stats_.lookups;
    Line* l = find(r.l2_line);
    if (l != nullptr && (l->sectors & r.l2_sectors) == r.l2_sectors) {
      ++stats_.hits;
      l->last_use = ++stamp_;
      return PortDecision::serve(now_ps + lookup_ps_);
    }
    return PortDecision::forward(now_ps + lookup_ps_);
  }
  if (config_.invalidate_on_write && (r.request.kind == MemKind::Store || r.request.kind == MemKind::Atomic))
    if (Line* l = find(r.l2_line)) {
      l->valid = false;
      ++stats_.invalidations;
    }
  return PortDecision::forward();
}

void CoalescedCache::on_reply(uint32_t, const InFlight& r, uint64_t) {
  // Only lines that were effectively coalesced: the reply has waiters.
  if (!is_global_load(r.request) || r.next_waiter == kNoRequest) return;
  Line* l = find(r.l2_line);
  if (l == nullptr) {
    l = &lines_[0];
    for (Line& c : lines_) {
      if (!c.valid) {
        l = &c;
        break;
      }
      if (c.last_use < l->last_use) l = &c;
    }
    if (l->valid) ++stats_.evictions;
    *l = {r.l2_line, 0, 0, true};
  }
  l->sectors |= r.l2_sectors;
  l->last_use = ++stamp_;
  ++stats_.fills;
}

void CoalescedCache::on_launch(uint64_t) {
  if (!config_.flush_at_launch) return;
  for (Line& l : lines_) l.valid = false;
  ++stats_.flushes;
}

std::optional<MechanismCounters> CoalescedCache::counters() const {
  return counters_of(mechanism_prefix("coalesced_cache"), coalesced_cache_stats_table(), stats_);
}

std::unique_ptr<ClusterPortMechanism> make_coalesced_cache(const PortContext& context) {
  return std::make_unique<CoalescedCache>(context.section<CoalescedCacheConfig>("coalesced_cache"),
                                          context.port_period_ps);
}

}  // namespace warpsim::timing
