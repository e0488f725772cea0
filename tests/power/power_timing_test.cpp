// The energy model against the timing model: the counters it reads exist,
// a launch's trace adds up to the launch, DRAM energy follows the traffic,
// the recorded coefficients load back exactly, and the machine's component
// counts come out of the configuration.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "../timing/timing_test_util.h"
#include "power/energy_model.h"
#include "power/power_trace.h"
#include "timing/launch_activity.h"
#include "timing/power_machine.h"
#include "timing/statistics.h"

namespace warpsim::power {
namespace {

using timing::testing::TimedDevice;

using functional::param_bytes;

// out[i] = in[i] * 3.0f + 1.0f, one element per thread.
constexpr const char* kScale = R"(
.visible .entry scale(.param .u64 out, .param .u64 in, .param .u32 n)
{
  .reg .pred %p; .reg .b32 %r<8>; .reg .b64 %rd<8>; .reg .f32 %f<4>;
  ld.param.u64 %rd1, [out]; ld.param.u64 %rd2, [in]; ld.param.u32 %r1, [n];
  mov.u32 %r2, %ctaid.x; mov.u32 %r3, %ntid.x; mov.u32 %r4, %tid.x;
  mad.lo.s32 %r5, %r2, %r3, %r4;
  setp.ge.u32 %p, %r5, %r1;
  @%p bra DONE;
  mul.wide.u32 %rd3, %r5, 4;
  add.s64 %rd4, %rd2, %rd3;
  add.s64 %rd5, %rd1, %rd3;
  ld.global.f32 %f1, [%rd4];
  fma.rn.f32 %f2, %f1, 0f40400000, 0f3F800000;
  st.global.f32 [%rd5], %f2;
DONE:
  ret;
}
)";

SimConfig config() {
  SimConfig c = timing::testing::small_gpu();
  c.timing.partition.partitions = 2;
  c.timing.partition.sub_partitions = 2;
  return c;
}

Activity activity_of(const timing::LaunchActivity& a, timing::PublishDetail detail = timing::PublishDetail::Totals) {
  StatsRegistry r;
  timing::publish(r, a, detail);
  return Activity::from_registry(r, input_names());
}

// Runs `scale` over n elements; returns the launch's counters.
timing::LaunchActivity run_scale(TimedDevice& t, uint32_t n) {
  const uint64_t in = t.alloc(n * 4), out = t.alloc(n * 4);
  const functional::LaunchResult r = t.run("scale", {(n + 127) / 128}, {128}, {param_bytes(out), param_bytes(in), param_bytes(n)});
  EXPECT_EQ(r.error, functional::LaunchError::None);
  return t.gpu->last();
}

TEST(PowerTiming, EveryCounterTheModelReadsIsAPublishedStatistic) {
  std::set<std::string> published;
  for (const timing::PublishedTable& t : timing::published_tables())
    for (const stats::Instance& where : t.where)
      for (const stats::Row& row : t.table->rows()) published.insert(stats::published_name(row, where));
  for (std::string_view name : input_names())
    EXPECT_TRUE(published.count(std::string(name))) << name << " is not in docs/statistics.md";
}

TEST(PowerTiming, LaunchCountsEveryClassOfWork) {
  TimedDevice t(config(), kScale);
  const timing::LaunchActivity launch = run_scale(t, 4096);
  const Activity a = activity_of(launch);
  // The totals alone give the energy model everything the full statistics do.
  EXPECT_EQ(a.values(), activity_of(launch, timing::PublishDetail::All).values());
  EXPECT_EQ(a["timing.lane_ops.sp"], 4096u);  // one FMA per thread
  EXPECT_GT(a["timing.lane_ops.int"], 4096u);
  EXPECT_EQ(a["timing.lane_ops.ldst"], 2 * 4096u + 3 * 4096u);  // ld, st; three ld.param
  // Per warp: 14 register sources (mad 3, setp 2, mul 1, two adds 4, ld 1,
  // fma 1, st 2) and 12 destinations (3 ld.param, 3 mov, mad, mul, 2 adds, ld,
  // fma; setp writes a predicate) in 16 instructions.
  EXPECT_EQ(a["timing.warp_instructions"], 16 * 128u);
  EXPECT_EQ(a["timing.register_reads"], 14 * 128u);
  EXPECT_EQ(a["timing.register_writes"], 12 * 128u);
  EXPECT_GT(a["timing.dram.open_row_cycles"], 0u);
  EXPECT_GT(a["icnt.request.switch_traversals"], 0u);
  const EnergyReport r = estimate(PowerConfig{}, timing::power_machine(t.config), a);
  for (size_t g = 0; g + 1 < kGroups; ++g) EXPECT_GT(r.group_joules[g], 0.0) << kGroupNames[g];
  EXPECT_GT(r.dynamic_joules, 0.0);
}

TEST(PowerTiming, DoublingTheStreamRoughlyDoublesDramDynamicEnergy) {
  const PowerConfig c;
  auto dram_dynamic = [&](uint32_t n) {
    TimedDevice t(config(), kScale);
    const EnergyReport r = estimate(c, timing::power_machine(t.config), activity_of(run_scale(t, n)));
    double j = 0;
    for (const ComponentEnergy& e : r.components)
      if (e.name == "dram.read" || e.name == "dram.write" || e.name == "dram.activate") j += e.joules;
    return j;
  };
  const double once = dram_dynamic(16384), twice = dram_dynamic(32768);
  EXPECT_GT(once, 0.0);
  EXPECT_NEAR(twice / once, 2.0, 0.1);
}

TEST(PowerTiming, TraceRowsAddUpToTheLaunch) {
  TimedDevice t(config(), kScale);
  const Machine m = timing::power_machine(t.config);
  const std::string path = ::testing::TempDir() + "power_trace_test.csv";
  EnergyReport sum;
  double summed_joules = 0;
  Activity summed;
  {
    PowerTrace trace(path, PowerConfig{}, m);
    ASSERT_TRUE(trace.ok()) << trace.error();
    Activity previous;
    t.gpu->set_sampler(200, [&](const timing::LaunchActivity& so_far) {
      const Activity a = activity_of(so_far);
      summed_joules += estimate(PowerConfig{}, m, a.minus(previous)).total_joules;
      summed.add(a.minus(previous));
      previous = a;
      trace.sample(a);
    });
    trace.begin_launch("scale", 0);
    const timing::LaunchActivity launch = run_scale(t, 16384);
    const Activity total = activity_of(launch);
    summed_joules += estimate(PowerConfig{}, m, total.minus(previous)).total_joules;
    summed.add(total.minus(previous));
    for (const auto& [name, v] : total.values()) EXPECT_EQ(summed[name], v) << name;
    trace.end_launch(total);
    sum = estimate(PowerConfig{}, m, total);
    EXPECT_GT(trace.rows(), 3u);
  }
  EXPECT_NEAR(summed_joules, sum.total_joules, 1e-9 * sum.total_joules);
  std::ifstream in(path);
  std::string header, row;
  std::getline(in, header);
  EXPECT_EQ(header,
            "launch,kernel,first_cycle,end_cycle,seconds,sm_W,l2_W,noc_W,mc_W,dram_W,constant_W,total_W,"
            "warp_instructions");
  uint64_t last_end = 0, rows = 0, warp_instructions = 0;
  while (std::getline(in, row)) {
    std::stringstream s(row);
    std::vector<std::string> fields;
    for (std::string f; std::getline(s, f, ',');) fields.push_back(f);
    ASSERT_EQ(fields.size(), 13u) << row;
    EXPECT_EQ(fields[1], "scale");
    EXPECT_EQ(std::stoull(fields[2]), last_end) << "rows are consecutive";
    last_end = std::stoull(fields[3]);
    warp_instructions += std::stoull(fields[12]);
    ++rows;
  }
  EXPECT_GT(rows, 3u);
  EXPECT_EQ(last_end, sum.cycles);
  // The rows' instructions are the launch's: IPC over time adds up.
  EXPECT_EQ(warp_instructions, summed["timing.warp_instructions"]);
  EXPECT_GT(warp_instructions, 0u);
  std::remove(path.c_str());
}

TEST(PowerTiming, RecordedCoefficientsLoadBackExactly) {
  PowerConfig c;
  c.issue_pJ = 1.0 / 3.0;
  c.sm_gated_fraction = 0.123456789012345;
  c.power_gating = true;
  c.trace_interval = 777;
  StatsRegistry r;
  publish_parameters(r, c);
  const nlohmann::json j = nlohmann::json::parse(r.to_json().dump());
  DiagnosticEngine diags;
  const auto back = load_sim_config("", parameter_overrides(j), {}, diags);
  ASSERT_TRUE(back) << diags.format_all();
  EXPECT_EQ(back->power.issue_pJ, c.issue_pJ);
  EXPECT_EQ(back->power.sm_gated_fraction, c.sm_gated_fraction);
  EXPECT_TRUE(back->power.power_gating);
  EXPECT_EQ(back->power.trace_interval, 777u);
  EXPECT_EQ(back->power.constant_W, c.constant_W);
}

TEST(PowerTiming, MachineCountsTheConfiguredSwitches) {
  SimConfig c = config();
  Machine m = timing::power_machine(c);
  const uint32_t nodes = 4 + 4;  // 4 clusters, 4 L2 slices
  EXPECT_EQ(m.switches, 2u);
  EXPECT_EQ(m.switch_ports, 2 * nodes);
  EXPECT_EQ(m.l2_slices, 4u);
  EXPECT_EQ(m.channels, 2u);
  EXPECT_EQ(m.flit_bits, c.timing.network.flit_bytes * 8);
  DiagnosticEngine diags;
  const auto mesh = load_sim_config("zhao-lallc-8x8", {}, {WARPSIM_SOURCE_DIR "/configs"}, diags);
  ASSERT_TRUE(mesh) << diags.format_all();
  m = timing::power_machine(*mesh);
  EXPECT_EQ(m.switches % 64, 0u) << "8 x 8 routers per plane";
  EXPECT_GT(m.switch_ports, 4 * m.switches);
  EXPECT_GT(m.dram_tRC, m.dram_tRAS);
}

}  // namespace
}  // namespace warpsim::power
