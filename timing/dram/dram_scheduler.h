#pragma once
// DRAM scheduling policies: which queued request's next command issues in a
// command cycle. DramChannel (dram_channel.cpp) owns one, chosen by
// DramConfig::scheduler from dram_schedulers().
//
// The channel does the DRAM work: for every queued request, oldest first, it
// works out the next command (RD/WR on a row hit, PRE when another row is
// open, ACT when the bank is closed) and the earliest cycle at which that
// command satisfies every timing bound. A policy only chooses among those
// candidates, so it never needs to know a timing parameter.
//
// Adding a policy: one file with a class deriving from DramScheduler and its
// factory, one line in dram_schedulers.def and one in timing/CMakeLists.txt.
#include <cstdint>
#include <memory>
#include <span>

#include "common/registry.h"
#include "timing/dram/dram_channel.h"

namespace warpsim::timing {

enum class DramCommand : uint8_t { Activate, Precharge, Read, Write };

constexpr bool is_column_command(DramCommand c) {
  return c == DramCommand::Read || c == DramCommand::Write;
}

// One queued request as a policy sees it.
struct DramCandidate {
  uint64_t ready = 0;           // earliest cycle its command meets every timing bound
  uint32_t bank = 0;
  uint32_t bank_rank = 0;       // older queued requests to the same bank (0: the bank's oldest)
  DramCommand command = DramCommand::Activate;
  bool open_row_wanted = false; // the bank's open row still has queued requests (row hits)
};

// Contract: both methods are pure functions of their arguments (a policy may
// keep configuration but no state that changes between calls), so the
// channel can ask next_issue() at any time without disturbing pick().
// `queue` lists the queued requests in arrival order, oldest first.
class DramScheduler {
 public:
  virtual ~DramScheduler() = default;
  // The index in `queue` of the request whose command issues at `now`
  // (its `ready` <= now), or -1 when none may issue.
  virtual int pick(std::span<const DramCandidate> queue, uint64_t now) const = 0;
  // The earliest cycle > now at which pick() would return a request if the
  // channel's state did not change; UINT64_MAX when never. Must not be later
  // than the true cycle (an earlier one only costs a wasted tick).
  virtual uint64_t next_issue(std::span<const DramCandidate> queue, uint64_t now) const = 0;
};

using DramSchedulerRegistry = Registry<std::unique_ptr<DramScheduler> (*)(const DramConfig&)>;
// The policies, in the order the docs list them (dram_schedulers.def).
const DramSchedulerRegistry& dram_schedulers();

}  // namespace warpsim::timing
