#pragma once
// One streaming multiprocessor, cycle by cycle.
//
// Front end: each cycle the fetch stage serves up to fetch_per_cycle warps
// whose instruction buffer is empty, round-robin, through the L1 instruction
// cache (a miss goes below L1); a fetch fills the buffer with up to
// ibuffer_entries consecutive instructions of one line, which a taken branch
// discards. Issue: each scheduler considers its warps in the order of its
// policy (warp_policy.h) and issues the first whose next instruction is
// buffered and decoded, has no register hazard (scoreboard: RAW and WAW on
// registers and predicates), is not held by a barrier or fence, and whose
// execution unit can accept it. Execution happens at issue (execute-at-issue,
// as in GPGPU-Sim; docs/architecture.md, "Execute at issue through one
// seam"): the functional warp executes the instruction, and its result
// registers become ready after the unit's latency, or, for loads, when the
// last of their memory requests completes.
//
// The LD/ST unit (sm_memory.cpp) holds one memory instruction at a time:
// shared memory (bank conflicts), kernel parameters, the constant cache,
// and global/local accesses coalesced into line requests that go through the
// sectored L1 data cache and its MSHRs, one request per cycle, to the memory
// below L1 (lower_memory.h).
#include <cstdint>
#include <memory>
#include <optional>
#include <queue>
#include <utility>
#include <vector>

#include "functional/cta.h"
#include "functional/warp.h"
#include "timing/sm/coalescer.h"
#include "timing/memory/lower_memory.h"
#include "timing/cache/sectored_cache.h"
#include "timing/sm/sm_stats.h"
#include "timing/timing_config.h"
#include "timing/sm/unit_class.h"
#include "timing/sm/warp_policy.h"

namespace warpsim::timing {

// Scoreboard ids: register slots, and predicates from kPredBase on.
inline constexpr uint32_t kPredBase = 0x80000000u;

// Calls f(scoreboard id) for every register and predicate `inst` writes.
template <class F>
void for_each_destination(const functional::DecodedInst& inst, F&& f) {
  for (uint32_t i = 0; i < inst.num_dst && i < 4; ++i) {
    if (inst.dst[i] == functional::kNoSlot) continue;
    f(inst.dst_is_pred && i == 0 ? kPredBase + inst.dst[i] : inst.dst[i]);
  }
  if (inst.dst_pred != functional::kNoSlot) f(kPredBase + inst.dst_pred);
}

// What the SM needs to know about the running kernel.
struct KernelShape {
  uint32_t ctas_per_sm = 1;   // M, from occupancy
  uint32_t warps_per_cta = 1;
};

class Sm : private WarpViews {
 public:
  // `warp_policy`: makes each scheduler's policy (unset: [timing.sm] warp_policy's).
  Sm(uint32_t id, const TimingConfig& config, uint32_t max_warps, LowerMemory& memory,
     const WarpPolicyMaker& warp_policy = {});

  // A new kernel: CTAs of `ctx` with `shape`; L1 data and constant caches
  // start cold (no coherence across kernels).
  // `units`: the execution unit of each instruction of ctx.program (kept by
  // the caller for the whole kernel).
  void begin_kernel(functional::LaunchContext& ctx, const KernelShape& shape,
                    const std::vector<InstructionClass>& units);
  uint32_t free_cta_slots() const { return free_slots_; }
  // `cluster` (null: a CTA of its own) holds the CTAs of its thread-block
  // cluster, placed together; this CTA is the one of rank `rank`.
  void launch_cta(functional::Dim3 ctaid, uint64_t linear_id, uint64_t now,
                  functional::Cluster* cluster = nullptr, uint32_t rank = 0);

  // One core cycle; true when anything happened (issue, fetch, memory
  // traffic, a CTA ended) so the GPU knows whether it may skip ahead.
  bool cycle(uint64_t now);
  // The earliest cycle after `now` at which this SM can do something without
  // outside input (UINT64_MAX: nothing scheduled).
  uint64_t next_event(uint64_t now) const;
  // Counts `cycles` skipped cycles in which nothing changed: each scheduler's
  // issue slots repeat the last cycle's reason.
  void account_skipped(uint64_t cycles);
  bool has_ctas() const { return resident_ctas_ != 0; }
  uint32_t resident_ctas() const { return resident_ctas_; }
  bool quiescent() const;  // no CTA and nothing in flight
  // The launch ended after `cycles` cycles: the cycles this SM was not
  // ticked (it had no work) count as idle issue slots.
  void finish_kernel(uint64_t cycles);
  // What the CTAs retired since the last call executed of tagged offload
  // chains (functional/offload_counts.h); starts counting afresh.
  functional::OffloadCounts take_offload_counts() { return std::exchange(offload_, {}); }
  // Each CTA of the kernel that ended here, in the order they ended: its
  // warp instructions and the cycles from its launch to its end (what
  // scale-model sampling extrapolates from).
  struct CtaWork {
    uint64_t warp_instructions = 0;
    uint64_t cycles = 0;
  };
  const std::vector<CtaWork>& cta_work() const { return cta_work_; }

  // Sampled simulation: hands every resident CTA (linear id, CTA) to whoever
  // finishes it in the functional executor, after completing the bulk-copy
  // transactions still in flight (their data moved at issue). The SM is of
  // no further use: the GPU replaces it.
  void detach_ctas(std::vector<std::pair<uint64_t, functional::Cta*>>& out);
  // Sampled simulation of a launch's last wave: appends each resident CTA's
  // (linear id, warp instructions so far).
  void resident_progress(std::vector<std::pair<uint64_t, uint64_t>>& out) const;
  // Ends the CTAs detached above and hands over the CTA slots' storage
  // (register files, shared and local memory), which a fresh SM adopts:
  // freeing and allocating it anew costs more than the simulation saved
  // (the host's allocator then serves it from a fragmenting heap).
  std::vector<functional::CtaBuffers> release_buffers();
  void adopt_buffers(std::vector<functional::CtaBuffers> buffers);

  // A fault raised by a warp of this SM (the launch stops).
  bool faulted() const { return fault_.has_value(); }
  const functional::ExecFault& fault() const { return *fault_; }
  functional::Dim3 fault_cta() const { return fault_cta_; }
  uint32_t fault_warp() const { return fault_warp_; }
  // When no SM can act and no event is due: releases a barrier whose
  // waiters can go (Woken), or records a barrier deadlock (Deadlock), or
  // finds neither (None).
  enum class Stall : uint8_t { Woken, Deadlock, None };
  Stall resolve_stall(uint64_t now);
  // Makes every waiting warp look at its next instruction again (a safety
  // net for a warp nothing would wake).
  void wake_all(uint64_t now);
  // The watchdog: the first resident CTA that executed more than `limit`
  // warp instructions, as a LaunchTimeout fault (true).
  bool check_watchdog(uint64_t limit);

  const SmStats& stats() const { return stats_; }
  // Device printf records of this SM's CTAs not yet passed on (the GPU
  // passes them on after each cycle, in SM order).
  functional::PrintedRecords& printed() { return printed_; }
  const SectoredCache& l1d() const { return l1d_; }
  const SectoredCache& l1i() const { return l1i_; }
  const SectoredCache& constant_cache() const { return const_; }
  uint32_t id() const { return id_; }

 private:
  static constexpr uint64_t kPending = UINT64_MAX;  // ready when a memory operation completes
  // Ready when the LD/ST unit has finished its current instruction (the
  // warp's next instruction is a memory one): ldst_step wakes it.
  static constexpr uint64_t kLdstWait = UINT64_MAX - 1;
  static constexpr uint32_t kNoPc = UINT32_MAX;

  struct ScoreEntry {
    uint32_t reg = 0;      // register slot, or kPredBase + predicate index
    uint32_t load = 0;     // the memory operation it waits for (ready == kPending)
    uint64_t ready = 0;
  };
  struct WarpSlot {
    functional::Warp* warp = nullptr;  // null: the slot is free
    uint32_t cta_slot = 0;
    uint32_t scheduler = 0;
    uint64_t local_base = 0;  // this warp's interleaved local-memory region (L1 addresses)
    // Instruction buffer: `ibuf_count` instructions from `ibuf_pc` on,
    // usable from cycle `ibuf_ready`.
    uint32_t ibuf_pc = kNoPc;
    uint32_t ibuf_count = 0;
    uint64_t ibuf_ready = 0;
    bool fetching = false;  // an L1I miss is outstanding
    bool in_fetch_queue = false;
    // The earliest cycle this warp may issue, and why not before: the issue
    // stage looks only at warps whose time has come (kPending: until an
    // event — a fetch, a memory reply, a barrier release — wakes it).
    uint64_t ready_at = 0;
    IssueSlot reason = IssueSlot::Fetch;
    std::vector<ScoreEntry> pending;  // capacity scoreboard_entries
    uint32_t stores_in_flight = 0;
    uint32_t loads_in_flight = 0;
    uint64_t instructions = 0;
    // cp.async groups: copies in flight per group, for groups async_base ..
    // async_base + size - 1; the last is the group not yet committed.
    std::vector<uint32_t> async_pending;
    uint32_t async_base = 0;
  };
  struct CtaSlot {
    functional::CtaBuffers buffers;  // declared first: the CTA returns storage to it when destroyed
    std::unique_ptr<functional::Cta> cta;
    uint32_t first_warp = 0;  // warp slots first_warp .. first_warp + warps_per_cta - 1
    uint32_t live_warps = 0;
    uint64_t linear = 0;
    uint64_t start = 0;  // the cycle it was launched at
  };
  // A memory instruction in flight: its destination registers wait for
  // `remaining` requests.
  static constexpr uint32_t kNotAsync = UINT32_MAX;
  struct LoadOp {
    uint32_t warp = 0;
    uint32_t remaining = 0;
    bool used = false;
    uint32_t async_group = kNotAsync;  // a cp.async: the group it belongs to
    bool has_tx = false;  // a bulk copy whose mbarrier transactions wait in pending_tx_
  };
  // A bulk copy's mbarrier transactions, completed when its operation does.
  struct PendingTx {
    uint32_t op = 0;
    functional::DeferredTx tx;
  };
  enum class Path : uint8_t { L1Read, L1Write, Bypass, Atomic, Constant, StoreThrough };
  struct LdstRequest {
    uint64_t line = 0;
    uint32_t sectors = 0;
    uint32_t bytes = 0;
    uint32_t parts = 0;  // the coalescer's parts of the line (ICL's data-sharing test)
    Path path = Path::L1Read;
    uint32_t op = 0;    // LoadOp (loads, atomics, constant) or warp slot (stores)
  };
  struct Completion {
    uint64_t ready = 0;
    uint32_t op = 0;
    bool operator>(const Completion& o) const { return ready > o.ready || (ready == o.ready && op > o.op); }
  };

  // What the warp policies see of a warp (sm.cpp).
  WarpView view(uint32_t warp) const override;

  // front end and issue (sm.cpp)
  void fetch(uint64_t now);
  bool issue(uint32_t scheduler, uint64_t now);
  IssueSlot can_issue(WarpSlot& w, const functional::DecodedInst& inst, uint64_t now);
  void execute(uint32_t slot, uint64_t now);
  // Whether a register the instruction reads or writes is pending (sets
  // long_latency_ when one waits for memory).
  bool hazard(WarpSlot& w, const functional::DecodedInst& inst, uint64_t now);
  void add_pending(WarpSlot& w, uint32_t reg, uint64_t ready, uint32_t load);
  void warp_exited(uint32_t slot, uint64_t now);
  void retire_ctas(uint64_t now);

  // LD/ST unit (sm_memory.cpp)
  void issue_memory(uint32_t slot, const functional::DecodedInst& inst, uint64_t now);
  uint32_t new_load(uint32_t warp);
  void load_part_done(uint32_t op, uint64_t now);
  // cp.async groups (sm_memory.cpp): whether a cp.async.wait_group /
  // wait_all may issue, and the bookkeeping of commit_group and of copies.
  static bool async_wait_satisfied(const WarpSlot& w, const functional::DecodedInst& inst);
  static void async_commit(WarpSlot& w);
  static void async_copy_done(WarpSlot& w, uint32_t group);
  void wake(WarpSlot& w, uint64_t now);
  bool ldst_step(uint64_t now);
  bool drain_outbox(uint64_t now);
  bool receive_replies(uint64_t now);
  bool complete_due(uint64_t now);
  void send_below(MemKind kind, uint64_t line, uint32_t sectors, uint32_t bytes, uint32_t token,
                  uint64_t now, bool cache_miss, uint32_t parts = 0);
  uint64_t l1_address(const functional::AccessRecord& a, const WarpSlot& w) const;

  uint32_t id_;
  const TimingConfig& config_;
  LowerMemory& memory_;
  functional::LaunchContext* ctx_ = nullptr;
  const std::vector<InstructionClass>* units_ = nullptr;
  KernelShape shape_;
  uint32_t free_slots_ = 0;
  uint32_t resident_ctas_ = 0;
  std::vector<CtaSlot> ctas_;
  std::vector<WarpSlot> warps_;
  std::vector<std::vector<uint32_t>> scheduler_warps_;  // per scheduler, oldest first
  std::vector<std::unique_ptr<WarpSchedulerPolicy>> policies_;
  std::vector<IssueSlot> last_slot_;  // per scheduler, the last cycle's reason
  std::vector<uint64_t> next_issue_;  // per scheduler, the first cycle it may issue again (issue_interval)
  std::vector<uint32_t> order_;       // scratch for the policies
  std::vector<uint32_t> fetch_queue_;  // warps waiting for the fetch stage, in order (a ring)
  size_t fetch_head_ = 0;
  void request_fetch(uint32_t slot);
  void wake_barrier_waiters(uint32_t cta_slot, uint64_t now);

  // execution units: per scheduler and class, the cycle each unit is free
  std::vector<uint64_t> unit_free_;
  uint64_t ldst_free_ = 0;  // the LD/ST unit accepts the next instruction

  SectoredCache l1d_, l1i_, const_;
  CoalescerConfig coalescer_;
  std::vector<functional::AccessRecord> trace_;
  std::vector<LaneAccess> lanes_;
  std::vector<LaneAccess> cluster_lanes_;  // shared accesses to another CTA of the cluster
  std::vector<functional::DeferredTx> deferred_tx_;  // what the instruction executing left
  std::vector<PendingTx> pending_tx_;
  std::vector<CoalescedRequest> requests_;
  std::vector<LoadOp> loads_;
  std::vector<uint32_t> free_loads_;
  std::vector<LdstRequest> ldst_queue_;  // the current memory instruction's requests
  std::vector<uint32_t> ldst_waiters_;   // warp slots at kLdstWait
  // The head request was refused by its cache (no MSHR, line or miss-queue
  // place): only a reply or a sent miss can change that, so the SM need not
  // retry every cycle to be on time (it still retries when ticked).
  bool ldst_blocked_ = false;
  size_t ldst_head_ = 0;
  struct Outgoing {
    MemRequest request;
    bool cache_miss = false;  // a miss of a cache's miss queue (miss_sent() once it leaves)
  };
  std::vector<Outgoing> outbox_;  // misses and writes waiting for the memory port
  size_t outbox_head_ = 0;
  std::priority_queue<Completion, std::vector<Completion>, std::greater<>> completions_;
  std::vector<uint32_t> filled_;  // scratch: tokens from cache fills
  bool cta_ended_ = false;
  functional::OffloadCounts offload_;  // of the CTAs retired
  std::vector<CtaWork> cta_work_;      // cta_work()
  functional::PrintedRecords printed_;
  bool maybe_retire_ = false;  // a warp exited or a memory operation ended
  bool fetched_ = false;
  bool long_latency_ = false;
  // The earliest cycle a warp that could not issue this cycle may issue
  // (a pending register, a busy unit): next_event() without a full scan.
  uint64_t wake_ = UINT64_MAX;
  uint64_t accounted_ = 0;  // cycles of this launch ticked or skipped
  uint64_t in_flight_ = 0;  // requests sent below whose reply has not come back

  std::optional<functional::ExecFault> fault_;
  functional::Dim3 fault_cta_;
  uint32_t fault_warp_ = 0;
  SmStats stats_;
};

}  // namespace warpsim::timing
