#pragma once
// One CTA in the functional simulator: its warps, shared memory, per-thread
// local memory, and CTA barriers. run() executes warps round-robin, each for
// up to a quantum of instructions or until it blocks at a barrier, so warps
// that wait for each other through memory (spin loops, mbarriers) make
// progress; it detects barrier deadlock and can stop after a budget of
// instructions, so CTAs that must be co-resident (cooperative launches) can
// be interleaved.
#include <array>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "functional/launch.h"
#include "functional/warp.h"

namespace warpsim::functional {

// Memory a CTA uses, owned by the executor and reused across CTAs so that a
// grid of many CTAs allocates once.
// Zero-filled host memory that grows on demand. Large blocks come from calloc,
// which maps fresh pages, so 16 KiB of stack per thread costs host memory
// only where a kernel touches it.
class HostBuffer {
 public:
  void reserve(size_t bytes);  // keeps the contents when big enough
  uint8_t* data() { return data_.get(); }
  size_t size() const { return size_; }

 private:
  struct Free {
    void operator()(uint8_t* p) const { std::free(p); }
  };
  std::unique_ptr<uint8_t, Free> data_;
  size_t size_ = 0;
};

struct CtaBuffers {
  std::vector<uint8_t> shared;
  HostBuffer local;
  TranslationCache memory_cache;  // one per executing thread (DeviceMemory contract)
};

enum class CtaStatus : uint8_t { Done, Fault, Budget };

struct BarrierState {
  uint32_t arrived = 0;   // threads that arrived (warp granularity)
  uint32_t expected = 0;  // 0: every live thread of the CTA
  BarrierResult reduction;  // bar.red accumulators
  std::vector<Warp*> waiting;
};

class Cta {
 public:
  Cta(const LaunchContext& launch, Dim3 ctaid, CtaBuffers& buffers);

  // Runs the CTA until every warp is done, a warp faults (fault() tells
  // which), or about `budget` warp instructions have run (Budget: call again
  // to continue). Each warp runs up to `quantum` instructions per turn.
  CtaStatus run(uint64_t budget = UINT64_MAX, uint32_t quantum = 4096);
  const std::optional<ExecFault>& fault() const { return fault_; }
  // The warp that raised fault().
  uint32_t faulting_warp() const { return faulting_warp_; }

  // Device printf output: passed on at once, or kept until take_printed()
  // when the launch buffers output per CTA (parallel execution).
  void print(const std::string& text);
  std::string take_printed() { return std::move(printed_); }
  TranslationCache& memory_cache() { return buffers_.memory_cache; }

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
  std::optional<ExecFault> fault_;
  uint32_t faulting_warp_ = 0;
  std::string printed_;
};

}  // namespace warpsim::functional
