// "fr-fcfs" (first-ready, first-come-first-served; Rixner et al., ISCA 2000):
// the oldest request whose RD/WR hits the open row and can issue now goes
// first; otherwise the oldest request whose ACT or PRE can issue now. A PRE
// never closes a row that queued requests still hit, so a row's hits drain
// before it is closed (a steady stream of hits can therefore delay a
// conflicting request indefinitely, as on the real policy).
#include <algorithm>
#include <cstdint>

#include "timing/dram/dram_scheduler.h"

namespace warpsim::timing {
namespace {

// A PRE would close a row that queued requests are about to hit.
bool held_back(const DramCandidate& c) {
  return c.command == DramCommand::Precharge && c.open_row_wanted;
}

class FrFcfsScheduler final : public DramScheduler {
 public:
  int pick(std::span<const DramCandidate> queue, uint64_t now) const override {
    int oldest_other = -1;
    for (size_t i = 0; i < queue.size(); ++i) {
      const DramCandidate& c = queue[i];
      if (c.ready > now) continue;
      if (is_column_command(c.command)) return static_cast<int>(i);  // oldest ready row hit
      if (oldest_other < 0 && !held_back(c)) oldest_other = static_cast<int>(i);
    }
    return oldest_other;
  }

  uint64_t next_issue(std::span<const DramCandidate> queue, uint64_t now) const override {
    uint64_t next = UINT64_MAX;
    for (const DramCandidate& c : queue)
      if (!held_back(c)) next = std::min(next, std::max(c.ready, now + 1));
    return next;
  }
};

}  // namespace

std::unique_ptr<DramScheduler> make_frfcfs_dram_scheduler(const DramConfig& /*config*/) {
  return std::make_unique<FrFcfsScheduler>();
}

}  // namespace warpsim::timing
