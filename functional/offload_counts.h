#pragma once
// What a launch executed of the chains the offload_chains compile pass
// tagged (ptx/passes/offload_tags.h): the dynamic side of the pass's
// numbers (Pattnaik et al., ISCA 2019, Table 3). Warps count them as they
// execute, in functional and timing mode alike, and only when the program
// carries the pass's marks (Program::offload_marks).
#include <cstdint>

#include "common/stat_table.h"

namespace warpsim::functional {

struct OffloadCounts {
  uint64_t tagged_warp_instructions = 0;
  uint64_t tagged_thread_instructions = 0;
  uint64_t chains = 0;                  // warp executions of a chain's first instruction
  uint64_t global_accesses = 0;         // warp-level global loads, stores and atomics with an active lane
  uint64_t tagged_global_accesses = 0;  // of which in a tagged chain

  OffloadCounts& operator+=(const OffloadCounts& o) {
    tagged_warp_instructions += o.tagged_warp_instructions;
    tagged_thread_instructions += o.tagged_thread_instructions;
    chains += o.chains;
    global_accesses += o.global_accesses;
    tagged_global_accesses += o.tagged_global_accesses;
    return *this;
  }
};

// Where a run's counts are published, and their table.
inline constexpr std::string_view kOffloadCountsPrefix = "compiler.offload_chains.executed";
const stats::StatTable<OffloadCounts>& offload_counts_table();

}  // namespace warpsim::functional
