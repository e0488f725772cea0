// timing::Gpu: a launch's steps - begin, the cycle loop (place CTAs, tick the
// busy SMs, sleep through idle cycles), finish - and its activity.
#include "timing/gpu.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>

#include "common/invariant.h"
#include "common/signal_name.h"
#include "timing/confidence.h"
#include "timing/memory/fixed_latency_memory.h"
#include "timing/memory/memory_system.h"

namespace warpsim::timing {

using functional::Dim3;
using functional::GridOutcome;

namespace {

functional::ExecFault launch_fault(functional::FaultKind kind, std::string message) {
  functional::ExecFault f;
  f.fault.kind = kind;
  f.message = std::move(message);
  f.fault.detail = f.message;
  return f;
}

}  // namespace

functional::SmResources sm_resources(const GpuConfig& g) {
  functional::SmResources r;
  r.warp_size = g.warp_size;
  r.max_threads_per_sm = g.max_threads_per_sm;
  r.max_ctas_per_sm = g.max_ctas_per_sm;
  r.max_threads_per_block = g.max_threads_per_block;
  r.regs_per_sm = g.regs_per_sm;
  r.regs_per_block = g.regs_per_block;
  r.reg_alloc_unit = g.reg_alloc_unit;
  r.shared_per_sm = g.shared_mem_per_sm;
  r.shared_per_block_max = g.shared_mem_per_block_optin;
  r.reserved_shared_per_block = g.reserved_shared_mem_per_block;
  r.shared_alloc_unit = static_cast<uint32_t>(g.shared_mem_alloc_unit);
  return r;
}

// The state of one launch while it runs.
struct Gpu::Launch {
  Launch(functional::LaunchContext& c, const functional::ExecutorOptions& o) : ctx(c), options(o) {}

  functional::LaunchContext& ctx;
  const functional::ExecutorOptions& options;
  GridOutcome out;
  LaunchActivity activity;
  std::vector<SmActivity> before;  // the SMs' counters when the launch began
  MemoryActivity memory_before;
  uint64_t start = 0;        // the core cycle the launch began at
  uint64_t since_start = 0;  // what %clock reads (ctx.cycle points here)
  uint64_t next_watchdog = 0;
  uint64_t next_sample = 0;  // the cycle of the next sampler call
  uint32_t stuck = 0;        // consecutive cycles in which nothing could happen
  // Thread-block clusters (clusters == 0: a launch without them).
  Dim3 cluster_dims{1, 1, 1};
  uint64_t clusters = 0;
  uint64_t next_cluster = 0;  // the next cluster to place
  uint32_t next_gpc = 0;      // where the search for room starts (round-robin)
  std::vector<std::unique_ptr<functional::Cluster>> cluster_state;  // by cluster, while the launch runs
  // Sampled simulation: whether this launch may stop early, the window being
  // measured, and the last two blocks of timing.sample_windows windows (warp
  // instructions, cycles).
  bool sampling = false;
  // Whether the SMs may tick on several host threads: only when no CTA can
  // act on another (functional/cta_interaction.h), so which SM's cycle runs
  // first never matters.
  bool parallel = false;
  uint64_t next_window = 0;
  uint64_t window_start = 0;
  uint64_t window_instructions = 0;  // the SMs' warp instructions at window_start
  struct Window {
    uint64_t instructions = 0;  // warp instructions issued in the window
    uint64_t cycles = 0;
    uint64_t ended = 0;         // CTAs that ended in it
    uint64_t resident = 0;      // CTAs on the SMs at its end
    uint64_t l2_in_use = 0;     // the L2's lines holding an address at its start
    uint64_t l2_allocated = 0;  // and those it had allocated since the run began
  };
  uint64_t l2_allocated = 0;           // the L2's allocated lines at the launch's start
  MemorySystem::L2Lines window_l2;     // the L2's lines at window_start
  std::vector<Window> windows;
  uint64_t window_ended = 0;   // CTAs ended before window_start
  std::vector<uint8_t> placed;  // by CTA: placed on an SM
  uint64_t placed_ctas = 0;
  uint64_t first_wave = 0;  // CTAs the SMs hold at once: min(grid, SMs x ctas_per_sm)
  // The last wave (every CTA placed; last_wave_steady): each resident CTA's
  // (linear id, warp instructions) at the ends of its windows n/2 and n.
  struct Progress {
    uint64_t cycle = 0;
    std::vector<std::pair<uint64_t, uint64_t>> ctas;  // by linear id
  };
  std::vector<Progress> progress;                    // the last two kept
  std::vector<std::pair<uint64_t, uint64_t>> marks;  // (cycle, SMs' warp instructions) at each window's end
  uint64_t stride = 1;      // on a scale model: 1 in `stride` CTAs run, those of `sampled`
  std::vector<uint64_t> sampled;  // on a scale model: the CTAs it runs, by the rank the scheduler hands out

  void stop_with(const Sm& sm) {
    out.fault = sm.fault();
    out.fault_cta = sm.fault_cta();
    out.fault_warp = sm.fault_warp();
  }
};

Gpu::Gpu(const SimConfig& config, Mechanisms mechanisms) : Gpu(config, std::move(mechanisms), ScaleModel{1}) {
  if (config_.timing.gpu.sample_ctas > 1)
    scale_model_ = std::unique_ptr<Gpu>(
        new Gpu(scale_model(config_), mechanisms_, ScaleModel{config_.timing.gpu.sample_ctas}));
}

Gpu::Gpu(const SimConfig& config, Mechanisms mechanisms, ScaleModel scale)
    : config_(config),
      mechanisms_(std::move(mechanisms)),
      stride_(scale.stride),
      // The full GPU picks the launches to estimate; its scale model runs
      // what it is given.
      launch_sampler_(scale.stride > 1 ? 0 : config.timing.gpu.sample_launches, config.timing.gpu.sample_tolerance) {
  WARPSIM_INVARIANT(config_.gpu.num_sms % config_.timing.gpu.sms_per_cluster == 0,
                    "clusters tile the SMs (validated config)");
  build();
  cta_scheduler_ = make_cta_scheduler(config_.timing.gpu.cta_scheduler());
  free_slots_.resize(config_.gpu.num_sms);
}

void Gpu::build() {
  const uint32_t n = config_.gpu.num_sms;
  sms_.clear();
  busy_sms_ = ActiveSet(n);
  sm_ticks_.assign(n, SmTick{});
  groups_.reserve(n + 1);
  memory_system_ = nullptr;
  if (config_.timing.memory.model == MemoryModel::FixedLatency) {
    memory_ = std::make_unique<FixedLatencyMemory>(config_.timing.memory, n);
  } else {
    auto m = std::make_unique<MemorySystem>(config_, mechanisms_);
    memory_system_ = m.get();
    memory_ = std::move(m);
  }
  const uint32_t max_warps = std::max(1u, config_.gpu.max_threads_per_sm / functional::kWarpSize);
  for (uint32_t i = 0; i < n; ++i)
    sms_.push_back(std::make_unique<Sm>(i, config_.timing, max_warps, *memory_, mechanisms_.warp_policy));
}

Gpu::~Gpu() = default;

functional::Device::GridRunner Gpu::grid_runner() {
  return [this](functional::LaunchContext& ctx, const functional::ExecutorOptions& options, Dim3 cluster) {
    return launch(ctx, options, cluster).outcome;
  };
}

std::vector<SmActivity> Gpu::sm_snapshot() const {
  std::vector<SmActivity> s(sms_.size());
  for (size_t i = 0; i < sms_.size(); ++i)
    s[i] = {sms_[i]->stats(), sms_[i]->l1d().counters(), sms_[i]->l1i().counters(),
            sms_[i]->constant_cache().counters()};
  return s;
}

const std::vector<InstructionClass>& Gpu::units_of(const functional::Program& program) {
  for (const ProgramUnits& p : units_)
    if (p.serial == program.serial && program.serial != 0) return p.units;
  // Few programs run on one GPU: the oldest entry makes room past a handful.
  if (units_.size() >= 16) units_.erase(units_.begin());
  units_.push_back({program.serial, classify_units(program)});
  return units_.back().units;
}

LaunchRun Gpu::launch(functional::LaunchContext& ctx, const functional::ExecutorOptions& options, Dim3 cluster) {
  if (cluster.count() <= 1 && !ctx.config.cooperative && launch_sampler_.estimate(ctx))
    return run_estimated(ctx, options);
  LaunchRun r = simulate(ctx, options, cluster);
  if (!r.outcome.fault && !r.activity.fallback())
    launch_sampler_.simulated(ctx, r.activity.sm.warp_instructions, r.activity.cycles);
  return r;
}

LaunchRun Gpu::run_estimated(functional::LaunchContext& ctx, const functional::ExecutorOptions& options) {
  LaunchRun r = run_functionally(ctx, options, {1, 1, 1});
  const LaunchSampler::Estimate e = launch_sampler_.cycles(ctx, r.outcome.warp_instructions);
  LaunchActivity& a = r.activity;
  a.sampled_launches = 1;
  a.sampling = Sampling::Estimated;
  a.cycles_ci95 = e.ci95;
  a.unsimulated_warp_instructions = r.outcome.warp_instructions;
  clock_ += e.cycles;  // the memory is idle between launches: time jumps
  return count_functional(r, e.cycles);
}

LaunchRun Gpu::run_functionally(functional::LaunchContext& ctx, const functional::ExecutorOptions& options,
                                Dim3 cluster) {
  LaunchRun r;
  r.outcome = functional::run_grid(ctx, options, cluster);
  LaunchActivity& a = r.activity;
  a.sm.ctas = r.outcome.ctas;
  a.sm.warp_instructions = r.outcome.warp_instructions;
  a.sm.thread_instructions = r.outcome.thread_instructions;
  return r;
}

LaunchRun Gpu::count_functional(LaunchRun& r, uint64_t cycles) {
  r.outcome.cycles = cycles;
  r.activity.cycles = cycles;
  r.activity.index = launches_++;
  total_cycles_ += cycles;
  last_ = r.activity;
  return std::move(r);
}

LaunchRun Gpu::simulate(functional::LaunchContext& ctx, const functional::ExecutorOptions& options, Dim3 cluster) {
  // A cluster that no GPC can hold at once cannot be co-scheduled: estimate.
  if (cluster.count() > 1 && cluster.count() > uint64_t{gpc_size()} * ctas_per_sm(ctx))
    return run_fallback(ctx, options, cluster);
  if (scale_model_ && scale_sampled(ctx, cluster)) return run_scale_model(ctx, options);
  Launch l{ctx, options};
  if (cluster.count() > 1) {
    l.cluster_dims = cluster;
    l.clusters = ctx.config.grid.count() / cluster.count();
  }
  begin(l);
  const uint64_t max_cycles = config_.timing.gpu.max_cycles;
  uint64_t now = l.start;
  for (;;) {
    if (max_cycles != 0 && now - l.start >= max_cycles) {
      l.out.fault = launch_fault(
          functional::FaultKind::Timeout,
          fmt::format("the launch ran for timing.max_cycles = {} cycles without finishing", max_cycles));
      break;
    }
    try {
      memory_->advance(now);
    } catch (const interconnect::NetworkError& e) {
      // A deadlocked network (or a packet its routing cannot deliver) ends
      // the launch with a report, as a hung kernel does.
      l.out.fault = launch_fault(functional::FaultKind::Timeout, std::string("interconnect: ") + e.what());
      break;
    }
    bool active = l.clusters != 0 ? place_clusters(l, now) : place_ctas(l, now);
    active |= tick_sms(l, now);
    if (l.out.fault) break;
    ++now;
    if (busy_sms_.empty() && all_placed(l)) break;
    if (l.sampling && now >= l.next_window && steady(l, now)) {
      finish_sampled(l, now);
      last_ = l.activity;
      return {std::move(l.out), std::move(l.activity)};
    }
    if (sampler_ && now >= l.next_sample) {
      l.next_sample = now + sample_interval_;
      sampler_(activity_since(l, now));
    }
    if (now >= l.next_watchdog) {
      l.next_watchdog = now + 1024;
      if (options.watchdog != 0)
        for (auto& sm : sms_)
          if (sm->check_watchdog(options.watchdog)) {
            l.stop_with(*sm);
            break;
          }
      if (options.monitor && report_progress(l, now)) {
        const int sig = options.monitor->stop.load(std::memory_order_relaxed);
        l.out.fault = launch_fault(functional::FaultKind::Interrupted,
                                   fmt::format("the run was interrupted by signal {} ({}) after {} cycles of "
                                               "this launch", sig, sigabbrev(sig), now - l.start));
      }
      if (l.out.fault) break;
    }
    if (active) continue;
    if (!sleep(l, now)) break;
  }
  finish(l, now);
  if (l.stride > 1 && !l.out.fault) finish_scale_sampled(l);
  last_ = l.activity;
  return {std::move(l.out), std::move(l.activity)};
}

// Publishes the launch's progress to its monitor; true when the watcher
// asked the launch to stop.
bool Gpu::report_progress(const Launch& l, uint64_t now) const {
  functional::LaunchMonitor& m = *l.options.monitor;
  uint64_t resident = 0, instructions = 0;
  for (size_t i = 0; i < sms_.size(); ++i) {
    resident += sms_[i]->resident_ctas();
    instructions += sms_[i]->stats().thread_instructions - l.before[i].sm.thread_instructions;
  }
  const uint64_t total = m.ctas_total.load(std::memory_order_relaxed);
  m.ctas_done.store(total - ctas_to_place(l) - resident, std::memory_order_relaxed);
  m.thread_instructions.store(instructions, std::memory_order_relaxed);
  m.cycles.store(now - l.start, std::memory_order_relaxed);
  return m.stop_requested();
}

void Gpu::begin(Launch& l) {
  functional::LaunchContext& ctx = l.ctx;
  if (l.options.monitor) l.options.monitor->begin(ctx.config.grid.count());
  l.before = sm_snapshot();
  if (memory_system_) {
    memory_system_->begin_launch(clock_);
    l.memory_before = memory_system_->activity();
  }
  const uint32_t threads = static_cast<uint32_t>(ctx.config.block.count());
  const uint32_t warps_per_cta = (threads + functional::kWarpSize - 1) / functional::kWarpSize;
  const uint32_t max_warps = std::max(1u, config_.gpu.max_threads_per_sm / functional::kWarpSize);
  const uint32_t per_sm = ctas_per_sm(ctx);
  LaunchActivity& a = l.activity;
  a.ctas_per_sm = per_sm;
  a.occupancy_limit = occupancy(ctx).limit;
  a.max_warps = max_warps;

  const std::vector<InstructionClass>& units = units_of(*ctx.program);
  const uint32_t n = static_cast<uint32_t>(sms_.size());
  const uint32_t per_cluster = config_.timing.gpu.sms_per_cluster;
  for (auto& sm : sms_) sm->begin_kernel(ctx, {per_sm, warps_per_cta}, units);
  // A scale model runs 1 in stride CTAs: the scheduler hands out their
  // ranks, place_ctas maps a rank to its CTA.
  l.stride = stride_;
  if (l.stride > 1) l.sampled = scale_sample(ctx.config.grid.count(), l.stride);
  const uint64_t to_run = l.stride > 1 ? l.sampled.size() : ctx.config.grid.count();
  cta_scheduler_->start({to_run, n / per_cluster, per_cluster, per_sm});
  // Time is absolute across launches (the memory's queues carry over);
  // %clock reads the cycles since this launch began.
  l.start = clock_;
  l.next_sample = l.start + sample_interval_;
  l.next_watchdog = l.start + 1024;
  ctx.cycle = &l.since_start;
  // Clusters share shared memory and mbarriers across SMs; cooperative
  // launches synchronise the grid (and use atomics).
  l.parallel = l.clusters == 0 && !ctx.config.cooperative && ctx.kernel != nullptr &&
               ctx.kernel->cta_interaction.empty();
  const uint32_t host_threads =
      config_.timing.gpu.threads != 0 ? config_.timing.gpu.threads : functional::auto_threads();
  if (workers_ && !workers_->usable()) workers_.reset();  // made before the program forked
  // The pacer carries over from launch to launch: a program's launches are
  // mostly alike, and a short one should not pay a window of parallel
  // cycles to find out what the last one found.
  if (l.parallel && host_threads > 1 && (!workers_ || workers_->threads() != host_threads))
    workers_ = std::make_unique<CycleWorkers>(host_threads);
  // Sampling stops a launch midway, which a cluster or a cooperative launch
  // (CTAs that wait for each other across SMs) need not survive.
  const GpuTimingConfig& g = config_.timing.gpu;
  const uint64_t ctas = ctx.config.grid.count();
  l.sampling = g.sample && l.stride == 1 && l.clusters == 0 && !ctx.config.cooperative &&
               ctas <= (uint64_t{1} << 28);
  if (l.sampling) {
    l.placed.assign(ctas, 0);
    l.first_wave = std::min<uint64_t>(ctas, uint64_t{per_sm} * n);
    l.window_start = l.start;
    if (memory_system_) {
      l.window_l2 = memory_system_->l2_lines();
      l.l2_allocated = l.window_l2.allocated;
    }
    l.next_window = l.start + (g.sample_warmup != 0 ? g.sample_warmup : g.sample_window);
  }
}

bool Gpu::steady(Launch& l, uint64_t now) {
  const GpuTimingConfig& g = config_.timing.gpu;
  uint64_t instructions = 0, resident = 0;
  for (const auto& sm : sms_) {
    instructions += sm->stats().warp_instructions;
    resident += sm->resident_ctas();
  }
  const uint64_t ended = l.placed_ctas - resident;
  const bool warmup = l.window_start < l.start + g.sample_warmup;
  const size_t k = g.sample_windows;
  if (!warmup) {
    if (l.windows.size() == 2 * k) l.windows.erase(l.windows.begin());
    l.windows.push_back({instructions - l.window_instructions, now - l.window_start, ended - l.window_ended, resident,
                         l.window_l2.in_use, l.window_l2.allocated});
  }
  if (memory_system_) l.window_l2 = memory_system_->l2_lines();
  l.window_start = now;
  l.window_instructions = instructions;
  l.window_ended = ended;
  l.next_window = now + g.sample_window;
  // Once every CTA is placed the SMs empty: no steady state for the rule
  // below, and what is left takes at most a CTA's lifetime to simulate,
  // unless the last wave may stop on its own rule (timing.sample_last_wave).
  if (l.placed_ctas == l.placed.size())
    return g.sample_last_wave != 0 && !warmup && last_wave_steady(l, now, instructions);
  if (l.windows.size() < 2 * k) return false;
  // Not before as many CTAs have ended as the first wave held: the first
  // wave's CTAs start in step, loading at once and then computing at once,
  // and its IPC is not yet the launch's.
  if (ended < l.first_wave) return false;
  // The IPC of the last k windows against that of the k before them: a
  // kernel's IPC swings with its phases (loads, then arithmetic), which a
  // block of windows spans.
  auto ipc = [&](size_t from) {
    double i = 0, c = 0;
    for (size_t w = from; w < from + k; ++w) {
      i += static_cast<double>(l.windows[w].instructions);
      c += static_cast<double>(l.windows[w].cycles);
    }
    return i / c;
  };
  const double before = ipc(0), last = ipc(k);
  const double mean = (before + last) / 2;
  return mean > 0 && std::abs(last - before) <= g.sample_tolerance * mean && l2_stays_as_measured(l, ended);
}

// Whether the L2 stays for the rest of the launch as it was in the windows.
// Its misses first fill free lines (no victim), then replace what earlier
// launches left (clean or dirty), then the launch's own lines; each phase
// has its own cost per miss. At `large`, micro/vecadd's windows filled the
// L2 and wrote nothing to DRAM, where the whole launch made 388,627 DRAM
// writes, and its estimate came out 20% short. So both blocks of windows must
// lie in one phase, and a launch stops in the first two only if, at the
// last block's rate, it would end in the same phase (its CTAs ending at the
// rate they did in the windows); the third lasts to the end.
bool Gpu::l2_stays_as_measured(const Launch& l, uint64_t ended) const {
  if (!memory_system_) return true;
  const GpuTimingConfig& g = config_.timing.gpu;
  const size_t k = g.sample_windows;
  const MemorySystem::L2Lines& now = l.window_l2;
  const Launch::Window& first = l.windows[0];
  const Launch::Window& last = l.windows[k];
  enum class Phase { Filling, Replacing, TurnedOver };
  // A block fills while more than sample_tolerance of its allocations take
  // a free line.
  auto phase = [&](uint64_t in_use, uint64_t allocated, uint64_t in_use_after, uint64_t allocated_after) {
    if (static_cast<double>(in_use_after) - static_cast<double>(in_use) >
        g.sample_tolerance * static_cast<double>(allocated_after - allocated))
      return Phase::Filling;
    return allocated - l.l2_allocated >= now.total ? Phase::TurnedOver : Phase::Replacing;
  };
  const Phase p = phase(last.l2_in_use, last.l2_allocated, now.in_use, now.allocated);
  if (phase(first.l2_in_use, first.l2_allocated, last.l2_in_use, last.l2_allocated) != p) return false;
  if (p == Phase::TurnedOver) return true;
  double block_cycles = 0, cycles = 0, ended_in_windows = 0;
  for (size_t w = 0; w < l.windows.size(); ++w) {
    cycles += static_cast<double>(l.windows[w].cycles);
    if (w >= k) block_cycles += static_cast<double>(l.windows[w].cycles);
    ended_in_windows += static_cast<double>(l.windows[w].ended);
  }
  if (ended_in_windows == 0) return false;
  const double left = static_cast<double>(l.placed.size() - ended) * cycles / ended_in_windows;
  auto d = [](uint64_t v) { return static_cast<double>(v); };
  if (p == Phase::Filling)
    return (d(now.in_use) - d(last.l2_in_use)) / block_cycles * left <= d(now.total) - d(now.in_use);
  return d(now.allocated - last.l2_allocated) / block_cycles * left <=
         d(now.total) - d(now.allocated - l.l2_allocated);
}

bool Gpu::last_wave_steady(Launch& l, uint64_t now, uint64_t instructions) {
  // Every CTA is on an SM (a launch of one wave is all last wave). Its CTAs
  // started together and go through their phases in step, and the first
  // windows see cold caches: the IPC of a few windows says little
  // (polybench/gesummv's rose from 0.08 to 0.09 over its first million
  // cycles; stopped after 16 windows, syr2k came out 10% short). So the
  // blocks grow with the launch: after n windows of the last wave, n a power
  // of two and at least sample_last_wave, it stops if the IPCs of windows
  // n/2..3n/4 and 3n/4..n agree, and each SM's pace over n/2..n extrapolates
  // it (finish_sampled). The CTAs' progress is kept at every power of two,
  // the older snapshot's storage reused.
  const GpuTimingConfig& g = config_.timing.gpu;
  l.marks.emplace_back(now, instructions);
  const size_t n = l.marks.size() - 1;
  if ((n & (n - 1)) != 0) return false;
  Launch::Progress p;
  if (l.progress.size() == 2) {
    p = std::move(l.progress.front());
    l.progress.erase(l.progress.begin());
  }
  p.cycle = now;
  p.ctas.clear();
  for (const auto& sm : sms_) sm->resident_progress(p.ctas);
  std::sort(p.ctas.begin(), p.ctas.end());
  l.progress.push_back(std::move(p));
  if (n < std::max<size_t>(4, g.sample_last_wave)) return false;
  auto ipc = [&](size_t from, size_t to) {
    return static_cast<double>(l.marks[to].second - l.marks[from].second) /
           static_cast<double>(l.marks[to].first - l.marks[from].first);
  };
  const double before = ipc(n / 2, 3 * n / 4), last = ipc(3 * n / 4, n);
  const double mean = (before + last) / 2;
  return mean > 0 && std::abs(last - before) <= g.sample_tolerance * mean;
}

void Gpu::finish_sampled(Launch& l, uint64_t stop) {
  // The steady IPC (warp instructions per cycle) and its 95% confidence
  // half-width from the spread of the windows (Student's t); a CTA's
  // lifetime by Little's law (CTAs resident / CTAs ended per cycle).
  std::vector<std::pair<double, double>> stretches;
  double sum_c = 0, sum_ended = 0, sum_resident = 0;
  for (const Launch::Window& w : l.windows) {
    stretches.emplace_back(static_cast<double>(w.instructions), static_cast<double>(w.cycles));
    sum_c += static_cast<double>(w.cycles);
    sum_ended += static_cast<double>(w.ended);
    sum_resident += static_cast<double>(w.resident);
  }
  const auto [ipc, half] = rate_interval(stretches);
  const double lifetime = sum_ended > 0
                              ? (sum_resident / static_cast<double>(l.windows.size())) / (sum_ended / sum_c)
                              : 0.0;

  const uint64_t simulated = stop - l.start;
  l.ctx.cycle = nullptr;  // %clock counts as in functional mode from here on
  for (auto& sm : sms_) sm->finish_kernel(simulated);
  LaunchActivity a = activity_since(l, stop);
  GridOutcome& out = l.out;
  for (auto& sm : sms_) out.offload += sm->take_offload_counts();

  // The CTAs the SMs hold, in CTA order, then those never placed.
  std::vector<std::pair<uint64_t, functional::Cta*>> resident;
  for (auto& sm : sms_) sm->detach_ctas(resident);
  std::sort(resident.begin(), resident.end());
  std::vector<functional::Cta*> ctas;
  for (const auto& [linear, cta] : resident) ctas.push_back(cta);
  GridOutcome rest = functional::finish_ctas(l.options, ctas);
  if (l.ctx.program->offload_marks)
    for (functional::Cta* c : ctas) rest.offload += c->offload_counts();
  std::vector<uint64_t> unplaced;
  for (uint64_t i = 0; i < l.placed.size(); ++i)
    if (!l.placed[i]) unplaced.push_back(i);
  if (!rest.fault && !unplaced.empty()) {
    GridOutcome tail = functional::run_ctas(l.ctx, l.options, unplaced);
    rest.ctas += tail.ctas;
    rest.warp_instructions += tail.warp_instructions;
    rest.thread_instructions += tail.thread_instructions;
    rest.offload += tail.offload;
    if (tail.fault) {
      rest.fault = std::move(tail.fault);
      rest.fault_cta = tail.fault_cta;
      rest.fault_warp = tail.fault_warp;
    }
  }

  const double left = static_cast<double>(rest.warp_instructions);
  double after = 0;  // the cycles the rest of the launch takes
  double ci = 0;     // and its 95% interval: the same rest at the IPC's lower bound
  if (!unplaced.empty()) {
    // The rest of the launch runs at the steady IPC until the SMs drain: the
    // last CTA placed still runs a lifetime, during which the SMs empty (on
    // average half full, so half a lifetime more than at full speed). And the
    // launch cannot end before its last CTA.
    after = std::max(left / ipc + lifetime / 2, lifetime);
    ci = (ipc - half > 0 ? left / (ipc - half) : 2 * left / ipc) - left / ipc;
  } else {
    // The last wave: each SM runs what its CTAs have left from the pace
    // they kept over windows n/2..n (last_wave_cycles).
    const Launch::Progress& from = l.progress.front();
    const Launch::Progress& to = l.progress.back();
    std::vector<CtaPace> paces;
    size_t f = 0, t = 0;
    for (const auto& [linear, cta] : resident) {
      while (f < from.ctas.size() && from.ctas[f].first < linear) ++f;
      while (t < to.ctas.size() && to.ctas[t].first < linear) ++t;
      if (f == from.ctas.size() || t == to.ctas.size() || from.ctas[f].first != linear || to.ctas[t].first != linear)
        continue;  // not so: every CTA was placed before window n/2
      paces.push_back(
          {cta->sm, to.ctas[t].second - from.ctas[f].second, cta->warp_instructions() - to.ctas[t].second});
    }
    // The IPC of windows n/2..n and its 95% half-width from their spread.
    stretches.clear();
    const size_t n = l.marks.size() - 1;
    for (size_t w = n / 2; w < n; ++w)
      stretches.emplace_back(static_cast<double>(l.marks[w + 1].second - l.marks[w].second),
                             static_cast<double>(l.marks[w + 1].first - l.marks[w].first));
    const auto [wave_ipc, wave_half] = rate_interval(stretches);
    after = last_wave_cycles(paces, to.cycle - from.cycle,
                             wave_ipc / static_cast<double>(std::max<size_t>(1, paces.size())));
    ci = wave_ipc - wave_half > 0 ? after * wave_half / (wave_ipc - wave_half) : after;
  }
  const uint64_t extra = static_cast<uint64_t>(std::llround(after));
  const uint64_t cycles = simulated + extra;

  // The SMs' requests still in flight: fresh SMs, and the memory drained of
  // the replies (the L2 and DRAM keep their state for the next launch).
  const uint64_t drained = drain_memory(stop);
  replace_sms();

  a.cycles = cycles;
  a.sampled_launches = 1;
  a.sampling = Sampling::Extrapolated;
  a.simulated_cycles = simulated;
  a.simulated_ctas = a.sm.ctas;
  a.cycles_ci95 = static_cast<uint64_t>(std::llround(ci));
  a.unsimulated_warp_instructions = rest.warp_instructions;
  a.sm.warp_instructions += rest.warp_instructions;
  a.sm.thread_instructions += rest.thread_instructions;
  a.sm.ctas += unplaced.size();
  l.activity = std::move(a);
  ++launches_;
  clock_ = std::max(drained, l.start + cycles);
  total_cycles_ += cycles;

  out.cycles = std::max<uint64_t>(cycles, 1);
  take_functional_part(l, std::move(rest));
  if (l.options.monitor) l.options.monitor->cycles.store(cycles, std::memory_order_relaxed);
  if (out.fault) build();
}

void Gpu::take_functional_part(Launch& l, GridOutcome rest) {
  GridOutcome& out = l.out;
  out.ctas = l.activity.sm.ctas;
  out.warp_instructions = l.activity.sm.warp_instructions;
  out.thread_instructions = l.activity.sm.thread_instructions;
  out.offload += rest.offload;
  if (rest.fault && !out.fault) {
    out.fault = std::move(rest.fault);
    out.fault_cta = rest.fault_cta;
    out.fault_warp = rest.fault_warp;
  }
  if (functional::LaunchMonitor* m = l.options.monitor) {
    m->ctas_done.store(out.ctas, std::memory_order_relaxed);
    m->thread_instructions.store(out.thread_instructions, std::memory_order_relaxed);
  }
}

uint64_t Gpu::drain_memory(uint64_t now) {
  MemRequest reply;
  const uint32_t n = static_cast<uint32_t>(sms_.size());
  // A bound no drain reaches (a reply takes hundreds of cycles): past it the
  // memory is rebuilt instead.
  const uint64_t limit = now + (uint64_t{1} << 24);
  try {
    while (!memory_->idle() && now < limit) {
      memory_->advance(now);
      for (uint32_t i = 0; i < n; ++i)
        while (memory_->receive(i, now, reply)) {
        }
      const uint64_t next = memory_->next_event(now);
      now = next == UINT64_MAX ? now + 1 : std::max(now + 1, next);
    }
  } catch (const interconnect::NetworkError&) {
    build();
    return now;
  }
  if (!memory_->idle()) build();
  return now;
}

void Gpu::replace_sms() {
  const uint32_t n = config_.gpu.num_sms;
  const uint32_t max_warps = std::max(1u, config_.gpu.max_threads_per_sm / functional::kWarpSize);
  busy_sms_ = ActiveSet(n);
  for (uint32_t i = 0; i < n; ++i) {
    std::vector<functional::CtaBuffers> buffers = sms_[i]->release_buffers();
    sms_[i] = std::make_unique<Sm>(i, config_.timing, max_warps, *memory_, mechanisms_.warp_policy);
    sms_[i]->adopt_buffers(std::move(buffers));
  }
}

functional::Occupancy Gpu::occupancy(const functional::LaunchContext& ctx) const {
  const uint32_t threads = static_cast<uint32_t>(ctx.config.block.count());
  const functional::LaunchResources res = ctx.config.resources.value_or(
      functional::LaunchResources{sm_resources(config_.gpu), ctx.kernel->resources.reg32_with_callees});
  const uint64_t shared = ctx.kernel->static_shared_bytes + ctx.config.dynamic_shared_bytes;
  return functional::compute_occupancy(res.sm, {threads, res.regs_per_thread, shared});
}

uint32_t Gpu::ctas_per_sm(const functional::LaunchContext& ctx) const {
  // The runtime refused launches that cannot run at all; what remains is an
  // estimate off by rounding (PTX registers): run one CTA per SM then.
  const uint32_t threads = static_cast<uint32_t>(ctx.config.block.count());
  const uint32_t warps_per_cta = (threads + functional::kWarpSize - 1) / functional::kWarpSize;
  const uint32_t max_warps = std::max(1u, config_.gpu.max_threads_per_sm / functional::kWarpSize);
  return std::clamp(occupancy(ctx).ctas_per_sm, 1u, std::max(1u, max_warps / std::max(1u, warps_per_cta)));
}

uint32_t Gpu::gpc_size() const {
  const uint32_t n = static_cast<uint32_t>(sms_.size()), g = config_.timing.gpu.sms_per_gpc;
  return g == 0 ? n : std::min(n, g);
}

bool Gpu::all_placed(const Launch& l) const {
  return l.clusters != 0 ? l.next_cluster == l.clusters : cta_scheduler_->done();
}

uint64_t Gpu::ctas_to_place(const Launch& l) const {
  return l.clusters != 0 ? (l.clusters - l.next_cluster) * l.cluster_dims.count() : cta_scheduler_->remaining();
}

bool Gpu::place_clusters(Launch& l, uint64_t now) {
  const uint32_t n = static_cast<uint32_t>(sms_.size()), gpc = gpc_size();
  const uint32_t groups = (n + gpc - 1) / gpc;
  const Dim3 dims = l.cluster_dims;
  const Dim3 grid = l.ctx.config.grid;
  const Dim3 per_grid{grid.x / dims.x, grid.y / dims.y, grid.z / dims.z};
  const uint32_t size = static_cast<uint32_t>(dims.count());
  const bool trace = config_.timing.gpu.cta_trace;
  bool placed = false;
  while (l.next_cluster < l.clusters) {
    uint32_t first = n, last = n;
    for (uint32_t i = 0; i < groups && first == n; ++i) {
      const uint32_t g = (l.next_gpc + i) % groups;
      uint64_t room = 0;
      for (uint32_t s = g * gpc; s < std::min(n, (g + 1) * gpc); ++s) room += sms_[s]->free_cta_slots();
      if (room < size) continue;
      first = g * gpc;
      last = std::min(n, first + gpc);
      l.next_gpc = (g + 1) % groups;
    }
    if (first == n) break;  // no GPC has room yet: an SM freeing a slot tries again
    auto cluster = std::make_unique<functional::Cluster>();
    cluster->dims = {dims.x, dims.y, dims.z};
    cluster->ctas.assign(size, nullptr);
    const Dim3 unit = functional::cta_at(per_grid, l.next_cluster);
    // Rank by rank over the GPC's SMs in turn: a cluster spreads out, as
    // its CTAs' shared memories must all be resident at once.
    uint32_t s = first;
    for (uint32_t rank = 0; rank < size; ++rank) {
      while (sms_[s]->free_cta_slots() == 0) s = s + 1 == last ? first : s + 1;
      const Dim3 r = functional::cta_at(dims, rank);
      const Dim3 id{unit.x * dims.x + r.x, unit.y * dims.y + r.y, unit.z * dims.z + r.z};
      const uint64_t linear = id.x + uint64_t{grid.x} * (id.y + uint64_t{grid.y} * id.z);
      sms_[s]->launch_cta(id, linear, now, cluster.get(), rank);
      busy_sms_.add(s);
      if (trace) l.activity.cta_trace.emplace_back(linear, s);
      s = s + 1 == last ? first : s + 1;
    }
    l.cluster_state.push_back(std::move(cluster));
    ++l.next_cluster;
    placed = true;
  }
  return placed;
}

bool Gpu::place_ctas(Launch& l, uint64_t now) {
  if (cta_scheduler_->done()) return false;
  bool any_free = false;
  const uint32_t n = static_cast<uint32_t>(sms_.size());
  for (uint32_t i = 0; i < n; ++i) {
    free_slots_[i] = sms_[i]->free_cta_slots();
    any_free |= free_slots_[i] != 0;
  }
  if (!any_free) return false;
  assignments_.clear();
  cta_scheduler_->schedule(free_slots_, assignments_);
  const bool trace = config_.timing.gpu.cta_trace;
  for (const CtaAssignment& a : assignments_) {
    const uint64_t cta = l.stride > 1 ? l.sampled[a.cta] : a.cta;
    sms_[a.sm]->launch_cta(functional::cta_at(l.ctx.config.grid, cta), cta, now);
    busy_sms_.add(a.sm);
    if (l.sampling) {
      l.placed[cta] = 1;
      ++l.placed_ctas;
    }
    if (trace) l.activity.cta_trace.emplace_back(cta, a.sm);
  }
  // A policy that holds CTAs back (distributed-block's delayed launch, an
  // exhausted distributed pool) decides again only when an SM frees a slot,
  // which is activity of its own: no launch, no activity.
  return !assignments_.empty();
}

bool Gpu::tick_sms(Launch& l, uint64_t now) {
  l.since_start = now - l.start;
  // Only SMs with a CTA or something in flight (an idle SM's cycles are
  // counted by finish_kernel), grouped by cluster: the SMs of a cluster share
  // a network port, so one thread ticks them, in order.
  const std::vector<uint32_t>& busy = busy_sms_.members();
  const uint32_t per_cluster = config_.timing.gpu.sms_per_cluster;
  groups_.clear();
  for (uint32_t k = 0; k < busy.size(); ++k)
    if (k == 0 || busy[k] / per_cluster != busy[k - 1] / per_cluster) groups_.push_back(k);
  const uint32_t groups = static_cast<uint32_t>(groups_.size());
  groups_.push_back(static_cast<uint32_t>(busy.size()));
  const auto tick_group = [&](uint32_t g) {
    for (uint32_t k = groups_[g]; k < groups_[g + 1]; ++k) {
      Sm& sm = *sms_[busy[k]];
      SmTick& r = sm_ticks_[k];
      r.active = sm.cycle(now);
      r.quiet = sm.quiescent();
      r.notice = !sm.printed().empty() || sm.faulted();
    }
  };
  // The memory's edges of the next cycle that the SMs cannot change run
  // meanwhile (on the calling thread, the same at every thread count).
  const auto ahead = [&] { memory_->advance_ahead(now); };
  // Handing a cycle out pays only when the SMs have enough work: the pacer
  // finds out by timing it.
  if (l.parallel && workers_ && groups >= 2 * workers_->threads()) {
    const uint64_t start = pacer_.timing() ? CycleWorkers::ticks() : 0;
    if (pacer_.parallel()) {
      workers_->run(groups, tick_group, ahead);
    } else {
      ahead();
      for (uint32_t g = 0; g < groups; ++g) tick_group(g);
    }
    pacer_.cycle(pacer_.timing() ? CycleWorkers::ticks() - start : 0);
  } else {
    ahead();
    for (uint32_t g = 0; g < groups; ++g) tick_group(g);
  }
  // What the cycle did that others see, in SM order whatever thread ticked
  // which SM: the memory's shared state, device printf output, a fault.
  memory_->end_sm_phase(now);
  bool active = false;
  for (uint32_t k = 0; k < busy.size(); ++k) {
    const SmTick& r = sm_ticks_[k];
    active |= r.active != 0;
    if (!r.notice) continue;
    Sm& sm = *sms_[busy[k]];
    functional::PrintedRecords& printed = sm.printed();
    if (!printed.empty()) {
      if (l.ctx.print) printed.for_each(l.ctx.print);
      printed.clear();
    }
    if (sm.faulted() && !l.out.fault) l.stop_with(sm);
  }
  uint32_t k = 0;  // prune visits the members in order
  busy_sms_.prune([&](uint32_t) { return sm_ticks_[k++].quiet == 0; });
  return active;
}

bool Gpu::sleep(Launch& l, uint64_t& now) {
  if (!config_.timing.gpu.skip_idle_cycles) {
    // Ticking idle SMs changes nothing; only a deadlock must be caught.
    bool any_event = false;
    for (uint32_t i : busy_sms_.members())
      if (sms_[i]->next_event(now - 1) != UINT64_MAX) any_event = true;
    if (any_event || memory_->next_event(now - 1) != UINT64_MAX) return true;
  }
  // Nothing happened: sleep until the next thing that will.
  uint64_t next = memory_->next_event(now - 1);
  for (uint32_t i : busy_sms_.members()) next = std::min(next, sms_[i]->next_event(now - 1));
  if (next == UINT64_MAX) {
    // Nothing is scheduled to happen: warps wait at barriers nobody can
    // reach (a deadlock), or a barrier can be released after all.
    bool woken = false;
    for (uint32_t i : busy_sms_.members()) {
      Sm* sm = sms_[i].get();
      const Sm::Stall st = sm->resolve_stall(now);
      woken |= st == Sm::Stall::Woken;
      if (st == Sm::Stall::Deadlock) {
        l.stop_with(*sm);
        return false;
      }
    }
    if (!woken) {
      // No warp should wait without something to wake it; if one does,
      // look at every warp again before calling the launch stuck.
      if (++l.stuck > 1) {
        l.out.fault = launch_fault(
            functional::FaultKind::Unsupported,
            "warpsim internal error: no warp can issue and nothing is in flight (please report it)");
        return false;
      }
      for (auto& sm : sms_) sm->wake_all(now);
    }
    return true;
  }
  l.stuck = 0;
  const uint64_t max_cycles = config_.timing.gpu.max_cycles;
  if (max_cycles != 0) next = std::min(next, l.start + max_cycles);
  if (next > now) {
    for (uint32_t i : busy_sms_.members()) sms_[i]->account_skipped(next - now);
    now = next;
  }
  return true;
}

LaunchActivity Gpu::activity_since(const Launch& l, uint64_t now) const {
  LaunchActivity a = l.activity;
  a.sms = sm_snapshot();
  for (size_t i = 0; i < a.sms.size(); ++i) {
    SmActivity& s = a.sms[i];
    const SmActivity& b = l.before[i];
    s.sm = sm_stats_table().difference(s.sm, b.sm);
    s.l1d = cache_stats_table().difference(s.l1d, b.l1d);
    s.l1i = cache_stats_table().difference(s.l1i, b.l1i);
    s.constant = cache_stats_table().difference(s.constant, b.constant);
  }
  sum_sms(a);
  if (memory_system_) {
    a.has_memory_system = true;
    a.memory = difference(memory_system_->activity(), l.memory_before);
  }
  a.cycles = now - l.start;
  a.index = launches_;
  return a;
}

void Gpu::finish(Launch& l, uint64_t end) {
  l.ctx.cycle = nullptr;
  const uint64_t cycles = end - l.start;
  for (auto& sm : sms_) sm->finish_kernel(cycles);
  l.activity = activity_since(l, end);
  LaunchActivity& a = l.activity;
  a.simulated_cycles = cycles;
  a.simulated_ctas = a.sm.ctas;
  ++launches_;
  clock_ = end;
  total_cycles_ += cycles;

  GridOutcome& out = l.out;
  out.cycles = std::max<uint64_t>(cycles, 1);
  out.ctas = a.sm.ctas;
  out.warp_instructions = a.sm.warp_instructions;
  out.thread_instructions = a.sm.thread_instructions;
  for (auto& sm : sms_) out.offload += sm->take_offload_counts();
  if (functional::LaunchMonitor* m = l.options.monitor) {
    m->ctas_done.store(out.ctas, std::memory_order_relaxed);
    m->thread_instructions.store(out.thread_instructions, std::memory_order_relaxed);
    m->cycles.store(cycles, std::memory_order_relaxed);
  }
  // A fault leaves CTAs and requests in flight; the context is unusable from
  // now on (sticky error), but a later launch must still find clean SMs.
  if (out.fault) build();
}

std::vector<uint64_t> scale_sample(uint64_t grid, uint64_t stride) {
  // Groups of `group` consecutive CTAs, so that neighbouring CTAs' data,
  // which share DRAM rows and L2 lines, are still fetched together (single
  // CTAs 1 in 4 left DRAM rows three-quarters unread, and cut
  // micro/vecadd-aligned's row-buffer hits by 4). About 32 strata of
  // `stride` groups each, and a group picked per stratum by a hash of its
  // index, so a pattern in the CTA index (every other CTA different) is not
  // sampled in step.
  const uint64_t group = std::clamp<uint64_t>(grid / (stride * 32), 1, 64);
  const uint64_t span = group * stride;
  std::vector<uint64_t> ctas;
  ctas.reserve(grid / stride + group);
  for (uint64_t first = 0, s = 0; first < grid; first += span, ++s) {
    const uint64_t length = std::min(span, grid - first);
    const uint64_t groups = (length + group - 1) / group;
    uint64_t h = s + 0x9e3779b97f4a7c15ull;  // splitmix64
    h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9ull;
    h = (h ^ (h >> 27)) * 0x94d049bb133111ebull;
    h ^= h >> 31;
    const uint64_t begin = first + (h % groups) * group;
    for (uint64_t c = begin; c < std::min(begin + group, first + length); ++c) ctas.push_back(c);
  }
  return ctas;
}

uint64_t cta_lifetime(std::span<const Sm::CtaWork> simulated, uint64_t warp_instructions) {
  // A line through the simulated CTAs' (instructions, lifetime), least
  // squares: a CTA's lifetime grows less than in proportion to its work
  // where more work hides more latency (scaling in proportion through the
  // heaviest CTA made ispass/ray's one-wave launch 24% too long). With fewer
  // than 3 CTAs, or a line that does not rise with the work, the heaviest
  // CTA's cycles per instruction. Never shorter than the heaviest CTA.
  const Sm::CtaWork* heaviest = nullptr;
  double n = 0, mean_x = 0, mean_y = 0;
  for (const Sm::CtaWork& w : simulated) {
    if (!heaviest || w.warp_instructions > heaviest->warp_instructions) heaviest = &w;
    n += 1;
    mean_x += static_cast<double>(w.warp_instructions);
    mean_y += static_cast<double>(w.cycles);
  }
  if (!heaviest || heaviest->warp_instructions == 0) return 0;
  const double x = static_cast<double>(warp_instructions);
  double lifetime =
      static_cast<double>(heaviest->cycles) * x / static_cast<double>(heaviest->warp_instructions);
  if (n >= 3) {
    mean_x /= n;
    mean_y /= n;
    double sxy = 0, sxx = 0;
    for (const Sm::CtaWork& w : simulated) {
      const double dx = static_cast<double>(w.warp_instructions) - mean_x;
      sxy += dx * (static_cast<double>(w.cycles) - mean_y);
      sxx += dx * dx;
    }
    if (sxx > 0 && sxy > 0) lifetime = mean_y + sxy / sxx * (x - mean_x);
  }
  return static_cast<uint64_t>(std::llround(std::max(lifetime, static_cast<double>(heaviest->cycles))));
}

double last_wave_cycles(std::span<const CtaPace> ctas, uint64_t cycles, double fallback_ipc) {
  // By SM, not by the GPU's IPC (a last wave ends with its last SM) nor by
  // each CTA's own pace (one CTA of an SM runs ahead of another): the
  // CTAs of an SM share its issue slots and memory, and as they end, those
  // left go faster, but not as fast as the SM went with all of them. So an
  // SM holding j CTAs goes at pace(j), the mean of the SMs that held j in
  // the windows (a wave whose CTAs do not divide evenly among the SMs has
  // two such counts); below the fewest measured it falls in proportion
  // (fewer warps hide less latency). Its CTAs share it as they shared it in
  // the windows, the one ahead staying ahead.
  struct Sm {
    std::vector<std::pair<double, double>> ctas;  // (share of the SM's pace, warp instructions left)
    uint64_t instructions = 0;
  };
  std::vector<Sm> sms;
  for (const CtaPace& c : ctas) {
    if (c.sm >= sms.size()) sms.resize(c.sm + 1);
    sms[c.sm].ctas.emplace_back(static_cast<double>(c.instructions), static_cast<double>(c.left));
    sms[c.sm].instructions += c.instructions;
  }
  std::vector<std::pair<double, uint32_t>> measured;  // by CTAs held: (sum of the SMs' paces, SMs)
  for (const Sm& sm : sms) {
    const size_t held = sm.ctas.size();
    if (held == 0 || sm.instructions == 0 || cycles == 0) continue;
    if (held >= measured.size()) measured.resize(held + 1);
    measured[held].first += static_cast<double>(sm.instructions) / static_cast<double>(cycles);
    ++measured[held].second;
  }
  auto pace = [&](size_t held) {
    // The nearest count measured at or above, scaled down; else the
    // largest below (an SM's pace does not grow without bound).
    for (size_t m = held; m < measured.size(); ++m)
      if (measured[m].second != 0)
        return measured[m].first / measured[m].second * static_cast<double>(held) / static_cast<double>(m);
    for (size_t m = std::min(held, measured.size()); m-- > 1;)
      if (measured[m].second != 0) return measured[m].first / measured[m].second;
    return fallback_ipc * static_cast<double>(held);
  };
  double longest = 0;
  for (Sm& sm : sms) {
    auto& live = sm.ctas;
    std::erase_if(live, [](const auto& c) { return c.second <= 0; });
    double t = 0;
    while (!live.empty()) {
      double weights = 0;
      for (const auto& c : live) weights += c.first;
      const double total = pace(live.size());
      if (total <= 0) break;
      // Each CTA's rate; equal shares when none issued in the windows.
      auto rate = [&](const std::pair<double, double>& c) {
        return weights > 0 ? total * c.first / weights : total / static_cast<double>(live.size());
      };
      // Until the next CTA ends (one that issued nothing in the windows
      // waits for the others, then they share equally).
      size_t next = 0;
      double step = -1;
      for (size_t i = 0; i < live.size(); ++i) {
        const double r = rate(live[i]);
        if (r > 0 && (step < 0 || live[i].second / r < step)) {
          step = live[i].second / r;
          next = i;
        }
      }
      if (step < 0) break;  // not so: some CTA has a share
      t += step;
      for (auto& c : live) c.second -= rate(c) * step;
      live[next].second = 0;
      std::erase_if(live, [](const auto& c) { return c.second < 1e-6; });  // instructions come whole
    }
    longest = std::max(longest, t);
  }
  return longest;
}

bool Gpu::scale_sampled(const functional::LaunchContext& ctx, Dim3 cluster) const {
  // The CTAs must end whichever of them run, in whatever order: no cluster
  // or grid synchronisation, no CTA waiting for another's flag. Nor may they
  // share an address they update (global atomics): the contention there
  // grows with the CTAs running at once, which the scale model divides by N
  // (one counter's atomics took micro/density 55% less time on a quarter
  // GPU). The bound keeps the list of CTAs left to the functional executor
  // small.
  return cluster.count() <= 1 && !ctx.config.cooperative && ctx.kernel != nullptr &&
         ctx.kernel->cta_interaction.empty() && ctx.config.grid.count() <= (uint64_t{1} << 26);
}

LaunchRun Gpu::run_scale_model(functional::LaunchContext& ctx, const functional::ExecutorOptions& options) {
  LaunchRun r = scale_model_->launch(ctx, options, {1, 1, 1});
  r.activity.index = launches_++;
  total_cycles_ += r.activity.cycles;
  last_ = r.activity;
  return r;
}

void Gpu::finish_scale_sampled(Launch& l) {
  // The CTAs of the grid the scale model did not run, in the functional
  // executor (on every core when none can act on another).
  const uint64_t grid = l.ctx.config.grid.count();
  std::vector<uint64_t> rest;
  rest.reserve(grid - l.sampled.size());
  for (uint64_t i = 0, k = 0; i < grid; ++i) {
    if (k < l.sampled.size() && l.sampled[k] == i) {
      ++k;
    } else {
      rest.push_back(i);
    }
  }
  GridOutcome tail = functional::run_ctas(l.ctx, l.options, rest);

  // The confidence interval: the launch's cycles scale with its CTAs' mean
  // work, and the simulated CTAs are a sample of n of the grid's G CTAs
  // (Student's t on their warp instructions, with the finite-population
  // correction sqrt(1 - n / G)).
  std::vector<Sm::CtaWork> simulated;
  for (const auto& sm : sms_) simulated.insert(simulated.end(), sm->cta_work().begin(), sm->cta_work().end());
  double n = 0, sum = 0, sum_sq = 0;
  uint64_t heaviest = 0;  // warp instructions of the simulated CTA that ran the most
  for (const Sm::CtaWork& w : simulated) {
    const double x = static_cast<double>(w.warp_instructions);
    n += 1;
    sum += x;
    sum_sq += x * x;
    heaviest = std::max(heaviest, w.warp_instructions);
  }
  LaunchActivity& a = l.activity;
  // A launch the full GPU holds in one wave lasts at least as long as its
  // longest CTA, which the sample may have missed: a CTA left to the
  // functional executor that ran more instructions than every simulated one.
  const uint64_t full_wave = uint64_t{l.stride} * sms_.size() * a.ctas_per_sm;
  if (grid <= full_wave && heaviest > 0 && tail.max_cta_warp_instructions > heaviest) {
    const uint64_t cycles = std::max(a.cycles, cta_lifetime(simulated, tail.max_cta_warp_instructions));
    total_cycles_ += cycles - a.cycles;
    clock_ += cycles - a.cycles;
    a.cycles = cycles;
    l.out.cycles = cycles;
  }
  if (n >= 2 && sum > 0) {
    const double mean = sum / n;
    const double var = std::max(0.0, (sum_sq - n * mean * mean) / (n - 1));
    const double fpc = std::sqrt(std::max(0.0, 1.0 - n / static_cast<double>(grid)));
    const double relative = student_t975(static_cast<uint32_t>(n - 1)) * std::sqrt(var / n) / mean * fpc;
    a.cycles_ci95 = static_cast<uint64_t>(std::llround(relative * static_cast<double>(a.cycles)));
  }
  a.sampled_launches = 1;
  a.sampling = Sampling::ScaleModel;
  a.unsimulated_warp_instructions = tail.warp_instructions;
  a.sm.warp_instructions += tail.warp_instructions;
  a.sm.thread_instructions += tail.thread_instructions;
  a.sm.ctas += tail.ctas;
  take_functional_part(l, std::move(tail));
}

LaunchRun Gpu::run_fallback(functional::LaunchContext& ctx, const functional::ExecutorOptions& options,
                            Dim3 cluster) {
  LaunchRun r = run_functionally(ctx, options, cluster);
  // An idealised machine: every scheduler of every SM issues each cycle.
  const uint64_t issue = uint64_t{config_.gpu.num_sms} * config_.timing.sm.schedulers;
  r.activity.fallback_launches = 1;
  return count_functional(r, std::max<uint64_t>(1, (r.outcome.warp_instructions + issue - 1) / issue));
}

}  // namespace warpsim::timing
