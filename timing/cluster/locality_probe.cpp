// The intra-cluster locality probe (locality_probe.h).
#include "timing/cluster/locality_probe.h"

#include <algorithm>
#include <memory>
#include <string>

#include "timing/cluster/port_mechanism_registry.h"

namespace warpsim::timing {

namespace {
constexpr const char* kWindowNames[kLocalityWindows] = {"window_0", "window_1", "window_2", "window_3"};
}  // namespace

const config::Table<LocalityConfig>& locality_config_table() {
  static const config::Table<LocalityConfig> table = [] {
    using C = LocalityConfig;
    config::Table<C> t(
        "Cluster-port mechanism locality: intra-cluster locality (ICL) of global read misses over four cycle "
        "windows (Wang et al., IEEE TC 2019, sec. 3.3)");
    t.int_array("windows", &C::windows, "core cycles",
                "the windows: a read is redundant for window w when the cluster read its line within the last w "
                "cycles (published as window_0..window_3)")
        .range(1, 100'000'000);
    t.integer("history", &C::history, "reads",
              "reads remembered per line for the data-sharing test (the newest ones)")
        .range(1, kLocalityMaxHistory);
    return t;
  }();
  return table;
}

const stats::StatTable<LocalityStats>& locality_stats_table() {
  static const stats::StatTable<LocalityStats> table = [] {
    using S = LocalityStats;
    stats::StatTable<S> t(
        "Intra-cluster locality (cluster-port mechanism locality, summed over the clusters); window_k is "
        "[timing.cluster.locality] windows[k]");
    t.counter("reads", &S::reads, "requests", "global read misses the clusters sent toward the network");
    static const char* const redundant[] = {"redundant within windows[0] cycles", "within windows[1]",
                                            "within windows[2]", "within windows[3]"};
    static const char* const line[] = {"redundant, other bytes of the line (line sharing), windows[0]",
                                       "line sharing, windows[1]", "line sharing, windows[2]",
                                       "line sharing, windows[3]"};
    static const char* const data[] = {"redundant, bytes read before (data sharing), windows[0]",
                                       "data sharing, windows[1]", "data sharing, windows[2]",
                                       "data sharing, windows[3]"};
    t.counters("redundant", &S::redundant, kWindowNames, redundant, "requests");
    t.counters("line_sharing", &S::line_sharing, kWindowNames, line, "requests");
    t.counters("data_sharing", &S::data_sharing, kWindowNames, data, "requests");
    const std::string p = "timing.cluster.locality.";
    for (size_t w = 0; w < kLocalityWindows; ++w) {
      const std::string window = kWindowNames[w];
      t.run_ratio("icl." + window, p + "redundant." + window, p + "reads", "fraction",
                  "ICL: redundant / reads, windows[" + std::to_string(w) + "]");
      t.run_ratio("icl_line_sharing." + window, p + "line_sharing." + window, p + "reads", "fraction",
                  "line-sharing part of ICL, windows[" + std::to_string(w) + "]");
      t.run_ratio("icl_data_sharing." + window, p + "data_sharing." + window, p + "reads", "fraction",
                  "data-sharing part of ICL, windows[" + std::to_string(w) + "]");
    }
    return t;
  }();
  return table;
}

LocalityProbe::LocalityProbe(const LocalityConfig& config, uint64_t core_period_ps)
    : config_(config), core_period_ps_(core_period_ps) {
  config_.history = std::clamp<uint32_t>(config_.history, 1, kLocalityMaxHistory);
  for (uint32_t w : config_.windows) max_window_ = std::max<uint64_t>(max_window_, w);
}

PortDecision LocalityProbe::on_request(uint32_t, const InFlight& r, uint64_t now_ps) {
  if (!is_global_load(r.request)) return PortDecision::forward();
  const uint64_t now = now_ps / core_period_ps_;
  ++stats_.reads;
  History& h = lines_[r.l2_line];
  for (size_t w = 0; w < kLocalityWindows; ++w) {
    bool seen = false, shared = false;
    for (uint32_t k = 0; k < h.count; ++k) {
      if (now - h.cycle[k] > config_.windows[w]) continue;
      seen = true;
      shared |= (h.parts[k] & r.request.parts) != 0;
    }
    if (!seen) continue;
    ++stats_.redundant[w];
    ++(shared ? stats_.data_sharing : stats_.line_sharing)[w];
  }
  h.cycle[h.next] = now;
  h.parts[h.next] = r.request.parts;
  h.next = (h.next + 1) % config_.history;
  h.count = std::min(h.count + 1, config_.history);
  h.last = now;
  if (now >= next_prune_) prune(now);
  return PortDecision::forward();
}

// Lines not read within the largest window can never make a read redundant.
void LocalityProbe::prune(uint64_t now) {
  std::erase_if(lines_, [&](const auto& kv) { return now - kv.second.last > max_window_; });
  next_prune_ = now + max_window_;
}

std::optional<MechanismCounters> LocalityProbe::counters() const {
  return counters_of(mechanism_prefix("locality"), locality_stats_table(), stats_);
}

std::unique_ptr<ClusterPortMechanism> make_locality_probe(const PortContext& context) {
  return std::make_unique<LocalityProbe>(context.section<LocalityConfig>("locality"), context.core_period_ps);
}

}  // namespace warpsim::timing
