// The components of the energy model, one row each, and the report.
#include "power/energy_model.h"

#include <algorithm>
#include <functional>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common/invariant.h"

namespace warpsim::power {
namespace {

constexpr double kPico = 1e-12, kFemto = 1e-15, kMilli = 1e-3;
constexpr std::string_view kSubnets[] = {"icnt.request", "icnt.reply"};

// The counters that count every launch whole under sampled simulation (the
// time and the instructions); the others count only the simulated part.
bool covers_whole_run(std::string_view name) {
  return name == "gpu_tot_sim_cycle" || name == "timing.thread_instructions" ||
         name == "timing.warp_instructions" || name == "timing.unsimulated_warp_instructions";
}

// What a component's function sees.
struct Inputs {
  const PowerConfig& c;
  const Machine& m;
  const Activity& a;
  double seconds;
  double sampled_scale;  // EnergyReport::sampled_scale
  // Sum of `counter` over the two subnets ("buffer_writes").
  double subnets(std::string_view counter) const {
    double sum = 0;
    for (std::string_view s : kSubnets) sum += n(fmt::format("{}.{}", s, counter));
    return sum;
  }
  // A counter's value. Only input_names() are ever filled in (the runtime and
  // `warpsim power` take those), so reading another would price 0 silently.
  double n(std::string_view name) const {
    const auto names = input_names();
    WARPSIM_INVARIANT(std::find(names.begin(), names.end(), name) != names.end(),
                      "the energy model reads a counter missing from input_names()");
    return static_cast<double>(a[name]) * (covers_whole_run(name) ? 1.0 : sampled_scale);
  }
  double dram_seconds(double cycles) const { return cycles / (m.dram_clock_mhz * 1e6); }
  // DRAM power of one channel at `current_mA` (all its devices).
  double dram_watts(double current_mA) const {
    return current_mA * kMilli * c.dram_vdd_V * c.dram_devices_per_channel;
  }
  // Moving the bytes of counter `bytes`: the bursts' current above active
  // standby (`burst_mA`: IDD4R or IDD4W) over their time, and the interface
  // energy per bit.
  double dram_transfers(std::string_view bytes, double burst_mA) const {
    const double b = n(bytes);
    const double bursts = m.dram_burst_bytes ? b / m.dram_burst_bytes : 0;
    return bursts * std::max(0.0, dram_watts(burst_mA - c.dram_idd3n_mA)) * dram_seconds(m.dram_burst_cycles) +
           b * 8 * c.dram_io_pJ_per_bit * kPico;
  }
};

using EnergyFn = double (*)(const Inputs&);

struct Row {
  Component component;
  EnergyFn joules;
};

double cache_energy(const Inputs& in, std::string_view cache, double read_pJ, double write_pJ, double fill_pJ) {
  const std::string p(cache);
  return (in.n(p + ".read_accesses") * read_pJ + in.n(p + ".write_accesses") * write_pJ +
          in.n(p + ".read_misses") * fill_pJ) *
         kPico;
}

// The table. Event counts are published statistics (docs/statistics.md).
const Row kRows[] = {
    // --- SMs
    {{"sm.issue", Group::Sm, false, "warp instructions x issue_pJ (fetch, decode, schedule, issue)"},
     [](const Inputs& in) { return in.n("timing.warp_instructions") * in.c.issue_pJ * kPico; }},
    {{"sm.register_file", Group::Sm, false,
      "warp register operands read x register_read_pJ + written x register_write_pJ"},
     [](const Inputs& in) {
       return (in.n("timing.register_reads") * in.c.register_read_pJ +
               in.n("timing.register_writes") * in.c.register_write_pJ) *
              kPico;
     }},
    {{"sm.fp32", Group::Sm, false, "fp32 lane operations x sp_op_pJ"},
     [](const Inputs& in) { return in.n("timing.lane_ops.sp") * in.c.sp_op_pJ * kPico; }},
    {{"sm.int", Group::Sm, false, "integer lane operations x int_op_pJ"},
     [](const Inputs& in) { return in.n("timing.lane_ops.int") * in.c.int_op_pJ * kPico; }},
    {{"sm.fp64", Group::Sm, false, "fp64 lane operations x dp_op_pJ"},
     [](const Inputs& in) { return in.n("timing.lane_ops.dp") * in.c.dp_op_pJ * kPico; }},
    {{"sm.sfu", Group::Sm, false, "special-function lane operations x sfu_op_pJ"},
     [](const Inputs& in) { return in.n("timing.lane_ops.sfu") * in.c.sfu_op_pJ * kPico; }},
    {{"sm.tensor", Group::Sm, false, "tensor-core lane operations x tensor_op_pJ"},
     [](const Inputs& in) { return in.n("timing.lane_ops.tensor") * in.c.tensor_op_pJ * kPico; }},
    {{"sm.branch", Group::Sm, false, "branch-unit and fence lane operations x branch_op_pJ"},
     [](const Inputs& in) {
       return (in.n("timing.lane_ops.branch") + in.n("timing.lane_ops.fence")) * in.c.branch_op_pJ * kPico;
     }},
    {{"sm.ldst", Group::Sm, false, "LD/ST-unit lane operations x ldst_op_pJ (address generation, coalescing)"},
     [](const Inputs& in) { return in.n("timing.lane_ops.ldst") * in.c.ldst_op_pJ * kPico; }},
    {{"sm.shared", Group::Sm, false,
      "(shared-memory accesses + bank-conflict cycles) x shared_access_pJ: one warp-wide access per cycle"},
     [](const Inputs& in) {
       return (in.n("timing.shared.accesses") + in.n("gpgpu_n_shmem_bkconflict")) * in.c.shared_access_pJ * kPico;
     }},
    {{"sm.l1d", Group::Sm, false, "L1D reads x l1d_read_pJ + writes x l1d_write_pJ + read misses x l1d_fill_pJ"},
     [](const Inputs& in) {
       return cache_energy(in, "timing.l1d", in.c.l1d_read_pJ, in.c.l1d_write_pJ, in.c.l1d_fill_pJ);
     }},
    {{"sm.l1i", Group::Sm, false, "L1I reads x l1i_read_pJ + misses x l1i_fill_pJ"},
     [](const Inputs& in) { return cache_energy(in, "timing.l1i", in.c.l1i_read_pJ, 0, in.c.l1i_fill_pJ); }},
    {{"sm.l1c", Group::Sm, false, "constant-cache reads x l1c_read_pJ + misses x l1c_fill_pJ"},
     [](const Inputs& in) { return cache_energy(in, "timing.constant", in.c.l1c_read_pJ, 0, in.c.l1c_fill_pJ); }},
    {{"sm.static", Group::Sm, true,
      "sm_static_W x SM-seconds; with power_gating, an idle SM (no resident CTA) draws sm_gated_fraction of it"},
     [](const Inputs& in) {
       // Linear in the counters (no clamping), so the rows of a power trace
       // add up to their launch.
       const double all = in.m.sms * in.seconds;
       if (!in.c.power_gating) return in.c.sm_static_W * all;
       const double active = in.n("timing.active_cycles") / (in.m.core_clock_mhz * 1e6);
       return in.c.sm_static_W * (in.c.sm_gated_fraction * all + (1 - in.c.sm_gated_fraction) * active);
     }},
    // --- L2
    {{"l2.cache", Group::L2, false,
      "L2 reads x l2_read_pJ + writes x l2_write_pJ + read misses x l2_fill_pJ + atomics x l2_atomic_pJ"},
     [](const Inputs& in) {
       return cache_energy(in, "timing.l2", in.c.l2_read_pJ, in.c.l2_write_pJ, in.c.l2_fill_pJ) +
              in.n("timing.l2.atomics") * in.c.l2_atomic_pJ * kPico;
     }},
    {{"l2.static", Group::L2, true, "l2_static_W x slices x seconds"},
     [](const Inputs& in) { return in.c.l2_static_W * in.m.l2_slices * in.seconds; }},
    // --- network
    {{"noc.buffers", Group::Noc, false,
      "flit bits written x noc_buffer_write_fJ_per_bit + read x noc_buffer_read_fJ_per_bit"},
     [](const Inputs& in) {
       return in.m.flit_bits *
              (in.subnets("buffer_writes") * in.c.noc_buffer_write_fJ_per_bit +
               in.subnets("buffer_reads") * in.c.noc_buffer_read_fJ_per_bit) *
              kFemto;
     }},
    {{"noc.crossbar", Group::Noc, false,
      "flit bits through a switch x the crossbar's wire (input ports x flit bits x noc_crossbar_pitch_um) x "
      "noc_link_fJ_per_bit_mm"},
     [](const Inputs& in) {
       const double span_mm = in.m.ports_per_switch() * in.m.flit_bits * in.c.noc_crossbar_pitch_um * 1e-3;
       return in.subnets("switch_traversals") * in.m.flit_bits * span_mm * in.c.noc_link_fJ_per_bit_mm * kFemto;
     }},
    {{"noc.allocators", Group::Noc, false, "(switch + virtual-channel allocations) x noc_allocation_pJ"},
     [](const Inputs& in) {
       return (in.subnets("switch_allocations") + in.subnets("vc_allocations")) * in.c.noc_allocation_pJ * kPico;
     }},
    {{"noc.links", Group::Noc, false,
      "flit bits x mm of router-to-router links crossed x noc_link_fJ_per_bit_mm, and injected + ejected flit "
      "bits x noc_terminal_link_mm x the same"},
     [](const Inputs& in) {
       const double bit_mm = in.m.flit_bits * (in.subnets("link_flit_um") / 1000.0 +
                                               (in.subnets("flits_injected") + in.subnets("flits_ejected")) *
                                                   in.c.noc_terminal_link_mm);
       return bit_mm * in.c.noc_link_fJ_per_bit_mm * kFemto;
     }},
    {{"noc.static", Group::Noc, true, "noc_static_mW_per_port x switch input ports x seconds"},
     [](const Inputs& in) { return in.c.noc_static_mW_per_port * kMilli * in.m.switch_ports * in.seconds; }},
    {{"noc.port_mechanisms", Group::Noc, false,
      "merge-table lookups and allocations and coalesced-cache lookups x port_search_pJ + coalesced-cache hits "
      "and fills x port_line_pJ"},
     [](const Inputs& in) {
       const std::string mt = "timing.cluster.merge_table.", cc = "timing.cluster.coalesced_cache.";
       return ((in.n(mt + "lookups") + in.n(mt + "allocations") + in.n(cc + "lookups")) * in.c.port_search_pJ +
               (in.n(cc + "hits") + in.n(cc + "fills")) * in.c.port_line_pJ) *
              kPico;
     }},
    // --- memory controllers
    {{"mc.requests", Group::Mc, false, "DRAM reads and writes x mc_request_pJ"},
     [](const Inputs& in) {
       return (in.n("total_dram_reads") + in.n("total_dram_writes")) * in.c.mc_request_pJ * kPico;
     }},
    {{"mc.static", Group::Mc, true, "mc_static_W x channels x seconds"},
     [](const Inputs& in) { return in.c.mc_static_W * in.m.channels * in.seconds; }},
    // --- DRAM (datasheet currents, per channel of dram_devices_per_channel devices)
    {{"dram.activate", Group::Dram, false,
      "ACTs x (IDD0 x tRC - IDD3N x tRAS - IDD2N x (tRC - tRAS)) x VDD x devices: an ACT-PRE pair"},
     [](const Inputs& in) {
       const double tRC = in.dram_seconds(in.m.dram_tRC), tRAS = in.dram_seconds(in.m.dram_tRAS);
       const double per_act = in.dram_watts(in.c.dram_idd0_mA) * tRC - in.dram_watts(in.c.dram_idd3n_mA) * tRAS -
                              in.dram_watts(in.c.dram_idd2n_mA) * (tRC - tRAS);
       return in.n("timing.dram.activates") * std::max(0.0, per_act);
     }},
    {{"dram.read", Group::Dram, false,
      "read bursts x (IDD4R - IDD3N) x VDD x devices x burst time + read bits x dram_io_pJ_per_bit"},
     [](const Inputs& in) { return in.dram_transfers("timing.dram.read_bytes", in.c.dram_idd4r_mA); }},
    {{"dram.write", Group::Dram, false,
      "write bursts x (IDD4W - IDD3N) x VDD x devices x burst time + written bits x dram_io_pJ_per_bit"},
     [](const Inputs& in) { return in.dram_transfers("timing.dram.write_bytes", in.c.dram_idd4w_mA); }},
    {{"dram.refresh", Group::Dram, true,
      "channels x seconds / tREFI refreshes x (IDD5 - IDD3N) x VDD x devices x tRFC"},
     [](const Inputs& in) {
       if (in.c.dram_tREFI_ns <= 0) return 0.0;
       const double refreshes = in.m.channels * in.seconds / (in.c.dram_tREFI_ns * 1e-9);
       return refreshes * std::max(0.0, in.dram_watts(in.c.dram_idd5_mA - in.c.dram_idd3n_mA)) *
              in.c.dram_tRFC_ns * 1e-9;
     }},
    {{"dram.background", Group::Dram, true,
      "channel time with a row open x IDD3N, the rest x IDD2N (IDD2P with power_gating), x VDD x devices"},
     [](const Inputs& in) {
       // Standby all the time, plus the extra of active standby while a row
       // is open: linear in the counters, like sm.static.
       const double all = in.m.channels * in.seconds;
       const double open = in.dram_seconds(in.n("timing.dram.open_row_cycles"));
       const double idle_mA = in.c.power_gating ? in.c.dram_idd2p_mA : in.c.dram_idd2n_mA;
       return in.dram_watts(idle_mA) * all + in.dram_watts(in.c.dram_idd3n_mA - idle_mA) * open;
     }},
    // --- constant
    {{"constant", Group::Constant, true, "constant_W x seconds (board, fans, uncore: whatever the activity)"},
     [](const Inputs& in) { return in.c.constant_W * in.seconds; }},
};

}  // namespace

// The CUDA runtime prices a run while the process exits, after
// function-local statics with destructors may be gone: this list is built
// once and never destroyed (the pointer keeps it reachable), the names below
// are constant.
std::span<const Component> components() {
  static const std::vector<Component>* list = [] {
    auto* v = new std::vector<Component>;
    for (const Row& r : kRows) v->push_back(r.component);
    return v;
  }();
  return *list;
}

// Constant-initialised: nothing to build or destroy (see components()).
constexpr std::string_view kInputNames[] = {
    "gpu_tot_sim_cycle", "timing.thread_instructions", "timing.warp_instructions", "timing.register_reads",
    "timing.register_writes", "timing.lane_ops.sp", "timing.lane_ops.int", "timing.lane_ops.dp",
    "timing.lane_ops.sfu", "timing.lane_ops.tensor", "timing.lane_ops.branch", "timing.lane_ops.fence",
    "timing.lane_ops.ldst", "timing.shared.accesses", "gpgpu_n_shmem_bkconflict", "timing.active_cycles",
    "timing.l1d.read_accesses", "timing.l1d.write_accesses", "timing.l1d.read_misses",
    "timing.l1i.read_accesses", "timing.l1i.write_accesses", "timing.l1i.read_misses",
    "timing.constant.read_accesses", "timing.constant.write_accesses", "timing.constant.read_misses",
    "timing.l2.read_accesses", "timing.l2.write_accesses", "timing.l2.read_misses", "timing.l2.atomics",
    "total_dram_reads", "total_dram_writes", "timing.dram.activates", "timing.dram.read_bytes",
    "timing.dram.write_bytes", "timing.dram.open_row_cycles", "timing.unsimulated_warp_instructions",
    // The network's, per subnet.
    "icnt.request.buffer_writes", "icnt.request.buffer_reads", "icnt.request.switch_allocations",
    "icnt.request.vc_allocations", "icnt.request.switch_traversals", "icnt.request.link_flit_um",
    "icnt.request.flits_injected", "icnt.request.flits_ejected", "icnt.reply.buffer_writes",
    "icnt.reply.buffer_reads", "icnt.reply.switch_allocations", "icnt.reply.vc_allocations",
    "icnt.reply.switch_traversals", "icnt.reply.link_flit_um", "icnt.reply.flits_injected",
    "icnt.reply.flits_ejected",
    // The cluster-port mechanisms' (zero when none is configured).
    "timing.cluster.merge_table.lookups", "timing.cluster.merge_table.allocations",
    "timing.cluster.coalesced_cache.lookups", "timing.cluster.coalesced_cache.hits",
    "timing.cluster.coalesced_cache.fills",
};

std::span<const std::string_view> input_names() { return kInputNames; }

EnergyReport estimate(const PowerConfig& config, const Machine& machine, const Activity& activity) {
  EnergyReport r;
  r.cycles = activity["gpu_tot_sim_cycle"];
  r.seconds = machine.core_clock_mhz > 0 ? r.cycles / (machine.core_clock_mhz * 1e6) : 0.0;
  r.thread_instructions = activity["timing.thread_instructions"];
  // Sampled simulation ran some instructions in the functional executor,
  // where no cache, network or DRAM event is counted: those events are
  // priced at the simulated part's count per warp instruction. A stretch
  // with no simulated instruction has nothing to scale from.
  const double warp = static_cast<double>(activity["timing.warp_instructions"]);
  const double unsimulated = static_cast<double>(activity["timing.unsimulated_warp_instructions"]);
  r.sampled_scale = unsimulated > 0 && warp > unsimulated ? warp / (warp - unsimulated) : 1.0;
  const Inputs in{config, machine, activity, r.seconds, r.sampled_scale};
  r.components.reserve(std::size(kRows));
  for (const Row& row : kRows) {
    const double j = row.joules(in);
    r.components.push_back({row.component.name, row.component.group, row.component.is_static, j});
    r.group_joules[static_cast<size_t>(row.component.group)] += j;
    (row.component.is_static ? r.static_joules : r.dynamic_joules) += j;
  }
  r.total_joules = r.dynamic_joules + r.static_joules;
  return r;
}

void EnergyReport::publish(StatsRegistry& stats, std::string_view prefix) const {
  const std::string p(prefix);
  stats.set(p + ".seconds", seconds);
  stats.set(p + ".total_energy_J", total_joules);
  stats.set(p + ".dynamic_energy_J", dynamic_joules);
  stats.set(p + ".static_energy_J", static_joules);
  stats.set(p + ".average_power_W", average_watts());
  stats.set(p + ".edp_Js", edp());
  stats.set(p + ".ed2p_Js2", ed2p());
  stats.set(p + ".instructions_per_joule", instructions_per_joule());
  stats.set(p + ".sampled_scale", sampled_scale);
  for (size_t g = 0; g < kGroups; ++g) {
    stats.set(fmt::format("{}.group.{}.energy_J", p, kGroupNames[g]), group_joules[g]);
    stats.set(fmt::format("{}.group.{}.average_power_W", p, kGroupNames[g]), group_watts(static_cast<Group>(g)));
  }
  for (const ComponentEnergy& c : components) stats.set(fmt::format("{}.component.{}_J", p, c.name), c.joules);
}

nlohmann::json EnergyReport::to_json() const {
  StatsRegistry r;
  publish(r, "power");
  return r.to_json()["power"];
}

}  // namespace warpsim::power
