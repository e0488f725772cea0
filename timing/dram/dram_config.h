#pragma once
// [timing.dram]: the configuration of one DRAM channel, the memory-type
// presets that fill the keys left at 0 (dram_config.cpp, every value with its
// source), and the section's table.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/config.h"
#include "common/registry.h"

namespace warpsim::timing {

// Command timing in DRAM command cycles; 0 means "take it from the preset
// named by `type`" (resolve_dram_config).
struct DramConfig {
  std::string type = "hbm3";      // preset: gddr5 | gddr6 | hbm2 | hbm3 (the built-in GPU: hbm3)
  double clock_mhz = 0;           // command clock (0: preset)
  uint32_t banks = 0;             // banks per channel (0: preset)
  uint32_t bank_groups = 0;       // bank groups (0: preset); bank b is in group b / (banks / bank_groups)
  uint32_t bus_width = 0;         // bytes per data beat of the channel (0: preset)
  uint32_t burst_length = 0;      // data beats per burst (0: preset)
  uint32_t data_rate = 0;         // data beats per command cycle: 2 DDR, 4 QDR (0: preset)
  uint32_t tCL = 0, tWL = 0, tRCD = 0, tRP = 0, tRAS = 0, tRC = 0, tRRD = 0;
  uint32_t tCCD = 0, tCCDL = 0, tWR = 0, tWTR = 0, tRTW = 0, tRTP = 0, tCDLR = 0;
  std::string scheduler = "fr-fcfs";  // fifo | fr-fcfs
  uint32_t queue = 32;            // requests the scheduler holds (can_accept false when full)
  uint32_t burst_bytes() const { return bus_width * burst_length; }
  uint32_t burst_cycles() const { return (burst_length + data_rate - 1) / data_rate; }
};

// Fills every zero field of `c` from the preset `c.type`. Returns an error
// message for an unknown type, or "" on success.
std::string resolve_dram_config(DramConfig& c);
// The presets `type` names: one function per memory type (dram_config.cpp).
using DramPresetRegistry = Registry<DramConfig (*)()>;
const DramPresetRegistry& dram_presets();
// [timing.dram] (validates ranges, the type and the scheduler name against
// dram_schedulers(), dram_scheduler.h).
const config::Table<DramConfig>& dram_config_table();

}  // namespace warpsim::timing
