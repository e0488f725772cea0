#pragma once
// Intra-cluster locality (ICL; Wang et al., IEEE TC 2019, sec. 3.3, Eq. 1):
// of a cluster's global read misses, measured where they leave the SMs' L1s
// for the shared port, the fraction that are redundant - to a line a request
// of the same cluster (any of its SMs) read within the last `window` core
// cycles. A redundant request is data sharing when it reads bytes such a
// request read, line sharing when it reads other bytes of the line (the
// paper's two categories; it gives no rule, this is the byte test it
// suggests, at the coalescer's 1/32-of-a-line resolution).
//
// A measuring mechanism: it forwards every request at once and changes no
// timing. List it first in [timing.cluster] mechanisms so that it sees the
// requests a merge table or coalesced cache would take. It keeps the last
// `history` reads of each line the cluster read recently (older ones within
// the window are not compared), and drops lines idle for longer than the
// largest window.
#include <array>
#include <cstdint>
#include <optional>
#include <unordered_map>

#include "common/config.h"
#include "common/stat_table.h"
#include "timing/memory/cluster_port_mechanism.h"

namespace warpsim::timing {

inline constexpr size_t kLocalityWindows = 4;
inline constexpr uint32_t kLocalityMaxHistory = 16;

// [timing.cluster.locality]
struct LocalityConfig {
  std::array<uint32_t, kLocalityWindows> windows = {500, 1000, 1500, 2000};  // the paper's Fig. 3 range
  uint32_t history = 8;
};

struct LocalityStats {
  uint64_t reads = 0;  // global read misses seen
  uint64_t redundant[kLocalityWindows] = {};
  uint64_t line_sharing[kLocalityWindows] = {};
  uint64_t data_sharing[kLocalityWindows] = {};
};

const config::Table<LocalityConfig>& locality_config_table();
const stats::StatTable<LocalityStats>& locality_stats_table();

class LocalityProbe final : public ClusterPortMechanism {
 public:
  LocalityProbe(const LocalityConfig& config, uint64_t core_period_ps);

  PortDecision on_request(uint32_t id, const InFlight& r, uint64_t now_ps) override;
  std::optional<MechanismCounters> counters() const override;

  const LocalityStats& stats() const { return stats_; }

 private:
  struct History {
    uint64_t cycle[kLocalityMaxHistory];
    uint32_t parts[kLocalityMaxHistory];
    uint32_t count = 0, next = 0;  // entries used; where the next one goes (a ring)
    uint64_t last = 0;             // newest cycle
  };
  void prune(uint64_t now);

  LocalityConfig config_;
  uint64_t core_period_ps_;
  uint64_t max_window_ = 0;
  std::unordered_map<uint64_t, History> lines_;
  uint64_t next_prune_ = 0;
  LocalityStats stats_;
};

}  // namespace warpsim::timing
