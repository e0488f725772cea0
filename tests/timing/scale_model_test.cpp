// Scale-model sampling (timing.sample_ctas = N): about 1 in N CTAs of a
// launch run cycle by cycle on a GPU of 1/N the SMs and memory partitions,
// the rest in the functional executor. Results must be a full run's; cycles
// close to it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "tests/timing/timing_test_util.h"

namespace warpsim::timing {
namespace {

using functional::param_bytes;
using testing::TimedDevice;

// out[i] = in[i] + the sum of in[i+1 .. i+w], w = ctaid % 7 * 4: the CTAs'
// work differs, in a pattern that repeats every 7 CTAs.
constexpr const char* kUneven = R"(
.visible .entry uneven(.param .u64 in, .param .u64 out)
{
  .reg .pred %p<2>; .reg .b32 %r<12>; .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [in]; ld.param.u64 %rd2, [out];
  mov.u32 %r1, %tid.x; mov.u32 %r2, %ctaid.x; mov.u32 %r3, %ntid.x;
  mad.lo.s32 %r4, %r2, %r3, %r1;
  rem.u32 %r9, %r2, 7;
  shl.b32 %r9, %r9, 2;
  mul.wide.u32 %rd3, %r4, 4;
  add.s64 %rd4, %rd1, %rd3;
  ld.global.u32 %r6, [%rd4];
  mov.u32 %r7, 0;
  setp.ge.u32 %p1, %r7, %r9;
  @%p1 bra DONE;
LOOP:
  add.s64 %rd4, %rd4, 4;
  ld.global.u32 %r8, [%rd4];
  add.u32 %r6, %r6, %r8;
  add.u32 %r7, %r7, 1;
  setp.lt.u32 %p1, %r7, %r9;
  @%p1 bra LOOP;
DONE:
  add.s64 %rd7, %rd2, %rd3;
  st.global.u32 [%rd7], %r6;
  ret;
}
)";

// A GPU whose scale model is a quarter of it: 8 SMs and 8 partitions.
SimConfig gpu(uint32_t sample_ctas) {
  SimConfig c;
  c.gpu.num_sms = 8;
  c.timing.sm.schedulers = 2;
  c.timing.partition.partitions = 8;
  c.timing.gpu.sample_ctas = sample_ctas;
  return c;
}

struct UnevenRun {
  functional::LaunchResult result;
  LaunchActivity activity;
  uint64_t total_cycles = 0;
};

// Runs `launches` launches of `uneven` over `ctas` CTAs of 128 threads,
// checking every output.
std::vector<UnevenRun> run_uneven(const SimConfig& config, uint32_t ctas, int launches = 1) {
  TimedDevice t(config, kUneven);
  const uint32_t n = ctas * 128;
  std::vector<uint32_t> in(n + 32);
  for (uint32_t i = 0; i < in.size(); ++i) in[i] = (i * 2654435761u) >> 20;
  const uint64_t din = t.alloc(in.size() * 4), dout = t.alloc(n * 4);
  EXPECT_FALSE(t.device.memory().copy_from_host(din, in.data(), in.size() * 4));
  std::vector<UnevenRun> runs;
  for (int l = 0; l < launches; ++l) {
    EXPECT_FALSE(t.device.memory().memset(dout, 0, n * 4));
    UnevenRun r;
    r.result = t.run("uneven", {ctas}, {128}, {param_bytes(din), param_bytes(dout)});
    EXPECT_TRUE(r.result.ok()) << (r.result.fault ? r.result.fault->message : "");
    r.activity = t.gpu->last();
    const std::vector<uint32_t> out = t.download<uint32_t>(dout, n);
    for (uint32_t i = 0; i < n; ++i) {
      const uint32_t w = (i / 128) % 7 * 4;
      uint32_t want = in[i];
      for (uint32_t j = 1; j <= w; ++j) want += in[i + j];
      EXPECT_EQ(out[i], want) << "launch " << l << " thread " << i;
      if (out[i] != want) break;
    }
    r.total_cycles = t.gpu->total_cycles();
    runs.push_back(std::move(r));
  }
  return runs;
}

TEST(ScaleModel, SamplesOneGroupOfConsecutiveCtasInEveryStratum) {
  for (const uint64_t grid : {1ull, 3ull, 4ull, 5ull, 100ull, 600ull, 1849ull, 16384ull, 100000ull}) {
    for (const uint64_t stride : {2ull, 4ull, 6ull}) {
      const std::vector<uint64_t> s = scale_sample(grid, stride);
      ASSERT_FALSE(s.empty());
      EXPECT_TRUE(std::is_sorted(s.begin(), s.end()));
      EXPECT_EQ(std::set<uint64_t>(s.begin(), s.end()).size(), s.size()) << "no CTA twice";
      EXPECT_LT(s.back(), grid);
      // About 1 in `stride`: one group per stratum of `stride` groups.
      const uint64_t group = std::clamp<uint64_t>(grid / (stride * 32), 1, 64);
      const uint64_t strata = (grid + group * stride - 1) / (group * stride);
      EXPECT_LE(s.size(), strata * group) << grid << " / " << stride;
      EXPECT_NEAR(static_cast<double>(s.size()), static_cast<double>(grid) / static_cast<double>(stride),
                  static_cast<double>(group + 1));
      for (uint64_t k = 1; k < s.size(); ++k) {
        if (s[k] == s[k - 1] + 1) continue;
        EXPECT_EQ(s[k] % group, 0u) << "groups start at a multiple of their size";
      }
      EXPECT_EQ(s, scale_sample(grid, stride)) << "deterministic";
    }
  }
  // The group picked varies from stratum to stratum: a pattern in the CTA
  // index that repeats every `stride` CTAs is not sampled in step.
  const std::vector<uint64_t> s = scale_sample(600, 4);
  std::set<uint64_t> offsets;
  for (const uint64_t c : s) offsets.insert(c % 4);
  EXPECT_EQ(offsets.size(), 4u);
}

TEST(ScaleModel, ALaunchRunsAQuarterOfItsCtasWithTheFullResultsAndCloseCycles) {
  const UnevenRun full = run_uneven(gpu(1), 1200)[0];
  const UnevenRun part = run_uneven(gpu(4), 1200)[0];
  EXPECT_EQ(full.activity.sampled_launches, 0u);
  EXPECT_EQ(full.activity.sampling, Sampling::None);
  EXPECT_EQ(full.activity.simulated_ctas, 1200u);
  ASSERT_EQ(part.activity.sampled_launches, 1u);
  EXPECT_EQ(part.activity.sampling, Sampling::ScaleModel);
  // Instructions and CTAs count the whole launch; a quarter of the CTAs ran
  // on the scale model, whose cycles are all simulated.
  EXPECT_EQ(part.result.thread_instructions, full.result.thread_instructions);
  EXPECT_EQ(part.result.warp_instructions, full.result.warp_instructions);
  EXPECT_EQ(part.activity.sm.ctas, 1200u);
  EXPECT_EQ(part.activity.simulated_ctas, scale_sample(1200, 4).size());
  EXPECT_GT(part.activity.unsimulated_warp_instructions, full.result.warp_instructions / 2);
  EXPECT_EQ(part.activity.simulated_cycles, part.result.cycles);
  EXPECT_EQ(part.total_cycles, part.result.cycles);
  // Two of the scale model's SMs run the sampled CTAs about as fast as the
  // eight of the full GPU run them all.
  const double error = std::abs(static_cast<double>(part.result.cycles) - static_cast<double>(full.result.cycles)) /
                       static_cast<double>(full.result.cycles);
  EXPECT_LT(error, 0.10) << "sampled " << part.result.cycles << " full " << full.result.cycles;
  // The CTAs' work differs, so the interval is not empty; the sample is large.
  EXPECT_GT(part.activity.cycles_ci95, 0u);
  EXPECT_LT(part.activity.cycles_ci95, part.result.cycles / 5);
}

TEST(ScaleModel, IsDeterministicAndKeepsTheClockAcrossLaunches) {
  const std::vector<UnevenRun> a = run_uneven(gpu(4), 600, 3);
  const std::vector<UnevenRun> b = run_uneven(gpu(4), 600, 3);
  uint64_t sum = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].result.cycles, b[i].result.cycles);
    EXPECT_EQ(a[i].activity.cycles_ci95, b[i].activity.cycles_ci95);
    EXPECT_EQ(a[i].activity.index, i);
    EXPECT_EQ(a[i].activity.sampled_launches, 1u);
    sum += a[i].result.cycles;
    EXPECT_EQ(a[i].total_cycles, sum);
  }
}

// Every thread adds 1 to one counter: an address all CTAs update.
constexpr const char* kCounter = R"(
.visible .entry count(.param .u64 counter)
{
  .reg .b32 %r<2>; .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [counter];
  atom.global.add.u32 %r1, [%rd1], 1;
  ret;
}
)";

TEST(ScaleModel, KernelsWhoseCtasShareAnAtomicCounterRunOnTheFullGpu) {
  // The counter's contention grows with the CTAs running at once, which the
  // scale model would divide by four.
  TimedDevice t(gpu(4), kCounter);
  const uint64_t counter = t.alloc(4);
  ASSERT_FALSE(t.device.memory().memset(counter, 0, 4));
  const auto r = t.run("count", {400}, {128}, {param_bytes(counter)});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(t.download<uint32_t>(counter, 1)[0], 400u * 128u);
  EXPECT_EQ(t.gpu->last().sampled_launches, 0u);
  EXPECT_EQ(t.gpu->last().simulated_ctas, 400u);
}

TEST(ScaleModel, CooperativeLaunchesRunOnTheFullGpu) {
  TimedDevice t(gpu(4), kUneven);
  const uint32_t ctas = 8, n = ctas * 128;
  const uint64_t din = t.alloc((n + 32) * 4), dout = t.alloc(n * 4);
  ASSERT_FALSE(t.device.memory().memset(din, 0, (n + 32) * 4));
  const functional::KernelInfo* k = t.program->find_kernel("uneven");
  ASSERT_NE(k, nullptr);
  const std::vector<std::vector<uint8_t>> args{param_bytes(din), param_bytes(dout)};
  auto params = t.device.layout_params(*k, args);
  ASSERT_TRUE(params.has_value());
  functional::LaunchConfig cfg;
  cfg.grid = {ctas};
  cfg.block = {128};
  cfg.cooperative = true;
  const auto r = t.device.launch(*t.program, *k, cfg, *params);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(t.gpu->last().sampled_launches, 0u);
  EXPECT_EQ(t.gpu->last().simulated_ctas, ctas);
}

TEST(ScaleModel, TheLongestCtaLivesWhatTheSimulatedCtasLifetimesGiveForItsWork) {
  // Lifetimes on a line, 1000 cycles + 2 per instruction: the fit finds it,
  // where scaling the heaviest CTA in proportion (3000 cycles for 1000
  // instructions, 6000 for 2000) would not.
  const std::vector<Sm::CtaWork> line{{200, 1400}, {500, 2000}, {1000, 3000}, {800, 2600}};
  EXPECT_EQ(cta_lifetime(line, 2000), 5000u);
  // Noise about the line: within a few cycles of it.
  const std::vector<Sm::CtaWork> noisy{{200, 1410}, {500, 1990}, {1000, 3005}, {800, 2595}, {300, 1600}};
  EXPECT_NEAR(static_cast<double>(cta_lifetime(noisy, 2000)), 5000.0, 30.0);
  // Two CTAs are too few for a line: the heaviest's pace, 3 cycles per
  // instruction.
  EXPECT_EQ(cta_lifetime({{{200, 1400}, {1000, 3000}}}, 2000), 6000u);
  // A line that falls with the work (the heavy CTAs started first and met
  // less contention) gives the heaviest's pace too; and a CTA never lives
  // less than the heaviest simulated one.
  const std::vector<Sm::CtaWork> falling{{200, 3000}, {500, 2500}, {1000, 2000}};
  EXPECT_EQ(cta_lifetime(falling, 2000), 4000u);
  const std::vector<Sm::CtaWork> flat_then_short{{100, 5000}, {110, 5000}, {1000, 5100}};
  EXPECT_GE(cta_lifetime(flat_then_short, 1001), 5100u);
  EXPECT_EQ(cta_lifetime({}, 100), 0u);
}

}  // namespace
}  // namespace warpsim::timing
