// The [functional] table. The defaults are ExecutorOptions' own (grid.h).
#include "functional/executor_config.h"

namespace warpsim::functional {

const config::Table<ExecutorOptions>& executor_config_table() {
  static const config::Table<ExecutorOptions> table = [] {
    using E = ExecutorOptions;
    config::Table<E> t("Functional executor: how the CTAs of a launch are run on the host");
    t.integer("threads", &E::threads, "threads",
              "host threads running CTAs; 1 runs them in order on the calling thread; 0: every core "
              "(at most 16) for kernels whose CTAs cannot act on one another (no atomics on global "
              "memory, gpu-scope strong accesses or fences, device malloc or launches), in order for "
              "the rest")
        .range(0, 1024);
    t.integer("warp_quantum", &E::warp_quantum, "instructions",
              "warp instructions a warp runs before the next warp of its CTA takes a turn")
        .range(1, 4294967295u);
    t.integer("cta_quantum", &E::cta_quantum, "instructions",
              "co-resident CTAs (cooperative launches, clusters): warp instructions per turn")
        .range(1, 4294967295u);
    t.integer("watchdog", &E::watchdog, "instructions",
              "most warp instructions one CTA may run before the launch stops with a timeout fault (a "
              "hung kernel); the default, 2^30 (a hang ends after about 2 minutes in functional mode, 20 in timing mode), is far beyond any real block's work; 0: unlimited");
    t.enumeration("memcheck", &E::memcheck, {{"gpu", MemoryCheck::Gpu}, {"strict", MemoryCheck::Strict}},
                  "where kernel accesses to device memory fault: gpu, like a GPU, only outside the 2 MiB "
                  "granules the allocations map (slack past an allocation's end reads zero, writes to it "
                  "are dropped); strict, like compute-sanitizer, outside every allocation's bytes");
    return t;
  }();
  return table;
}

}  // namespace warpsim::functional
