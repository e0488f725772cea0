#pragma once
// Warp scheduling policies: the order in which one scheduler considers its
// warps for issue each cycle. The SM issues the first warp in that order
// that can issue (instruction ready, no hazard, unit free).
//
// Policies, chosen by [timing.sm] warp_policy:
//   lrr           loose round-robin: start after the warp that issued last
//   gto           greedy-then-oldest: the warp that issued last, then oldest first
//   oldest-first  oldest first, always
//   two-level     an active pool of `two_level_active` warps, served
//                 round-robin; a warp stalled on a long-latency result (or
//                 waiting at a barrier or fence) leaves the pool for the
//                 back of the pending queue, and
//                 pending warps fill free places in order (Narasimhan et al.,
//                 MICRO'11; GPGPU-Sim's two_level_active scheduler)
// Warp ids are the SM's warp slots; "oldest" is launch order, which is the
// order the SM adds warps in.
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "timing/timing_config.h"

namespace warpsim::timing {

class WarpSchedulerPolicy {
 public:
  virtual ~WarpSchedulerPolicy() = default;
  // `warps`: the scheduler's warps, oldest first. Clears and fills `order`
  // with the warps to consider this cycle, highest priority first.
  virtual void order(std::span<const uint32_t> warps, std::vector<uint32_t>& order) = 0;
  virtual void issued(uint32_t /*warp*/) {}
  // The warp waits for something slow: a memory result, a fence or a
  // barrier (the other warps must be able to reach it). Returns whether the
  // policy's state changed (the SM must not skip the next cycle then).
  virtual bool long_latency_stall(uint32_t /*warp*/) { return false; }
  // The warp finished and left the scheduler.
  virtual void removed(uint32_t /*warp*/) {}
};

// `max_warps`: the SM's warp slots (ids are below it).
std::unique_ptr<WarpSchedulerPolicy> make_warp_policy(const SmConfig& config, uint32_t max_warps);

}  // namespace warpsim::timing
