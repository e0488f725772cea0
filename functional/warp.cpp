// Warp: stepping, operand access, addresses, and SIMT control flow.
#include "functional/warp.h"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cstring>

#include "functional/cta.h"
#include "ptx/passes/offload_tags.h"

namespace warpsim::functional {

Warp::Warp(Cta& cta, uint32_t warp_in_cta, LaneMask valid, std::vector<uint64_t> registers)
    : cta_(cta), warp_in_cta_(warp_in_cta), valid_(valid), regs_(std::move(registers)) {
  regs_.clear();  // registers start at zero (enter_function), whatever the storage held
  const Program& prog = *launch().program;
  const FunctionInfo& kernel = prog.functions[launch().kernel->function];
  enter_function(launch().kernel->function);
  simt_.push_back({kernel.begin, kernel.end, valid});
  if (prog.offload_marks) {
    offload_marks_ = prog.annotations.data();
    counts_offload_ = true;
  }
  independent_threads_ = prog.independent_threads;
}

const LaunchContext& Warp::launch() const { return cta_.launch(); }

void Warp::enter_function(uint32_t function) {
  const FunctionInfo& f = launch().program->functions[function];
  function_ = function;
  reg_base_ = regs_.size();
  pred_base_ = preds_.size();
  regs_.resize(reg_base_ + size_t{f.num_slots} * kWarpSize, 0);
  preds_.resize(pred_base_ + f.num_preds, 0);
}

// ---- stepping ------------------------------------------------------------------

template <bool kCountOffload>
StepResult Warp::step_as() {
  if (simt_.empty()) return StepResult::Exited;
  const Program& prog = *launch().program;
  SimtEntry& top = simt_.back();
  pc_ = top.pc;
  const DecodedInst& inst = prog.code[pc_];
  issue_mask_ = top.mask;
  LaneMask active = top.mask;
  if (inst.has_guard) {
    LaneMask g = preds_[pred_base_ + inst.guard];
    active &= inst.guard_negated ? ~g : g;
  }
  next_pc_ = pc_ + 1;
  control_done_ = false;
  inst.handler(*this, inst, active);
  if (faulted_) return StepResult::Fault;
  turn_over = inst.ends_turn;
  ++warp_instructions;
  thread_instructions += static_cast<uint32_t>(std::popcount(active));
  if constexpr (kCountOffload) count_offload(active);
  if (!control_done_ && !simt_.empty()) simt_.back().pc = next_pc_;
  pop_reconverged();
  if (blocked_leaves_ != 0) settle();
  if (waiting_at_barrier) return StepResult::Barrier;
  return simt_.empty() ? StepResult::Exited : StepResult::Continue;
}

template StepResult Warp::step_as<false>();
template StepResult Warp::step_as<true>();

void Warp::count_offload(LaneMask active) {
  if (active == 0) return;  // a fully predicated-off instruction sends no request
  const ptx::Annotation& a = offload_marks_[pc_];
  const bool tagged = ptx::offload::tagged(a);
  if (tagged) {
    ++offload.tagged_warp_instructions;
    offload.tagged_thread_instructions += static_cast<uint32_t>(std::popcount(active));
    if (ptx::offload::tag(a) == ptx::offload::kFirst) ++offload.chains;
  }
  if (ptx::offload::global_access(a)) {
    ++offload.global_accesses;
    if (tagged) ++offload.tagged_global_accesses;
  }
}

void Warp::pop_reconverged() {
  while (!simt_.empty()) {
    const SimtEntry& top = simt_.back();
    if (top.mask != 0 && (top.pc != top.rpc || top.blocked)) break;
    simt_.pop_back();
    spins_ = 0;
    // The entry of a callee popped: return to the caller.
    if (!calls_.empty() && simt_.size() == calls_.back().simt_depth) {
      const CallFrame frame = calls_.back();
      const CallSite& site = launch().program->call_sites[launch().program->code[frame.call_pc].target];
      // Copy return values into the caller's frame while both frames exist.
      uint64_t callee_local = local_base_;
      const FunctionInfo& callee = launch().program->functions[frame.function];
      // The calling lanes, not the entry below: after an indirect call with
      // divergent targets that entry holds the lanes still to call.
      LaneMask lanes = frame.lanes & ~exited_;
      for (size_t i = 0; i < site.rets.size() && i < callee.return_offsets.size(); ++i) {
        const Operand& dst = site.rets[i];
        uint32_t size = site.ret_sizes[i];
        for (uint32_t lane = 0; lane < kWarpSize; ++lane) {
          if (!(lanes >> lane & 1)) continue;
          uint8_t* base = cta_.local(warp_in_cta_ * kWarpSize + lane);
          const uint8_t* src = base + callee_local + callee.return_offsets[i];
          if (dst.kind == Src::FrameAddr)
            std::memcpy(base + frame.local_base + dst.imm, src, size);
        }
      }
      regs_.resize(reg_base_);
      preds_.resize(pred_base_);
      reg_base_ = frame.reg_base;
      pred_base_ = frame.pred_base;
      local_base_ = frame.local_base;
      function_ = frame.caller_function;
      calls_.pop_back();
    }
  }
}

// ---- operands ---------------------------------------------------------------------

Warp::Lanes Warp::read(const Operand& op, uint32_t scratch) {
  switch (op.kind) {
    case Src::Reg: return {reg(op.index), kWarpSize - 1};
    case Src::Imm: return {&op.imm, 0};
    case Src::FrameAddr:
      scratch_[scratch][0] = local_base_ + op.imm;
      return {scratch_[scratch], 0};
    case Src::Pred: {
      LaneMask m = read_pred(op);
      for (uint32_t l = 0; l < kWarpSize; ++l) scratch_[scratch][l] = m >> l & 1;
      return {scratch_[scratch], kWarpSize - 1};
    }
    case Src::Special: {
      const LaunchContext& L = launch();
      auto sreg = static_cast<ptx::SpecialRegister>(op.index >> 8);
      uint32_t comp = op.index & 0xff;  // 0 none, 1..3 = x..z
      auto pick = [&](const Dim3& d) -> uint64_t {
        return comp == 2 ? d.y : comp == 3 ? d.z : d.x;
      };
      Dim3 cta = cta_.ctaid();
      const auto& cd = cta_.cluster().dims;
      const Dim3 cl{cd[0], cd[1], cd[2]};
      for (uint32_t lane = 0; lane < kWarpSize; ++lane) {
        uint32_t t = warp_in_cta_ * kWarpSize + lane;
        const Dim3& b = L.config.block;
        Dim3 tid{t % b.x, (t / b.x) % b.y, t / (b.x * b.y)};
        uint64_t v = 0;
        using S = ptx::SpecialRegister;
        switch (sreg) {
          case S::Tid: v = pick(tid); break;
          case S::Ntid: v = pick(b); break;
          case S::Ctaid: v = pick(cta); break;
          case S::Nctaid: v = pick(L.config.grid); break;
          case S::Laneid: v = lane; break;
          case S::Warpid: v = warp_in_cta_; break;
          case S::Nwarpid: v = (cta_.num_threads() + kWarpSize - 1) / kWarpSize; break;
          case S::Smid: v = cta_.sm; break;
          case S::Nsmid: v = L.num_sms; break;
          case S::Gridid: v = L.config.grid_id; break;
          case S::LanemaskEq: v = 1u << lane; break;
          case S::LanemaskLe: v = lane == 31 ? kFullMask : (2u << lane) - 1; break;
          case S::LanemaskLt: v = (1u << lane) - 1; break;
          case S::LanemaskGe: v = ~((1u << lane) - 1); break;
          case S::LanemaskGt: v = lane == 31 ? 0 : ~((2u << lane) - 1); break;
          case S::Clock: case S::ClockHi: case S::Clock64:
          case S::Globaltimer: case S::GlobaltimerLo: case S::GlobaltimerHi:
            // Functional mode has no cycles: the warp's own count of executed
            // instructions stands in for time (monotonic, and independent of
            // how CTAs are scheduled, so results are deterministic).
            v = L.cycle != nullptr ? L.clock + *L.cycle : L.clock + warp_instructions;
            if (sreg == S::ClockHi || sreg == S::GlobaltimerHi) v >>= 32;
            else if (sreg == S::Clock || sreg == S::GlobaltimerLo) v &= 0xffffffffu;
            break;
          case S::DynamicSmemSize: v = L.config.dynamic_shared_bytes; break;
          case S::TotalSmemSize: case S::AggrSmemSize: v = cta_.shared_size(); break;
          case S::ReservedSmemOffsetBegin: case S::ReservedSmemOffsetEnd:
          case S::ReservedSmemOffsetCap: case S::ReservedSmemOffset: {
            const uint64_t begin = cta_.reserved_shared_begin();
            v = sreg == S::ReservedSmemOffsetBegin ? begin
                : sreg == S::ReservedSmemOffsetEnd ? cta_.shared_size()
                : sreg == S::ReservedSmemOffsetCap ? kReservedSharedBytes
                : begin + (op.imm == 1 ? kReservedSharedSecondOffset : 0);
            break;
          }
          case S::Envreg: v = L.config.envreg[op.imm & 31]; break;
          case S::Pm: case S::Pm64: v = 0; break;
          case S::Clusterid: v = pick(cta) / pick(cl); break;
          case S::ClusterCtaid: v = pick(cta) % pick(cl); break;
          case S::Nclusterid: v = pick(L.config.grid) / pick(cl); break;
          case S::ClusterNctaid: v = pick(cl); break;
          case S::ClusterCtarank: v = cta_.cluster_rank(); break;
          case S::ClusterNctarank: v = cta_.cluster().ctas.size(); break;
          default: v = 0; break;
        }
        scratch_[scratch][lane] = v;
      }
      return {scratch_[scratch], kWarpSize - 1};
    }
    case Src::None: break;
  }
  scratch_[scratch][0] = 0;
  return {scratch_[scratch], 0};
}

LaneMask Warp::read_pred(const Operand& op) const {
  if (op.kind == Src::Imm) return op.imm ? kFullMask : 0;
  LaneMask m = preds_[pred_base_ + op.index];
  return op.negate ? ~m : m;
}

void Warp::write_pred(uint32_t index, LaneMask active, LaneMask values) {
  uint32_t& p = preds_[pred_base_ + index];
  p = (p & ~active) | (values & active);
}

// ---- memory ----------------------------------------------------------------------

uint8_t* Warp::translate(Window window, uint64_t addr, uint32_t size, uint32_t lane,
                         AccessKind kind, bool quiet) {
  if (window == Window::Generic) {
    if (addr - kSharedWindow < kSharedWindowSize) {
      window = Window::Shared;
      addr -= kSharedWindow;
    } else if (addr - kLocalWindow < kLocalWindowSize) {
      window = Window::Local;
      addr -= kLocalWindow;
    } else {
      window = Window::Global;
    }
  }
  if (access_trace != nullptr && !quiet)
    access_trace->push_back({addr, size, static_cast<uint8_t>(lane), window, kind});
  auto window_fault = [&](const char* what, uint64_t limit) -> uint8_t* {
    if (quiet) return nullptr;
    Fault f;
    f.kind = (size > 1 && addr % size) ? FaultKind::Misaligned : FaultKind::OutOfBounds;
    f.address = addr;
    f.size = size;
    f.access = kind;
    f.detail = fmt::format("{} address 0x{:x} is outside the {}-byte {} window", what, addr, limit,
                           what);
    raise(f, lane);
    return nullptr;
  };
  switch (window) {
    case Window::Global: {
      Fault f;
      uint8_t* p = launch().memory->translate(addr, size, kind, f, cta_.memory_cache());
      if (!p && !quiet) raise(f, lane);
      return p;
    }
    case Window::Shared: {
      Cta* owner = &cta_;
      if (addr >= kClusterSharedStride) {  // another CTA of the cluster (mapa)
        owner = cta_.cluster_peer(addr / kClusterSharedStride - 1);
        if (!owner) return window_fault("shared::cluster", cta_.cluster().ctas.size() * kClusterSharedStride);
        addr %= kClusterSharedStride;
      }
      if (addr + size > owner->shared_size() || addr + size < addr || (size > 1 && addr % size))
        return window_fault("shared", owner->shared_size());
      return owner->shared() + addr;
    }
    case Window::Local:
      if (addr + size > cta_.local_size() || addr + size < addr || (size > 1 && addr % size))
        return window_fault("local", cta_.local_size());
      return cta_.local(warp_in_cta_ * kWarpSize + lane) + addr;
    case Window::KernelParam: {
      const auto& params = launch().params;
      if (kind != AccessKind::Read || addr + size > params.size() || addr + size < addr)
        return window_fault("parameter", params.size());
      return const_cast<uint8_t*>(params.data()) + addr;
    }
    case Window::Generic: break;
  }
  return nullptr;
}

void Warp::raise(const Fault& f, uint32_t lane) {
  if (faulted_) return;
  faulted_ = true;
  fault_.fault = f;
  fault_.lane = lane;
  fault_.pc = pc_;
}

void Warp::raise(FaultKind kind, uint32_t lane, std::string message) {
  if (faulted_) return;
  Fault f;
  f.kind = kind;
  f.detail = message;
  raise(f, lane);
  fault_.message = std::move(message);
}

// ---- control flow -------------------------------------------------------------------

void Warp::branch(const DecodedInst& inst, LaneMask taken, LaneMask active) {
  control_done_ = true;
  SimtEntry& top = simt_.back();
  LaneMask all = issue_mask_;
  LaneMask not_taken = all & ~taken;
  (void)active;
  if (taken == 0) {
    top.pc = pc_ + 1;
  } else if (not_taken == 0) {
    top.pc = inst.target;
  } else {
    uint32_t rpc = inst.reconvergence;
    top.pc = rpc;
    const auto level = static_cast<uint16_t>(top.level + 1);
    simt_.push_back({pc_ + 1, rpc, not_taken, level});
    simt_.push_back({inst.target, rpc, taken, level});
  }
  // A path going round a loop with other paths unable to run meanwhile: once
  // it looks like a spin, let the others go (independent thread scheduling).
  if (independent_threads_ && taken != 0 && inst.target <= pc_ && simt_.size() > 1 &&
      ++spins_ >= kSpinBranches)
    yield_spinning_path();
}

void Warp::branch_groups(const DecodedInst& inst, const uint32_t* targets, const LaneMask* masks,
                         uint32_t groups) {
  control_done_ = true;
  LaneMask all = 0;
  for (uint32_t g = 0; g < groups; ++g) all |= masks[g];
  LaneMask not_taken = issue_mask_ & ~all;
  if (groups == 1 && not_taken == 0) {
    simt_.back().pc = targets[0];
    return;
  }
  uint32_t rpc = inst.reconvergence;
  simt_.back().pc = rpc;
  const auto level = static_cast<uint16_t>(simt_.back().level + 1);
  if (not_taken) simt_.push_back({pc_ + 1, rpc, not_taken, level});
  for (uint32_t g = groups; g-- > 0;) simt_.push_back({targets[g], rpc, masks[g], level});
}

void Warp::call(const DecodedInst& inst, uint32_t callee, LaneMask active) {
  control_done_ = true;
  simt_.back().pc = pc_ + 1;  // everyone (callers and bystanders) resumes here
  if (active == 0) return;
  push_call(inst, callee, active, static_cast<uint16_t>(simt_.back().level + 1));
}

void Warp::call_group(const DecodedInst& inst, uint32_t callee, LaneMask group, LaneMask rest) {
  control_done_ = true;
  simt_.back().pc = pc_ + 1;
  const auto level = static_cast<uint16_t>(simt_.back().level + 1);
  if (rest) simt_.push_back({pc_, pc_ + 1, rest, level});
  push_call(inst, callee, group, level);
}

void Warp::push_call(const DecodedInst& inst, uint32_t callee, LaneMask active, uint16_t level) {
  const Program& prog = *launch().program;
  const FunctionInfo& caller = prog.functions[function_];
  const FunctionInfo& f = prog.functions[callee];
  uint64_t callee_base = local_base_ + caller.frame_bytes;
  callee_base = (callee_base + 15) & ~uint64_t{15};
  if (callee_base + f.frame_bytes > cta_.local_size()) {
    raise(FaultKind::StackOverflow, static_cast<uint32_t>(std::countr_zero(active)),
          fmt::format("call stack overflow calling '{}': {} bytes of local memory per thread are "
                      "needed, {} are available (cudaLimitStackSize)",
                      f.name, callee_base + f.frame_bytes, cta_.local_size()));
    return;
  }
  CallFrame frame;
  frame.function = callee;
  frame.return_pc = pc_ + 1;
  frame.call_pc = pc_;
  frame.reg_base = reg_base_;
  frame.pred_base = pred_base_;
  frame.local_base = local_base_;
  frame.caller_function = function_;
  frame.simt_depth = simt_.size();
  frame.lanes = active;
  // Arguments go from the caller's frame into the callee's, per calling lane.
  const CallSite& site = prog.call_sites[inst.target];
  size_t caller_reg_base = reg_base_;
  for (size_t i = 0; i < site.args.size() && i < f.param_offsets.size(); ++i) {
    const Operand& arg = site.args[i];
    uint32_t size = site.arg_sizes[i];
    for (uint32_t lane = 0; lane < kWarpSize; ++lane) {
      if (!(active >> lane & 1)) continue;
      uint8_t* base = cta_.local(warp_in_cta_ * kWarpSize + lane);
      uint8_t* dst = base + callee_base + f.param_offsets[i];
      if (arg.kind == Src::FrameAddr)
        std::memcpy(dst, base + local_base_ + arg.imm, size);
      else if (arg.kind == Src::Reg)
        std::memcpy(dst, &regs_[caller_reg_base + size_t{arg.index} * kWarpSize + lane], size);
      else if (arg.kind == Src::Imm)
        std::memcpy(dst, &arg.imm, size);
    }
  }
  calls_.push_back(frame);
  enter_function(callee);
  local_base_ = callee_base;
  simt_.push_back({f.begin, f.end, active, level});
}

void Warp::ret(LaneMask active) {
  control_done_ = true;
  if (calls_.empty()) {  // `ret` from the kernel ends those threads
    exit(active);
    return;
  }
  const FunctionInfo& f = launch().program->functions[function_];
  SimtEntry& top = simt_.back();
  LaneMask staying = issue_mask_ & ~active;
  if (staying == 0) {
    top.pc = f.end;
  } else {
    // A guarded return: the returning lanes wait at the function end.
    top.pc = f.end;
    simt_.push_back({pc_ + 1, f.end, staying, static_cast<uint16_t>(top.level + 1)});
  }
}

void Warp::exit(LaneMask active) {
  control_done_ = true;
  exited_ |= active;
  for (SimtEntry& e : simt_) e.mask &= ~active;
  if (!simt_.empty() && (issue_mask_ & ~active) != 0) simt_.back().pc = pc_ + 1;
}

// ---- independent thread scheduling ------------------------------------------------

size_t Warp::subtree_end(size_t i) const {
  size_t j = i + 1;
  while (j < simt_.size() && simt_[j].level > simt_[i].level) ++j;
  return j;
}

size_t Warp::parent(size_t i) const {
  if (simt_[i].level == 0) return kNone;
  size_t j = i;
  while (simt_[j - 1].level >= simt_[i].level) --j;
  return j - 1;
}

// Paths inside a call share the callee's register frame: only entries above
// the innermost callee's own entry may change places.
size_t Warp::region_begin() const { return calls_.empty() ? 0 : calls_.back().simt_depth + 1; }

// The runnable leaf nearest the top, not counting the top: the path the
// plain stack would run next.
size_t Warp::other_runnable_leaf() const {
  for (size_t i = simt_.size() - 1; i-- > region_begin();)
    if (runnable_leaf(i)) return i;
  return kNone;
}

// Moves `leaf` to the top: its subtree, then each ancestor's below the
// region's root, goes after its siblings. Preorder (children above their
// parent) is kept, so reconvergence works as before.
void Warp::bring_to_top(size_t leaf) {
  const size_t begin = region_begin();
  for (size_t s = leaf; s != kNone && s >= begin;) {
    const uint16_t level = simt_[s].level;
    const size_t e = subtree_end(s);
    size_t end = e;  // the end of the parent's subtree
    while (end < simt_.size() && simt_[end].level >= level) ++end;
    std::rotate(simt_.begin() + static_cast<ptrdiff_t>(s), simt_.begin() + static_cast<ptrdiff_t>(e),
                simt_.begin() + static_cast<ptrdiff_t>(end));
    s = parent(end - (e - s));
  }
  spins_ = 0;
}

void Warp::warp_sync(LaneMask members, LaneMask active) {
  if (!independent_threads_ || active == 0) return;
  const LaneMask need = members & valid_ & ~exited_;
  const size_t begin = region_begin();
  LaneMask arrived = active, could_come = 0;
  for (size_t i = begin; i + 1 < simt_.size(); ++i) {
    if (!is_leaf(i) || simt_[i].mask == 0) continue;
    if (simt_[i].blocked) arrived |= simt_[i].mask;
    else if (simt_[i].pc != simt_[i].rpc) could_come |= simt_[i].mask;
  }
  const LaneMask missing = need & ~arrived;
  if (missing == 0) {
    release_warp_sync();
    return;
  }
  // Lanes no path here can bring (they exited, wait at a reconvergence point
  // or sit outside the current call) never arrive: go on, as in lockstep.
  if ((missing & ~could_come) != 0) return;
  SimtEntry& top = simt_.back();
  control_done_ = true;
  top.pc = pc_ + 1;
  top.blocked = true;
  ++blocked_leaves_;
}

void Warp::release_warp_sync() {
  for (size_t i = region_begin(); i < simt_.size(); ++i)
    if (simt_[i].blocked) {
      simt_[i].blocked = false;
      --blocked_leaves_;
    }
}

// The top leaf waits at bar.warp.sync: run another path, or, when none can
// run, release the waiters (the lanes they wait for will not come).
void Warp::settle() {
  while (!simt_.empty() && simt_.back().blocked) {
    const size_t other = other_runnable_leaf();
    if (other != kNone) bring_to_top(other);
    else release_warp_sync();
    pop_reconverged();
  }
}

// The running path has spun kSpinBranches times: another path that can run
// gets the warp; failing that, lanes waiting at a reconvergence point of an
// enclosing branch (a lock's winner, waiting for the losers at the loop's
// exit) go on without the spinning path, as a sibling of that branch's entry.
void Warp::yield_spinning_path() {
  spins_ = 0;
  const size_t other = other_runnable_leaf();
  if (other != kNone) {
    bring_to_top(other);
    return;
  }
  const size_t begin = region_begin();
  for (size_t a = parent(simt_.size() - 1); a != kNone && a >= begin; a = parent(a)) {
    const SimtEntry& entry = simt_[a];
    if (entry.pc == entry.rpc) continue;  // its lanes wait where an enclosing entry waits
    const size_t end = subtree_end(a);
    LaneMask live = 0;
    for (size_t i = a + 1; i < end; ++i)
      if (is_leaf(i) && (simt_[i].pc != simt_[i].rpc || simt_[i].blocked)) live |= simt_[i].mask;
    const LaneMask waiting = entry.mask & ~live;
    if (waiting == 0) continue;
    for (size_t i = a; i < end; ++i) simt_[i].mask &= ~waiting;
    const SimtEntry detached{entry.pc, entry.rpc, waiting, entry.level};
    simt_.insert(simt_.begin() + static_cast<ptrdiff_t>(a), detached);
    bring_to_top(a);
    return;
  }
}

void Warp::release_barrier(const BarrierResult& result) {
  waiting_at_barrier = false;
  if (!pending_reduction) return;
  const DecodedInst& inst = *pending_reduction;
  LaneMask lanes = pending_reduction_lanes;
  pending_reduction = nullptr;
  using ptx::Operation;
  const ptx::Modifiers& m = *inst.mods;
  if (m.op == Operation::Popc) {
    uint64_t* d = reg(inst.dst[0]);
    for (uint32_t l = 0; l < kWarpSize; ++l)
      if (lanes >> l & 1) d[l] = result.popc;
  } else {
    bool v = m.op == Operation::And ? result.all : result.any;
    write_pred(inst.dst[0], lanes, v ? kFullMask : 0);
  }
}

}  // namespace warpsim::functional
