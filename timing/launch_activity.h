#pragma once
// What one kernel launch did in the timing model: every component's counters
// for that launch (the difference of snapshots taken before and after it),
// per SM and summed, and the memory below L1. Gpu::launch returns it;
// publish() turns it into statistics through the components' tables
// (common/stat_table.h), and an energy model can price the same counters.
#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

#include "common/stat_table.h"
#include "common/stats.h"
#include "functional/grid.h"
#include "functional/occupancy.h"
#include "timing/cache/sectored_cache.h"
#include "timing/memory/memory_activity.h"
#include "timing/sm/sm_stats.h"

namespace warpsim::timing {

// One SM's counters.
struct SmActivity {
  SmStats sm;
  CacheCounters l1d, l1i, constant;
};

// How a launch's cycles were found: simulated whole, or by which scheme of
// sampled simulation (docs/run.md, "Sampled simulation").
enum class Sampling : uint8_t {
  None,          // simulated cycle by cycle to its end
  Extrapolated,  // timing.sample: cut short once its IPC was steady
  ScaleModel,    // timing.sample_ctas: 1 in N CTAs on a GPU of 1/N the size
  Estimated,     // timing.sample_launches: not simulated; the IPC of its shape's last launch
};
// "extrapolated", "scale-model", "estimated"; "" for None.
std::string_view to_string(Sampling s);

struct LaunchActivity {
  uint64_t cycles = 0;              // core cycles from the launch to its last CTA's end
  uint64_t fallback_launches = 0;   // 1: the launch ran in the functional executor (see gpu.h)
  uint64_t index = 0;               // launches of this GPU before this one
  // Sampled simulation (gpu.h): cycles and instructions cover the whole
  // launch; every other counter only its simulated part.
  uint64_t sampled_launches = 0;    // 1: the launch was sampled
  Sampling sampling = Sampling::None;  // how (a launch's own: not a counter, sums leave it)
  uint64_t simulated_cycles = 0;    // the cycles simulated (all of them when not sampled)
  uint64_t simulated_ctas = 0;      // the CTAs placed on an SM (all of them when not sampled)
  uint64_t cycles_ci95 = 0;         // half-width of the 95% confidence interval of `cycles`
  uint64_t unsimulated_warp_instructions = 0;  // warp instructions run functionally
  uint32_t ctas_per_sm = 0;         // occupancy limit M
  functional::OccupancyLimit occupancy_limit = functional::OccupancyLimit::None;
  uint32_t max_warps = 0;           // warp slots of one SM
  std::vector<std::pair<uint64_t, uint32_t>> cta_trace;  // (CTA, SM) when timing.cta_trace is on
  std::vector<SmActivity> sms;      // per SM
  SmStats sm;                       // summed over the SMs
  CacheCounters l1d, l1i, constant;
  bool has_memory_system = false;   // `memory` is filled (the memory-system model)
  MemoryActivity memory;

  bool fallback() const { return fallback_launches != 0; }
};

// Where the GPU's, the SMs' and their caches' counters are published.
inline constexpr stats::Instance kGpuStats{"timing"};
inline constexpr stats::Instance kSmStats{"timing"};
inline constexpr stats::Instance kL1dStats{"timing.l1d", "L1D"};
inline constexpr stats::Instance kL1iStats{"timing.l1i", "L1I"};
inline constexpr stats::Instance kConstantCacheStats{"timing.constant", "L1C"};

// The GPU-level figures (GPGPU-Sim's gpu_sim_cycle, gpu_ipc, gpu_tot_* ...).
// Table: launch_activity.cpp.
const stats::StatTable<LaunchActivity>& launch_stats_table();

// Sums the per-SM counters of `a` into its totals.
void sum_sms(LaunchActivity& a);

// Publishes one launch: GPU-level figures, the SMs' and their caches'
// counters (summed, and per SM at timing.sm.N), the memory below L1, and the
// CTA placements when traced. Headline figures keep GPGPU-Sim's names.
// PublishDetail::Totals leaves out the per-instance figures and the trace.
void publish(StatsRegistry& stats, const LaunchActivity& launch, PublishDetail detail = PublishDetail::All);

}  // namespace warpsim::timing
