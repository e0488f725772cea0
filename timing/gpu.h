#pragma once
// timing::Gpu: runs kernel launches cycle by cycle.
//
// It owns the SMs (grouped in clusters of sms_per_cluster), the CTA
// scheduler and the memory below L1, and plugs into functional::Device as its
// grid runner: the launch is checked and set up by the functional layer, then
// run() places CTAs on SMs as slots free up and ticks every SM each core
// cycle until the last CTA ends. Warps execute functionally at issue, so
// results are those of functional mode. When no SM can act before a known
// future cycle (all waiting on memory or long latencies), the loop jumps to
// that cycle (ARCHITECTURE.md §5).
//
// Launches with thread-block clusters (sm_90 cluster dimensions) need their
// CTAs co-scheduled, which this model does not do yet: they run in the
// functional executor, and their cycles are estimated from their instruction
// count (counted in timing.functional_fallback_launches).
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/stats.h"
#include "functional/grid.h"
#include "functional/occupancy.h"
#include "timing/active_set.h"
#include "timing/cta/cta_scheduler.h"
#include "timing/memory/lower_memory.h"
#include "timing/memory/memory_system.h"
#include "timing/sim_config.h"
#include "timing/sm/sm.h"

namespace warpsim::timing {

// What one launch did, summed over the SMs.
struct LaunchTiming {
  uint64_t cycles = 0;
  uint64_t ctas = 0;
  uint32_t ctas_per_sm = 0;  // occupancy limit M
  functional::OccupancyLimit occupancy_limit = functional::OccupancyLimit::None;
  SmStats sm;                // summed
  CacheCounters l1d, l1i, constant;
  uint64_t sm_cycles = 0;    // cycles * SMs
  uint64_t max_warps = 0;    // warp slots of one SM
  bool fallback = false;     // ran in the functional executor (see above)
  std::vector<std::pair<uint64_t, uint32_t>> cta_trace;  // (CTA, SM) when cta_trace is on
  MemoryTotals memory;       // below L1 (memory-system model only)
  // Achieved occupancy: average resident warps over the cycles an SM had
  // work, as a fraction of its warp slots.
  double occupancy() const;
};

class Gpu {
 public:
  explicit Gpu(const SimConfig& config);
  ~Gpu();

  // Occupancy inputs of the next launch: the SM's resources (with the
  // kernel's shared-memory carveout) and the kernel's registers per thread.
  // Without this call, run() derives them from the [gpu] section and the
  // kernel's PTX register count.
  void prepare_launch(const functional::SmResources& resources, uint32_t regs_per_thread);

  // The grid runner (functional::Device::set_grid_runner).
  functional::GridOutcome run(functional::LaunchContext& ctx, const functional::ExecutorOptions& options,
                              functional::Dim3 cluster);

  const LaunchTiming& last() const { return last_; }
  uint64_t total_cycles() const { return total_cycles_; }
  // Adds the last launch to `stats`: GPGPU-Sim's headline names (gpu_sim_cycle,
  // gpu_ipc, gpu_tot_sim_cycle, L1D_total_cache_*, ...) and timing.* details.
  void publish(StatsRegistry& stats) const;
  const SimConfig& config() const { return config_; }

 private:
  void build();  // fresh SMs and memory
  template <class CacheFn>
  void publish_memory(StatsRegistry& stats, CacheFn& cache) const;
  functional::GridOutcome run_fallback(functional::LaunchContext& ctx,
                                       const functional::ExecutorOptions& options, functional::Dim3 cluster);

  SimConfig config_;
  std::unique_ptr<LowerMemory> memory_;
  MemorySystem* memory_system_ = nullptr;  // memory_ when it is the memory-system model
  std::vector<std::unique_ptr<Sm>> sms_;
  ActiveSet busy_sms_;  // SMs with a CTA or requests in flight
  std::unique_ptr<CtaScheduler> cta_scheduler_;
  std::vector<uint32_t> free_slots_;
  std::vector<CtaAssignment> assignments_;
  bool prepared_ = false;
  functional::SmResources resources_;
  uint32_t regs_per_thread_ = 0;
  LaunchTiming last_;
  uint64_t total_cycles_ = 0;
  uint64_t clock_ = 0;  // core cycles since the GPU was made
  uint64_t launches_ = 0;
};

// The SM resources of the [gpu] section (no carveout).
functional::SmResources sm_resources(const GpuConfig& gpu);

}  // namespace warpsim::timing
