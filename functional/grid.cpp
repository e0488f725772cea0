// Grid executor: in-order, parallel and co-resident schedules of a launch's CTAs.
#include "functional/grid.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "functional/cta.h"
#include "functional/host_workers.h"
#include "common/signal_name.h"

namespace warpsim::functional {

Dim3 cta_at(const Dim3& grid, uint64_t i) {
  return Dim3{static_cast<uint32_t>(i % grid.x), static_cast<uint32_t>(i / grid.x % grid.y),
              static_cast<uint32_t>(i / (uint64_t{grid.x} * grid.y))};
}

namespace {

// A fault of the whole CTA, blamed on its first warp still running, at the
// instruction it was about to execute.
ExecFault stopped_cta_fault(const Cta& cta, FaultKind kind, std::string message, uint32_t& warp) {
  ExecFault f;
  f.fault.kind = kind;
  for (const auto& w : cta.warps()) {
    if (w->done()) continue;
    warp = w->warp_in_cta();
    f.pc = w->next_pc();
    f.lane = static_cast<uint32_t>(std::countr_zero(w->valid() & ~w->exited()));
    break;
  }
  f.message = std::move(message);
  f.fault.detail = f.message;
  return f;
}

// Warp instructions a CTA runs between two looks at the stop request.
constexpr uint64_t kStopCheckInterval = uint64_t{1} << 20;

}  // namespace

ExecFault timeout_fault(const Cta& cta, uint64_t limit, uint32_t& warp) {
  return stopped_cta_fault(
      cta, FaultKind::Timeout,
      fmt::format("the block executed more than {} warp instructions without finishing (a hang, such as a "
                  "spin loop waiting for something that never happens); the limit is the executor's watchdog "
                  "(functional.watchdog)",
                  limit),
      warp);
}

ExecFault interrupted_fault(const Cta& cta, int sig, uint32_t& warp) {
  return stopped_cta_fault(cta, FaultKind::Interrupted,
                           fmt::format("the run was interrupted by signal {} ({}) while this launch ran", sig,
                                       sigabbrev(sig)),
                           warp);
}

namespace {

// Where a unit's CTAs run: one cluster's CTAs (a single CTA without clusters).
struct Units {
  Dim3 cluster;   // CTAs per cluster in each dimension
  Dim3 clusters;  // clusters in the grid
  // Only these clusters (by linear index, in this order); null: every one.
  const std::vector<uint64_t>* subset = nullptr;
  uint64_t count() const { return subset ? subset->size() : clusters.count(); }
  uint64_t size() const { return cluster.count(); }
  // The id of CTA `rank` of cluster `unit`.
  Dim3 cta(uint64_t unit, uint64_t rank) const {
    const Dim3 u = cta_at(clusters, subset ? (*subset)[unit] : unit), r = cta_at(cluster, rank);
    return Dim3{u.x * cluster.x + r.x, u.y * cluster.y + r.y, u.z * cluster.z + r.z};
  }
};

// Records a stopped CTA's fault (or the watchdog's) in `out`.
void record_fault(Cta& cta, CtaStatus status, const ExecutorOptions& opt, GridOutcome& out) {
  out.fault_cta = cta.ctaid();
  if (status == CtaStatus::Fault) {
    out.fault = cta.fault();
    out.fault_warp = cta.faulting_warp();
  } else if (opt.monitor && opt.monitor->stop_requested()) {
    out.fault = interrupted_fault(cta, opt.monitor->stop.load(std::memory_order_relaxed), out.fault_warp);
  } else {
    out.fault = timeout_fault(cta, opt.watchdog, out.fault_warp);
  }
}

void add_counts(const Cta& cta, const ExecutorOptions& opt, GridOutcome& out) {
  if (opt.monitor) opt.monitor->add(1, cta.thread_instructions());
  ++out.ctas;
  out.warp_instructions += cta.warp_instructions();
  out.thread_instructions += cta.thread_instructions();
  out.max_cta_warp_instructions = std::max(out.max_cta_warp_instructions, cta.warp_instructions());
  out.offload += cta.offload_counts();
}

// Runs `ctas` to their end, or to the first fault (recorded in `out`): they
// take turns of `cta_quantum` warp instructions in the order given.
void take_turns(const ExecutorOptions& opt, const std::vector<Cta*>& ctas, GridOutcome& out) {
  const size_t n = ctas.size();
  std::vector<bool> done(n, false);
  size_t remaining = n;
  while (remaining > 0 && !out.fault) {
    for (size_t i = 0; i < n && !out.fault; ++i) {
      if (done[i]) continue;
      Cta& cta = *ctas[i];
      const CtaStatus status = cta.run(opt.cta_quantum, opt.warp_quantum);
      if (status == CtaStatus::Done) {
        done[i] = true;
        --remaining;
      } else if (status == CtaStatus::Fault ||
                 (opt.watchdog && cta.warp_instructions() > opt.watchdog) ||
                 (opt.monitor && opt.monitor->stop_requested())) {
        record_fault(cta, status, opt, out);
      }
    }
  }
}

// Runs CTAs that must be resident together (a cluster, or a cooperative
// grid) to their end: they take turns of `cta_quantum` warp instructions in
// a fixed order. `cluster_of[i]` is the cluster of CTA i.
void run_together(const LaunchContext& ctx, const ExecutorOptions& opt, const std::vector<Dim3>& ids,
                  const std::vector<std::pair<Cluster*, uint32_t>>& cluster_of,
                  std::vector<CtaBuffers>& buffers, GridOutcome& out, PrintedRecords* printed) {
  const size_t n = ids.size();
  if (buffers.size() < n) buffers.resize(n);
  std::vector<std::unique_ptr<Cta>> ctas;
  ctas.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    auto [cluster, rank] = cluster_of[i];
    ctas.push_back(std::make_unique<Cta>(ctx, ids[i], buffers[i], cluster, rank));
    cluster->ctas[rank] = ctas.back().get();
  }
  std::vector<Cta*> turns;
  for (auto& cta : ctas) turns.push_back(cta.get());
  take_turns(opt, turns, out);
  for (auto& cta : ctas) {
    add_counts(*cta, opt, out);
    if (printed) printed->append(cta->take_printed());
  }
}

// Runs unit `u` (one cluster) and adds it to `out`.
struct UnitBuffers {
  CtaBuffers single;
  std::vector<CtaBuffers> cluster;
};

void run_unit(const LaunchContext& ctx, const ExecutorOptions& opt, const Units& units, uint64_t u,
              UnitBuffers& buffers, GridOutcome& out, PrintedRecords* printed) {
  if (units.size() == 1) {
    Cta cta(ctx, units.cta(u, 0), buffers.single);
    // Budget returns early when every warp waits on another (it yields to
    // other CTAs); alone, the CTA just continues until the watchdog. A
    // watched run looks at the stop request now and then (a budget ends at
    // the same point of the warp rotation as an uninterrupted run would
    // pass, so the interleaving is the same).
    const uint64_t limit = opt.watchdog ? opt.watchdog : UINT64_MAX;
    CtaStatus status;
    do {
      uint64_t budget = limit - std::min(limit, cta.warp_instructions());
      if (opt.monitor) budget = std::min(budget, kStopCheckInterval);
      status = cta.run(budget, opt.warp_quantum);
    } while (status == CtaStatus::Budget && cta.warp_instructions() < limit &&
             !(opt.monitor && opt.monitor->stop_requested()));
    add_counts(cta, opt, out);
    if (printed) *printed = cta.take_printed();
    if (status != CtaStatus::Done) record_fault(cta, status, opt, out);
    return;
  }
  Cluster cluster;
  cluster.dims = {units.cluster.x, units.cluster.y, units.cluster.z};
  cluster.ctas.assign(units.size(), nullptr);
  std::vector<Dim3> ids;
  std::vector<std::pair<Cluster*, uint32_t>> cluster_of;
  for (uint32_t r = 0; r < units.size(); ++r) {
    ids.push_back(units.cta(u, r));
    cluster_of.emplace_back(&cluster, r);
  }
  if (printed) printed->clear();
  run_together(ctx, opt, ids, cluster_of, buffers.cluster, out, printed);
}

GridOutcome run_in_order(const LaunchContext& ctx, const ExecutorOptions& opt, const Units& units) {
  GridOutcome out;
  UnitBuffers buffers;
  for (uint64_t u = 0; u < units.count() && !out.fault; ++u)
    run_unit(ctx, opt, units, u, buffers, out, nullptr);
  return out;
}

GridOutcome run_parallel(const LaunchContext& ctx, const ExecutorOptions& opt, const Units& units) {
  const uint64_t n = units.count();
  const uint32_t threads = static_cast<uint32_t>(std::min<uint64_t>(opt.threads, n));
  std::atomic<uint64_t> next{0};
  std::atomic<uint64_t> first_fault{UINT64_MAX};
  std::mutex mu;
  GridOutcome total;
  std::map<uint64_t, PrintedRecords> printed;  // unit index -> its printf output
  auto worker = [&] {
    UnitBuffers buffers;
    GridOutcome mine;
    PrintedRecords text;
    for (;;) {
      // Units are claimed in increasing order, so every unit before the first
      // faulting one runs, exactly as in order.
      const uint64_t i = next.fetch_add(1, std::memory_order_relaxed);
      if (i >= n || i > first_fault.load(std::memory_order_relaxed)) break;
      GridOutcome one;
      run_unit(ctx, opt, units, i, buffers, one, &text);
      mine.ctas += one.ctas;
      mine.warp_instructions += one.warp_instructions;
      mine.thread_instructions += one.thread_instructions;
      mine.max_cta_warp_instructions = std::max(mine.max_cta_warp_instructions, one.max_cta_warp_instructions);
      mine.offload += one.offload;
      if (text.empty() && !one.fault) continue;
      std::lock_guard lock(mu);
      if (!text.empty()) printed.emplace(i, std::move(text));
      text.clear();
      if (one.fault && i < first_fault.load(std::memory_order_relaxed)) {
        first_fault.store(i, std::memory_order_relaxed);
        total.fault = std::move(one.fault);
        total.fault_cta = one.fault_cta;
        total.fault_warp = one.fault_warp;
      }
    }
    std::lock_guard lock(mu);
    total.ctas += mine.ctas;
    total.warp_instructions += mine.warp_instructions;
    total.thread_instructions += mine.thread_instructions;
    total.max_cta_warp_instructions = std::max(total.max_cta_warp_instructions, mine.max_cta_warp_instructions);
    total.offload += mine.offload;
  };
  run_on_host_threads(threads, worker);
  // Output in unit order, up to the faulting unit.
  const uint64_t last = first_fault.load();
  if (ctx.print)
    for (auto& [i, text] : printed)
      if (i <= last) text.for_each(ctx.print);
  return total;
}

// A cooperative launch: every CTA resident at once (still grouped in clusters).
GridOutcome run_co_resident(const LaunchContext& ctx, const ExecutorOptions& opt, const Units& units) {
  GridOutcome out;
  std::vector<Cluster> clusters(units.count());
  std::vector<Dim3> ids;
  std::vector<std::pair<Cluster*, uint32_t>> cluster_of;
  for (uint64_t u = 0; u < units.count(); ++u) {
    clusters[u].dims = {units.cluster.x, units.cluster.y, units.cluster.z};
    clusters[u].ctas.assign(units.size(), nullptr);
    for (uint32_t r = 0; r < units.size(); ++r) {
      ids.push_back(units.cta(u, r));
      cluster_of.emplace_back(&clusters[u], r);
    }
  }
  std::vector<CtaBuffers> buffers;
  run_together(ctx, opt, ids, cluster_of, buffers, out, nullptr);
  return out;
}

}  // namespace

uint32_t auto_threads() {
  // More threads than this rarely pay: CTAs contend for the host's memory
  // bandwidth, and each thread must be handed work on every launch.
  constexpr uint32_t kCap = 16;
  return std::clamp<uint32_t>(std::thread::hardware_concurrency(), 1, kCap);
}

uint32_t grid_threads(const ExecutorOptions& options, const KernelInfo* kernel) {
  if (options.threads != 0) return options.threads;
  return kernel != nullptr && kernel->cta_interaction.empty() ? auto_threads() : 1;
}

namespace {

ExecutorOptions grid_options(const ExecutorOptions& options, const LaunchContext& ctx) {
  ExecutorOptions opt = options;
  opt.threads = grid_threads(options, ctx.kernel);
  opt.warp_quantum = std::max<uint32_t>(opt.warp_quantum, 1);
  opt.cta_quantum = std::max<uint32_t>(opt.cta_quantum, 1);
  return opt;
}

// Runs `units` in order, or in parallel where `opt` allows it.
GridOutcome run_units(LaunchContext& ctx, const ExecutorOptions& opt, const Units& units) {
  if (opt.threads > 1 && units.count() > 1) {
    ctx.buffer_output = true;
    ctx.concurrent = true;
    return run_parallel(ctx, opt, units);
  }
  return run_in_order(ctx, opt, units);
}

}  // namespace

GridOutcome run_ctas(LaunchContext& ctx, const ExecutorOptions& options, const std::vector<uint64_t>& ctas) {
  const ExecutorOptions opt = grid_options(options, ctx);
  const Dim3 one{1, 1, 1};
  Units units{one, ctx.config.grid, &ctas};
  return run_units(ctx, opt, units);
}

GridOutcome finish_ctas(const ExecutorOptions& options, const std::vector<Cta*>& ctas) {
  GridOutcome out;
  if (ctas.empty()) return out;
  const ExecutorOptions opt = grid_options(options, ctas.front()->launch());
  std::vector<uint64_t> warp_before, thread_before;
  for (const Cta* c : ctas) {
    warp_before.push_back(c->warp_instructions());
    thread_before.push_back(c->thread_instructions());
  }
  take_turns(opt, ctas, out);
  for (size_t i = 0; i < ctas.size(); ++i) {
    ++out.ctas;
    out.warp_instructions += ctas[i]->warp_instructions() - warp_before[i];
    out.thread_instructions += ctas[i]->thread_instructions() - thread_before[i];
  }
  return out;
}

GridOutcome run_grid(LaunchContext& ctx, const ExecutorOptions& options, Dim3 cluster) {
  const ExecutorOptions opt = grid_options(options, ctx);
  const Dim3& g = ctx.config.grid;
  Units units{cluster, Dim3{g.x / cluster.x, g.y / cluster.y, g.z / cluster.z}};
  if (opt.monitor) opt.monitor->begin(g.count());
  if (ctx.config.cooperative) return run_co_resident(ctx, opt, units);
  return run_units(ctx, opt, units);
}

}  // namespace warpsim::functional
