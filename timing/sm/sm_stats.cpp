// The SM's statistics table.
#include "timing/sm/sm_stats.h"

namespace warpsim::timing {

const stats::StatTable<SmStats, SmScope>& sm_stats_table() {
  static const stats::StatTable<SmStats, SmScope> table = [] {
    using S = SmStats;
    stats::StatTable<S, SmScope> t("An SM: issue, occupancy, CTAs, LD/ST unit requests");
    t.counter("warp_instructions", &S::warp_instructions, "instructions", "warp instructions issued")
        .per_instance();
    t.counter("thread_instructions", &S::thread_instructions, "instructions",
              "thread instructions executed (active lanes of the issued warp instructions)");
    t.counters("lane_ops", &S::unit_lane_ops, kLaneOpNames, kLaneOpMeanings, "instructions");
    t.counter("register_reads", &S::register_reads, "operands",
              "general-register source operands read, one per warp instruction operand (all lanes)");
    t.counter("register_writes", &S::register_writes, "operands",
              "general-register destination operands written, one per warp instruction operand");
    // One issue slot per scheduler per cycle, by what it did (GPGPU-Sim
    // style: a slot that issued nothing counts the reason of the warp that
    // came closest).
    t.counters("issue_slots", &S::issue_slots, kIssueSlotNames, kIssueSlotMeanings, "slots");
    t.counter("active_cycles", &S::active_cycles, "cycles", "cycles with at least one resident CTA")
        .per_instance();
    t.counter("resident_warp_cycles", &S::resident_warp_cycles, "warp-cycles",
              "resident warps summed over the active cycles");
    t.counter("ctas", &S::ctas, "CTAs", "CTAs launched").per_instance();
    t.counter("shared.accesses", &S::shared_accesses, "instructions",
              "warp instructions that accessed shared memory");
    t.counter("shared.bank_conflict_cycles", &S::shared_bank_conflict_cycles, "cycles",
              "shared-memory cycles lost to bank conflicts (beyond one per access)")
        .headline("gpgpu_n_shmem_bkconflict");
    t.counter("shared.cluster_accesses", &S::shared_cluster_accesses, "instructions",
              "warp instructions that accessed the shared memory of another CTA of their cluster "
              "(distributed shared memory)");
    t.counter("ldst.param_accesses", &S::param_accesses, "instructions",
              "warp instructions that read kernel parameters");
    t.counter("ldst.constant_accesses", &S::constant_accesses, "instructions",
              "warp instructions that read constant memory");
    t.counter("ldst.global_load_requests", &S::global_load_requests, "requests",
              "coalesced global load requests (cache lines)");
    t.counter("ldst.global_store_requests", &S::global_store_requests, "requests",
              "coalesced global store requests");
    t.counter("ldst.atomic_requests", &S::atomic_requests, "requests", "coalesced atomic requests");
    t.counter("ldst.local_requests", &S::local_requests, "requests", "coalesced local load and store requests");
    t.counter("ldst.reservation_stall_cycles", &S::ldst_reservation_stall_cycles, "cycles",
              "cycles the LD/ST unit's head request was refused by its cache (no MSHR, line or miss-queue place)");
    t.counter("memory.requests", &S::memory_requests, "requests",
              "requests sent below L1 (misses, writes, write-backs, fetches, bypassing loads, atomics)");
    t.counter("memory.bytes", &S::memory_bytes, "B", "data bytes those requests carry or ask for");
    t.formula("occupancy", "%",
              "achieved occupancy: resident warps / warp slots, over the cycles an SM had work",
              [](const S& s, const SmScope& scope) -> stats::FormulaValue {
                if (s.active_cycles == 0 || scope.max_warps == 0) return 0.0;
                return 100.0 * (static_cast<double>(s.resident_warp_cycles) /
                                static_cast<double>(s.active_cycles * scope.max_warps));
              })
        .headline("gpu_occupancy");
    t.formula("ctas_per_sm", "CTAs", "CTAs one SM holds at once (the occupancy limit)",
              [](const S&, const SmScope& scope) -> stats::FormulaValue { return scope.ctas_per_sm; });
    return t;
  }();
  return table;
}

}  // namespace warpsim::timing
