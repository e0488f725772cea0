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
  // Register files of the warps of CTAs that ended, handed to the next CTA's
  // warps: allocating them afresh for every CTA page-faulted them in again
  // (a kernel of 500 virtual registers has 128 KiB per warp, which the host's
  // malloc maps and unmaps each time): 10x the time of sdk/scan.
  std::vector<std::vector<uint64_t>> spare_registers;
};

enum class CtaStatus : uint8_t { Done, Fault, Budget };

class Cta;

// The CTAs of a thread-block cluster (sm_90), which run co-resident: their
// shared memories are reachable from each other (mapa, shared::cluster) and
// barrier.cluster synchronises all their threads. A launch without clusters
// gives every CTA a cluster of its own.
struct Cluster {
  std::vector<Cta*> ctas;                // by rank
  std::array<uint32_t, 3> dims{1, 1, 1};
  uint32_t barrier_phase = 0;            // completed barrier.cluster phases
  uint32_t barrier_arrived = 0;          // threads arrived in the current phase
  // Completes the current phase when every live thread has arrived.
  void try_complete_barrier();
};

struct BarrierState {
  uint32_t arrived = 0;   // threads that arrived (warp granularity)
  uint32_t expected = 0;  // 0: every live thread of the CTA
  BarrierResult reduction;  // bar.red accumulators
  std::vector<Warp*> waiting;
};

class Cta {
 public:
  // `cluster` (with this CTA at `rank`) is null for a CTA that is its own cluster.
  Cta(const LaunchContext& launch, Dim3 ctaid, CtaBuffers& buffers, Cluster* cluster = nullptr,
      uint32_t rank = 0);
  ~Cta();  // hands the warps' register files back to the buffers
  Cta(const Cta&) = delete;
  Cta& operator=(const Cta&) = delete;

  // Runs the CTA until every warp is done, a warp faults (fault() tells
  // which), or about `budget` warp instructions have run (Budget: call again
  // to continue). Each warp runs up to `quantum` instructions per turn.
  CtaStatus run(uint64_t budget = UINT64_MAX, uint32_t quantum = 4096);
  const std::optional<ExecFault>& fault() const { return fault_; }
  // The warp that raised fault().
  uint32_t faulting_warp() const { return faulting_warp_; }

  // Device printf output (one record): passed on at once, or kept until
  // take_printed() when the launch buffers output per CTA (parallel execution),
  // or added to the sink its timing SM set (null: none), which the GPU passes
  // on at the end of each cycle, in SM order, whatever thread ticked the SM.
  void print(std::string_view text, uint64_t record_bytes);
  PrintedRecords take_printed() { return std::move(printed_); }
  void set_print_sink(PrintedRecords* sink) { print_sink_ = sink; }
  TranslationCache& memory_cache() { return buffers_.memory_cache; }

  Cluster& cluster() { return *cluster_; }
  uint32_t cluster_rank() const { return cluster_rank_; }
  // The CTA of this cluster with the given rank, or null.
  Cta* cluster_peer(uint64_t rank) {
    return rank < cluster_->ctas.size() ? cluster_->ctas[rank] : nullptr;
  }

  const LaunchContext& launch() const { return launch_; }
  Dim3 ctaid() const { return ctaid_; }
  uint32_t num_threads() const { return num_threads_; }
  uint8_t* shared() { return buffers_.shared.data(); }
  uint64_t shared_size() const { return shared_size_; }
  // Where the system-reserved region starts (it ends at shared_size()).
  uint64_t reserved_shared_begin() const { return reserved_shared_begin_; }
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
  // Releases every barrier whose participants have all arrived (threads that
  // exited since no longer hold one up); true when one was released.
  bool release_barriers();
  // When no warp can move: records a BarrierDeadlock fault for the first
  // barrier with waiters (true), or finds none (false).
  bool raise_barrier_deadlock();
  // Records a fault raised by one of this CTA's warps (the timing model
  // steps warps itself).
  void set_fault(const ExecFault& fault, uint32_t warp) {
    fault_ = fault;
    faulting_warp_ = warp;
  }

  uint64_t warp_instructions() const;
  uint32_t sm = 0;  // the SM running this CTA (%smid); 0 in functional mode
  uint64_t thread_instructions() const;
  OffloadCounts offload_counts() const;
  const std::vector<std::unique_ptr<Warp>>& warps() const { return warps_; }

 private:
  template <bool kCountOffload>
  CtaStatus run_as(uint64_t budget, uint32_t quantum);
  bool try_release(uint32_t id);

  const LaunchContext& launch_;
  Dim3 ctaid_;
  CtaBuffers& buffers_;
  uint32_t num_threads_;
  uint64_t shared_size_;
  uint64_t reserved_shared_begin_;
  uint64_t local_size_;
  std::vector<std::unique_ptr<Warp>> warps_;
  std::array<BarrierState, 16> barriers_{};
  Cluster own_cluster_;  // used when the CTA is not part of a larger cluster
  Cluster* cluster_;
  uint32_t cluster_rank_;
  std::optional<ExecFault> fault_;
  uint32_t faulting_warp_ = 0;
  PrintedRecords printed_;
  PrintedRecords* print_sink_ = nullptr;
};

}  // namespace warpsim::functional
