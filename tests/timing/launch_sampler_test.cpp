// Launch-level sampling (timing.sample_launches): launches of a repeated
// shape whose simulated IPCs agree are run in the functional executor and
// their cycles estimated.
#include "timing/launch_sampler.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "functional/launch.h"
#include "functional/program.h"
#include "tests/timing/timing_test_util.h"

namespace warpsim::timing {
namespace {

using functional::param_bytes;
using testing::TimedDevice;

struct Shapes {
  functional::Program program;
  functional::KernelInfo kernel;
  Shapes() { program.serial = 7; }
  functional::LaunchContext ctx(uint32_t grid) const {
    functional::LaunchContext c;
    c.program = &program;
    c.kernel = &kernel;
    c.config.grid = {grid};
    c.config.block = {128};
    return c;
  }
};

// Which of `n` launches of one shape, each simulated at `ipc(i)`, the
// sampler estimates ("s" simulated, "e" estimated).
template <typename Ipc>
std::string pattern(LaunchSampler& s, const functional::LaunchContext& ctx, int n, Ipc ipc) {
  std::string out;
  for (int i = 0; i < n; ++i) {
    if (s.estimate(ctx)) {
      out += 'e';
    } else {
      out += 's';
      s.simulated(ctx, static_cast<uint64_t>(ipc(i) * 1000), 1000);
    }
  }
  return out;
}

TEST(LaunchSampler, EstimatesRunsThatDoubleUpToTheLimitOnceTwoSimulatedIpcsAgree) {
  Shapes sh;
  LaunchSampler s(4, 0.05);
  EXPECT_EQ(pattern(s, sh.ctx(100), 16, [](int) { return 10.0; }), "sseseeseeeeseeee");
}

TEST(LaunchSampler, AChangedIpcSendsTheShapeBackToSimulation) {
  Shapes sh;
  LaunchSampler s(8, 0.05);
  // Steady, then from the 4th simulated launch on twice as fast.
  int simulated = 0;
  std::string out;
  const functional::LaunchContext ctx = sh.ctx(100);
  for (int i = 0; i < 20; ++i) {
    if (s.estimate(ctx)) {
      out += 'e';
      continue;
    }
    out += 's';
    s.simulated(ctx, simulated++ >= 3 ? 20000 : 10000, 1000);
  }
  // The 4th simulated launch differs: the next is simulated too, then the
  // runs grow again from one.
  EXPECT_EQ(out, "sseseess" "es" "ees" "eeees" "ee");
}

TEST(LaunchSampler, ShapesAreApartAndTheEstimateUsesTheLastIpc) {
  Shapes sh;
  LaunchSampler s(4, 0.05);
  const functional::LaunchContext a = sh.ctx(100), b = sh.ctx(200);
  s.simulated(a, 10000, 1000);
  s.simulated(a, 10200, 1000);
  EXPECT_TRUE(s.estimate(a));
  EXPECT_FALSE(s.estimate(b)) << "another grid is another shape";
  const LaunchSampler::Estimate e = s.cycles(a, 51000);
  EXPECT_EQ(e.cycles, 5000u);  // 51,000 warp instructions at 10.2 per cycle
  EXPECT_GT(e.ci95, 0u);       // the two IPCs differ a little
  EXPECT_LT(e.ci95, e.cycles / 2);
  // Off: nothing is estimated.
  LaunchSampler off(0, 0.05);
  off.simulated(a, 10000, 1000);
  off.simulated(a, 10000, 1000);
  EXPECT_FALSE(off.estimate(a));
}

TEST(LaunchSampler, RepeatedLaunchesKeepTheirResultsAndGetCloseCycles) {
  SimConfig c = testing::small_gpu();
  c.timing.gpu.sample_launches = 4;
  TimedDevice t(c, testing::kScaleKernel);
  const uint32_t ctas = 64, n = ctas * 128;
  std::vector<uint32_t> in(n);
  for (uint32_t i = 0; i < n; ++i) in[i] = i * 7;
  const uint64_t din = t.alloc(n * 4), dout = t.alloc(n * 4);
  ASSERT_FALSE(t.device.memory().copy_from_host(din, in.data(), n * 4));
  std::string kinds;
  uint64_t sum = 0, last_simulated = 0;
  for (int l = 0; l < 10; ++l) {
    ASSERT_FALSE(t.device.memory().memset(dout, 0, n * 4));
    const auto r = t.run("scale", {ctas}, {128}, {param_bytes(din), param_bytes(dout)});
    ASSERT_TRUE(r.ok());
    const std::vector<uint32_t> out = t.download<uint32_t>(dout, n);
    for (uint32_t i = 0; i < n; ++i) ASSERT_EQ(out[i], in[i] * 2 + 1) << "launch " << l << " thread " << i;
    const LaunchActivity& a = t.gpu->last();
    EXPECT_EQ(a.index, static_cast<uint64_t>(l));
    EXPECT_EQ(a.sm.ctas, ctas);
    EXPECT_EQ(a.sm.thread_instructions, r.thread_instructions);
    kinds += a.sampled_launches ? 'e' : 's';
    EXPECT_EQ(a.sampling, a.sampled_launches ? Sampling::Estimated : Sampling::None);
    if (a.sampled_launches) {
      EXPECT_EQ(a.simulated_cycles, 0u);
      EXPECT_EQ(a.simulated_ctas, 0u);
      EXPECT_EQ(a.unsimulated_warp_instructions, a.sm.warp_instructions);
      // The same work at the last simulated launch's IPC.
      EXPECT_NEAR(static_cast<double>(r.cycles), static_cast<double>(last_simulated),
                  0.01 * static_cast<double>(last_simulated));
    } else {
      last_simulated = r.cycles;
    }
    sum += r.cycles;
    EXPECT_EQ(t.gpu->total_cycles(), sum);
  }
  // Two simulated launches at least before the first estimate (the first
  // runs on cold caches, and may differ from the second).
  EXPECT_EQ(kinds.substr(0, 2), "ss") << kinds;
  EXPECT_GE(std::count(kinds.begin(), kinds.end(), 'e'), 4) << kinds;
}

}  // namespace
}  // namespace warpsim::timing
