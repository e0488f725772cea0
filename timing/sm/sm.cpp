// The SM front end and issue stage: fetch, instruction buffers, warp
// scheduling, scoreboard, execution units, warp and CTA completion.
#include "timing/sm/sm.h"

#include <algorithm>
#include <bit>

#include <fmt/format.h>

#include "common/invariant.h"
#include "functional/grid.h"
#include "ptx/opcode.h"

namespace warpsim::timing {

using functional::DecodedInst;
using functional::Src;
using functional::StepResult;

namespace {
constexpr uint32_t kMaxUnitsPerClass = 16;

// How far a warp got toward issuing; the issue slot reports the furthest.
int progress(IssueSlot s) {
  switch (s) {
    case IssueSlot::Idle: return 0;
    case IssueSlot::Fetch: return 1;
    case IssueSlot::Barrier: return 2;
    case IssueSlot::Scoreboard: return 3;
    case IssueSlot::UnitBusy: return 4;
    case IssueSlot::MemoryStall: return 5;
    default: return 6;
  }
}
}  // namespace

Sm::Sm(uint32_t id, const TimingConfig& config, uint32_t max_warps, LowerMemory& memory,
       const WarpPolicyMaker& warp_policy)
    : id_(id),
      config_(config),
      memory_(memory),
      warps_(max_warps),
      scheduler_warps_(config.sm.schedulers),
      last_slot_(config.sm.schedulers, IssueSlot::Idle),
      next_issue_(config.sm.schedulers, 0),
      unit_free_(size_t{config.sm.schedulers} * kUnitClasses * kMaxUnitsPerClass, 0),
      l1d_(config.l1d),
      l1i_(config.l1i),
      const_(config.constant) {
  coalescer_.line_bytes = config.l1d.line_bytes;
  coalescer_.sector_bytes = config.l1d.sector_bytes;
  for (uint32_t s = 0; s < config.sm.schedulers; ++s) {
    policies_.push_back(warp_policy ? warp_policy(config.sm, max_warps)
                                    : warp_policies().make(config.sm.warp_policy, config.sm, max_warps));
    scheduler_warps_[s].reserve(max_warps);
  }
  for (WarpSlot& w : warps_) w.pending.reserve(config.sm.scoreboard_entries);
  order_.reserve(max_warps);
  trace_.reserve(256);
  lanes_.reserve(256);
  requests_.reserve(64);
  ldst_queue_.reserve(256);
  ldst_waiters_.reserve(max_warps);
}

void Sm::begin_kernel(functional::LaunchContext& ctx, const KernelShape& shape,
                      const std::vector<InstructionClass>& units) {
  WARPSIM_INVARIANT(resident_ctas_ == 0, "a kernel started on an SM that still runs CTAs");
  WARPSIM_INVARIANT(uint64_t{shape.ctas_per_sm} * shape.warps_per_cta <= warps_.size(),
                    "occupancy allows more warps than the SM has slots");
  ctx_ = &ctx;
  shape_ = shape;
  if (ctas_.size() < shape.ctas_per_sm) ctas_.resize(shape.ctas_per_sm);
  free_slots_ = shape.ctas_per_sm;
  cta_work_.clear();
  l1d_.invalidate_all();
  const_.invalidate_all();
  units_ = &units;
}

void Sm::launch_cta(functional::Dim3 ctaid, uint64_t linear_id, uint64_t now, functional::Cluster* cluster,
                    uint32_t rank) {
  WARPSIM_INVARIANT(free_slots_ > 0, "a CTA launched on an SM without a free slot");
  uint32_t c = 0;
  while (ctas_[c].cta) ++c;
  CtaSlot& slot = ctas_[c];
  slot.cta = std::make_unique<functional::Cta>(*ctx_, ctaid, slot.buffers, cluster, rank);
  if (cluster != nullptr) cluster->ctas[rank] = slot.cta.get();
  slot.cta->sm = id_;
  slot.cta->set_print_sink(&printed_);
  slot.first_warp = c * shape_.warps_per_cta;
  slot.linear = linear_id;
  slot.start = now;
  const auto& fwarps = slot.cta->warps();
  slot.live_warps = static_cast<uint32_t>(fwarps.size());
  const uint64_t local_span = uint64_t{ctx_->config.local_bytes_per_thread} * functional::kWarpSize;
  for (uint32_t i = 0; i < fwarps.size(); ++i) {
    const uint32_t ws = slot.first_warp + i;
    WarpSlot& w = warps_[ws];
    w.warp = fwarps[i].get();
    w.warp->access_trace = &trace_;
    w.warp->deferred_tx = &deferred_tx_;
    w.cta_slot = c;
    w.scheduler = ws % config_.sm.schedulers;
    w.local_base = (linear_id * shape_.warps_per_cta + i) * local_span;
    w.ibuf_pc = kNoPc;
    w.ibuf_count = 0;
    w.fetching = false;
    w.in_fetch_queue = false;
    request_fetch(ws);
    w.pending.clear();
    w.stores_in_flight = w.loads_in_flight = 0;
    w.async_pending.assign(1, 0);
    w.async_base = 0;
    w.instructions = 0;
    scheduler_warps_[w.scheduler].push_back(ws);
  }
  --free_slots_;
  ++resident_ctas_;
  ++stats_.ctas;
}

// ---- the cycle -------------------------------------------------------------------

bool Sm::cycle(uint64_t now) {
  wake_ = UINT64_MAX;
  ++accounted_;
  bool active = receive_replies(now);
  active |= complete_due(now);
  active |= ldst_step(now);
  active |= drain_outbox(now);
  fetch(now);
  active |= fetched_;
  for (uint32_t s = 0; s < config_.sm.schedulers && !fault_; ++s) active |= issue(s, now);
  if (maybe_retire_) retire_ctas(now);
  active |= cta_ended_;
  cta_ended_ = false;
  if (resident_ctas_ != 0) {
    ++stats_.active_cycles;
    stats_.resident_warp_cycles += uint64_t{resident_ctas_} * shape_.warps_per_cta;
  }
  return active;
}

void Sm::finish_kernel(uint64_t cycles) {
  if (cycles > accounted_)
    stats_.issue_slots[static_cast<int>(IssueSlot::Idle)] += (cycles - accounted_) * config_.sm.schedulers;
  accounted_ = 0;
  std::fill(next_issue_.begin(), next_issue_.end(), 0);  // the next launch counts cycles from 0
}

void Sm::account_skipped(uint64_t cycles) {
  accounted_ += cycles;
  for (IssueSlot s : last_slot_) stats_.issue_slots[static_cast<int>(s)] += cycles;
  if (resident_ctas_ != 0) {
    stats_.active_cycles += cycles;
    stats_.resident_warp_cycles += cycles * resident_ctas_ * shape_.warps_per_cta;
  }
}

uint64_t Sm::next_event(uint64_t now) const {
  if (outbox_head_ < outbox_.size()) return now + 1;
  // A refused head waits for a reply (the memory's next event).
  if (ldst_head_ < ldst_queue_.size() && !ldst_blocked_) return now + 1;
  uint64_t next = UINT64_MAX;
  if (!completions_.empty()) next = std::max(now + 1, completions_.top().ready);
  auto later = [&](uint64_t t) {
    if (t > now && t < next) next = t;
  };
  if (fetch_head_ < fetch_queue_.size()) return now + 1;
  // A scheduler between two issues counts its slots as issued until it may
  // issue again; then it looks at its warps and the slots get their reason.
  for (uint64_t t : next_issue_) later(t);
  const uint32_t slots = shape_.ctas_per_sm * shape_.warps_per_cta;
  for (uint32_t i = 0; i < slots; ++i) {
    const WarpSlot& w = warps_[i];
    if (w.warp == nullptr || w.warp->done() || w.ready_at == kPending || w.ready_at == kLdstWait) continue;
    // A warp that could issue but was not considered (outside a two-level
    // active pool) is considered again next cycle.
    if (w.ready_at <= now) return now + 1;
    later(w.ready_at);
  }
  return next;
}

bool Sm::quiescent() const {
  return resident_ctas_ == 0 && ldst_head_ >= ldst_queue_.size() && outbox_head_ >= outbox_.size() &&
         completions_.empty() && in_flight_ == 0;
}

// ---- fetch -------------------------------------------------------------------------

void Sm::request_fetch(uint32_t ws) {
  WarpSlot& w = warps_[ws];
  w.ibuf_count = 0;
  w.ready_at = kPending;
  w.reason = IssueSlot::Fetch;
  if (w.in_fetch_queue) return;
  w.in_fetch_queue = true;
  if (fetch_head_ == fetch_queue_.size()) {
    fetch_queue_.clear();
    fetch_head_ = 0;
  }
  fetch_queue_.push_back(ws);
}

void Sm::fetch(uint64_t now) {
  fetched_ = false;
  const uint32_t line_bytes = config_.l1i.line_bytes;
  const uint32_t inst_bytes = config_.sm.instruction_bytes;
  for (uint32_t served = 0; served < config_.sm.fetch_per_cycle && fetch_head_ < fetch_queue_.size();) {
    const uint32_t ws = fetch_queue_[fetch_head_];
    WarpSlot& w = warps_[ws];
    if (w.warp == nullptr || w.warp->done()) {  // exited while queued
      w.in_fetch_queue = false;
      ++fetch_head_;
      continue;
    }
    const uint32_t pc = w.warp->next_pc();
    const uint64_t addr = uint64_t{pc} * inst_bytes;
    const uint64_t line = addr & ~uint64_t{line_bytes - 1};
    const uint32_t sector = 1u << ((addr - line) / config_.l1i.sector_bytes);
    const ReadResult r = l1i_.read(line, sector, ws);
    ++served;  // a refused fetch still used the fetch slot
    if (r.outcome == ReadOutcome::ReservationFail) break;  // the L1I retries next cycle
    ++fetch_head_;
    w.in_fetch_queue = false;
    fetched_ = true;
    w.ibuf_pc = pc;
    // The instructions of this line from pc on, up to the buffer size.
    const uint32_t in_line = static_cast<uint32_t>((line + line_bytes - addr) / inst_bytes);
    w.ibuf_count = std::max(1u, std::min(config_.sm.ibuffer_entries, in_line));
    if (r.outcome == ReadOutcome::Hit) {
      w.ibuf_ready = now + config_.l1i.hit_latency + config_.sm.decode_latency;
      w.ready_at = w.ibuf_ready;
    } else {
      w.fetching = true;
      if (r.fetch_sectors != 0)
        send_below(MemKind::Instruction, line, r.fetch_sectors,
                   std::popcount(r.fetch_sectors) * config_.l1i.sector_bytes, ws, now, true);
    }
  }
  if (fetch_head_ == fetch_queue_.size()) {
    fetch_queue_.clear();
    fetch_head_ = 0;
  }
}

// ---- issue -------------------------------------------------------------------------

bool Sm::issue(uint32_t s, uint64_t now) {
  if (now < next_issue_[s]) {
    // Between two issues (issue_interval > 1): the slot belongs to the
    // instruction issued last.
    ++stats_.issue_slots[static_cast<int>(last_slot_[s])];
    return false;
  }
  const auto& list = scheduler_warps_[s];
  if (list.empty()) {
    last_slot_[s] = IssueSlot::Idle;
    ++stats_.issue_slots[static_cast<int>(IssueSlot::Idle)];
    return false;
  }
  policies_[s]->order(list, *this, order_);
  IssueSlot best = IssueSlot::Idle;
  bool policy_changed = false;  // a two-level pool moved: the next cycle differs
  const auto& code = ctx_->program->code;
  for (uint32_t ws : order_) {
    WarpSlot& w = warps_[ws];
    IssueSlot reason = w.reason;
    if (w.ready_at == kPending && reason != IssueSlot::Fetch) {
      // Waiting for an event (memory, barrier, fence): a two-level policy
      // moves it out of its active pool again (it may have been promoted
      // while still waiting).
      policy_changed |= policies_[s]->long_latency_stall(ws);
    } else if (w.ready_at <= now) {
      if (w.warp->waiting_at_barrier) {
        reason = w.reason = IssueSlot::Barrier;
        w.ready_at = kPending;  // wake_barrier_waiters
        policy_changed |= policies_[s]->long_latency_stall(ws);  // a two-level pool must let the others arrive
      } else {
        reason = can_issue(w, code[w.ibuf_pc], now);
        if (reason == IssueSlot::Issued) {
          policies_[s]->issued(ws);
          execute(ws, now);
          next_issue_[s] = now + config_.sm.issue_interval;
          last_slot_[s] = IssueSlot::Issued;
          ++stats_.issue_slots[static_cast<int>(IssueSlot::Issued)];
          return true;
        }
        w.reason = reason;
        if ((reason == IssueSlot::Scoreboard && long_latency_) || reason == IssueSlot::Barrier)
          policy_changed |= policies_[s]->long_latency_stall(ws);  // waits for memory, a fence or a barrier
      }
    }
    if (progress(reason) > progress(best)) best = reason;
  }
  last_slot_[s] = best;
  ++stats_.issue_slots[static_cast<int>(best)];
  return policy_changed;
}

WarpView Sm::view(uint32_t warp) const {
  const WarpSlot& w = warps_[warp];
  WarpView v;
  v.stall = w.reason;
  v.instructions = w.instructions;
  v.cta_slot = w.cta_slot;
  if (w.warp != nullptr && w.ibuf_count != 0 && !w.fetching && w.ibuf_pc != kNoPc) {
    v.next = &ctx_->program->code[w.ibuf_pc];
    v.annotation = &ctx_->program->annotations[w.ibuf_pc];
  }
  return v;
}

IssueSlot Sm::can_issue(WarpSlot& w, const DecodedInst& inst, uint64_t now) {
  long_latency_ = false;
  wake_ = UINT64_MAX;
  if (hazard(w, inst, now)) {
    // Until the register's write lands; a load's registers wake the warp
    // when the load completes (load_part_done).
    w.ready_at = long_latency_ ? kPending : wake_;
    return IssueSlot::Scoreboard;
  }
  const UnitClass unit = (*units_)[&inst - ctx_->program->code.data()].unit;
  if (unit == UnitClass::Fence && (w.stores_in_flight != 0 || w.loads_in_flight != 0)) {
    w.ready_at = kPending;  // the last reply wakes it
    return IssueSlot::Barrier;
  }
  if (inst.opcode == ptx::Opcode::Cp && !async_wait_satisfied(w, inst)) {
    w.ready_at = kPending;  // a copy's completion wakes it
    return IssueSlot::Barrier;
  }
  if (unit == UnitClass::Ldst) {
    if (ldst_head_ < ldst_queue_.size()) {
      // Until the unit finishes its instruction (ldst_step wakes it then,
      // the cycle it would have found the unit free by looking).
      w.ready_at = kLdstWait;
      ldst_waiters_.push_back(static_cast<uint32_t>(&w - warps_.data()));
      return IssueSlot::MemoryStall;
    }
    if (ldst_free_ > now) {
      w.ready_at = ldst_free_;
      return IssueSlot::MemoryStall;
    }
    return IssueSlot::Issued;
  }
  const uint32_t count = unit_timing(config_.units, unit).count;
  const uint64_t* pipes = &unit_free_[(size_t{w.scheduler} * kUnitClasses + static_cast<size_t>(unit)) *
                                      kMaxUnitsPerClass];
  uint64_t soonest = UINT64_MAX;
  for (uint32_t i = 0; i < count; ++i) {
    if (pipes[i] <= now) return IssueSlot::Issued;
    soonest = std::min(soonest, pipes[i]);
  }
  w.ready_at = soonest;
  return IssueSlot::UnitBusy;
}

bool Sm::hazard(WarpSlot& w, const DecodedInst& inst, uint64_t now) {
  auto& pending = w.pending;
  // Drop the writes that completed.
  for (size_t i = 0; i < pending.size();) {
    if (pending[i].ready <= now) {
      pending[i] = pending.back();
      pending.pop_back();
    } else {
      ++i;
    }
  }
  if (pending.empty()) return false;
  auto busy = [&](uint32_t reg) {
    for (const ScoreEntry& e : pending)
      if (e.reg == reg) {
        if (e.ready == kPending) long_latency_ = true;
        else wake_ = std::min(wake_, e.ready);
        return true;
      }
    return false;
  };
  bool blocked = false;
  for (uint32_t i = 0; i < inst.num_src; ++i) {
    const functional::Operand& op = inst.src[i];
    if (op.kind == Src::Reg) blocked |= busy(op.index);
    else if (op.kind == Src::Pred) blocked |= busy(kPredBase + op.index);
  }
  if (inst.addr.base.kind == Src::Reg) blocked |= busy(inst.addr.base.index);
  if (inst.has_guard) blocked |= busy(kPredBase + inst.guard);
  for (uint32_t i = 0; i < inst.num_dst && i < 4; ++i) {
    if (inst.dst[i] == functional::kNoSlot) continue;
    blocked |= busy(inst.dst_is_pred && i == 0 ? kPredBase + inst.dst[i] : inst.dst[i]);
  }
  if (inst.dst_pred != functional::kNoSlot) blocked |= busy(kPredBase + inst.dst_pred);
  if (pending.size() >= config_.sm.scoreboard_entries) {
    blocked = true;
    for (const ScoreEntry& e : pending)
      if (e.ready != kPending) wake_ = std::min(wake_, e.ready);
  }
  return blocked;
}

void Sm::add_pending(WarpSlot& w, uint32_t reg, uint64_t ready, uint32_t load) {
  for (ScoreEntry& e : w.pending)
    if (e.reg == reg) {
      e.ready = ready;
      e.load = load;
      return;
    }
  w.pending.push_back({reg, load, ready});
}

void Sm::execute(uint32_t ws, uint64_t now) {
  WarpSlot& w = warps_[ws];
  functional::Warp& warp = *w.warp;
  const uint32_t pc = warp.next_pc();
  const auto& code = ctx_->program->code;
  const DecodedInst& inst = code[pc];
  const uint64_t threads_before = warp.thread_instructions;
  trace_.clear();
  deferred_tx_.clear();
  const StepResult r = warp.step();
  if (r == StepResult::Fault) {
    fault_ = warp.fault();
    fault_cta_ = ctas_[w.cta_slot].cta->ctaid();
    fault_warp_ = warp.warp_in_cta();
    return;
  }
  const InstructionClass& klass = (*units_)[pc];
  const uint64_t lanes = warp.thread_instructions - threads_before;
  ++stats_.warp_instructions;
  stats_.thread_instructions += lanes;
  stats_.unit_lane_ops[static_cast<size_t>(klass.unit)] += lanes;
  stats_.register_reads += klass.register_reads;
  stats_.register_writes += klass.register_writes;
  ++w.instructions;
  warp.yield_requested = false;  // a wait that did not complete simply issues again
  // The buffer holds the following instructions unless control left the line.
  const uint32_t next = warp.next_pc();
  if (r != StepResult::Exited) {
    if (w.ibuf_count > 1 && next == pc + 1) {
      w.ibuf_pc = next;
      --w.ibuf_count;
      w.ready_at = now + 1;
    } else {
      request_fetch(ws);
    }
  }

  const UnitClass unit = klass.unit;
  if (unit != UnitClass::Ldst && !deferred_tx_.empty()) {  // no memory operation: nothing to wait for
    for (const functional::DeferredTx& tx : deferred_tx_) functional::complete_mbarrier_tx(tx.mbarrier, tx.bytes);
    deferred_tx_.clear();
  }
  if (unit == UnitClass::Ldst) {
    issue_memory(ws, inst, now);
  } else if (unit != UnitClass::Fence) {
    const UnitTiming timing = unit_timing(config_.units, unit);
    uint32_t latency = timing.latency;
    if (config_.sm.operand_collector) {
      // Sources in the same register bank are read one after another.
      uint32_t per_bank[32] = {};
      uint32_t worst = 0;
      for (uint32_t i = 0; i < inst.num_src; ++i)
        if (inst.src[i].kind == Src::Reg)
          worst = std::max(worst, ++per_bank[inst.src[i].index % config_.sm.register_banks]);
      if (worst > 1) latency += worst - 1;
    }
    uint64_t* pipes = &unit_free_[(size_t{w.scheduler} * kUnitClasses + static_cast<size_t>(unit)) *
                                  kMaxUnitsPerClass];
    for (uint32_t i = 0; i < timing.count; ++i)
      if (pipes[i] <= now) {
        pipes[i] = now + timing.interval;
        break;
      }
    for_each_destination(inst, [&](uint32_t reg) { add_pending(w, reg, now + latency, 0); });
  }
  if (r == StepResult::Exited) warp_exited(ws, now);
  else if (inst.opcode == ptx::Opcode::Bar || inst.opcode == ptx::Opcode::Barrier)
    wake_barrier_waiters(w.cta_slot, now);  // the last arrival released the others
}

void Sm::wake_barrier_waiters(uint32_t cta_slot, uint64_t now) {
  const CtaSlot& c = ctas_[cta_slot];
  const uint32_t n = static_cast<uint32_t>(c.cta->warps().size());
  for (uint32_t i = 0; i < n; ++i) {
    WarpSlot& w = warps_[c.first_warp + i];
    if (w.reason == IssueSlot::Barrier && w.ready_at == kPending && w.warp != nullptr &&
        !w.warp->waiting_at_barrier && w.stores_in_flight == 0 && w.loads_in_flight == 0)
      w.ready_at = now + 1;
  }
}

void Sm::warp_exited(uint32_t ws, uint64_t now) {
  WarpSlot& w = warps_[ws];
  auto& list = scheduler_warps_[w.scheduler];
  list.erase(std::find(list.begin(), list.end(), ws));
  policies_[w.scheduler]->removed(ws);
  CtaSlot& c = ctas_[w.cta_slot];
  --c.live_warps;
  // Threads that exited no longer hold a barrier up.
  if (c.cta->release_barriers()) wake_barrier_waiters(w.cta_slot, now);
  maybe_retire_ = true;
}

void Sm::retire_ctas(uint64_t now) {
  maybe_retire_ = false;
  for (CtaSlot& c : ctas_) {
    if (!c.cta || c.live_warps != 0) continue;
    bool drained = true;
    for (uint32_t i = 0; i < c.cta->warps().size(); ++i) {
      const WarpSlot& w = warps_[c.first_warp + i];
      if (w.loads_in_flight != 0 || w.stores_in_flight != 0) drained = false;
    }
    // Not drained: checked again when its memory operations end (they set
    // maybe_retire_), not every cycle.
    if (!drained) continue;
    for (uint32_t i = 0; i < c.cta->warps().size(); ++i) warps_[c.first_warp + i].warp = nullptr;
    if (ctx_->program->offload_marks) offload_ += c.cta->offload_counts();
    cta_work_.push_back({c.cta->warp_instructions(), now + 1 - c.start});
    // The cluster's other CTAs may run on: this one's shared memory is gone.
    c.cta->cluster().ctas[c.cta->cluster_rank()] = nullptr;
    c.cta.reset();
    ++free_slots_;
    --resident_ctas_;
    cta_ended_ = true;
  }
}

void Sm::detach_ctas(std::vector<std::pair<uint64_t, functional::Cta*>>& out) {
  for (const functional::DeferredTx& tx : deferred_tx_) functional::complete_mbarrier_tx(tx.mbarrier, tx.bytes);
  deferred_tx_.clear();
  for (const PendingTx& p : pending_tx_) functional::complete_mbarrier_tx(p.tx.mbarrier, p.tx.bytes);
  pending_tx_.clear();
  for (CtaSlot& c : ctas_) {
    if (!c.cta) continue;
    // From now on the functional executor's: no access trace, and bulk
    // copies complete at once.
    for (const auto& w : c.cta->warps()) {
      w->access_trace = nullptr;
      w->deferred_tx = nullptr;
    }
    c.cta->set_print_sink(nullptr);
    out.emplace_back(c.linear, c.cta.get());
  }
}

void Sm::resident_progress(std::vector<std::pair<uint64_t, uint64_t>>& out) const {
  for (const CtaSlot& c : ctas_)
    if (c.cta) out.emplace_back(c.linear, c.cta->warp_instructions());
}

std::vector<functional::CtaBuffers> Sm::release_buffers() {
  std::vector<functional::CtaBuffers> out;
  for (CtaSlot& c : ctas_) {
    c.cta.reset();  // returns its register files to c.buffers
    out.push_back(std::move(c.buffers));
  }
  ctas_.clear();
  for (WarpSlot& w : warps_) w.warp = nullptr;
  resident_ctas_ = 0;
  return out;
}

void Sm::adopt_buffers(std::vector<functional::CtaBuffers> buffers) {
  WARPSIM_INVARIANT(resident_ctas_ == 0, "CTA storage adopted by an SM that runs CTAs");
  if (ctas_.size() < buffers.size()) ctas_.resize(buffers.size());
  for (size_t i = 0; i < buffers.size(); ++i) ctas_[i].buffers = std::move(buffers[i]);
}

// ---- faults ------------------------------------------------------------------------

Sm::Stall Sm::resolve_stall(uint64_t now) {
  for (uint32_t i = 0; i < ctas_.size(); ++i)
    if (ctas_[i].cta && ctas_[i].cta->release_barriers()) {
      wake_barrier_waiters(i, now);
      return Stall::Woken;
    }
  for (CtaSlot& c : ctas_) {
    if (c.cta && c.cta->raise_barrier_deadlock()) {
      fault_ = c.cta->fault();
      fault_cta_ = c.cta->ctaid();
      fault_warp_ = c.cta->faulting_warp();
      return Stall::Deadlock;
    }
  }
  return Stall::None;
}

void Sm::wake_all(uint64_t now) {
  const uint32_t slots = shape_.ctas_per_sm * shape_.warps_per_cta;
  for (uint32_t i = 0; i < slots; ++i) {
    WarpSlot& w = warps_[i];
    if (w.warp != nullptr && !w.warp->done() && w.reason != IssueSlot::Fetch) w.ready_at = now;
  }
}

bool Sm::check_watchdog(uint64_t limit) {
  for (CtaSlot& c : ctas_) {
    if (!c.cta || c.cta->warp_instructions() <= limit) continue;
    fault_ = functional::timeout_fault(*c.cta, limit, fault_warp_);
    fault_cta_ = c.cta->ctaid();
    return true;
  }
  return false;
}

}  // namespace warpsim::timing
