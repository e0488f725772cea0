#include "functional/offload_counts.h"

namespace warpsim::functional {

const stats::StatTable<OffloadCounts>& offload_counts_table() {
  static const stats::StatTable<OffloadCounts> table = [] {
    using C = OffloadCounts;
    stats::StatTable<C> t(
        "Tagged offload chains as executed (programs compiled with the offload_chains pass only)");
    t.counter("chains", &C::chains, "chains", "warp executions of a chain's first instruction");
    t.counter("tagged_thread_instructions", &C::tagged_thread_instructions, "instructions",
              "thread instructions executed in tagged chains");
    t.counter("tagged_warp_instructions", &C::tagged_warp_instructions, "instructions",
              "warp instructions executed in tagged chains");
    t.counter("global_accesses", &C::global_accesses, "instructions",
              "warp-level global-memory loads, stores and atomics executed (with an active thread)");
    t.counter("tagged_global_accesses", &C::tagged_global_accesses, "instructions",
              "of which in tagged chains");
    t.run_ratio("tagged_instruction_fraction", std::string(kOffloadCountsPrefix) + ".tagged_thread_instructions",
                "gpu_tot_sim_insn", "fraction",
                "tagged thread instructions over all executed (Pattnaik et al., ISCA 2019, Table 3)");
    t.run_ratio("tagged_access_fraction", std::string(kOffloadCountsPrefix) + ".tagged_global_accesses",
                std::string(kOffloadCountsPrefix) + ".global_accesses", "fraction",
                "tagged global-memory accesses over all executed (Table 3's memory requests)");
    return t;
  }();
  return table;
}

}  // namespace warpsim::functional
