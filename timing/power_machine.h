#pragma once
// The energy model's view of a configured GPU (power/machine.h): clocks,
// component counts, the network's switches and ports, DRAM timing.
#include "power/machine.h"
#include "timing/sim_config.h"

namespace warpsim::timing {

power::Machine power_machine(const SimConfig& config);

}  // namespace warpsim::timing
