#pragma once
// timing::Gpu: runs kernel launches cycle by cycle.
//
// It owns the SMs (grouped in clusters of sms_per_cluster, which share a
// network port in the memory system), the CTA scheduler and the memory below
// L1, and plugs into functional::Device as its grid runner: the launch is
// checked and set up by the functional layer, then launch() places CTAs on
// SMs as slots free up and ticks every busy SM each core cycle until the
// last CTA ends. Warps execute functionally at issue, so results are those
// of functional mode. When no SM can act before a known future cycle (all
// waiting on memory or long latencies), the loop jumps to that cycle
// (docs/architecture.md, "Time skips, results do not").
//
// A thread-block cluster (sm_90 cluster dimensions) larger than a GPC can
// hold at once cannot be co-scheduled: such a launch runs in the functional
// executor, and its cycles are estimated from its instruction count
// (counted in timing.functional_fallback_launches).
//
// Sampled launches (timing.sample, off by default; in the spirit of
// Avalos Baddouh et al.'s Principal Kernel Analysis, MICRO 2021): after
// sample_warmup cycles the launch measures its IPC over windows of
// sample_window cycles; once as many CTAs have ended as the first wave held
// and the IPCs of the last two blocks of sample_windows windows agree within
// sample_tolerance, it stops, provided the L2 is in one phase over both
// blocks and stays in it to the launch's end (l2_stays_as_measured: filling,
// replacing older launches' lines, or turned over). The CTAs on the SMs finish in the functional
// executor, then those never placed, and the launch's cycles are the
// simulated ones plus the warp instructions left divided by the two blocks'
// IPC plus half a CTA lifetime (the SMs emptying at the end), with a 95%
// confidence interval from the windows' spread. With
// timing.sample_last_wave = W, the last wave (all of a one-wave launch)
// may stop too, on a rule of its own (last_wave_steady: blocks that grow
// with the launch, no earlier than W windows), each SM then going on at its
// own pace until the busiest one is done. Program
// output is that of a full run; statistics other than cycles, instructions
// and CTAs cover the simulated part (timing.sampled_launches marks them).
// Fresh SMs replace the stopped ones, and the memory below L1 is drained of
// their requests, so the L2 keeps its contents for the next launch.
// Cluster and cooperative launches are always simulated in full.
//
// Scale-model sampling (timing.sample_ctas = N > 1): a launch runs about
// 1 in N of its CTAs (scale_sample) cycle by cycle on a second Gpu with 1/N
// of the SMs and memory partitions (scale_model() in sim_config.h), so each
// SM sees about the memory bandwidth, L2 slices and waves of CTAs it would
// on the full GPU; the other CTAs then run in the functional executor.
// The launch's cycles are the scale model's, with a 95%
// confidence interval from the spread of the simulated CTAs' work (as a
// sample of the grid's); a launch the full GPU would hold in one wave lasts
// at least as long as the longest CTA's instructions take at the pace of the
// heaviest simulated one. Launches whose CTAs can act on one another
// (KernelInfo::cta_interaction: atomics on shared addresses, flags),
// cluster and cooperative launches run on the full GPU (this one), whose
// memory keeps its own contents.
//
// Launch-level sampling (timing.sample_launches; launch_sampler.h) decides
// first: an estimated launch runs in the functional executor, the others as
// above.
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <vector>

#include "functional/device.h"
#include "functional/grid.h"
#include "functional/occupancy.h"
#include "timing/active_set.h"
#include "timing/cta/cta_scheduler.h"
#include "timing/cycle_workers.h"
#include "timing/launch_activity.h"
#include "timing/launch_sampler.h"
#include "timing/mechanisms.h"
#include "timing/memory/lower_memory.h"
#include "timing/memory/memory_system.h"
#include "timing/sim_config.h"
#include "timing/sm/sm.h"
#include "timing/sm/unit_class.h"

namespace warpsim::timing {

// What a launch returns: the functional outcome and the timing activity.
struct LaunchRun {
  functional::GridOutcome outcome;
  LaunchActivity activity;
};

class Gpu {
 public:
  // `mechanisms`: besides what the configuration names (mechanisms.h).
  explicit Gpu(const SimConfig& config, Mechanisms mechanisms = {});
  ~Gpu();

  // Runs the grid of `ctx` cycle by cycle. Occupancy comes from
  // ctx.config.resources when set (the runtime sets it: the carveout and
  // ptxas's register count), else from the [gpu] section and the kernel's
  // PTX registers.
  LaunchRun launch(functional::LaunchContext& ctx, const functional::ExecutorOptions& options,
                   functional::Dim3 cluster);
  // A grid runner for functional::Device::set_grid_runner that runs
  // launches here (their activity: last()).
  functional::Device::GridRunner grid_runner();

  // Calls `fn` with the running launch's activity so far (cycles included)
  // at the first cycle loop past every `interval` core cycles of a launch:
  // a power trace's samples. An empty `fn` (the default) costs one test
  // per loop.
  using Sampler = std::function<void(const LaunchActivity& so_far)>;
  void set_sampler(uint64_t interval, Sampler fn) {
    if (scale_model_) scale_model_->set_sampler(interval, fn);
    sample_interval_ = interval == 0 ? 1 : interval;
    sampler_ = std::move(fn);
  }

  // The last launch's activity, and the cycles of every launch so far.
  const LaunchActivity& last() const { return last_; }
  uint64_t total_cycles() const { return total_cycles_; }
  const SimConfig& config() const { return config_; }

 private:
  // The steps of one launch.
  struct Launch;
  LaunchRun simulate(functional::LaunchContext& ctx, const functional::ExecutorOptions& options,
                     functional::Dim3 cluster);
  // Launch-level sampling: a launch run in the functional executor, its
  // cycles estimated from its shape's simulated launches.
  LaunchRun run_estimated(functional::LaunchContext& ctx, const functional::ExecutorOptions& options);
  // The scale model of a Gpu (timing.sample_ctas): runs about 1 in
  // `stride` CTAs of its launches (scale_sample); 1: a GPU that runs them all.
  struct ScaleModel {
    uint32_t stride;
  };
  Gpu(const SimConfig& config, Mechanisms mechanisms, ScaleModel scale);
  // Whether a launch runs on the scale model (see above), and its run there.
  bool scale_sampled(const functional::LaunchContext& ctx, functional::Dim3 cluster) const;
  LaunchRun run_scale_model(functional::LaunchContext& ctx, const functional::ExecutorOptions& options);
  // On the scale model, after the simulated CTAs ended: the others run in
  // the functional executor, and the activity counts them.
  void finish_scale_sampled(Launch& l);
  // Both: the launch's outcome takes its counts from l.activity (which
  // already holds the functional part's) and the functional part's offload
  // counts and fault.
  void take_functional_part(Launch& l, functional::GridOutcome rest);

  void begin(Launch& l);
  bool place_ctas(Launch& l, uint64_t now);
  // Thread-block cluster launches: each cluster's CTAs all at once, on one
  // GPC (timing.gpu.sms_per_gpc) with room for them all.
  bool place_clusters(Launch& l, uint64_t now);
  bool all_placed(const Launch& l) const;
  uint64_t ctas_to_place(const Launch& l) const;
  // CTAs of the launch one SM holds at once (the occupancy calculator's answer).
  uint32_t ctas_per_sm(const functional::LaunchContext& ctx) const;
  functional::Occupancy occupancy(const functional::LaunchContext& ctx) const;
  // The SMs of the largest GPC.
  uint32_t gpc_size() const;
  bool tick_sms(Launch& l, uint64_t now);
  // After a cycle in which nothing happened: the cycle to continue at, or
  // false when the launch must stop (a deadlock or an internal error).
  bool sleep(Launch& l, uint64_t& now);
  void finish(Launch& l, uint64_t end);
  // Sampled simulation: at a window's end, whether the last windows' IPCs
  // agree (the launch may stop); and the stop at `stop`.
  bool steady(Launch& l, uint64_t now);
  bool last_wave_steady(Launch& l, uint64_t now, uint64_t instructions);
  bool l2_stays_as_measured(const Launch& l, uint64_t ended) const;
  void finish_sampled(Launch& l, uint64_t stop);
  // Lets the memory answer what is in flight, dropping the replies; returns
  // the cycle it fell idle (a memory that does not is rebuilt).
  uint64_t drain_memory(uint64_t now);
  void replace_sms();  // fresh SMs on the same memory
  bool report_progress(const Launch& l, uint64_t now) const;
  LaunchRun run_fallback(functional::LaunchContext& ctx, const functional::ExecutorOptions& options,
                         functional::Dim3 cluster);
  // A launch in the functional executor (fallback, estimated): its outcome
  // and instruction and CTA counts; then its `cycles` counted as the last
  // launch's.
  LaunchRun run_functionally(functional::LaunchContext& ctx, const functional::ExecutorOptions& options,
                             functional::Dim3 cluster);
  LaunchRun count_functional(LaunchRun& r, uint64_t cycles);
  void build();  // fresh SMs and memory
  std::vector<SmActivity> sm_snapshot() const;
  // The launch's counters from its start to `now`.
  LaunchActivity activity_since(const Launch& l, uint64_t now) const;
  // The execution unit of each instruction of `program`, computed once per
  // program.
  const std::vector<InstructionClass>& units_of(const functional::Program& program);

  SimConfig config_;
  Mechanisms mechanisms_;
  uint32_t stride_ = 1;                // on a scale model: about 1 in stride_ CTAs run here
  std::unique_ptr<Gpu> scale_model_;  // timing.sample_ctas > 1: where sampled launches run
  LaunchSampler launch_sampler_;      // timing.sample_launches
  std::unique_ptr<LowerMemory> memory_;
  MemorySystem* memory_system_ = nullptr;  // memory_ when it is the memory-system model
  std::vector<std::unique_ptr<Sm>> sms_;
  ActiveSet busy_sms_;  // SMs with a CTA or requests in flight
  // Parallel timing simulation (timing.threads): the host threads, made on
  // the first launch that may use them; and per cycle, the busy SMs grouped
  // by cluster (where each group starts in busy_sms_'s members) and what
  // each busy SM's cycle returned.
  std::unique_ptr<CycleWorkers> workers_;
  ThreadPacer pacer_;
  std::vector<uint32_t> groups_;
  // What each busy SM's tick of a cycle left (by its place in busy_sms_),
  // found on the thread that ticked it: the serial rest of the cycle only
  // reads these.
  struct SmTick {
    uint8_t active = 0;  // Sm::cycle's result
    uint8_t quiet = 0;   // Sm::quiescent
    uint8_t notice = 0;  // printf output or a fault to pass on
  };
  std::vector<SmTick> sm_ticks_;
  std::unique_ptr<CtaScheduler> cta_scheduler_;
  std::vector<uint32_t> free_slots_;
  std::vector<CtaAssignment> assignments_;
  struct ProgramUnits {
    uint64_t serial = 0;  // functional::Program::serial
    std::vector<InstructionClass> units;
  };
  std::vector<ProgramUnits> units_;
  LaunchActivity last_;
  uint64_t total_cycles_ = 0;
  uint64_t clock_ = 0;  // core cycles since the GPU was made
  uint64_t launches_ = 0;
  Sampler sampler_;
  uint64_t sample_interval_ = 1;
};

// Scale-model sampling: the CTAs (linear indices, ascending) a scale model
// of 1/`stride` runs of a grid of `grid` CTAs: one group of consecutive CTAs
// out of every `stride` groups (gpu.cpp says how groups are sized and
// picked), about 1 in `stride` CTAs in all.
std::vector<uint64_t> scale_sample(uint64_t grid, uint64_t stride);

// Scale-model sampling: the cycles a CTA of `warp_instructions` would live,
// from the lifetimes of the simulated CTAs of the same launch (a line fitted
// through them; gpu.cpp says when it falls back); 0 when none ran.
uint64_t cta_lifetime(std::span<const Sm::CtaWork> simulated, uint64_t warp_instructions);

// Sampled simulation of a launch's last wave: a CTA on the SMs when the
// launch stopped, the SM it runs on, the warp instructions it issued in the
// measured windows and those it had left.
struct CtaPace {
  uint32_t sm = 0;
  uint64_t instructions = 0;
  uint64_t left = 0;
};
// The cycles until the last SM of `ctas` is done (gpu.cpp says how each SM
// goes on from its pace over the `cycles` measured); `fallback_ipc`: the
// warp instructions per cycle per CTA where no SM issued in them.
double last_wave_cycles(std::span<const CtaPace> ctas, uint64_t cycles, double fallback_ipc);

// The SM resources of the [gpu] section (no carveout).
functional::SmResources sm_resources(const GpuConfig& gpu);

}  // namespace warpsim::timing
