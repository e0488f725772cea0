// The [power] table: every coefficient with its unit. The values of each
// shipped GPU, with their sources, are in its config file and docs/power.md.
#include "power/power_config.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace warpsim::power {

const config::Table<PowerConfig>& power_config_table() {
  static const config::Table<PowerConfig> table = [] {
    using P = PowerConfig;
    config::Table<P> t(
        "Energy model (docs/power.md): energy per event, static power per component, DRAM currents. "
        "Defaults: the built-in GPU's");
    t.boolean("enabled", &P::enabled, "price every timing-mode run (power.* statistics, the run summary's energy)");
    t.boolean("power_gating", &P::power_gating,
              "idle SMs (no resident CTA) draw sm_gated_fraction of their static power, and DRAM channel time "
              "with no row open is in precharge power-down (IDD2P) rather than standby (IDD2N)");
    t.integer("trace_interval", &P::trace_interval, "cycles", "core cycles per row of a power trace (--power-trace)")
        .range(1, 1'000'000'000);
    t.real("technology_nm", &P::technology_nm, "nm",
           "process node of the coefficients (recorded with the results; docs/power.md scales between nodes)")
        .range(1.0, 1000.0);
    auto energy = [&](const char* key, double P::*m, const char* unit, const char* what) {
      t.real(key, m, unit, what).range(0.0, 1e9);
    };
    energy("issue_pJ", &P::issue_pJ, "pJ", "fetch, decode, scheduling and issue of one warp instruction");
    energy("register_read_pJ", &P::register_read_pJ, "pJ",
           "one warp-wide register operand read (32 lanes x 32 bits, operand collector included)");
    energy("register_write_pJ", &P::register_write_pJ, "pJ", "one warp-wide register operand write");
    energy("sp_op_pJ", &P::sp_op_pJ, "pJ", "one fp32 lane operation (FMA-class)");
    energy("int_op_pJ", &P::int_op_pJ, "pJ", "one integer lane operation");
    energy("dp_op_pJ", &P::dp_op_pJ, "pJ", "one fp64 lane operation");
    energy("sfu_op_pJ", &P::sfu_op_pJ, "pJ", "one special-function lane operation");
    energy("tensor_op_pJ", &P::tensor_op_pJ, "pJ", "one tensor-core instruction's work, per lane");
    energy("branch_op_pJ", &P::branch_op_pJ, "pJ", "one branch-unit (or fence) lane operation");
    energy("ldst_op_pJ", &P::ldst_op_pJ, "pJ", "LD/ST unit per lane of a memory instruction (address, coalescing)");
    energy("shared_access_pJ", &P::shared_access_pJ, "pJ",
           "one warp-wide shared-memory access cycle (every bank; a bank conflict costs one more)");
    energy("l1d_read_pJ", &P::l1d_read_pJ, "pJ", "L1 data cache read access (tag and data)");
    energy("l1d_write_pJ", &P::l1d_write_pJ, "pJ", "L1 data cache write access");
    energy("l1d_fill_pJ", &P::l1d_fill_pJ, "pJ", "L1 data cache fill of a missed line");
    energy("l1i_read_pJ", &P::l1i_read_pJ, "pJ", "instruction cache read");
    energy("l1i_fill_pJ", &P::l1i_fill_pJ, "pJ", "instruction cache fill");
    energy("l1c_read_pJ", &P::l1c_read_pJ, "pJ", "constant cache read");
    energy("l1c_fill_pJ", &P::l1c_fill_pJ, "pJ", "constant cache fill");
    energy("l2_read_pJ", &P::l2_read_pJ, "pJ", "L2 slice read access (tag and data)");
    energy("l2_write_pJ", &P::l2_write_pJ, "pJ", "L2 slice write access");
    energy("l2_fill_pJ", &P::l2_fill_pJ, "pJ", "L2 slice fill of a line read from DRAM");
    energy("l2_atomic_pJ", &P::l2_atomic_pJ, "pJ", "an atomic operation's ALU work at an L2 slice");
    energy("noc_buffer_write_fJ_per_bit", &P::noc_buffer_write_fJ_per_bit, "fJ/bit",
           "writing a flit into a switch or router buffer, per bit");
    energy("noc_buffer_read_fJ_per_bit", &P::noc_buffer_read_fJ_per_bit, "fJ/bit", "reading a flit out, per bit");
    energy("noc_crossbar_pitch_um", &P::noc_crossbar_pitch_um, "um",
           "wire pitch of a switch's matrix crossbar: a flit's bits each cross ports x flit bits x pitch of wire, "
           "priced at noc_link_fJ_per_bit_mm");
    energy("noc_allocation_pJ", &P::noc_allocation_pJ, "pJ", "one switch or virtual-channel allocation grant");
    energy("noc_link_fJ_per_bit_mm", &P::noc_link_fJ_per_bit_mm, "fJ/(bit*mm)", "a repeated on-chip wire, per bit and mm");
    energy("noc_terminal_link_mm", &P::noc_terminal_link_mm, "mm",
           "length of the injection and ejection wires between a node and its switch");
    energy("mc_request_pJ", &P::mc_request_pJ, "pJ", "memory controller work per DRAM read or write request");
    energy("port_search_pJ", &P::port_search_pJ, "pJ",
           "cluster-port mechanisms: one search or update of a merge table or a coalesced cache's tags");
    energy("port_line_pJ", &P::port_line_pJ, "pJ", "cluster-port mechanisms: a 128 B line read from or written to a "
           "coalesced cache");
    t.real("dram_vdd_V", &P::dram_vdd_V, "V", "DRAM supply voltage (the datasheet's VDD)").range(0.0, 10.0);
    energy("dram_idd0_mA", &P::dram_idd0_mA, "mA", "one-bank ACT-PRE current (over tRC), per device");
    energy("dram_idd2n_mA", &P::dram_idd2n_mA, "mA", "precharge standby current, per device");
    energy("dram_idd2p_mA", &P::dram_idd2p_mA, "mA", "precharge power-down current, per device");
    energy("dram_idd3n_mA", &P::dram_idd3n_mA, "mA", "active standby current, per device");
    energy("dram_idd4r_mA", &P::dram_idd4r_mA, "mA", "burst read current, per device");
    energy("dram_idd4w_mA", &P::dram_idd4w_mA, "mA", "burst write current, per device");
    energy("dram_idd5_mA", &P::dram_idd5_mA, "mA", "refresh current during tRFC, per device");
    energy("dram_tRFC_ns", &P::dram_tRFC_ns, "ns", "refresh cycle time");
    energy("dram_tREFI_ns", &P::dram_tREFI_ns, "ns", "average refresh interval (0: refresh not priced)");
    t.integer("dram_devices_per_channel", &P::dram_devices_per_channel, "devices",
              "DRAM devices that together make one channel (the currents are per device)")
        .range(1, 1024);
    energy("dram_io_pJ_per_bit", &P::dram_io_pJ_per_bit, "pJ/bit",
           "interface energy per bit moved (I/O drivers and termination, which IDD4R/IDD4W leave out)");
    energy("sm_static_W", &P::sm_static_W, "W", "static (leakage) power of one SM");
    t.real("sm_gated_fraction", &P::sm_gated_fraction, "fraction",
           "of sm_static_W that a power-gated idle SM still draws (power_gating)")
        .range(0.0, 1.0);
    energy("l2_static_W", &P::l2_static_W, "W", "static power of one L2 slice");
    energy("noc_static_mW_per_port", &P::noc_static_mW_per_port, "mW", "static power per switch or router input port");
    energy("mc_static_W", &P::mc_static_W, "W", "static power of one memory controller");
    energy("constant_W", &P::constant_W, "W", "constant power: board, fans, uncore, whatever the activity");
    return t;
  }();
  return table;
}

void publish_parameters(StatsRegistry& stats, const PowerConfig& config) {
  for (const config::Field& f : power_config_table().fields()) {
    const config::Value v = f.get(&config);
    const std::string name = "power.parameters." + f.key;
    if (const bool* b = std::get_if<bool>(&v)) stats.set(name, std::string(*b ? "true" : "false"));
    else if (const int64_t* i = std::get_if<int64_t>(&v)) stats.set(name, static_cast<uint64_t>(*i));
    else if (const double* d = std::get_if<double>(&v)) stats.set(name, *d);
  }
}

std::vector<std::string> parameter_overrides(const nlohmann::json& stats) {
  std::vector<std::string> out;
  auto power = stats.find("power");
  if (power == stats.end() || !power->is_object()) return out;
  auto params = power->find("parameters");
  if (params == power->end() || !params->is_object()) return out;
  for (const auto& [key, v] : params->items()) {
    std::string value;
    if (v.is_string()) value = v.get<std::string>();
    else if (v.is_number_unsigned() || v.is_number_integer()) value = fmt::format("{}", v.get<int64_t>());
    else if (v.is_number_float()) value = fmt::format("{}", v.get<double>());
    else continue;
    out.push_back(fmt::format("power.{}={}", key, value));
  }
  return out;
}

}  // namespace warpsim::power
