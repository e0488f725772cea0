#pragma once
// One CTA in the functional simulator: its warps, shared memory, per-thread
// local memory, and CTA barriers. run() executes every warp to completion,
// switching warps at barriers, and detects barrier deadlock.
#include <array>
#include <memory>
#include <optional>
#include <vector>

#include "functional/launch.h"
#include "functional/warp.h"

namespace warpsim::functional {

// Memory a CTA uses, owned by the executor and reused across CTAs so that a
// grid of many CTAs allocates once.
struct CtaBuffers {
  std::vector<uint8_t> shared;
  std::vector<uint8_t> local;
};

struct BarrierState {
  uint32_t arrived = 0;   // threads that arrived (warp granularity)
  uint32_t expected = 0;  // 0: every live thread of the CTA
  BarrierResult reduction;  // bar.red accumulators
  std::vector<Warp*> waiting;
};

class Cta {
 public:
  Cta(const LaunchContext& launch, Dim3 ctaid, CtaBuffers& buffers);

  // Runs the CTA to completion. Returns the first fault, if any.
  std::optional<ExecFault> run();

  const LaunchContext& launch() const { return launch_; }
  Dim3 ctaid() const { return ctaid_; }
  uint32_t num_threads() const { return num_threads_; }
  uint8_t* shared() { return buffers_.shared.data(); }
  uint64_t shared_size() const { return shared_size_; }
  // Thread `t`'s local memory (t = linear thread index in the CTA).
  uint8_t* local(uint32_t thread) { return buffers_.local.data() + size_t{thread} * local_size_; }
  uint64_t local_size() const { return local_size_; }
  uint32_t live_threads() const;

  // Barrier protocol, called by the bar/barrier handlers.
  // `expected`: participating threads (0: all live threads). `predicate`:
  // the lanes whose bar.red predicate is true (ignored for plain barriers).
  void arrive(Warp& warp, uint32_t id, uint32_t expected, bool wait, LaneMask active,
              LaneMask predicate);
  BarrierState& barrier(uint32_t id) { return barriers_[id]; }

  uint64_t warp_instructions() const;
  uint64_t thread_instructions() const;
  const std::vector<std::unique_ptr<Warp>>& warps() const { return warps_; }

 private:
  bool try_release(uint32_t id);

  const LaunchContext& launch_;
  Dim3 ctaid_;
  CtaBuffers& buffers_;
  uint32_t num_threads_;
  uint64_t shared_size_;
  uint64_t local_size_;
  std::vector<std::unique_ptr<Warp>> warps_;
  std::array<BarrierState, 16> barriers_{};
};

}  // namespace warpsim::functional
