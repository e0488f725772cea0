// The [interconnect.area] table: every coefficient with its unit and source.
#include "interconnect/area/area_config.h"

namespace warpsim::interconnect {

const config::Table<AreaConfig>& area_config_table() {
  static const config::Table<AreaConfig> table = [] {
    using A = AreaConfig;
    config::Table<A> t(
        "Area model of the flit-level networks (`warpsim noc area`): per-unit areas at 65 nm after "
        "Bakhoda, PhD thesis, UBC 2014, sec. 6.8, and the chip outside the network");
    t.real("crosspoint_um2", &A::crosspoint_um2, "um^2",
           "one crossbar crosspoint; a crossbar of W-bit channels has W x W per connected "
           "input-output pair (thesis sec. 6.8: the mean of three measured router crossbars)")
        .range(0.0, 1e6);
    t.real("buffer_um2_per_bit", &A::buffer_um2_per_bit, "um^2/bit",
           "SRAM input buffer per bit (Table 6.5 baseline: 0.17 mm^2 for 5 ports x 2 VCs x 8 "
           "flits x 128 b)")
        .range(0.0, 1e6);
    t.real("allocator_um2_per_input", &A::allocator_um2_per_input, "um^2/input",
           "VC and switch allocators, per arbiter input (Table 6.5 CP DOR 4VC: 0.004 mm^2 for the "
           "525 inputs of 5 ports x 4 VCs)")
        .range(0.0, 1e6);
    t.real("link_um2_per_bit_mm", &A::link_um2_per_bit_mm, "um^2/(bit*mm)",
           "one link wire with its driver, per mm (thesis sec. 6.8: a 64-bit 0.05 mm local link "
           "takes about 0.001 mm^2; Table 6.5's 0.11 mm^2 per 16 B link then means 2.75 mm "
           "between routers)")
        .range(0.0, 1e6);
    t.real("terminal_link_mm", &A::terminal_link_mm, "mm",
           "injection and ejection link length (thesis sec. 6.8); router-to-router links are as "
           "long as the topology lays them out (a grid's tile_mm)")
        .range(0.0, 1000.0);
    t.boolean("identical_grid_routers", &A::identical_grid_routers,
              "price every grid router with all four network ports, wired or not: one router "
              "design per tile, as Table 6.5 counts 36 identical mesh routers (false: each router "
              "with the ports it has)");
    t.real("core_mm2", &A::core_mm2, "mm^2/SM",
           "compute core (SM) outside the network (thesis sec. 6.8, from the GTX 280 die photo)")
        .range(0.0, 1e6);
    t.real("memory_controller_mm2", &A::memory_controller_mm2, "mm^2/partition",
           "memory controller per memory partition (thesis sec. 6.8, from the GTX 280 die photo)")
        .range(0.0, 1e6);
    t.real("l2_mm2_per_mib", &A::l2_mm2_per_mib, "mm^2/MiB",
           "L2 cache per MiB of capacity (thesis sec. 6.8: 13.84 mm^2 from CACTI for 8 x 128 KB)")
        .range(0.0, 1e6);
    return t;
  }();
  return table;
}

}  // namespace warpsim::interconnect
