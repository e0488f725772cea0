// Sampled timing simulation (timing.sample): a launch stops once its IPC is
// steady, its CTAs finish in the functional executor, and its cycles are
// extrapolated. Results must be a full run's; cycles close to it.
#include <gtest/gtest.h>

#include <cmath>

#include "tests/timing/timing_test_util.h"
#include "timing/confidence.h"

namespace warpsim::timing {
namespace {

using functional::param_bytes;
using testing::small_gpu;
using testing::TimedDevice;

// out[i] = in[i] * 3 + the sum over `turns` turns j of in[16i + j % 16] (a
// loop of uncoalesced global loads): every CTA does the same work, so its
// IPC is steady, but the memory makes it vary from window to window.
constexpr const char* kStencil = R"(
.visible .entry stencil(.param .u64 in, .param .u64 out, .param .u32 turns)
{
  .reg .pred %p<2>; .reg .b32 %r<12>; .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [in]; ld.param.u64 %rd2, [out]; ld.param.u32 %r10, [turns];
  mov.u32 %r1, %tid.x; mov.u32 %r2, %ctaid.x; mov.u32 %r3, %ntid.x;
  mad.lo.s32 %r4, %r2, %r3, %r1;
  mul.wide.u32 %rd3, %r4, 4;
  add.s64 %rd4, %rd1, %rd3;
  ld.global.u32 %r5, [%rd4];
  mul.lo.u32 %r6, %r5, 3;
  mov.u32 %r7, 0;
  mul.wide.u32 %rd3, %r4, 64;
  add.s64 %rd4, %rd1, %rd3;
LOOP:
  and.b32 %r9, %r7, 15;
  mul.wide.u32 %rd5, %r9, 4;
  add.s64 %rd6, %rd4, %rd5;
  ld.global.u32 %r8, [%rd6];
  add.u32 %r6, %r6, %r8;
  add.u32 %r7, %r7, 1;
  setp.lt.u32 %p1, %r7, %r10;
  @%p1 bra LOOP;
  mul.wide.u32 %rd3, %r4, 4;
  add.s64 %rd7, %rd2, %rd3;
  st.global.u32 [%rd7], %r6;
  ret;
}
)";

SimConfig sampled(bool on) {
  SimConfig c = small_gpu();
  c.timing.gpu.sample = on;
  // The default windows (2000 cycles of warm-up, five of 1000 cycles within 5%).
  return c;
}

struct LaunchRecord {
  functional::LaunchResult result;
  LaunchActivity activity;
  std::vector<uint32_t> out;
};

// Runs `launches` launches of the stencil over `ctas` CTAs of 128 threads
// (`turns` a multiple of 16).
std::vector<LaunchRecord> run_stencil(const SimConfig& config, uint32_t ctas, int launches = 1,
                                      uint32_t turns = 16) {
  TimedDevice t(config, kStencil);
  const uint32_t n = ctas * 128;
  std::vector<uint32_t> in(n * 16 + 16);
  for (uint32_t i = 0; i < in.size(); ++i) in[i] = (i * 2654435761u) >> 20;
  const uint64_t din = t.alloc(in.size() * 4), dout = t.alloc(n * 4);
  EXPECT_FALSE(t.device.memory().copy_from_host(din, in.data(), in.size() * 4));
  std::vector<LaunchRecord> runs;
  for (int l = 0; l < launches; ++l) {
    EXPECT_FALSE(t.device.memory().memset(dout, 0, n * 4));
    LaunchRecord r;
    r.result = t.run("stencil", {ctas}, {128}, {param_bytes(din), param_bytes(dout), param_bytes(turns)});
    EXPECT_TRUE(r.result.ok()) << (r.result.fault ? r.result.fault->message : "");
    r.activity = t.gpu->last();
    r.out = t.download<uint32_t>(dout, n);
    for (uint32_t i = 0; i < n; ++i) {
      uint32_t want = in[i] * 3;
      for (uint32_t j = 0; j < 16; ++j) want += in[i * 16 + j] * (turns / 16);
      EXPECT_EQ(r.out[i], want) << "launch " << l << " thread " << i;
      if (r.out[i] != want) break;
    }
    runs.push_back(std::move(r));
  }
  EXPECT_EQ(t.gpu->total_cycles(), [&] {
    uint64_t sum = 0;
    for (const LaunchRecord& r : runs) sum += r.result.cycles;
    return sum;
  }());
  return runs;
}

TEST(Sampling, AManyCtaLaunchStopsEarlyWithTheFullResultsAndCloseCycles) {
  const LaunchRecord full = run_stencil(sampled(false), 600)[0];
  const LaunchRecord part = run_stencil(sampled(true), 600)[0];
  EXPECT_EQ(full.activity.sampled_launches, 0u);
  EXPECT_EQ(full.activity.sampling, Sampling::None);
  EXPECT_EQ(full.activity.simulated_cycles, full.result.cycles);
  ASSERT_EQ(part.activity.sampled_launches, 1u);
  EXPECT_EQ(part.activity.sampling, Sampling::Extrapolated);
  // Instructions and CTAs are counted in full; most cycles are extrapolated.
  EXPECT_EQ(part.result.thread_instructions, full.result.thread_instructions);
  EXPECT_EQ(part.result.warp_instructions, full.result.warp_instructions);
  EXPECT_EQ(part.activity.sm.ctas, 600u);
  EXPECT_GT(part.activity.unsimulated_warp_instructions, 0u);
  EXPECT_LT(part.activity.simulated_cycles * 2, part.result.cycles);
  const double error = std::abs(static_cast<double>(part.result.cycles) - static_cast<double>(full.result.cycles)) /
                       static_cast<double>(full.result.cycles);
  EXPECT_LT(error, 0.10) << "sampled " << part.result.cycles << " full " << full.result.cycles;
  EXPECT_GT(part.activity.cycles_ci95, 0u);
  EXPECT_LT(part.activity.cycles_ci95, part.result.cycles / 4);
}

TEST(Sampling, IsDeterministic) {
  const LaunchRecord a = run_stencil(sampled(true), 600)[0];
  const LaunchRecord b = run_stencil(sampled(true), 600)[0];
  EXPECT_EQ(a.result.cycles, b.result.cycles);
  EXPECT_EQ(a.activity.simulated_cycles, b.activity.simulated_cycles);
  EXPECT_EQ(a.activity.cycles_ci95, b.activity.cycles_ci95);
}

TEST(Sampling, AShortLaunchIsSimulatedInFull) {
  // Four CTAs end before the warm-up and the windows are over.
  const LaunchRecord full = run_stencil(sampled(false), 4)[0];
  const LaunchRecord part = run_stencil(sampled(true), 4)[0];
  EXPECT_EQ(part.activity.sampled_launches, 0u);
  EXPECT_EQ(part.result.cycles, full.result.cycles);
}

TEST(Sampling, LaunchesAfterASampledOneRunOnFreshSmsAndTheSameMemory) {
  // run_stencil checks every launch's output and that the clock adds up.
  const std::vector<LaunchRecord> runs = run_stencil(sampled(true), 600, 3);
  for (const LaunchRecord& r : runs) EXPECT_EQ(r.activity.sampled_launches, 1u);
  // The same work takes about the same time each launch.
  for (const LaunchRecord& r : runs)
    EXPECT_NEAR(static_cast<double>(r.result.cycles), static_cast<double>(runs[0].result.cycles),
                0.1 * static_cast<double>(runs[0].result.cycles));
}

// A one-wave launch of `ctas` CTAs that run long at a steady IPC on
// small_gpu's four SMs.
LaunchRecord run_loop(const SimConfig& config, uint32_t ctas) { return run_stencil(config, ctas, 1, 2048)[0]; }

double relative_error(const LaunchRecord& part, const LaunchRecord& full) {
  return (static_cast<double>(part.result.cycles) - static_cast<double>(full.result.cycles)) /
         static_cast<double>(full.result.cycles);
}

TEST(Sampling, AOneWaveLaunchStopsOnlyWhenTheLastWaveMay) {
  SimConfig last_wave = sampled(true);
  last_wave.timing.gpu.sample_last_wave = 64;
  // Two CTAs on each SM.
  const LaunchRecord full = run_loop(sampled(false), 8);
  const LaunchRecord whole = run_loop(sampled(true), 8);
  const LaunchRecord part = run_loop(last_wave, 8);
  // Without sample_last_wave a one-wave launch is simulated in full.
  EXPECT_EQ(whole.activity.sampled_launches, 0u);
  EXPECT_EQ(whole.result.cycles, full.result.cycles);
  ASSERT_EQ(part.activity.sampled_launches, 1u);
  EXPECT_EQ(part.activity.sampling, Sampling::Extrapolated);
  EXPECT_EQ(part.result.warp_instructions, full.result.warp_instructions);
  EXPECT_EQ(part.activity.sm.ctas, 8u);
  // It stopped at a power of two of windows, at least 64 of them.
  EXPECT_GE(part.activity.simulated_cycles, 2000u + 64 * 1000);
  EXPECT_LT(part.activity.simulated_cycles * 3, part.result.cycles);
  EXPECT_LT(std::abs(relative_error(part, full)), 0.05) << "sampled " << part.result.cycles << " full " << full.result.cycles;
  EXPECT_GT(part.activity.cycles_ci95, 0u);
  EXPECT_LT(part.activity.cycles_ci95, part.result.cycles / 10);
}

TEST(Sampling, AnUnevenLastWaveComesOutShort) {
  // Six CTAs on four SMs: two SMs hold two, two hold one. Some warps of
  // each CTA, on the second of the SM's two schedulers (the first takes the
  // load/store unit whenever it frees), are starved until the others end,
  // then run alone and slowly, which a CTA's pace over the windows cannot
  // see: -14.2% when written. A known limit (docs/performance.md, "Sampled
  // timing simulation"); this bounds it.
  SimConfig last_wave = sampled(true);
  last_wave.timing.gpu.sample_last_wave = 64;
  const LaunchRecord full = run_loop(sampled(false), 6);
  const LaunchRecord part = run_loop(last_wave, 6);
  ASSERT_EQ(part.activity.sampled_launches, 1u);
  EXPECT_LT(relative_error(part, full), 0.0);
  EXPECT_GT(relative_error(part, full), -0.2);
}

TEST(Sampling, TheLastWaveEndsWithItsLastSmAndAnSmSlowsAsItsCtasEnd) {
  // 100 measured cycles. SM 0 held two CTAs and issued 1000 warp
  // instructions (pace(2) = 10), 9 to 1; SM 1 one CTA, 500 (pace(1) = 5).
  // SM 0's first CTA ends after 100 / 9 cycles; its second, with
  // 1900 - 100 / 9 left, then goes at pace(1).
  const std::vector<CtaPace> uneven{{0, 900, 100}, {0, 100, 1900}, {1, 500, 600}};
  EXPECT_NEAR(last_wave_cycles(uneven, 100, 4.0), 100.0 / 9 + (1900 - 100.0 / 9) / 5, 1e-9);
  // An SM whose CTA issued nothing in the windows goes at the measured
  // pace of its count: 1000 / 5.
  std::vector<CtaPace> stalled{{1, 500, 600}, {2, 0, 1000}};
  EXPECT_NEAR(last_wave_cycles(stalled, 100, 4.0), 200.0, 1e-9);
  // Only two-CTA SMs measured: a lone CTA goes at half their pace. SM 0's
  // CTAs share 10 a cycle evenly and end together at 200; SM 1's first ends
  // at 25, its second has 750 left at 5: 175.
  const std::vector<CtaPace> pairs{{0, 500, 1000}, {0, 500, 1000}, {1, 800, 200}, {1, 200, 800}};
  EXPECT_NEAR(last_wave_cycles(pairs, 100, 4.0), 200.0, 1e-9);
  const std::vector<CtaPace> second_pair{{1, 800, 200}, {1, 200, 800}, {0, 500, 100}, {0, 500, 100}};
  EXPECT_NEAR(last_wave_cycles(second_pair, 100, 4.0), 175.0, 1e-9);
  // No SM issued in the windows: the fallback, per CTA.
  EXPECT_NEAR(last_wave_cycles(std::vector<CtaPace>{{2, 0, 1000}}, 100, 4.0), 250.0, 1e-9);
  // CTAs with nothing left add nothing; no CTAs, no cycles.
  EXPECT_DOUBLE_EQ(last_wave_cycles(std::vector<CtaPace>{{3, 7, 0}}, 100, 4.0), 0.0);
  EXPECT_DOUBLE_EQ(last_wave_cycles({}, 100, 4.0), 0.0);
}

TEST(Sampling, ALaunchWhoseDataOutgrowsTheL2StopsOnlyOnceTheL2IsFull) {
  // 4 slices of 16 KiB: the stream's 1 MiB fills the L2 in its first
  // sixteenth; the misses after that write dirty lines back.
  auto run = [](bool sample) {
    SimConfig c = sampled(sample);
    c.timing.partition.partitions = 4;
    c.timing.l2.size = 256 * 1024;
    TimedDevice t(c, testing::kScaleKernel);
    const uint32_t ctas = 4096, n = ctas * 128;
    const uint64_t din = t.alloc(n * 4), dout = t.alloc(n * 4);
    EXPECT_FALSE(t.device.memory().memset(din, 1, n * 4));
    const functional::LaunchResult r = t.run("scale", {ctas}, {128}, {param_bytes(din), param_bytes(dout)});
    EXPECT_TRUE(r.ok());
    EXPECT_EQ(t.download<uint32_t>(dout, n)[n - 1], 0x01010101u * 2 + 1);
    return std::pair{r, t.gpu->last()};
  };
  const auto [full, full_activity] = run(false);
  const auto [part, activity] = run(true);
  ASSERT_EQ(activity.sampled_launches, 1u);
  EXPECT_GT(full_activity.memory.dram.writes, 0u);
  const double error = (static_cast<double>(part.cycles) - static_cast<double>(full.cycles)) /
                       static_cast<double>(full.cycles);
  // Stopped while the L2 still filled (after 12,000 cycles), the estimate
  // came out 14% short.
  EXPECT_LT(std::abs(error), 0.05) << "sampled " << part.cycles << " full " << full.cycles << ", simulated "
                                   << activity.simulated_cycles;
  EXPECT_LT(activity.simulated_cycles * 2, full.cycles);
}

TEST(Sampling, ARateIntervalComesFromTheStretchesSpread) {
  // Rates 1, 2 and 3 over equal stretches: 2, and t(2 df) * sqrt(1 / 3).
  const std::pair<double, double> three[] = {{10, 10}, {20, 10}, {30, 10}};
  const timing::RateInterval r = timing::rate_interval(three);
  EXPECT_DOUBLE_EQ(r.rate, 2.0);
  EXPECT_NEAR(r.half, 4.303 * std::sqrt(1.0 / 3.0), 1e-12);
  // The rate weighs stretches by their cycles; equal rates leave no spread.
  const std::pair<double, double> even[] = {{5, 10}, {50, 100}};
  EXPECT_DOUBLE_EQ(timing::rate_interval(even).rate, 0.5);
  EXPECT_DOUBLE_EQ(timing::rate_interval(even).half, 0.0);
  // One stretch has no spread to measure, and none has no rate.
  const std::pair<double, double> one[] = {{7, 2}};
  EXPECT_DOUBLE_EQ(timing::rate_interval(one).rate, 3.5);
  EXPECT_DOUBLE_EQ(timing::rate_interval(one).half, 0.0);
  EXPECT_DOUBLE_EQ(timing::rate_interval({}).rate, 0.0);
}

TEST(Sampling, ClustersAndCooperativeLaunchesAreNotSampled) {
  SimConfig c = sampled(true);
  TimedDevice t(c, kStencil);
  const uint32_t ctas = 600, n = ctas * 128;
  const uint64_t din = t.alloc((n * 16 + 16) * 4), dout = t.alloc(n * 4);
  ASSERT_FALSE(t.device.memory().memset(din, 0, (n * 16 + 16) * 4));
  const functional::KernelInfo* k = t.program->find_kernel("stencil");
  ASSERT_NE(k, nullptr);
  const std::vector<std::vector<uint8_t>> args{param_bytes(din), param_bytes(dout), param_bytes(uint32_t{16})};
  auto params = t.device.layout_params(*k, args);
  ASSERT_TRUE(params.has_value());
  functional::LaunchConfig cfg;
  cfg.grid = {ctas};
  cfg.block = {128};
  cfg.cooperative = true;
  auto r = t.device.launch(*t.program, *k, cfg, *params);
  // A cooperative grid larger than the GPU holds is refused; one that fits
  // runs in full.
  if (r.ok()) {
    EXPECT_EQ(t.gpu->last().sampled_launches, 0u);
  }
  cfg.grid = {8};
  r = t.device.launch(*t.program, *k, cfg, *params);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(t.gpu->last().sampled_launches, 0u);
}

}  // namespace
}  // namespace warpsim::timing
