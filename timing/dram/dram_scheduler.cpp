// The DRAM scheduler registry (dram_schedulers.def, one line per policy).
#include "timing/dram/dram_scheduler.h"

namespace warpsim::timing {

#define WARPSIM_PLUGIN(name, factory, description) \
  std::unique_ptr<DramScheduler> factory(const DramConfig& config);
#include "timing/dram/dram_schedulers.def"
#undef WARPSIM_PLUGIN

const DramSchedulerRegistry& dram_schedulers() {
  static const DramSchedulerRegistry registry("DRAM scheduler", {
#define WARPSIM_PLUGIN(name, factory, description) {name, description, factory},
#include "timing/dram/dram_schedulers.def"
#undef WARPSIM_PLUGIN
  });
  return registry;
}

}  // namespace warpsim::timing
