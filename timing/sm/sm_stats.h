#pragma once
// The counters of one SM, kept as plain integers in the cycle loop, and
// their statistics table (sm_stats.cpp): names, units, descriptions, how
// launches merge (common/stat_table.h).
#include <cstddef>
#include <cstdint>

#include "common/stat_table.h"

namespace warpsim::timing {

// Why a scheduler's issue slot of one cycle issued nothing (or that it
// issued), GPGPU-Sim style: the reason of the warp that came closest.
enum class IssueSlot : uint8_t {
  Issued,
  Idle,        // no warp assigned to the scheduler
  Fetch,       // instruction not yet in the buffer (fetch, L1I miss, decode)
  Barrier,     // waiting at a barrier or a fence
  Scoreboard,  // a source or destination register is pending
  UnitBusy,    // the execution unit cannot accept the instruction yet
  MemoryStall, // the LD/ST unit is busy or the memory system refused
  Count
};
inline constexpr const char* kIssueSlotNames[] = {"issued",     "idle",      "fetch",       "barrier",
                                                  "scoreboard", "unit_busy", "memory_stall"};
// What each kind of slot means (the statistics' descriptions).
inline constexpr const char* kIssueSlotMeanings[] = {
    "issue slots in which a warp instruction issued (with issue_interval > 1, also the slots until the scheduler may issue again)",
    "issue slots with no warp assigned to the scheduler",
    "issue slots lost because the closest warp's instruction was not yet buffered (fetch, L1I miss, decode)",
    "issue slots lost because the closest warp waited at a barrier or a fence",
    "issue slots lost because a register of the closest warp's instruction was pending",
    "issue slots lost because the closest warp's execution unit could not accept it yet",
    "issue slots lost because the LD/ST unit was busy or the memory system refused"};

// Execution-unit classes, as timing/sm/unit_class.h numbers them (the
// statistics' names and descriptions).
inline constexpr size_t kUnitClassCount = 8;
inline constexpr const char* kLaneOpNames[kUnitClassCount] = {"sp",     "int",    "dp",   "sfu",
                                                              "tensor", "branch", "ldst", "fence"};
inline constexpr const char* kLaneOpMeanings[kUnitClassCount] = {
    "thread instructions executed by the single-precision (fp32) units",
    "thread instructions executed by the integer units",
    "thread instructions executed by the double-precision (fp64) units",
    "thread instructions executed by the special-function units",
    "thread instructions executed by the tensor cores",
    "thread instructions executed by the branch unit (branches, barriers, votes, shuffles' control)",
    "thread instructions executed by the LD/ST unit (memory instructions)",
    "thread instructions that were memory fences"};

struct SmStats {
  uint64_t warp_instructions = 0;
  uint64_t thread_instructions = 0;
  uint64_t unit_lane_ops[kUnitClassCount] = {};  // thread instructions by execution unit
  uint64_t register_reads = 0, register_writes = 0;  // warp-wide general-register operands
  uint64_t issue_slots[static_cast<int>(IssueSlot::Count)] = {};
  uint64_t active_cycles = 0;       // cycles with at least one resident CTA
  uint64_t resident_warp_cycles = 0;  // sum over cycles of resident warps (occupancy)
  uint64_t ctas = 0;
  uint64_t shared_accesses = 0;       // warp instructions
  uint64_t shared_bank_conflict_cycles = 0;  // cycles beyond one per access
  uint64_t shared_cluster_accesses = 0;      // warp instructions reaching another CTA's shared memory
  uint64_t param_accesses = 0;
  uint64_t global_load_requests = 0, global_store_requests = 0, atomic_requests = 0;
  uint64_t local_requests = 0;
  uint64_t memory_requests = 0, memory_bytes = 0;  // sent below L1
  uint64_t ldst_reservation_stall_cycles = 0;
  uint64_t constant_accesses = 0;     // warp instructions
};

// What the SM formulas need besides the counters.
struct SmScope {
  uint64_t max_warps = 0;    // warp slots of one SM
  uint64_t ctas_per_sm = 0;  // the launch's occupancy limit M
};

// Published at "timing" (timing.issue_slots.issued, ...), and per SM at
// "timing.sm.N" for the rows marked per instance.
const stats::StatTable<SmStats, SmScope>& sm_stats_table();

}  // namespace warpsim::timing
