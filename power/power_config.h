#pragma once
// [power]: the energy model's coefficients (docs/power.md).
//
// Dynamic energy is an energy per event times the event's count (a counter
// the timing model keeps); static power is per component instance and
// multiplies time; DRAM is priced from its datasheet currents (IDD) the way
// DRAM vendors' power calculators do. The defaults are the built-in GPU's (an
// H100-class part, scaled from the V100 figures by the rule in docs/power.md);
// every shipped GPU config sets its own, each value with its source.
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "common/config.h"
#include "common/stats.h"

namespace warpsim::power {

struct PowerConfig {
  bool enabled = true;          // price every timing-mode run (false: no power.* statistics)
  bool power_gating = false;    // idle SMs gated, idle DRAM channels in precharge power-down
  uint32_t trace_interval = 10000;  // core cycles per row of --power-trace
  double technology_nm = 4;     // process node the coefficients are for (documentation and scaling)

  // The SM, per warp instruction or per thread (lane) operation.
  double issue_pJ = 1.235;            // fetch, decode, schedule and issue of one warp instruction
  double register_read_pJ = 9.877;    // one warp-wide register operand read (32 lanes x 32 bit)
  double register_write_pJ = 9.877;   // one warp-wide register operand write
  double sp_op_pJ = 0.284;            // per lane operation of each unit class
  double int_op_pJ = 0.09877;
  double dp_op_pJ = 3.472;
  double sfu_op_pJ = 0.9136;
  double tensor_op_pJ = 5.926;
  double branch_op_pJ = 0.006173;
  double ldst_op_pJ = 0.01235;          // address generation and coalescing, per lane
  double shared_access_pJ = 9.877;    // one warp-wide shared-memory access cycle (all banks)

  // Caches: per access (tag and data), per fill of a missed line.
  double l1d_read_pJ = 51.88, l1d_write_pJ = 51.88, l1d_fill_pJ = 51.88;
  double l1i_read_pJ = 1.235, l1i_fill_pJ = 9.877;
  double l1c_read_pJ = 0.6173, l1c_fill_pJ = 4.938;
  double l2_read_pJ = 79.4, l2_write_pJ = 79.4, l2_fill_pJ = 79.4;
  double l2_atomic_pJ = 0.1975;        // one atomic operation executed at an L2 slice

  // The network, per bit of a flit (ORION/DSENT-style parametric model).
  double noc_buffer_write_fJ_per_bit = 9.645;
  double noc_buffer_read_fJ_per_bit = 9.645;
  double noc_crossbar_pitch_um = 0.02;      // wire pitch of a matrix crossbar (its wires span ports x flit bits)
  double noc_allocation_pJ = 0.06173;             // one switch or virtual-channel allocation grant
  double noc_link_fJ_per_bit_mm = 84.03;        // repeated on-chip wire
  double noc_terminal_link_mm = 7.12;          // injection and ejection wires

  // Memory controller, per DRAM request.
  double mc_request_pJ = 6.173;

  // Cluster-port mechanisms (timing/cluster/): a table search or update, a
  // line read or written.
  double port_search_pJ = 0.6173;
  double port_line_pJ = 9.877;

  // DRAM from datasheet currents, per device; devices_per_channel devices
  // make one channel.
  double dram_vdd_V = 1.2;
  double dram_idd0_mA = 65;   // one ACT-PRE cycle (tRC)
  double dram_idd2n_mA = 40;  // precharge standby
  double dram_idd2p_mA = 28;  // precharge power-down
  double dram_idd3n_mA = 55;  // active standby
  double dram_idd4r_mA = 390;  // burst read
  double dram_idd4w_mA = 500;  // burst write
  double dram_idd5_mA = 250;   // refresh (during tRFC)
  double dram_tRFC_ns = 260;
  double dram_tREFI_ns = 3900;
  uint32_t dram_devices_per_channel = 1;
  double dram_io_pJ_per_bit = 0.3;  // interface (I/O and termination) energy the IDD currents leave out

  // Static power per instance, and constant power.
  double sm_static_W = 0.4525;           // per SM
  double sm_gated_fraction = 0.5859;   // of sm_static_W an idle SM still draws when power_gating
  double l2_static_W = 0.04688;           // per L2 slice
  double noc_static_mW_per_port = 2.25;  // per switch/router input port
  double mc_static_W = 0.1125;           // per memory controller (channel)
  double constant_W = 32.33;            // board and uncore, whatever the activity
};

const config::Table<PowerConfig>& power_config_table();

// power.parameters.<key>: every [power] value a run was priced with, in its
// statistics.
void publish_parameters(StatsRegistry& stats, const PowerConfig& config);
// "power.<key>=<value>" overrides that restore them from a statistics JSON
// file (empty when it has none).
std::vector<std::string> parameter_overrides(const nlohmann::json& stats);

}  // namespace warpsim::power
