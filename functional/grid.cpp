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

namespace warpsim::functional {

namespace {

Dim3 cta_at(const Dim3& grid, uint64_t i) {
  return Dim3{static_cast<uint32_t>(i % grid.x), static_cast<uint32_t>(i / grid.x % grid.y),
              static_cast<uint32_t>(i / (uint64_t{grid.x} * grid.y))};
}

// The fault of a CTA stopped by the watchdog: blamed on the first warp still
// running, at the instruction it was about to execute.
ExecFault timeout_fault(const Cta& cta, uint64_t limit, uint32_t& warp) {
  ExecFault f;
  f.fault.kind = FaultKind::Timeout;
  for (const auto& w : cta.warps()) {
    if (w->done()) continue;
    warp = w->warp_in_cta();
    f.pc = w->next_pc();
    f.lane = static_cast<uint32_t>(std::countr_zero(w->valid() & ~w->exited()));
    break;
  }
  f.message = fmt::format(
      "the block executed more than {} warp instructions without finishing (a hang, such as a "
      "spin loop waiting for something that never happens); the limit is the executor's watchdog",
      limit);
  f.fault.detail = f.message;
  return f;
}

// Runs one CTA to its end (or fault, or the watchdog) and adds it to `out`.
void run_one(const LaunchContext& ctx, const ExecutorOptions& opt, uint64_t index,
             CtaBuffers& buffers, GridOutcome& out, std::string* printed) {
  const Dim3 id = cta_at(ctx.config.grid, index);
  Cta cta(ctx, id, buffers);
  const uint64_t budget = opt.watchdog ? opt.watchdog : UINT64_MAX;
  const CtaStatus status = cta.run(budget, opt.warp_quantum);
  ++out.ctas;
  out.warp_instructions += cta.warp_instructions();
  out.thread_instructions += cta.thread_instructions();
  if (printed) *printed = cta.take_printed();
  if (status == CtaStatus::Done) return;
  out.fault_cta = id;
  if (status == CtaStatus::Fault) {
    out.fault = cta.fault();
    out.fault_warp = cta.faulting_warp();
  } else {
    out.fault = timeout_fault(cta, opt.watchdog, out.fault_warp);
  }
}

GridOutcome run_in_order(const LaunchContext& ctx, const ExecutorOptions& opt) {
  GridOutcome out;
  CtaBuffers buffers;
  const uint64_t n = ctx.config.grid.count();
  for (uint64_t i = 0; i < n && !out.fault; ++i) run_one(ctx, opt, i, buffers, out, nullptr);
  return out;
}

GridOutcome run_parallel(const LaunchContext& ctx, const ExecutorOptions& opt) {
  const uint64_t n = ctx.config.grid.count();
  const uint32_t threads = static_cast<uint32_t>(std::min<uint64_t>(opt.threads, n));
  std::atomic<uint64_t> next{0};
  std::atomic<uint64_t> first_fault{UINT64_MAX};
  std::mutex mu;
  GridOutcome total;
  std::map<uint64_t, std::string> printed;  // CTA index -> its printf output
  auto worker = [&] {
    CtaBuffers buffers;
    GridOutcome mine;
    std::string text;
    for (;;) {
      // Indices are claimed in increasing order, so every CTA before the first
      // faulting one runs, exactly as in order.
      const uint64_t i = next.fetch_add(1, std::memory_order_relaxed);
      if (i >= n || i > first_fault.load(std::memory_order_relaxed)) break;
      GridOutcome one;
      run_one(ctx, opt, i, buffers, one, &text);
      mine.ctas += one.ctas;
      mine.warp_instructions += one.warp_instructions;
      mine.thread_instructions += one.thread_instructions;
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
  };
  std::vector<std::thread> pool;
  pool.reserve(threads - 1);
  for (uint32_t t = 1; t < threads; ++t) pool.emplace_back(worker);
  worker();
  for (auto& t : pool) t.join();
  // Output in CTA order, up to the faulting CTA.
  const uint64_t last = first_fault.load();
  if (ctx.print)
    for (auto& [i, text] : printed)
      if (i <= last) ctx.print(text);
  return total;
}

GridOutcome run_co_resident(const LaunchContext& ctx, const ExecutorOptions& opt) {
  const uint64_t n = ctx.config.grid.count();
  GridOutcome out;
  std::vector<CtaBuffers> buffers(n);
  std::vector<std::unique_ptr<Cta>> ctas;
  ctas.reserve(n);
  for (uint64_t i = 0; i < n; ++i)
    ctas.push_back(std::make_unique<Cta>(ctx, cta_at(ctx.config.grid, i), buffers[i]));
  std::vector<bool> done(n, false);
  uint64_t remaining = n;
  while (remaining > 0 && !out.fault) {
    // CTAs take turns in index order; the order is fixed, so results are too.
    for (uint64_t i = 0; i < n && !out.fault; ++i) {
      if (done[i]) continue;
      Cta& cta = *ctas[i];
      const CtaStatus status = cta.run(opt.cta_quantum, opt.warp_quantum);
      if (status == CtaStatus::Done) {
        done[i] = true;
        --remaining;
      } else if (status == CtaStatus::Fault) {
        out.fault = cta.fault();
        out.fault_warp = cta.faulting_warp();
        out.fault_cta = cta.ctaid();
      } else if (opt.watchdog && cta.warp_instructions() > opt.watchdog) {
        out.fault = timeout_fault(cta, opt.watchdog, out.fault_warp);
        out.fault_cta = cta.ctaid();
      }
    }
  }
  for (auto& cta : ctas) {
    ++out.ctas;
    out.warp_instructions += cta->warp_instructions();
    out.thread_instructions += cta->thread_instructions();
  }
  return out;
}

}  // namespace

GridOutcome run_grid(LaunchContext& ctx, const ExecutorOptions& options) {
  ExecutorOptions opt = options;
  opt.warp_quantum = std::max<uint32_t>(opt.warp_quantum, 1);
  opt.cta_quantum = std::max<uint32_t>(opt.cta_quantum, 1);
  if (ctx.config.cooperative) return run_co_resident(ctx, opt);
  if (opt.threads > 1 && ctx.config.grid.count() > 1) {
    ctx.buffer_output = true;
    ctx.concurrent = true;
    return run_parallel(ctx, opt);
  }
  return run_in_order(ctx, opt);
}

}  // namespace warpsim::functional
