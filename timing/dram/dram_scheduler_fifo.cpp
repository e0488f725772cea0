// "fifo": requests to one bank are served strictly in arrival order (only a
// bank's oldest request is eligible); banks work in parallel, and among the
// eligible requests whose next command can issue now the oldest wins.
//
// This is the per-bank reading of first-come-first-served: an ACT or PRE for
// a bank's oldest request never waits behind another bank's request. Row hits
// of younger requests to the same bank wait their turn, which is what FR-FCFS
// changes.
#include <algorithm>
#include <cstdint>

#include "timing/dram/dram_scheduler.h"

namespace warpsim::timing {
namespace {

class FifoScheduler final : public DramScheduler {
 public:
  int pick(std::span<const DramCandidate> queue, uint64_t now) const override {
    for (size_t i = 0; i < queue.size(); ++i)
      if (queue[i].bank_rank == 0 && queue[i].ready <= now) return static_cast<int>(i);
    return -1;
  }

  uint64_t next_issue(std::span<const DramCandidate> queue, uint64_t now) const override {
    uint64_t next = UINT64_MAX;
    for (const DramCandidate& c : queue)
      if (c.bank_rank == 0) next = std::min(next, std::max(c.ready, now + 1));
    return next;
  }
};

}  // namespace

std::unique_ptr<DramScheduler> make_fifo_dram_scheduler(const DramConfig& /*config*/) {
  return std::make_unique<FifoScheduler>();
}

}  // namespace warpsim::timing
