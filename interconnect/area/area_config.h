#pragma once
// [interconnect.area]: the coefficients of the NoC area model
// (interconnect/area/noc_area.h), per-unit areas at 65 nm after Bakhoda,
// PhD thesis, UBC 2014, sec. 6.8, and the chip outside the network. Each
// default's source or derivation is in its table row (area_config.cpp);
// docs/noc-area.md derives them.
#include "common/config.h"

namespace warpsim::interconnect {

struct AreaConfig {
  double crosspoint_um2 = 2.07;          // one crosspoint of a matrix crossbar
  double buffer_um2_per_bit = 16.6;      // SRAM input buffer, per bit
  double allocator_um2_per_input = 7.6;  // per arbiter input of the VC and switch allocators
  double link_um2_per_bit_mm = 312.5;    // one wire with its driver, per mm
  double terminal_link_mm = 0.05;        // injection and ejection links
  bool identical_grid_routers = true;    // grid routers priced with all four network ports
  double core_mm2 = 5.25;                // per SM (compute core)
  double memory_controller_mm2 = 10.48;  // per memory partition (DRAM controller)
  double l2_mm2_per_mib = 13.84;         // per MiB of L2
};

const config::Table<AreaConfig>& area_config_table();

}  // namespace warpsim::interconnect
