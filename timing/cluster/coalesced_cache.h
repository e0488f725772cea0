#pragma once
// The coalesced cache of Wang et al., IEEE TC 2019 (sec. 6.3-6.4): a small
// fully associative cache at the cluster's network port holding lines whose
// reply several of the cluster's requests waited for (the merge table's
// broadcasts). Every global load that misses in an SM's L1 looks it up on
// its way to the injection buffer: a hit is answered at the port
// `lookup_cycles` later without a packet; a miss goes on (the lookup runs in
// parallel with the merge table's). Replacement is LRU (the paper leaves it
// open). Stores do not update it: with invalidate_on_write a store or atomic
// of the cluster to a cached line drops it (the paper does not say; data are
// functional in warpsim, so this is timing only). flush_at_launch empties it
// when a kernel starts (the paper does not say whether lines persist across
// kernels).
#include <cstdint>
#include <optional>
#include <vector>

#include "common/config.h"
#include "common/stat_table.h"
#include "timing/memory/cluster_port_mechanism.h"

namespace warpsim::timing {

// [timing.cluster.coalesced_cache]
struct CoalescedCacheConfig {
  uint32_t entries = 24;         // the paper: 24 lines of 128 B
  uint32_t lookup_cycles = 1;    // the paper: 1 cycle
  bool invalidate_on_write = false;
  bool flush_at_launch = false;
};

struct CoalescedCacheStats {
  uint64_t lookups = 0;        // global loads looked up
  uint64_t hits = 0;           // answered at the port
  uint64_t fills = 0;          // lines written (a reply that more than one request waited for)
  uint64_t evictions = 0;      // valid lines replaced by a fill
  uint64_t invalidations = 0;  // lines dropped by a store or atomic (invalidate_on_write)
  uint64_t flushes = 0;        // kernel launches that emptied it (flush_at_launch)
};

const config::Table<CoalescedCacheConfig>& coalesced_cache_config_table();
const stats::StatTable<CoalescedCacheStats>& coalesced_cache_stats_table();

class CoalescedCache final : public ClusterPortMechanism {
 public:
  CoalescedCache(const CoalescedCacheConfig& config, uint64_t cycle_ps);

  PortDecision on_request(uint32_t id, const InFlight& r, uint64_t now_ps) override;
  void on_reply(uint32_t id, const InFlight& r, uint64_t now_ps) override;
  void on_launch(uint64_t now_ps) override;
  std::optional<MechanismCounters> counters() const override;

  const CoalescedCacheStats& stats() const { return stats_; }
  bool holds(uint64_t line) const { return find(line) != nullptr; }

 private:
  struct Line {
    uint64_t line = 0;
    uint32_t sectors = 0;
    uint64_t last_use = 0;  // LRU stamp
    bool valid = false;
  };
  Line* find(uint64_t line);
  const Line* find(uint64_t line) const;

  CoalescedCacheConfig config_;
  uint64_t lookup_ps_;
  std::vector<Line> lines_;
  uint64_t stamp_ = 0;
  CoalescedCacheStats stats_;
};

}  // namespace warpsim::timing
