#pragma once
// Warp scheduling policies: the order in which one warp scheduler of an SM
// considers its warps for issue each cycle. The SM issues the first warp in
// that order that can issue (instruction buffered, no hazard, unit free).
//
// A policy sees its warps' slot numbers ("oldest first" is launch order,
// the order the SM adds warps in) and, through WarpViews, a read-only view
// of each warp: its next instruction, that instruction's annotations from the
// compiler passes, and why the warp did not issue when last considered.
// Events tell it what happened: a warp issued, stalled on something slow, or
// finished.
//
// Policies are chosen by [timing.sm] warp_policy from warp_policies()
// (warp_policies.def). Adding one: its own file with its class and factory,
// one line in warp_policies.def and one in timing/CMakeLists.txt; the
// contract tests (tests/timing/warp_policy_test.cpp) run it.
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <vector>

#include "common/registry.h"
#include "functional/program.h"
#include "timing/sm/sm_stats.h"
#include "timing/timing_config.h"

namespace warpsim::timing {

// One warp as a policy sees it.
struct WarpView {
  // The next instruction when it is in the warp's instruction buffer (null
  // while it is being fetched).
  const functional::DecodedInst* next = nullptr;
  // What the compiler passes noted about that instruction (null with
  // `next`; ptx/annotation.h).
  const ptx::Annotation* annotation = nullptr;
  // Why the warp did not issue when last considered (Issued: it did).
  IssueSlot stall = IssueSlot::Fetch;
  uint64_t instructions = 0;  // warp instructions it issued so far
  uint32_t cta_slot = 0;      // its CTA's slot on the SM (warps of one CTA share it)
};

// The SM's warps, read-only, by slot number.
class WarpViews {
 public:
  virtual WarpView view(uint32_t warp) const = 0;

 protected:
  ~WarpViews() = default;
};

class WarpSchedulerPolicy {
 public:
  virtual ~WarpSchedulerPolicy() = default;
  // `warps`: the scheduler's warps, oldest first. Clears and fills `order`
  // with the warps to consider this cycle, highest priority first: each at
  // most once, only warps of `warps`, at least one when `warps` is not empty.
  virtual void order(std::span<const uint32_t> warps, const WarpViews& views, std::vector<uint32_t>& order) = 0;
  virtual void issued(uint32_t /*warp*/) {}
  // The warp waits for something slow: a memory result, a fence or a
  // barrier (the other warps must be able to reach it). Returns whether the
  // policy's state changed (the SM must not skip the next cycle then).
  virtual bool long_latency_stall(uint32_t /*warp*/) { return false; }
  // The warp finished and left the scheduler.
  virtual void removed(uint32_t /*warp*/) {}
};

// Factories get the SM's configuration and its warp slots (ids are below
// max_warps).
using WarpPolicyRegistry =
    Registry<std::unique_ptr<WarpSchedulerPolicy> (*)(const SmConfig& config, uint32_t max_warps)>;
// The policies, in the order the docs list them.
const WarpPolicyRegistry& warp_policies();
// A policy's maker: a registered factory, or one a study or a test supplies.
using WarpPolicyMaker = std::function<std::unique_ptr<WarpSchedulerPolicy>(const SmConfig&, uint32_t max_warps)>;

// Fills `order` with `warps` rotated to start after `last` (at the front
// when `last` is not among them): round-robin from the last warp served.
void rotate_after(std::span<const uint32_t> warps, uint32_t last, std::vector<uint32_t>& order);

}  // namespace warpsim::timing
