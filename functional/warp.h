#pragma once
// Warp state and the SIMT reconvergence stack (GPGPU-Sim semantics).
//
// Registers are lane-major: slot s of the current frame holds 32 consecutive
// uint64 values, one per lane, so a handler runs one tight loop over the
// active lanes. Predicates are lane masks. Every function activation gets a
// fresh register frame (recursion works) and a fresh local-memory frame.
//
// The SIMT stack holds (pc, reconvergence pc, mask) entries. A divergent
// branch sets the top entry's pc to the reconvergence point and pushes one
// entry per path; an entry is popped when its pc reaches its reconvergence
// point. Calls push an entry whose reconvergence point is the callee's
// function-end slot; `ret` jumps there. `exit` removes lanes from every entry.
//
// Independent thread scheduling (programs for sm_70 and later): the stack is
// a tree laid out in preorder (SimtEntry::level), each entry's children right
// above it, and any leaf may run, not only the top one: a path that waits at
// `bar.warp.sync` for lanes of another path lets that path run, and a path
// that spins (kSpinBranches backward branches in a row) yields to another
// path, or lets lanes that wait at its reconvergence point go on without it.
// The running leaf is always moved to the top, so the rest of the warp keeps
// the plain stack's code. Pre-Volta programs keep the plain stack.
#include <cstdint>
#include <string>
#include <vector>

#include "functional/fault.h"
#include "functional/launch.h"
#include "functional/offload_counts.h"
#include "functional/program.h"

namespace warpsim::functional {

class Cta;

// The outcome of a released barrier, delivered to bar.red waiters.
struct BarrierResult {
  uint32_t popc = 0;
  bool all = true;
  bool any = false;
};

struct SimtEntry {
  uint32_t pc = 0;
  uint32_t rpc = 0;  // reconvergence pc; kNoSlot for the bottom entry
  LaneMask mask = 0;
  uint16_t level = 0;    // depth in the tree: children are one deeper than their parent
  bool blocked = false;  // a leaf waiting at bar.warp.sync for lanes of another path
};

// Backward branches a path takes in a row, with another path of the warp
// unable to run meanwhile, before independent thread scheduling lets the
// other path run: long enough that ordinary divergent loops reconverge as on
// the plain stack, short enough that spin loops cost microseconds.
inline constexpr uint32_t kSpinBranches = 1024;

struct CallFrame {
  uint32_t function = 0;
  uint32_t return_pc = 0;       // caller instruction after the call
  uint32_t call_pc = 0;         // the call instruction (for return-value copies)
  size_t reg_base = 0;          // caller's register frame
  size_t pred_base = 0;
  uint64_t local_base = 0;      // caller's local frame base
  uint32_t caller_function = 0;
  size_t simt_depth = 0;        // stack depth of the callee's entry
  LaneMask lanes = 0;           // the lanes that called: they receive the return values
};

enum class StepResult : uint8_t { Continue, Barrier, Exited, Fault };

// One memory access of the instruction being executed, as the timing model
// sees it: the window after generic addresses are resolved, and the address
// in that window (a device address, a shared-memory offset, a thread-local
// offset or a parameter-buffer offset).
struct AccessRecord {
  uint64_t address = 0;
  uint32_t size = 0;
  uint8_t lane = 0;
  Window window = Window::Global;
  AccessKind kind = AccessKind::Read;
};

// A bulk copy's transaction bytes for an mbarrier (cp.async.bulk ...
// mbarrier::complete_tx::bytes), left for the timing model to complete when
// the copy's memory traffic is done; `mbarrier` points at the 8-byte object.
struct DeferredTx {
  uint8_t* mbarrier = nullptr;
  uint32_t bytes = 0;
};
// Completes `bytes` of transactions on the mbarrier object at `mbarrier`
// (exec_async.cpp), ending its phase if that was all it waited for.
void complete_mbarrier_tx(uint8_t* mbarrier, uint32_t bytes);

// A fault raised while executing, with enough context for the report.
struct ExecFault {
  Fault fault;
  uint32_t lane = 0;
  uint32_t pc = 0;
  std::string message;  // for faults without a memory access (trap, unsupported...)
};

class Warp {
 public:
  // `registers`: storage to reuse for the register file (its contents are
  // discarded; its capacity is what counts).
  Warp(Cta& cta, uint32_t warp_in_cta, LaneMask valid, std::vector<uint64_t> registers = {});
  // The register file's storage, for the next warp (the warp must not run again).
  std::vector<uint64_t> take_registers() { return std::move(regs_); }

  // Executes the instruction at the top of the SIMT stack.
  StepResult step() { return counts_offload_ ? step_as<true>() : step_as<false>(); }
  // step() for a warp whose program does (true) or does not (false) carry
  // offload marks: loops that step one warp many times pick the variant
  // once, so programs without marks pay nothing for counting.
  template <bool kCountOffload>
  StepResult step_as();
  bool counts_offload() const { return counts_offload_; }
  bool done() const { return simt_.empty(); }

  // ---- state handlers use ----------------------------------------------------
  uint64_t* reg(uint32_t slot) { return regs_.data() + reg_base_ + size_t{slot} * kWarpSize; }
  uint32_t& pred(uint32_t index) { return preds_[pred_base_ + index]; }
  // A source operand as an indexable view: v[lane].
  struct Lanes {
    const uint64_t* p;
    uint32_t mask;
    uint64_t operator[](uint32_t lane) const { return p[lane & mask]; }
  };
  Lanes read(const Operand& op, uint32_t scratch);
  LaneMask read_pred(const Operand& op) const;
  void write_pred(uint32_t index, LaneMask active, LaneMask values);

  // Effective per-lane address of inst.addr in its window (generic resolved
  // later by the memory handlers).
  uint64_t address(const DecodedInst& inst, uint32_t lane) {
    const Address& a = inst.addr;
    uint64_t base = 0;
    switch (a.base.kind) {
      case Src::Reg: base = reg(a.base.index)[lane]; break;
      case Src::Imm: base = a.base.imm; break;
      case Src::FrameAddr: base = local_base_ + a.base.imm; break;
      default: break;
    }
    const uint64_t addr = base + static_cast<uint64_t>(a.offset);
    return a.wrap32 ? static_cast<uint32_t>(addr) : addr;
  }
  // Host pointer for `size` bytes at `addr` in `window` for `lane`, or null
  // with the fault recorded.
  // With `quiet`, a bad address returns null without faulting the warp
  // (device printf reads strings that way).
  uint8_t* translate(Window window, uint64_t addr, uint32_t size, uint32_t lane, AccessKind kind,
                     bool quiet = false);

  void raise(const Fault& f, uint32_t lane);
  void raise(FaultKind kind, uint32_t lane, std::string message);

  // Control flow, used by the branch/call handlers.
  void branch(const DecodedInst& inst, LaneMask taken, LaneMask active);
  void call(const DecodedInst& inst, uint32_t callee, LaneMask active);
  // Per-lane targets (brx.idx): group g of lanes masks[g] goes to targets[g].
  void branch_groups(const DecodedInst& inst, const uint32_t* targets, const LaneMask* masks,
                     uint32_t groups);
  // Indirect call with divergent targets: `group` calls `callee` now; `rest`
  // re-executes the call instruction afterwards.
  void call_group(const DecodedInst& inst, uint32_t callee, LaneMask group, LaneMask rest);
  void ret(LaneMask active);
  void exit(LaneMask active);
  // bar.warp.sync: with independent thread scheduling, the running path
  // waits after it until every lane of `members` that is still running and
  // that another path holds has arrived; without, lanes run in lockstep.
  void warp_sync(LaneMask members, LaneMask active);
  bool independent_threads() const { return independent_threads_; }
  void set_next_pc(uint32_t pc) { next_pc_ = pc; }

  Cta& cta() { return cta_; }
  const LaunchContext& launch() const;
  uint32_t warp_in_cta() const { return warp_in_cta_; }
  LaneMask valid() const { return valid_; }
  LaneMask exited() const { return exited_; }
  uint64_t local_base() const { return local_base_; }
  uint32_t current_function() const { return function_; }
  const std::vector<SimtEntry>& simt_stack() const { return simt_; }

  // Ends the warp's turn after this instruction: it is waiting for other warps
  // or CTAs (a failed mbarrier try_wait, nanosleep, a cluster barrier).
  bool yield_requested = false;
  // Ends the warp's turn after this instruction, for no other reason than to
  // let the other warps of the CTA run (a global load: DecodedInst::ends_turn).
  bool turn_over = false;
  bool faulted() const { return faulted_; }
  // Re-executes the current instruction on the warp's next turn (a blocking
  // wait that has not completed yet) and ends this turn.
  void retry_current() {
    set_next_pc(pc_);
    yield_requested = true;
  }
  uint32_t cluster_barrier_phase = 0;  // cluster barrier phase this warp arrived in

  // Barrier bookkeeping (bar.sync / bar.arrive / bar.red).
  bool waiting_at_barrier = false;
  uint32_t barrier_id = 0;
  const DecodedInst* pending_reduction = nullptr;  // bar.red waiting for its result
  LaneMask pending_reduction_lanes = 0;
  // Called by the CTA when the barrier this warp waits at is released.
  void release_barrier(const BarrierResult& result);
  // The mask the top SIMT entry had when the current instruction issued
  // (before the guard): branches need the lanes that do not take them.
  LaneMask issue_mask() const { return issue_mask_; }
  uint32_t pc() const { return pc_; }
  // The instruction the warp executes next (its last one once done).
  uint32_t next_pc() const { return simt_.empty() ? pc_ : simt_.back().pc; }

  // The carry flag (add.cc/addc/madc...), one bit per lane.
  LaneMask carry = 0;

  const ExecFault& fault() const { return fault_; }
  uint64_t warp_instructions = 0;
  uint64_t thread_instructions = 0;
  // Execute-at-issue for the timing model: when set, every checked access of
  // the instructions this warp executes is appended here (the caller clears
  // it per instruction). Null in functional mode (one branch per access).
  std::vector<AccessRecord>* access_trace = nullptr;
  // Timing mode: where bulk copies leave their mbarrier transactions
  // (DeferredTx); null in functional mode, where they complete at once.
  std::vector<DeferredTx>* deferred_tx = nullptr;

 private:
  void enter_function(uint32_t function);
  void push_call(const DecodedInst& inst, uint32_t callee, LaneMask active, uint16_t level);
  void pop_reconverged();
  // Independent thread scheduling (see the top of this file).
  static constexpr size_t kNone = ~size_t{0};
  bool is_leaf(size_t i) const { return i + 1 == simt_.size() || simt_[i + 1].level <= simt_[i].level; }
  bool runnable_leaf(size_t i) const {
    const SimtEntry& e = simt_[i];
    return is_leaf(i) && e.mask != 0 && e.pc != e.rpc && !e.blocked;
  }
  size_t subtree_end(size_t i) const;
  size_t parent(size_t i) const;
  size_t region_begin() const;       // entries a path switch may move: inside the innermost call
  size_t other_runnable_leaf() const;
  void bring_to_top(size_t leaf);
  void settle();                      // after a step that left a blocked leaf on top
  void yield_spinning_path();
  void release_warp_sync();
  [[gnu::noinline]] void count_offload(LaneMask active);
  void copy_call_values(const DecodedInst& call, bool to_callee, LaneMask lanes);

  Cta& cta_;
  uint32_t warp_in_cta_;
  LaneMask valid_;
  LaneMask exited_ = 0;
  std::vector<uint64_t> regs_;
  std::vector<uint32_t> preds_;
  size_t reg_base_ = 0, pred_base_ = 0;
  uint64_t local_base_ = 0;   // current frame's base in thread-local space
  uint32_t function_ = 0;
  std::vector<SimtEntry> simt_;
  std::vector<CallFrame> calls_;
  uint32_t next_pc_ = 0;
  uint32_t pc_ = 0;
  LaneMask issue_mask_ = 0;
  bool control_done_ = false;  // the handler already updated the SIMT stack
  bool faulted_ = false;
  bool counts_offload_ = false;  // offload_marks_ is set (kept here, in the padding of the hot fields)
  bool independent_threads_ = false;  // Program::independent_threads
  uint32_t blocked_leaves_ = 0;       // leaves waiting at bar.warp.sync
  uint32_t spins_ = 0;                // backward branches since the running path last changed
  ExecFault fault_;
  uint64_t scratch_[5][kWarpSize];
  // Cold, so at the end: Program::annotations when the program carries
  // offload marks (else null), and what the warp executed of the chains.
  const ptx::Annotation* offload_marks_ = nullptr;

 public:
  OffloadCounts offload;  // counted only for programs with offload marks
};

}  // namespace warpsim::functional
