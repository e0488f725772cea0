// The energy model on hand-made counters: static and constant power with no
// activity, count x coefficient per component, linearity, power gating,
// reading counters back from a statistics JSON file.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <string>

#include <nlohmann/json.hpp>

#include "power/energy_model.h"

namespace warpsim::power {
namespace {

Machine machine() {
  Machine m;
  m.core_clock_mhz = 1000;
  m.sms = 10;
  m.l2_slices = 4;
  m.channels = 2;
  m.switches = 2;
  m.switch_ports = 28;
  m.flit_bits = 256;
  m.dram_clock_mhz = 1000;
  m.dram_tRC = 40;
  m.dram_tRAS = 28;
  m.dram_burst_bytes = 32;
  m.dram_burst_cycles = 2;
  return m;
}

double component(const EnergyReport& r, std::string_view name) {
  for (const ComponentEnergy& c : r.components)
    if (c.name == name) return c.joules;
  ADD_FAILURE() << "no component " << name;
  return 0;
}

TEST(EnergyModel, NoActivityCostsStaticAndConstantPowerTimesTime) {
  const PowerConfig c;  // the built-in GPU's coefficients
  const Machine m = machine();
  Activity a;
  a.set("gpu_tot_sim_cycle", 2'000'000);  // 2 ms at 1 GHz
  const EnergyReport r = estimate(c, m, a);
  const double t = 2e-3;
  EXPECT_DOUBLE_EQ(r.seconds, t);
  EXPECT_EQ(r.dynamic_joules, 0.0);
  const double dram_background_W = m.channels * c.dram_idd2n_mA * 1e-3 * c.dram_vdd_V * c.dram_devices_per_channel;
  const double refresh_J = m.channels * t / (c.dram_tREFI_ns * 1e-9) * (c.dram_idd5_mA - c.dram_idd3n_mA) * 1e-3 *
                           c.dram_vdd_V * c.dram_devices_per_channel * c.dram_tRFC_ns * 1e-9;
  const double static_W = m.sms * c.sm_static_W + m.l2_slices * c.l2_static_W +
                          m.switch_ports * c.noc_static_mW_per_port * 1e-3 + m.channels * c.mc_static_W +
                          dram_background_W + c.constant_W;
  EXPECT_NEAR(r.total_joules, static_W * t + refresh_J, 1e-12 * r.total_joules);
  EXPECT_NEAR(r.average_watts(), static_W + refresh_J / t, 1e-9);
  EXPECT_DOUBLE_EQ(component(r, "constant"), c.constant_W * t);
  EXPECT_DOUBLE_EQ(r.edp(), r.total_joules * t);
  EXPECT_DOUBLE_EQ(r.ed2p(), r.total_joules * t * t);
}

TEST(EnergyModel, DynamicEnergyIsCountTimesCoefficientPerComponent) {
  const PowerConfig c;
  const Machine m = machine();
  Activity a;
  a.set("gpu_tot_sim_cycle", 1000);
  a.set("timing.warp_instructions", 7);
  a.set("timing.register_reads", 11);
  a.set("timing.register_writes", 5);
  a.set("timing.lane_ops.sp", 100);
  a.set("timing.lane_ops.dp", 30);
  a.set("timing.lane_ops.branch", 3);
  a.set("timing.lane_ops.fence", 2);
  a.set("timing.shared.accesses", 9);
  a.set("gpgpu_n_shmem_bkconflict", 4);
  a.set("timing.l1d.read_accesses", 13);
  a.set("timing.l1d.write_accesses", 6);
  a.set("timing.l1d.read_misses", 8);
  a.set("timing.l2.read_accesses", 21);
  a.set("timing.l2.atomics", 2);
  a.set("icnt.request.buffer_writes", 40);
  a.set("icnt.reply.buffer_writes", 60);
  a.set("icnt.request.switch_traversals", 17);
  a.set("icnt.request.link_flit_um", 5000);
  a.set("icnt.request.flits_injected", 3);
  a.set("total_dram_reads", 12);
  a.set("total_dram_writes", 4);
  const EnergyReport r = estimate(c, m, a);
  const double p = 1e-12, f = 1e-15;
  EXPECT_DOUBLE_EQ(component(r, "sm.issue"), 7 * c.issue_pJ * p);
  EXPECT_DOUBLE_EQ(component(r, "sm.register_file"), (11 * c.register_read_pJ + 5 * c.register_write_pJ) * p);
  EXPECT_DOUBLE_EQ(component(r, "sm.fp32"), 100 * c.sp_op_pJ * p);
  EXPECT_DOUBLE_EQ(component(r, "sm.fp64"), 30 * c.dp_op_pJ * p);
  EXPECT_DOUBLE_EQ(component(r, "sm.branch"), 5 * c.branch_op_pJ * p);
  EXPECT_DOUBLE_EQ(component(r, "sm.shared"), 13 * c.shared_access_pJ * p);
  EXPECT_DOUBLE_EQ(component(r, "sm.l1d"), (13 * c.l1d_read_pJ + 6 * c.l1d_write_pJ + 8 * c.l1d_fill_pJ) * p);
  EXPECT_DOUBLE_EQ(component(r, "l2.cache"), 21 * c.l2_read_pJ * p + 2 * c.l2_atomic_pJ * p);
  EXPECT_DOUBLE_EQ(component(r, "noc.buffers"), 256 * (100 * c.noc_buffer_write_fJ_per_bit) * f);
  EXPECT_DOUBLE_EQ(component(r, "noc.crossbar"),
                   17.0 * 256 * (14 * 256 * c.noc_crossbar_pitch_um * 1e-3) * c.noc_link_fJ_per_bit_mm * f);
  EXPECT_DOUBLE_EQ(component(r, "noc.links"),
                   256 * (5.0 + 3 * c.noc_terminal_link_mm) * c.noc_link_fJ_per_bit_mm * f);
  EXPECT_DOUBLE_EQ(component(r, "mc.requests"), 16 * c.mc_request_pJ * p);
  // The total is the sum of the components, and the groups partition it.
  double sum = 0, groups = 0;
  for (const ComponentEnergy& e : r.components) sum += e.joules;
  for (double g : r.group_joules) groups += g;
  EXPECT_NEAR(r.total_joules, sum, 1e-15 * sum);
  EXPECT_NEAR(r.total_joules, groups, 1e-15 * groups);
}

TEST(EnergyModel, SampledRunsPriceTheUnsimulatedInstructionsAtTheSimulatedPartsEvents) {
  const PowerConfig c;
  const Machine m = machine();
  Activity whole;
  whole.set("gpu_tot_sim_cycle", 100'000);
  whole.set("timing.thread_instructions", 3200);
  whole.set("timing.warp_instructions", 100);
  whole.set("timing.lane_ops.int", 2000);
  whole.set("timing.l2.read_accesses", 40);
  whole.set("timing.dram.read_bytes", 4096);
  whole.set("timing.active_cycles", 50'000);
  // The same run with three quarters of its instructions in the functional
  // executor: a quarter of the events were counted.
  Activity part = whole;
  part.set("timing.unsimulated_warp_instructions", 75);
  part.set("timing.lane_ops.int", 500);
  part.set("timing.l2.read_accesses", 10);
  part.set("timing.dram.read_bytes", 1024);
  part.set("timing.active_cycles", 12'500);
  for (const bool gating : {false, true}) {
    PowerConfig g = c;
    g.power_gating = gating;
    const EnergyReport full = estimate(g, m, whole), sampled = estimate(g, m, part);
    EXPECT_DOUBLE_EQ(full.sampled_scale, 1.0);
    EXPECT_DOUBLE_EQ(sampled.sampled_scale, 4.0);
    for (const ComponentEnergy& e : full.components)
      EXPECT_NEAR(component(sampled, e.name), e.joules, 1e-12 * e.joules) << e.name;
    EXPECT_NEAR(sampled.total_joules, full.total_joules, 1e-12 * full.total_joules);
  }
  // Issue energy counts every instruction already; time is not scaled.
  EXPECT_DOUBLE_EQ(component(estimate(c, m, part), "sm.issue"), 100 * c.issue_pJ * 1e-12);
  // A stretch with nothing simulated has no events to scale.
  Activity none = part;
  none.set("timing.unsimulated_warp_instructions", 100);
  EXPECT_DOUBLE_EQ(estimate(c, m, none).sampled_scale, 1.0);
  StatsRegistry stats;
  estimate(c, m, part).publish(stats);
  EXPECT_DOUBLE_EQ(stats.to_json()["power"]["sampled_scale"].get<double>(), 4.0);
}

TEST(EnergyModel, DoublingDramTrafficDoublesDramDynamicEnergy) {
  const PowerConfig c;
  const Machine m = machine();
  Activity once, twice;
  for (Activity* a : {&once, &twice}) a->set("gpu_tot_sim_cycle", 100000);
  auto traffic = [](Activity& a, uint64_t k) {
    a.set("timing.dram.activates", 50 * k);
    a.set("timing.dram.read_bytes", 64000 * k);
    a.set("timing.dram.write_bytes", 32000 * k);
  };
  traffic(once, 1);
  traffic(twice, 2);
  const EnergyReport r1 = estimate(c, m, once), r2 = estimate(c, m, twice);
  for (const char* name : {"dram.activate", "dram.read", "dram.write"}) {
    EXPECT_GT(component(r1, name), 0.0) << name;
    EXPECT_DOUBLE_EQ(component(r2, name), 2 * component(r1, name)) << name;
  }
  // Time-based DRAM energy does not depend on the traffic.
  EXPECT_DOUBLE_EQ(component(r2, "dram.refresh"), component(r1, "dram.refresh"));
  EXPECT_DOUBLE_EQ(component(r2, "dram.background"), component(r1, "dram.background"));
}

TEST(EnergyModel, PowerGatingChargesIdleSmsAndChannelsLess) {
  PowerConfig c;
  const Machine m = machine();
  Activity a;
  a.set("gpu_tot_sim_cycle", 1'000'000);
  a.set("timing.active_cycles", 3'000'000);  // 3 of 10 SMs busy the whole time
  a.set("timing.dram.open_row_cycles", 500'000);  // a row open half the time in one of 2 channels
  const double t = 1e-3;
  const EnergyReport on_full = estimate(c, m, a);
  EXPECT_DOUBLE_EQ(component(on_full, "sm.static"), c.sm_static_W * 10 * t);
  c.power_gating = true;
  const EnergyReport gated = estimate(c, m, a);
  EXPECT_DOUBLE_EQ(component(gated, "sm.static"), c.sm_static_W * (3 * t + c.sm_gated_fraction * 7 * t));
  const double w = 1e-3 * c.dram_vdd_V * c.dram_devices_per_channel;
  EXPECT_NEAR(component(gated, "dram.background"), w * (c.dram_idd3n_mA * 0.5 * t + c.dram_idd2p_mA * 1.5 * t),
              1e-15);
  EXPECT_LT(gated.total_joules, on_full.total_joules);
}

TEST(EnergyModel, CountersReadFromNestedStatisticsJson) {
  // A name that is also a prefix keeps its value under "value".
  const nlohmann::json stats = nlohmann::json::parse(R"({
    "gpu_tot_sim_cycle": 500,
    "timing": {"warp_instructions": {"value": 42, "x": 1}, "l1d": {"read_accesses": 7}},
    "icnt": {"request": {"buffer_writes": 9}}})");
  const Activity a = Activity::from_json(stats, input_names());
  EXPECT_EQ(a["gpu_tot_sim_cycle"], 500u);
  EXPECT_EQ(a["timing.warp_instructions"], 42u);
  EXPECT_EQ(a["timing.l1d.read_accesses"], 7u);
  EXPECT_EQ(a["icnt.request.buffer_writes"], 9u);
  EXPECT_EQ(a["timing.l2.read_accesses"], 0u);
  EXPECT_EQ(Activity::from_flat_json(a.to_flat_json()).values(), a.values());
}

TEST(EnergyModel, ActivityDifferenceOfSnapshots) {
  Activity before, after;
  before.set("gpu_tot_sim_cycle", 100);
  after.set("gpu_tot_sim_cycle", 250);
  after.set("timing.warp_instructions", 9);
  const Activity d = after.minus(before);
  EXPECT_EQ(d["gpu_tot_sim_cycle"], 150u);
  EXPECT_EQ(d["timing.warp_instructions"], 9u);
  Activity sum = before;
  sum.add(d);
  EXPECT_EQ(sum["gpu_tot_sim_cycle"], 250u);
}

TEST(EnergyModel, MachineRoundTripsThroughStatistics) {
  Machine m = machine();
  m.core_clock_mhz = 1401.3;
  StatsRegistry r;
  m.publish(r);
  std::string error;
  const auto back = Machine::from_json(nlohmann::json::parse(r.to_json().dump()), error);
  ASSERT_TRUE(back) << error;
  EXPECT_EQ(back->core_clock_mhz, m.core_clock_mhz);
  EXPECT_EQ(back->switch_ports, m.switch_ports);
  EXPECT_EQ(back->dram_burst_cycles, m.dram_burst_cycles);
  EXPECT_FALSE(Machine::from_json(nlohmann::json::object(), error));
  EXPECT_NE(error.find("power.machine"), std::string::npos);
}

}  // namespace
}  // namespace warpsim::power

namespace warpsim::power {
namespace {

// docs/power.md's table of components stays complete.
TEST(EnergyModel, EveryComponentIsDocumented) {
  std::ifstream in(WARPSIM_SOURCE_DIR "/docs/power.md");
  ASSERT_TRUE(in) << "docs/power.md";
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  for (const Component& c : components())
    EXPECT_NE(text.find("`" + std::string(c.name) + "`"), std::string::npos) << c.name << " is not in docs/power.md";
  for (const config::Field& f : power_config_table().fields())
    EXPECT_NE(text.find(f.key), std::string::npos) << "[power] " << f.key << " is not in docs/power.md";
}

}  // namespace
}  // namespace warpsim::power
