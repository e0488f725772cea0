// timing::Gpu: the cycle loop of a launch, CTA placement and statistics.
#include "timing/gpu.h"

#include <fmt/format.h>

#include <algorithm>

#include "common/invariant.h"
#include "timing/memory/memory_system.h"
#include "timing/memory/fixed_latency_memory.h"
#include "timing/sm/unit_class.h"

namespace warpsim::timing {

using functional::Dim3;
using functional::GridOutcome;

namespace {

void add(SmStats& a, const SmStats& b, int sign = 1) {
  auto f = [sign](uint64_t& x, uint64_t y) { x = sign > 0 ? x + y : x - y; };
  f(a.warp_instructions, b.warp_instructions);
  f(a.thread_instructions, b.thread_instructions);
  for (int i = 0; i < static_cast<int>(IssueSlot::Count); ++i) f(a.issue_slots[i], b.issue_slots[i]);
  f(a.active_cycles, b.active_cycles);
  f(a.resident_warp_cycles, b.resident_warp_cycles);
  f(a.ctas, b.ctas);
  f(a.shared_accesses, b.shared_accesses);
  f(a.shared_bank_conflict_cycles, b.shared_bank_conflict_cycles);
  f(a.param_accesses, b.param_accesses);
  f(a.global_load_requests, b.global_load_requests);
  f(a.global_store_requests, b.global_store_requests);
  f(a.atomic_requests, b.atomic_requests);
  f(a.local_requests, b.local_requests);
  f(a.memory_requests, b.memory_requests);
  f(a.memory_bytes, b.memory_bytes);
  f(a.ldst_reservation_stall_cycles, b.ldst_reservation_stall_cycles);
  f(a.l1i_accesses, b.l1i_accesses);
  f(a.l1i_misses, b.l1i_misses);
  f(a.constant_accesses, b.constant_accesses);
  f(a.constant_misses, b.constant_misses);
}

// The state of every SM summed (for per-launch differences).
struct Snapshot {
  SmStats sm;
  CacheCounters l1d, l1i, constant;
};

Snapshot snapshot(const std::vector<std::unique_ptr<Sm>>& sms) {
  Snapshot s;
  for (const auto& sm : sms) {
    add(s.sm, sm->stats());
    accumulate(s.l1d, sm->l1d().counters());
    accumulate(s.l1i, sm->l1i().counters());
    accumulate(s.constant, sm->constant_cache().counters());
  }
  return s;
}

}  // namespace

double LaunchTiming::occupancy() const {
  if (sm.active_cycles == 0 || max_warps == 0) return 0;
  return static_cast<double>(sm.resident_warp_cycles) / static_cast<double>(sm.active_cycles * max_warps);
}

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

Gpu::Gpu(const SimConfig& config) : config_(config) {
  WARPSIM_INVARIANT(config_.gpu.num_sms % config_.timing.gpu.sms_per_cluster == 0,
                    "clusters tile the SMs (validated config)");
  build();
  cta_scheduler_ = make_cta_scheduler(config_.timing.gpu.cta_scheduler());
  free_slots_.resize(config_.gpu.num_sms);
  resources_ = sm_resources(config_.gpu);
}

void Gpu::build() {
  const uint32_t n = config_.gpu.num_sms;
  sms_.clear();
  busy_sms_ = ActiveSet(n);
  memory_system_ = nullptr;
  if (config_.timing.memory.model == MemoryModel::FixedLatency) {
    memory_ = std::make_unique<FixedLatencyMemory>(config_.timing.memory, n);
  } else {
    auto m = std::make_unique<MemorySystem>(config_);
    memory_system_ = m.get();
    memory_ = std::move(m);
  }
  const uint32_t max_warps = std::max(1u, config_.gpu.max_threads_per_sm / functional::kWarpSize);
  for (uint32_t i = 0; i < n; ++i) sms_.push_back(std::make_unique<Sm>(i, config_.timing, max_warps, *memory_));
}

Gpu::~Gpu() = default;

void Gpu::prepare_launch(const functional::SmResources& resources, uint32_t regs_per_thread) {
  resources_ = resources;
  regs_per_thread_ = regs_per_thread;
  prepared_ = true;
}

GridOutcome Gpu::run(functional::LaunchContext& ctx, const functional::ExecutorOptions& options, Dim3 cluster) {
  if (cluster.count() > 1) return run_fallback(ctx, options, cluster);
  const Snapshot before = snapshot(sms_);
  const MemoryTotals memory_before = memory_system_ ? memory_system_->totals() : MemoryTotals{};
  const uint32_t threads = static_cast<uint32_t>(ctx.config.block.count());
  const uint32_t regs =
      prepared_ ? regs_per_thread_ : ctx.kernel->resources.reg32_with_callees;
  const uint64_t shared = ctx.kernel->static_shared_bytes + ctx.config.dynamic_shared_bytes;
  const functional::SmResources res = prepared_ ? resources_ : sm_resources(config_.gpu);
  prepared_ = false;
  functional::Occupancy occ = functional::compute_occupancy(res, {threads, regs, shared});
  // The runtime refused launches that cannot run at all; what remains is an
  // estimate off by rounding (PTX registers): run one CTA per SM then.
  const uint32_t warps_per_cta = (threads + functional::kWarpSize - 1) / functional::kWarpSize;
  const uint32_t max_warps = std::max(1u, config_.gpu.max_threads_per_sm / functional::kWarpSize);
  uint32_t per_sm = std::clamp(occ.ctas_per_sm, 1u, std::max(1u, max_warps / std::max(1u, warps_per_cta)));

  last_ = LaunchTiming{};
  last_.ctas_per_sm = per_sm;
  last_.occupancy_limit = occ.limit;
  last_.max_warps = max_warps;
  const std::vector<UnitClass> units = classify_units(*ctx.program);
  const uint32_t n = static_cast<uint32_t>(sms_.size());
  const uint32_t per_cluster = config_.timing.gpu.sms_per_cluster;
  for (auto& sm : sms_) sm->begin_kernel(ctx, {per_sm, warps_per_cta}, units);
  const uint64_t num_ctas = ctx.config.grid.count();
  cta_scheduler_->start({num_ctas, n / per_cluster, per_cluster, per_sm});

  GridOutcome out;
  // Time is absolute across launches (the memory's queues carry over);
  // %clock reads the cycles since this launch began.
  const uint64_t start = clock_;
  uint64_t now = clock_;
  uint64_t since_start = 0;
  ctx.cycle = &since_start;
  const bool trace = config_.timing.gpu.cta_trace;
  uint64_t next_watchdog = now + 1024;
  uint32_t stuck = 0;  // consecutive cycles in which nothing could happen
  const uint64_t max_cycles = config_.timing.gpu.max_cycles;
  auto stop_with = [&](const Sm& sm) {
    out.fault = sm.fault();
    out.fault_cta = sm.fault_cta();
    out.fault_warp = sm.fault_warp();
  };
  for (;;) {
    if (max_cycles != 0 && now - start >= max_cycles) {
      functional::ExecFault f;
      f.fault.kind = functional::FaultKind::Timeout;
      f.message = fmt::format("the launch ran for timing.max_cycles = {} cycles without finishing",
                              max_cycles);
      f.fault.detail = f.message;
      out.fault = f;
      break;
    }
    memory_->advance(now);
    bool active = false;
    if (!cta_scheduler_->done()) {
      bool any_free = false;
      for (uint32_t i = 0; i < n; ++i) {
        free_slots_[i] = sms_[i]->free_cta_slots();
        any_free |= free_slots_[i] != 0;
      }
      if (any_free) {
        assignments_.clear();
        cta_scheduler_->schedule(free_slots_, assignments_);
        for (const CtaAssignment& a : assignments_) {
          sms_[a.sm]->launch_cta(functional::cta_at(ctx.config.grid, a.cta), a.cta, now);
          busy_sms_.add(a.sm);
          if (trace) last_.cta_trace.emplace_back(a.cta, a.sm);
        }
        // A policy that holds CTAs back (distributed-block's delayed launch,
        // an exhausted distributed pool) decides again only when an SM frees
        // a slot, which is activity of its own: no launch, no activity.
        active = !assignments_.empty();
      }
    }
    bool busy = false;
    since_start = now - start;
    // Only SMs with a CTA or something in flight (an idle SM's cycles are
    // counted by finish_kernel).
    for (uint32_t i : busy_sms_.members()) {
      Sm& sm = *sms_[i];
      active |= sm.cycle(now);
      if (sm.faulted()) {
        stop_with(sm);
        break;
      }
    }
    busy_sms_.prune([&](uint32_t i) { return !sms_[i]->quiescent(); });
    busy = !busy_sms_.empty();
    if (out.fault) break;
    ++now;
    if (!busy && cta_scheduler_->done()) break;
    if (options.watchdog != 0 && now >= next_watchdog) {
      next_watchdog = now + 1024;
      for (auto& sm : sms_)
        if (sm->check_watchdog(options.watchdog)) {
          stop_with(*sm);
          break;
        }
      if (out.fault) break;
    }
    if (active) continue;
    if (!config_.timing.gpu.skip_idle_cycles) {
      // Ticking idle SMs changes nothing; only a deadlock must be caught.
      bool any_event = false;
      for (uint32_t i : busy_sms_.members())
        if (sms_[i]->next_event(now - 1) != UINT64_MAX) any_event = true;
      if (any_event || memory_->next_event(now - 1) != UINT64_MAX) continue;
    }
    // Nothing happened: sleep until the next thing that will.
    uint64_t next = memory_->next_event(now - 1);
    for (uint32_t i : busy_sms_.members()) next = std::min(next, sms_[i]->next_event(now - 1));
    if (next == UINT64_MAX) {
      // Nothing is scheduled to happen: warps wait at barriers nobody can
      // reach (a deadlock), or a barrier can be released after all.
      bool woken = false, deadlock = false;
      for (uint32_t i : busy_sms_.members()) {
        Sm* sm = sms_[i].get();
        const Sm::Stall st = sm->resolve_stall(now);
        woken |= st == Sm::Stall::Woken;
        if (st == Sm::Stall::Deadlock) {
          stop_with(*sm);
          deadlock = true;
          break;
        }
      }
      if (deadlock) break;
      if (!woken) {
        // No warp should wait without something to wake it; if one does,
        // look at every warp again before calling the launch stuck.
        if (++stuck > 1) {
          functional::ExecFault f;
          f.fault.kind = functional::FaultKind::Unsupported;
          f.message = "warpsim internal error: no warp can issue and nothing is in flight (please report it)";
          f.fault.detail = f.message;
          out.fault = f;
          break;
        }
        for (auto& sm : sms_) sm->wake_all(now);
      }
      continue;
    }
    stuck = 0;
    if (max_cycles != 0) next = std::min(next, start + max_cycles);
    if (next > now) {
      for (uint32_t i : busy_sms_.members()) sms_[i]->account_skipped(next - now);
      now = next;
    }
  }
  ctx.cycle = nullptr;

  const uint64_t cycles = now - start;
  for (auto& sm : sms_) sm->finish_kernel(cycles);
  const Snapshot after = snapshot(sms_);
  clock_ = now;
  last_.cycles = cycles;
  last_.sm = after.sm;
  add(last_.sm, before.sm, -1);
  last_.l1d = after.l1d;
  accumulate(last_.l1d, before.l1d, -1);
  last_.l1i = after.l1i;
  accumulate(last_.l1i, before.l1i, -1);
  last_.constant = after.constant;
  accumulate(last_.constant, before.constant, -1);
  last_.ctas = last_.sm.ctas;
  last_.sm_cycles = cycles * n;
  if (memory_system_) last_.memory = difference(memory_system_->totals(), memory_before);
  total_cycles_ += cycles;
  ++launches_;

  out.cycles = std::max<uint64_t>(cycles, 1);
  out.ctas = last_.ctas;
  out.warp_instructions = last_.sm.warp_instructions;
  out.thread_instructions = last_.sm.thread_instructions;
  // A fault leaves CTAs and requests in flight; the context is unusable from
  // now on (sticky error), but a later launch must still find clean SMs.
  if (out.fault) build();
  return out;
}

GridOutcome Gpu::run_fallback(functional::LaunchContext& ctx, const functional::ExecutorOptions& options,
                              Dim3 cluster) {
  GridOutcome out = functional::run_grid(ctx, options, cluster);
  // An idealised machine: every scheduler of every SM issues each cycle.
  const uint64_t issue = uint64_t{config_.gpu.num_sms} * config_.timing.sm.schedulers;
  out.cycles = std::max<uint64_t>(1, (out.warp_instructions + issue - 1) / issue);
  last_ = LaunchTiming{};
  last_.fallback = true;
  last_.cycles = out.cycles;
  last_.ctas = out.ctas;
  last_.sm.warp_instructions = out.warp_instructions;
  last_.sm.thread_instructions = out.thread_instructions;
  total_cycles_ += out.cycles;
  ++launches_;
  return out;
}

// The memory system's figures for the last launch (GPGPU-Sim's names where
// it has them) and, over the whole run, per partition and network node.
template <class CacheFn>
void Gpu::publish_memory(StatsRegistry& stats, CacheFn& cache) const {
  const LaunchTiming& t = last_;
  const MemoryTotals& m = t.memory;
  const MemorySystem& ms = *memory_system_;
  const ClockDomains& clk = ms.clocks();
  const auto ratio = [](uint64_t a, uint64_t b) { return b ? static_cast<double>(a) / b : 0.0; };
  cache("L2", m.l2);
  stats.add("timing.l2.writebacks", m.l2.writebacks);
  stats.add("timing.l2.reservation_stall_cycles", m.reservation_stalls);
  stats.add("gpu_stall_dramfull", m.dram_full_stalls);
  stats.add("gpu_stall_icnt2sh", m.icnt2sh_stalls);
  // Launch time in each domain's cycles.
  const uint64_t launch_ps = clk.time(Domain::Core, t.cycles);
  const uint64_t dram_cycles = launch_ps / clk.period(Domain::Dram);
  const uint64_t icnt_cycles = launch_ps / clk.period(Domain::Interconnect);
  const uint64_t channels = ms.partitions().size();
  stats.add("total_dram_reads", m.dram.reads);
  stats.add("total_dram_writes", m.dram.writes);
  stats.add("timing.dram.read_bytes", m.dram.read_bytes);
  stats.add("timing.dram.write_bytes", m.dram.write_bytes);
  stats.add("timing.dram.activates", m.dram.activates);
  stats.add("timing.dram.precharges", m.dram.precharges);
  stats.add("timing.dram.row_buffer_hits", m.dram.row_hits);
  stats.add("timing.dram.row_buffer_misses", m.dram.row_misses);
  stats.add("timing.dram.row_buffer_conflicts", m.dram.row_conflicts);
  stats.add("timing.dram.queue_full_cycles", m.dram.queue_full_cycles);
  stats.set("Row_Buffer_Locality", ratio(m.dram.row_hits, m.dram.row_hits + m.dram.row_misses));
  stats.set("Bank_Level_Parallism", ratio(m.dram.busy_bank_cycles, m.dram.busy_cycles));  // GPGPU-Sim's spelling
  stats.set("bw_util", ratio(m.dram.data_bus_busy, dram_cycles * channels));
  stats.set("timing.dram.bandwidth_GBps",
            launch_ps ? static_cast<double>(m.dram.read_bytes + m.dram.write_bytes) * 1000.0 / launch_ps : 0.0);
  stats.set("timing.dram.avg_read_latency", ratio(m.dram.read_latency, m.dram.reads));
  stats.set("timing.dram.max_read_latency", m.dram.max_read_latency);
  // Request latency below L1 in core cycles (GPGPU-Sim's averagemflatency).
  stats.set("averagemflatency",
            ratio(m.request_latency_ps, m.requests * clk.period(Domain::Core)));
  const char* subnet_names[] = {"request", "reply"};
  const uint64_t injecting[] = {ms.clusters(), ms.network().nodes() - ms.clusters()};
  for (int s = 0; s < interconnect::kSubnets; ++s) {
    const interconnect::NodeStats& n = m.net[s];
    const std::string p = fmt::format("icnt.{}.", subnet_names[s]);
    stats.add(p + "packets", n.packets_injected);
    stats.add(p + "flits", n.flits_injected);
    stats.add(p + "blocked_cycles", n.blocked_cycles);
    stats.set(p + "avg_queue_latency", ratio(n.queue_latency, n.packets_ejected));
    stats.set(p + "avg_network_latency", ratio(n.network_latency, n.packets_ejected));
    stats.set(p + "max_latency", n.max_latency);
    // Flits per injecting node per network cycle (004, 002 report this).
    stats.set(p + "injection_rate", ratio(n.flits_injected, icnt_cycles * injecting[s]));
  }
  stats.add("timing.cluster.inject_blocked_cycles", m.inject_blocked);
  stats.add("timing.cluster.response_full_cycles", m.response_full);
  // Over the whole run: per partition and per network node with traffic.
  for (const auto& part : ms.partitions()) {
    const std::string p = fmt::format("timing.partition.{}.", part->id());
    const DramStats& d = part->dram().stats();
    stats.set(p + "dram_reads", d.reads);
    stats.set(p + "dram_writes", d.writes);
    stats.set(p + "row_buffer_hits", d.row_hits);
    stats.set(p + "row_buffer_misses", d.row_misses);
    uint64_t acc = 0, miss = 0;
    for (uint32_t i = 0; i < part->slices(); ++i) {
      const CacheCounters& c = part->slice(i).cache().counters();
      acc += c.read_accesses + c.write_accesses;
      miss += c.read_misses + c.write_misses;
    }
    stats.set(p + "l2_accesses", acc);
    stats.set(p + "l2_misses", miss);
  }
  for (uint32_t node = 0; node < ms.network().nodes(); ++node)
    for (int s = 0; s < interconnect::kSubnets; ++s) {
      const interconnect::NodeStats& n = ms.network().stats(interconnect::Subnet(s), node);
      if (n.flits_injected == 0 && n.flits_ejected == 0) continue;
      const std::string p = fmt::format("icnt.node.{}.{}.", node, subnet_names[s]);
      stats.set(p + "flits_injected", n.flits_injected);
      stats.set(p + "flits_ejected", n.flits_ejected);
      stats.set(p + "blocked_cycles", n.blocked_cycles);
    }
}

void Gpu::publish(StatsRegistry& stats) const {
  const LaunchTiming& t = last_;
  const double ipc = t.cycles ? static_cast<double>(t.sm.thread_instructions) / t.cycles : 0.0;
  stats.set("gpu_sim_cycle", t.cycles);
  stats.set("gpu_sim_insn", t.sm.thread_instructions);
  stats.set("gpu_ipc", ipc);
  stats.add("gpu_tot_sim_cycle", t.cycles);
  const uint64_t tot_insn = stats.counter("gpu_tot_sim_insn");
  const uint64_t tot_cycles = stats.counter("gpu_tot_sim_cycle");
  stats.set("gpu_tot_ipc", tot_cycles ? static_cast<double>(tot_insn) / tot_cycles : 0.0);
  if (t.fallback) {
    stats.add("timing.functional_fallback_launches");
    return;
  }
  stats.set("gpu_occupancy", 100.0 * t.occupancy());
  stats.add("timing.ctas", t.ctas);
  stats.set("timing.ctas_per_sm", uint64_t{t.ctas_per_sm});
  for (int i = 0; i < static_cast<int>(IssueSlot::Count); ++i)
    stats.add(fmt::format("timing.issue_slots.{}", kIssueSlotNames[i]), t.sm.issue_slots[i]);
  auto cache = [&](const char* name, const CacheCounters& c) {
    const uint64_t accesses = c.read_accesses + c.write_accesses;
    const uint64_t misses = c.read_misses + c.write_misses;
    stats.add(fmt::format("{}_total_cache_accesses", name), accesses);
    stats.add(fmt::format("{}_total_cache_misses", name), misses);
    stats.add(fmt::format("{}_total_cache_pending_hits", name), c.read_hit_reserved);
    stats.add(fmt::format("{}_total_cache_reservation_fails", name), c.reservation_fails);
    const uint64_t all_acc = stats.counter(fmt::format("{}_total_cache_accesses", name));
    const uint64_t all_miss = stats.counter(fmt::format("{}_total_cache_misses", name));
    stats.set(fmt::format("{}_total_cache_miss_rate", name),
              all_acc ? static_cast<double>(all_miss) / all_acc : 0.0);
  };
  cache("L1D", t.l1d);
  cache("L1I", t.l1i);
  cache("L1C", t.constant);
  stats.add("timing.l1d.sector_misses", t.l1d.sector_misses);
  stats.add("timing.l1d.writebacks", t.l1d.writebacks);
  stats.add("timing.shared.accesses", t.sm.shared_accesses);
  stats.add("gpgpu_n_shmem_bkconflict", t.sm.shared_bank_conflict_cycles);
  stats.add("timing.ldst.global_load_requests", t.sm.global_load_requests);
  stats.add("timing.ldst.global_store_requests", t.sm.global_store_requests);
  stats.add("timing.ldst.local_requests", t.sm.local_requests);
  stats.add("timing.ldst.atomic_requests", t.sm.atomic_requests);
  stats.add("timing.ldst.param_accesses", t.sm.param_accesses);
  stats.add("timing.ldst.reservation_stall_cycles", t.sm.ldst_reservation_stall_cycles);
  stats.add("timing.memory.requests", t.sm.memory_requests);
  stats.add("timing.memory.bytes", t.sm.memory_bytes);
  if (memory_system_) publish_memory(stats, cache);
  // Per SM, over the whole run: where CTAs went and how busy each SM was
  // (load balance across SMs is what CTA-scheduling studies look at).
  for (const auto& sm : sms_) {
    const SmStats& st = sm->stats();
    const std::string prefix = fmt::format("timing.sm.{}.", sm->id());
    stats.set(prefix + "ctas", st.ctas);
    stats.set(prefix + "warp_instructions", st.warp_instructions);
    stats.set(prefix + "active_cycles", st.active_cycles);
    stats.set(prefix + "l1d_misses", sm->l1d().counters().read_misses + sm->l1d().counters().write_misses);
  }
  if (!t.cta_trace.empty()) {
    std::string text;
    for (const auto& [cta, sm] : t.cta_trace) text += fmt::format("{}{}:{}", text.empty() ? "" : " ", cta, sm);
    stats.set(fmt::format("timing.launch.{}.cta_trace", launches_), text);
  }
}

}  // namespace warpsim::timing
