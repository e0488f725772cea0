#pragma once
// The counters of one SM, kept as plain integers in the cycle loop and
// published to the statistics registry when a launch ends (timing/gpu.cpp).
#include <cstdint>

#include "timing/cache/sectored_cache.h"

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

struct SmStats {
  uint64_t warp_instructions = 0;
  uint64_t thread_instructions = 0;
  uint64_t issue_slots[static_cast<int>(IssueSlot::Count)] = {};
  uint64_t active_cycles = 0;       // cycles with at least one resident CTA
  uint64_t resident_warp_cycles = 0;  // sum over cycles of resident warps (occupancy)
  uint64_t ctas = 0;
  uint64_t shared_accesses = 0;       // warp instructions
  uint64_t shared_bank_conflict_cycles = 0;  // cycles beyond one per access
  uint64_t param_accesses = 0;
  uint64_t global_load_requests = 0, global_store_requests = 0, atomic_requests = 0;
  uint64_t local_requests = 0;
  uint64_t memory_requests = 0, memory_bytes = 0;  // sent below L1
  uint64_t ldst_reservation_stall_cycles = 0;
  uint64_t l1i_accesses = 0, l1i_misses = 0;
  uint64_t constant_accesses = 0, constant_misses = 0;
};

}  // namespace warpsim::timing
