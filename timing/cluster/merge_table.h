#pragma once
// Intra-cluster coalescing (Wang et al., "Intra-Cluster Coalescing and
// Distributed-Block Scheduling to Reduce GPU NoC Pressure", IEEE TC 2019,
// sec. 6.1-6.2): a fully associative merge table at the cluster's network
// port. A global load that misses in an SM's L1 looks the table up on its way
// to the shared injection buffer:
//   hit    an earlier load of the same line from this cluster is in flight:
//          the new one is parked (no packet) and gets that load's reply,
//          broadcast to every waiting SM in the same cycle;
//   miss   it allocates an entry if one is free (else it goes on untracked)
//          and enters the network `lookup_cycles` later.
// Stores, atomics, local memory and instruction or constant fetches pass
// untouched. Decisions the paper leaves open (docs/cluster-mechanisms.md):
//   - An entry remembers its primary request, and only that request's reply
//     frees it and is broadcast. An untracked load's reply (the table was
//     full) never hits an entry a later load allocated, so no SM receives a
//     line twice (the paper's one-bit-per-SM list has that hazard).
//   - Waiters are a list of requests, not a bit per SM: an SM may have two
//     loads of one line in flight (one bypassing its L1).
//   - A full table is still looked up: a hit needs no free entry.
//   - A load merges only when the primary asked for every sector it wants.
#include <cstdint>
#include <optional>
#include <vector>

#include "common/config.h"
#include "common/stat_table.h"
#include "timing/memory/cluster_port_mechanism.h"

namespace warpsim::timing {

// [timing.cluster.merge_table]
struct MergeTableConfig {
  uint32_t entries = 48;       // Wang et al., sec. 6.2: 48 (SMs per cluster x L1 MSHRs = 160 is the useful bound)
  uint32_t lookup_cycles = 1;  // sec. 6.4: CACTI gives < 1 cycle at 1.4 GHz
};

struct MergeTableStats {
  uint64_t lookups = 0;            // global loads looked up
  uint64_t hits = 0;               // of them, merged into a load in flight (no packet, no reply packet)
  uint64_t allocations = 0;        // entries allocated (the load went on as a tracked primary)
  uint64_t full_bypasses = 0;      // loads that went on untracked: no free entry
  uint64_t sector_bypasses = 0;    // loads that went on untracked: the line is in flight for other sectors
  uint64_t broadcasts = 0;         // replies delivered to more than one request
  uint64_t peak_occupancy = 0;     // most entries valid at once
};

const config::Table<MergeTableConfig>& merge_table_config_table();
const stats::StatTable<MergeTableStats>& merge_table_stats_table();

class MergeTable final : public ClusterPortMechanism {
 public:
  // `cycle_ps`: the port's clock period (a lookup cycle).
  MergeTable(const MergeTableConfig& config, uint64_t cycle_ps);

  PortDecision on_request(uint32_t id, const InFlight& r, uint64_t now_ps) override;
  void on_reply(uint32_t id, const InFlight& r, uint64_t now_ps) override;
  std::optional<MechanismCounters> counters() const override;

  const MergeTableStats& stats() const { return stats_; }
  uint32_t occupancy() const { return used_; }

 private:
  struct Entry {
    uint64_t line = 0;
    uint32_t primary = kNoRequest;  // the request in flight; its reply frees the entry
    uint32_t sectors = 0;           // what it asked for
    uint32_t waiters = 0;           // requests that get its reply (it included)
    bool valid = false;
  };
  uint64_t lookup_ps_;
  std::vector<Entry> entries_;
  uint32_t used_ = 0;
  MergeTableStats stats_;
};

}  // namespace warpsim::timing
