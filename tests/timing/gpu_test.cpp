// timing::Gpu end to end on hand-written PTX: results, faults, hung kernels,
// %smid, clusters, consecutive launches.
#include <gtest/gtest.h>
#include <sys/resource.h>

#include <chrono>

#include "tests/plugin_test_util.h"

#include "tests/racing_sum_kernel.h"
#include "tests/timing/timing_test_util.h"

namespace warpsim::timing {
namespace {

using functional::LaunchError;
using functional::param_bytes;
using testing::small_gpu;
using testing::TimedDevice;

// out[i] = sum over j < i of in[j] within a CTA of 128 threads (shared
// memory, barriers), plus an atomic count of odd values, plus a divergent
// branch: what functional mode computes, timing mode must too.
constexpr const char* kScan = R"(
.visible .entry scan(.param .u64 in, .param .u64 out, .param .u64 count)
{
  .reg .pred %p<4>; .reg .b32 %r<12>; .reg .b64 %rd<10>;
  .shared .align 4 .b32 s[128];
  ld.param.u64 %rd1, [in]; ld.param.u64 %rd2, [out]; ld.param.u64 %rd3, [count];
  mov.u32 %r1, %tid.x; mov.u32 %r2, %ctaid.x;
  mad.lo.s32 %r3, %r2, 128, %r1;
  mul.wide.u32 %rd4, %r3, 4;
  add.s64 %rd5, %rd1, %rd4;
  ld.global.u32 %r4, [%rd5];
  mov.u32 %r10, s;
  shl.b32 %r5, %r1, 2;
  add.s32 %r6, %r10, %r5;
  st.shared.u32 [%r6], %r4;
  and.b32 %r7, %r4, 1;
  setp.eq.u32 %p1, %r7, 0;
  @%p1 bra EVEN;
  atom.global.add.u32 %r8, [%rd3], 1;
EVEN:
  bar.sync 0;
  mov.u32 %r8, 0; mov.u32 %r9, 0;
LOOP:
  setp.ge.u32 %p2, %r9, %r1;
  @%p2 bra DONE;
  shl.b32 %r5, %r9, 2;
  add.s32 %r6, %r10, %r5;
  ld.shared.u32 %r11, [%r6];
  add.s32 %r8, %r8, %r11;
  add.s32 %r9, %r9, 1;
  bra LOOP;
DONE:
  add.s64 %rd6, %rd2, %rd4;
  st.global.u32 [%rd6], %r8;
  ret;
}
)";

TEST(TimingGpu, ResultsMatchTheProgram) {
  TimedDevice t(small_gpu(), kScan);
  const uint32_t ctas = 12, n = ctas * 128;
  std::vector<uint32_t> in(n);
  for (uint32_t i = 0; i < n; ++i) in[i] = (i * 2654435761u) >> 24;
  const uint64_t din = t.alloc(n * 4), dout = t.alloc(n * 4), dcount = t.alloc(4);
  ASSERT_FALSE(t.device.memory().copy_from_host(din, in.data(), n * 4));
  ASSERT_FALSE(t.device.memory().memset(dcount, 0, 4));
  auto r = t.run("scan", {ctas}, {128}, {param_bytes(din), param_bytes(dout), param_bytes(dcount)});
  ASSERT_TRUE(r.ok()) << (r.fault ? r.fault->message : "");
  auto out = t.download<uint32_t>(dout, n);
  uint32_t odd = 0;
  for (uint32_t c = 0; c < ctas; ++c) {
    uint32_t sum = 0;
    for (uint32_t i = 0; i < 128; ++i) {
      ASSERT_EQ(out[c * 128 + i], sum) << c << " " << i;
      sum += in[c * 128 + i];
      odd += in[c * 128 + i] & 1;
    }
  }
  EXPECT_EQ(t.download<uint32_t>(dcount, 1)[0], odd);
  EXPECT_GT(r.cycles, 0u);
  EXPECT_EQ(t.gpu->last().sm.ctas, ctas);
  EXPECT_EQ(t.gpu->last().sm.thread_instructions, r.thread_instructions);
  EXPECT_GT(t.gpu->last().sm.shared_accesses, 0u);
  EXPECT_GT(t.gpu->last().sm.atomic_requests, 0u);
  // Every scheduler issue slot of every SM is accounted for once per cycle.
  uint64_t slots = 0;
  for (uint64_t s : t.gpu->last().sm.issue_slots) slots += s;
  EXPECT_EQ(slots, r.cycles * 4 * 2);
}

TEST(TimingGpu, ConsecutiveLaunchesContinueTheClock) {
  TimedDevice t(small_gpu(), kScan);
  const uint32_t n = 4 * 128;
  const uint64_t din = t.alloc(n * 4), dout = t.alloc(n * 4), dcount = t.alloc(4);
  ASSERT_FALSE(t.device.memory().memset(din, 0, n * 4));
  auto a = t.run("scan", {4}, {128}, {param_bytes(din), param_bytes(dout), param_bytes(dcount)});
  auto b = t.run("scan", {4}, {128}, {param_bytes(din), param_bytes(dout), param_bytes(dcount)});
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(t.gpu->total_cycles(), a.cycles + b.cycles);
  // The instruction cache stays warm across launches: the second is not slower.
  EXPECT_LE(b.cycles, a.cycles);
}

TEST(TimingGpu, BarrierDeadlockIsReported) {
  TimedDevice t(small_gpu(), R"(
.visible .entry k()
{
  .reg .pred %p<2>; .reg .b32 %r<2>;
  mov.u32 %r1, %tid.x;
  setp.lt.u32 %p1, %r1, 32;
  @%p1 bra WAIT;
  bar.sync 1;
WAIT:
  bar.sync 0;
  ret;
}
)");
  auto r = t.run("k", {1}, {64}, {});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error, LaunchError::LaunchFailure);
  EXPECT_NE(r.fault->message.find("can never complete"), std::string::npos) << r.fault->message;
}

TEST(TimingGpu, OutOfBoundsAccessIsReportedAndTheNextLaunchRuns) {
  TimedDevice t(small_gpu(), R"(
.visible .entry bad(.param .u64 p)
{
  .reg .b64 %rd<3>; .reg .b32 %r<2>;
  ld.param.u64 %rd1, [p];
  add.s64 %rd2, %rd1, 16777216;
  ld.global.u32 %r1, [%rd2];
  st.global.u32 [%rd1], %r1;
  ret;
}
.visible .entry good(.param .u64 p)
{
  .reg .b64 %rd<2>; .reg .b32 %r<2>;
  ld.param.u64 %rd1, [p];
  mov.u32 %r1, 7;
  st.global.u32 [%rd1], %r1;
  ret;
}
)");
  const uint64_t p = t.alloc(64);
  auto r = t.run("bad", {8}, {64}, {param_bytes(p)});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error, LaunchError::IllegalAddress);
  EXPECT_NE(r.fault->message.find("bad"), std::string::npos) << r.fault->message;
  // The GPU model is rebuilt after a fault: a later launch runs normally.
  StatsRegistry stats;
  publish(stats, t.gpu->last());
  auto g = t.run("good", {1}, {32}, {param_bytes(p)});
  ASSERT_TRUE(g.ok());
  EXPECT_EQ(t.download<uint32_t>(p, 1)[0], 7u);
  // Regression: per-SM and per-node figures are summed over the run like
  // their totals, across the rebuild (they were the rebuilt model's alone).
  publish(stats, t.gpu->last());
  uint64_t ctas = 0, flits = 0;
  for (const auto& [name, value] : stats.values()) {
    if (name.starts_with("timing.sm.") && name.ends_with(".ctas")) ctas += std::get<uint64_t>(value);
    if (name.starts_with("icnt.node.") && name.ends_with(".request.flits_injected"))
      flits += std::get<uint64_t>(value);
  }
  EXPECT_EQ(ctas, stats.counter("timing.ctas"));
  EXPECT_EQ(ctas, 8u + 1u);
  EXPECT_EQ(flits, stats.counter("icnt.request.flits_injected"));
  EXPECT_GT(flits, 0u);
}

constexpr const char* kSpin = R"(
.visible .entry spin(.param .u64 p)
{
  .reg .pred %p<2>; .reg .b64 %rd<2>; .reg .b32 %r<2>;
  ld.param.u64 %rd1, [p];
LOOP:
  ld.volatile.global.u32 %r1, [%rd1];
  setp.eq.u32 %p1, %r1, 0;
  @%p1 bra LOOP;
  ret;
}
)";

TEST(TimingGpu, MaxCyclesStopsAHungKernel) {
  SimConfig c = small_gpu();
  c.timing.gpu.max_cycles = 20000;
  TimedDevice t(c, kSpin);
  const uint64_t p = t.alloc(4);
  ASSERT_FALSE(t.device.memory().memset(p, 0, 4));
  auto r = t.run("spin", {1}, {32}, {param_bytes(p)});
  EXPECT_EQ(r.error, LaunchError::LaunchTimeout);
  EXPECT_EQ(r.cycles, 20000u);
}

TEST(TimingGpu, WatchdogStopsAHungKernel) {
  TimedDevice t(small_gpu(), kSpin);
  functional::ExecutorOptions o;
  o.watchdog = 5000;
  t.device.set_executor_options(o);
  const uint64_t p = t.alloc(4);
  ASSERT_FALSE(t.device.memory().memset(p, 0, 4));
  auto r = t.run("spin", {1}, {32}, {param_bytes(p)});
  EXPECT_EQ(r.error, LaunchError::LaunchTimeout);
  EXPECT_NE(r.fault->message.find("watchdog"), std::string::npos);
}

TEST(TimingGpu, SmidNamesTheSmOfTheCtaTrace) {
  SimConfig c = small_gpu();
  c.timing.gpu.cta_trace = true;
  TimedDevice t(c, R"(
.visible .entry who(.param .u64 p)
{
  .reg .b64 %rd<4>; .reg .b32 %r<3>;
  ld.param.u64 %rd1, [p];
  mov.u32 %r1, %ctaid.x; mov.u32 %r2, %smid;
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r2;
  ret;
}
)");
  const uint64_t p = t.alloc(4 * 40);
  auto r = t.run("who", {40}, {64}, {param_bytes(p)});
  ASSERT_TRUE(r.ok());
  auto sm = t.download<uint32_t>(p, 40);
  const auto& trace = t.gpu->last().cta_trace;
  ASSERT_EQ(trace.size(), 40u);
  for (const auto& [cta, s] : trace) EXPECT_EQ(sm[cta], s) << cta;
  // Two-level round-robin with one SM per cluster: CTAs 0..3 go to SMs 0..3.
  for (uint32_t i = 0; i < 4; ++i) EXPECT_EQ(sm[i], i);
}

// A bulk copy (cp.async.bulk with an mbarrier) completes the mbarrier's
// transactions when its data has arrived: the wait takes a trip to DRAM.
// The kernel runs twice so that the measured run finds its instructions in
// the (warm) instruction cache, and copies data no launch has read before.
TEST(TimingGpu, MbarrierWaitsForTheBulkCopy) {
  TimedDevice t(small_gpu(), R"(
.visible .entry bulk(.param .u64 in, .param .u64 out)
{
  .reg .pred %p<3>; .reg .b32 %r<12>; .reg .b64 %rd<8>;
  .shared .align 8 .b64 bar;
  .shared .align 128 .b32 s[16];
  ld.param.u64 %rd1, [in]; ld.param.u64 %rd2, [out];
  mbarrier.init.shared.b64 [bar], 1;
  mov.u32 %r1, %clock;
  mbarrier.arrive.expect_tx.shared.b64 %rd3, [bar], 64;
  mov.u32 %r2, s;
  mov.u32 %r3, bar;
  cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%r2], [%rd1], 64, [%r3];
WAIT:
  mbarrier.try_wait.shared.b64 %p2, [bar], %rd3;
  @!%p2 bra WAIT;
  mov.u32 %r4, %clock;
  ld.shared.u32 %r5, [s+60];
  sub.s32 %r6, %r4, %r1;
  st.global.v2.u32 [%rd2], {%r6, %r5};
  ret;
}
)");
  uint32_t cycles = 0;
  for (uint32_t run = 0; run < 2; ++run) {
    std::vector<uint32_t> data(16, 0);
    data[15] = 70 + run;
    const uint64_t src = t.alloc(64), out = t.alloc(8);
    ASSERT_FALSE(t.device.memory().copy_from_host(src, data.data(), 64));
    auto r = t.run("bulk", {1}, {1}, {param_bytes(src), param_bytes(out)});
    ASSERT_TRUE(r.ok()) << (r.fault ? r.fault->message : "");
    auto o = t.download<uint32_t>(out, 2);
    EXPECT_EQ(o[1], 70 + run);
    cycles = o[0];
  }
  EXPECT_GT(cycles, 100u) << "the mbarrier phase completed before the copy's data could have arrived";
}

// Thread-block clusters: every CTA of a cluster is placed at once, on the
// SMs of one GPC, spread over them; each reads its peer's shared variable
// through the cluster window after a cluster barrier, and times three loads
// (on its second launch, with warm instruction caches):
// the peer's shared memory (over the SM-to-SM network), its own through its
// cluster address, its own plainly.
constexpr const char* kClusterKernel = R"(
.visible .entry dsmem(.param .u64 p) .reqnctapercluster 2, 1, 1
{
  .reg .b32 %r<24>; .reg .b64 %rd<4>;
  .shared .align 4 .b32 v;
  ld.param.u64 %rd1, [p];
  mov.u32 %r1, %cluster_ctarank; mov.u32 %r2, %ctaid.x; mov.u32 %r3, %smid;
  mad.lo.u32 %r4, %r2, 100, 7;
  st.shared.u32 [v], %r4;
  barrier.cluster.arrive;
  barrier.cluster.wait;
  xor.b32 %r5, %r1, 1;
  mov.u32 %r6, v;
  mapa.shared::cluster.u32 %r7, %r6, %r5;
  mapa.shared::cluster.u32 %r8, %r6, %r1;
  mov.u32 %r10, %clock;
  ld.shared::cluster.u32 %r11, [%r7];
  add.u32 %r11, %r11, 0;
  mov.u32 %r12, %clock;
  ld.shared::cluster.u32 %r13, [%r8];
  add.u32 %r13, %r13, 0;
  mov.u32 %r14, %clock;
  ld.shared.u32 %r15, [v];
  add.u32 %r15, %r15, 0;
  mov.u32 %r16, %clock;
  barrier.cluster.arrive;
  barrier.cluster.wait;
  sub.u32 %r17, %r12, %r10; sub.u32 %r18, %r14, %r12; sub.u32 %r19, %r16, %r14;
  mul.wide.u32 %rd2, %r2, 24; add.s64 %rd3, %rd1, %rd2;
  st.global.v2.u32 [%rd3], {%r1, %r3};
  st.global.v2.u32 [%rd3+8], {%r11, %r13};
  st.global.v2.u32 [%rd3+16], {%r17, %r19};
  ret;
}
)";

TEST(TimingGpu, ClusterCtasAreCoScheduledOnOneGpcAndReachEachOthersSharedMemory) {
  SimConfig c = small_gpu();
  c.timing.gpu.sms_per_gpc = 2;
  c.timing.gpu.cta_trace = true;
  TimedDevice t(c, kClusterKernel);
  const uint32_t ctas = 8;
  const uint64_t p = t.alloc(24 * ctas);
  // The second launch finds its instructions in the instruction caches.
  for (int run = 0; run < 2; ++run) {
    auto r = t.run("dsmem", {ctas}, {1}, {param_bytes(p)});
    ASSERT_TRUE(r.ok()) << (r.fault ? r.fault->message : "");
  }
  EXPECT_FALSE(t.gpu->last().fallback());
  EXPECT_EQ(t.gpu->last().sm.shared_cluster_accesses, ctas);  // the peer loads; not the own-rank ones
  auto v = t.download<uint32_t>(p, 6 * ctas);
  for (uint32_t i = 0; i < ctas; ++i) {
    const uint32_t* o = &v[6 * i];
    const uint32_t peer = i ^ 1;
    EXPECT_EQ(o[0], i % 2) << "CTA " << i;             // %cluster_ctarank
    EXPECT_EQ(o[2], peer * 100 + 7) << "CTA " << i;    // the peer's variable
    EXPECT_EQ(o[3], i * 100 + 7) << "CTA " << i;       // its own, through the cluster window
    const uint32_t peer_sm = v[6 * peer + 1];
    EXPECT_EQ(o[1] / 2, peer_sm / 2) << "CTA " << i << ": the cluster spans two GPCs";
    EXPECT_NE(o[1], peer_sm) << "CTA " << i << ": the cluster's CTAs share an SM with room elsewhere";
    // The peer's shared memory costs the SM-to-SM trip; the own through
    // either address does not.
    EXPECT_GE(o[4], c.timing.shared.cluster_latency) << "CTA " << i;
    EXPECT_LT(o[5], c.timing.shared.latency + 20) << "CTA " << i;
  }
}

// A cluster larger than any GPC can hold at once cannot be co-scheduled:
// the launch runs functionally with an estimate of its cycles.
TEST(TimingGpu, ClustersNoGpcCanHoldRunFunctionally) {
  SimConfig c = small_gpu();
  c.timing.gpu.sms_per_gpc = 1;
  c.gpu.max_ctas_per_sm = 1;
  TimedDevice t(c, kClusterKernel);
  const uint64_t p = t.alloc(24 * 4);
  auto r = t.run("dsmem", {4}, {1}, {param_bytes(p)});
  ASSERT_TRUE(r.ok()) << (r.fault ? r.fault->message : "");
  EXPECT_TRUE(t.gpu->last().fallback());
  EXPECT_GT(r.cycles, 0u);
  auto v = t.download<uint32_t>(p, 24);
  for (uint32_t i = 0; i < 4; ++i) EXPECT_EQ(v[6 * i + 2], (i ^ 1) * 100 + 7);
}

}  // namespace
}  // namespace warpsim::timing

namespace warpsim::timing {
namespace {

// Every warp policy computes the right results, and skipping idle cycles
// changes no figure under any of them (two-level keeps ready warps outside
// its active pool, which the skip must not jump over). Regression: with an
// active pool of one warp, a warp waiting at bar.sync kept its place and
// the others never arrived.
class EveryWarpPolicy : public ::testing::TestWithParam<std::string_view> {};

TEST_P(EveryWarpPolicy, AgreesWithAndWithoutSkipping) {
  const std::string policy(GetParam());
  uint64_t cycles[2] = {};
  uint64_t issued[2] = {};
  for (int skip = 0; skip < 2; ++skip) {
    SimConfig c = small_gpu();
    c.timing.sm.warp_policy = policy;
    c.timing.sm.two_level_active = 1;
    c.timing.gpu.skip_idle_cycles = skip == 1;
    TimedDevice t(c, kScan);
    const uint32_t n = 6 * 128;
    std::vector<uint32_t> in(n, 3);
    const uint64_t din = t.alloc(n * 4), dout = t.alloc(n * 4), dcount = t.alloc(4);
    ASSERT_FALSE(t.device.memory().copy_from_host(din, in.data(), n * 4));
    ASSERT_FALSE(t.device.memory().memset(dcount, 0, 4));
    auto r = t.run("scan", {6}, {128}, {param_bytes(din), param_bytes(dout), param_bytes(dcount)});
    ASSERT_TRUE(r.ok()) << (r.fault ? r.fault->message : "");
    auto out = t.download<uint32_t>(dout, n);
    EXPECT_EQ(out[127], 3u * 127);
    EXPECT_EQ(t.download<uint32_t>(dcount, 1)[0], n);
    cycles[skip] = r.cycles;
    issued[skip] = t.gpu->last().sm.issue_slots[static_cast<int>(IssueSlot::Issued)];
  }
  EXPECT_EQ(cycles[0], cycles[1]);
  EXPECT_EQ(issued[0], issued[1]);
}

INSTANTIATE_TEST_SUITE_P(Registered, EveryWarpPolicy, ::testing::ValuesIn(warp_policies().names()),
                         warpsim::plugin_test_name<std::string_view>);

}  // namespace
}  // namespace warpsim::timing

namespace warpsim::timing {
namespace {

// Every CTA policy places all CTAs, and skipping idle cycles changes nothing
// (a delayed launch or an exhausted pool leaves free slots unused: those
// cycles may be skipped only because the policy's answer cannot change
// until an SM frees a slot).
class EveryCtaPolicy : public ::testing::TestWithParam<std::string_view> {};

TEST_P(EveryCtaPolicy, AgreesWithAndWithoutSkipping) {
  const std::string policy(GetParam());
  uint64_t cycles[2] = {};
  for (int skip = 0; skip < 2; ++skip) {
    SimConfig c = small_gpu();
    c.timing.gpu.sms_per_cluster = 2;
    c.timing.gpu.cta_policy = policy;
    c.timing.gpu.skip_idle_cycles = skip == 1;
    c.gpu.max_ctas_per_sm = 2;
    TimedDevice t(c, kScan);
    const uint32_t ctas = 11, n = ctas * 128;
    std::vector<uint32_t> in(n, 1);
    const uint64_t din = t.alloc(n * 4), dout = t.alloc(n * 4), dcount = t.alloc(4);
    ASSERT_FALSE(t.device.memory().copy_from_host(din, in.data(), n * 4));
    ASSERT_FALSE(t.device.memory().memset(dcount, 0, 4));
    auto r = t.run("scan", {ctas}, {128}, {param_bytes(din), param_bytes(dout), param_bytes(dcount)});
    ASSERT_TRUE(r.ok()) << (r.fault ? r.fault->message : "");
    EXPECT_EQ(t.download<uint32_t>(dcount, 1)[0], n);
    EXPECT_EQ(t.gpu->last().sm.ctas, ctas);
    cycles[skip] = r.cycles;
  }
  EXPECT_EQ(cycles[0], cycles[1]);
}

INSTANTIATE_TEST_SUITE_P(Registered, EveryCtaPolicy, ::testing::ValuesIn(cta_policies().names()),
                         warpsim::plugin_test_name<std::string_view>);

TEST(TimingGpu, HugeCachesRunASmallKernelWithLittleMemory) {
  // 1 GiB L1D per SM and 1 GiB per L2 slice, the top of their documented
  // range, through the configuration path of `warpsim run --set`.
  DiagnosticEngine diags;
  auto config = load_sim_config("", {"timing.l1d.size=1GiB", "timing.l2.size=1GiB"}, {}, diags);
  ASSERT_TRUE(config) << diags.format_all();
  const auto start = std::chrono::steady_clock::now();
  TimedDevice t(*config, kScan);
  const uint32_t ctas = 4, n = ctas * 128;
  const uint64_t din = t.alloc(n * 4), dout = t.alloc(n * 4), dcount = t.alloc(4);
  ASSERT_FALSE(t.device.memory().memset(din, 0, n * 4));
  ASSERT_FALSE(t.device.memory().memset(dcount, 0, 4));
  auto r = t.run("scan", {ctas}, {128}, {param_bytes(din), param_bytes(dout), param_bytes(dcount)});
  ASSERT_TRUE(r.ok()) << (r.fault ? r.fault->message : "");
  EXPECT_EQ(t.download<uint32_t>(dout, 1)[0], 0u);
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 10.0);
  // Each test runs in a process of its own (gtest_discover_tests): the peak
  // resident size is this test's.
  rusage usage{};
  ASSERT_EQ(getrusage(RUSAGE_SELF, &usage), 0);
  EXPECT_LT(usage.ru_maxrss, 1024L * 1024);  // KiB: under 1 GiB
}

}  // namespace
}  // namespace warpsim::timing

namespace warpsim::timing {
namespace {

// One thread copies 16 bytes from global to shared memory with cp.async,
// commits the group and waits with wait_group WAIT; out[0] = the cycles from
// before the copy to after the wait, out[1] = the first word copied.
std::string cp_async_kernel(int wait) {
  return R"(
.shared .align 16 .b8 buf[16];
.visible .entry cpwait(.param .u64 src, .param .u64 out)
{
  .reg .b32 %r<8>; .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [src]; ld.param.u64 %rd2, [out];
  mov.u32 %r2, %clock;
  cp.async.ca.shared.global [buf], [%rd1], 16;
  cp.async.commit_group;
  cp.async.wait_group )" + std::to_string(wait) + R"(;
  mov.u32 %r3, %clock;
  ld.shared.u32 %r4, [buf];
  sub.s32 %r5, %r3, %r2;
  st.global.u32 [%rd2], %r5;
  st.global.u32 [%rd2+4], %r4;
  ret;
}
)";
}

// cp.async.wait_group N holds the warp until at most the N most recent
// committed groups have copies in flight: waiting for the only group takes a
// trip to DRAM, allowing one group in flight does not wait at all. Each
// kernel runs twice, so that the measured run finds its instructions in the
// (warm) instruction cache, and copies data no launch has read before.
TEST(TimingGpu, CpAsyncWaitGroupWaitsForTheCopies) {
  uint32_t cycles[2] = {};
  for (int wait : {0, 1}) {
    TimedDevice t(small_gpu(), cp_async_kernel(wait));
    for (int run = 0; run < 2; ++run) {
      const uint64_t src = t.alloc(16), out = t.alloc(8);
      const uint32_t data[4] = {42u + run, 43, 44, 45};
      ASSERT_FALSE(t.device.memory().copy_from_host(src, data, sizeof data));
      auto r = t.run("cpwait", {1}, {1}, {param_bytes(src), param_bytes(out)});
      ASSERT_TRUE(r.ok()) << (r.fault ? r.fault->message : "");
      auto o = t.download<uint32_t>(out, 2);
      EXPECT_EQ(o[1], 42u + run);  // functionally the copy is done either way
      cycles[wait] = o[0];
    }
  }
  EXPECT_GT(cycles[0], 100u) << "wait_group 0 did not wait for the copy";
  EXPECT_LT(cycles[1], 40u) << "wait_group 1 waited although one group may stay in flight";
}

}  // namespace
}  // namespace warpsim::timing

namespace warpsim::timing {
namespace {

// The racing sum (tests/racing_sum_kernel.h) in timing mode: the warps
// interleave cycle by cycle and most updates are lost, as on a GPU - x ends
// near one warp's sum (functional mode gives exactly that), far from the
// eight warps' sums that warps running one after another would add up.
TEST(TimingGpu, RacingWarpsLoseUpdatesAsOnAGpu) {
  TimedDevice t(small_gpu(), kRacingSumPtx);
  const uint32_t n = 200;
  std::vector<uint32_t> a(n);
  for (uint32_t i = 0; i < n; ++i) a[i] = i + 1;
  const uint64_t dx = t.alloc(32 * 4), da = t.alloc(n * 4);
  ASSERT_FALSE(t.device.memory().copy_from_host(da, a.data(), n * 4));
  auto r = t.run("racing_sum", {1}, {256}, {param_bytes(dx), param_bytes(da), param_bytes(n)});
  ASSERT_TRUE(r.ok()) << (r.fault ? r.fault->message : "");
  const auto x = t.download<uint32_t>(dx, 32);
  const uint32_t one_warp = n * (n + 1) / 2;
  for (uint32_t i = 0; i < 32; ++i) {
    EXPECT_GE(x[i], one_warp) << "lane " << i;
    EXPECT_LT(x[i], 2 * one_warp) << "lane " << i;
  }
}

}  // namespace
}  // namespace warpsim::timing
