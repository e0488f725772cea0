// Asynchronous copies, mbarriers and thread-block clusters.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <vector>

#include "functional/device.h"
#include "tests/functional/exec_test_util.h"

namespace warpsim::functional {
namespace {

using namespace testing;  // load, upload, run, download, run_lanes

constexpr const char* kSm90 = ".version 8.5\n.target sm_90\n.address_size 64\n";

std::unique_ptr<testing::Loaded> load90(const std::string& body) {
  return load(std::string(kSm90) + body, /*with_header=*/false);
}

// Thread t copies 16 bytes of in[4t..4t+3] into shared memory with cp.async:
// src-size 16 for even t, 8 for odd t (the last 8 bytes are zero-filled),
// then writes its shared words back to out.
TEST(Async, CpAsyncCopiesAndZeroFillsPastSrcSize) {
  auto l = load90(R"(
.visible .entry k(.param .u64 in, .param .u64 out)
{
  .reg .pred %p<2>; .reg .b32 %r<12>; .reg .b64 %rd<8>;
  .shared .align 16 .b8 s[1024];
  ld.param.u64 %rd1, [in]; ld.param.u64 %rd2, [out];
  mov.u32 %r1, %tid.x;
  shl.b32 %r2, %r1, 4;
  mov.u32 %r3, s;
  add.s32 %r4, %r3, %r2;
  mul.wide.u32 %rd3, %r1, 16;
  add.s64 %rd4, %rd1, %rd3;
  and.b32 %r5, %r1, 1;
  setp.eq.s32 %p1, %r5, 0;
  selp.b32 %r6, 16, 8, %p1;
  cp.async.cg.shared.global [%r4], [%rd4], 16, %r6;
  cp.async.commit_group;
  cp.async.wait_group 0;
  bar.sync 0;
  ld.shared.v4.u32 {%r7, %r8, %r9, %r10}, [%r4];
  add.s64 %rd5, %rd2, %rd3;
  st.global.v4.u32 [%rd5], {%r7, %r8, %r9, %r10};
  ret;
}
)");
  std::vector<uint32_t> in(4 * 64);
  std::iota(in.begin(), in.end(), 1000u);
  uint64_t din = upload(l->device, in), dout = upload(l->device, std::vector<uint32_t>(4 * 64, 7));
  LaunchResult r = run(*l, "k", {1}, {64}, {param_bytes(din), param_bytes(dout)});
  ASSERT_TRUE(r.ok()) << r.fault->message;
  auto out = download(l->device, dout, 4 * 64);
  for (uint32_t t = 0; t < 64; ++t)
    for (uint32_t k = 0; k < 4; ++k)
      EXPECT_EQ(out[4 * t + k], (t % 2 == 1 && k >= 2) ? 0u : in[4 * t + k]) << t << "," << k;
}

// Two phases of a block-wide mbarrier, as cuda::barrier::arrive_and_wait
// compiles: arrive returns a state token, try_wait loops on it; the second
// phase waits by parity. Each phase publishes data the other threads read.
TEST(Async, MbarrierPhasesOrderTheBlock) {
  auto l = load90(R"(
.visible .entry k(.param .u64 out)
{
  .reg .pred %p<4>; .reg .b32 %r<16>; .reg .b64 %rd<8>;
  .shared .align 8 .b64 bar;
  .shared .align 4 .b32 s[128];
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %ntid.x;
  setp.eq.s32 %p1, %r1, 0;
  @%p1 mbarrier.init.shared.b64 [bar], %r2;
  bar.sync 0;
  shl.b32 %r3, %r1, 2;
  mov.u32 %r4, s;
  add.s32 %r5, %r4, %r3;
  mul.lo.s32 %r6, %r1, 3;
  st.shared.u32 [%r5], %r6;
  mbarrier.arrive.shared.b64 %rd2, [bar];
WAIT1:
  mbarrier.try_wait.shared.b64 %p2, [bar], %rd2;
  @!%p2 bra WAIT1;
  add.s32 %r7, %r1, 1;
  rem.u32 %r7, %r7, %r2;
  shl.b32 %r8, %r7, 2;
  add.s32 %r9, %r4, %r8;
  ld.shared.u32 %r10, [%r9];
  mbarrier.arrive.shared.b64 %rd3, [bar];
WAIT2:
  mbarrier.test_wait.parity.shared.b64 %p3, [bar], 1;
  @!%p3 bra WAIT2;
  st.shared.u32 [%r5], %r10;
  mbarrier.pending_count.b64 %r11, %rd3;
  mul.wide.u32 %rd4, %r1, 8;
  add.s64 %rd5, %rd1, %rd4;
  st.global.v2.u32 [%rd5], {%r10, %r11};
  ret;
}
)");
  uint64_t out = upload(l->device, std::vector<uint32_t>(2 * 128));
  ExecutorOptions opt;
  opt.watchdog = 1'000'000;
  l->device.set_executor_options(opt);
  LaunchResult r = run(*l, "k", {2}, {128}, {param_bytes(out)});
  ASSERT_TRUE(r.ok()) << r.fault->message;
  auto v = download(l->device, out, 2 * 128);
  std::vector<uint32_t> pending;
  for (uint32_t t = 0; t < 128; ++t) {
    EXPECT_EQ(v[2 * t], (t + 1) % 128 * 3) << t;
    pending.push_back(v[2 * t + 1]);
  }
  // Each second-phase token was taken just before its thread arrived: the
  // pending counts seen are 128, 127, ..., 1 in some order.
  std::sort(pending.begin(), pending.end());
  for (uint32_t i = 0; i < 128; ++i) EXPECT_EQ(pending[i], i + 1);
  // The waits yielded instead of spinning through whole quanta.
  EXPECT_LT(r.warp_instructions, 2u * 4 * 200);
}

// Clusters of 2 CTAs: each CTA fills its shared array, cluster-syncs, then
// reads its peer's array through a generic mapa address and a shared::cluster
// one, and reports the cluster special registers.
const char* kCluster = R"(
.visible .entry k(.param .u64 out)
.explicitcluster
.reqnctapercluster 2, 1, 1
{
  .reg .b32 %r<24>; .reg .b64 %rd<12>;
  .shared .align 4 .b32 s[32];
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %ctaid.x; mov.u32 %r2, %tid.x;
  mad.lo.s32 %r3, %r1, 1000, %r2;
  shl.b32 %r4, %r2, 2;
  mov.u32 %r5, s;
  add.s32 %r6, %r5, %r4;
  st.shared.u32 [%r6], %r3;
  barrier.cluster.arrive;
  barrier.cluster.wait;
  mov.u32 %r7, %cluster_ctarank;
  xor.b32 %r8, %r7, 1;
  mov.u64 %rd2, s;
  cvta.shared.u64 %rd3, %rd2;
  mapa.u64 %rd4, %rd3, %r8;
  mul.wide.u32 %rd5, %r2, 4;
  add.s64 %rd6, %rd4, %rd5;
  ld.u32 %r9, [%rd6];
  mapa.shared::cluster.u32 %r10, %r6, %r8;
  ld.shared::cluster.u32 %r11, [%r10];
  getctarank.shared::cluster.u32 %r12, %r10;
  mov.u32 %r13, %cluster_nctarank;
  mov.u32 %r14, %clusterid.x;
  mov.u32 %r15, %nclusterid.x;
  mov.u32 %r16, %cluster_ctaid.x;
  mov.u32 %r17, %cluster_nctaid.x;
  mad.lo.s32 %r18, %r1, 32, %r2;
  mul.wide.u32 %rd7, %r18, 32;
  add.s64 %rd8, %rd1, %rd7;
  st.global.v4.u32 [%rd8], {%r9, %r11, %r12, %r13};
  st.global.v4.u32 [%rd8+16], {%r14, %r15, %r16, %r17};
  barrier.cluster.arrive;
  barrier.cluster.wait;
  ret;
}
)";

std::vector<uint32_t> run_cluster(uint32_t threads, LaunchResult* result) {
  auto l = load90(kCluster);
  ExecutorOptions opt;
  opt.threads = threads;
  opt.watchdog = 1'000'000;
  l->device.set_executor_options(opt);
  const uint32_t ctas = 6;
  uint64_t out = upload(l->device, std::vector<uint32_t>(8 * 32 * ctas));
  *result = run(*l, "k", {ctas}, {32}, {param_bytes(out)});
  return download(l->device, out, 8 * 32 * ctas);
}

TEST(Async, ClusterCtasShareMemoryAndBarriers) {
  LaunchResult r;
  auto v = run_cluster(1, &r);
  ASSERT_TRUE(r.ok()) << r.fault->message;
  for (uint32_t c = 0; c < 6; ++c)
    for (uint32_t t = 0; t < 32; ++t) {
      const uint32_t* e = &v[(c * 32 + t) * 8];
      const uint32_t peer = c ^ 1;
      EXPECT_EQ(e[0], peer * 1000 + t) << c << "," << t;  // generic mapa
      EXPECT_EQ(e[1], peer * 1000 + t);                    // shared::cluster mapa
      EXPECT_EQ(e[2], (c % 2) ^ 1);                        // getctarank of the peer address
      EXPECT_EQ(e[3], 2u);                                 // %cluster_nctarank
      EXPECT_EQ(e[4], c / 2);                              // %clusterid.x
      EXPECT_EQ(e[5], 3u);                                 // %nclusterid.x
      EXPECT_EQ(e[6], c % 2);                              // %cluster_ctaid.x
      EXPECT_EQ(e[7], 2u);                                 // %cluster_nctaid.x
    }
  LaunchResult rp;
  EXPECT_EQ(run_cluster(3, &rp), v);
  EXPECT_EQ(rp.warp_instructions, r.warp_instructions);
}

TEST(Async, GridNotAMultipleOfTheClusterIsAnInvalidConfiguration) {
  auto l = load90(kCluster);
  uint64_t out = upload(l->device, std::vector<uint32_t>(8 * 32 * 3));
  LaunchResult r = run(*l, "k", {3}, {32}, {param_bytes(out)});
  EXPECT_EQ(r.error, LaunchError::InvalidConfiguration);
}

// A TMA-style bulk copy: one thread sets the expected transaction bytes and
// issues cp.async.bulk, whose completion finishes the mbarrier phase.
TEST(Async, BulkCopyCompletesTheMbarrierTransaction) {
  auto l = load90(R"(
.visible .entry k(.param .u64 in, .param .u64 out)
{
  .reg .pred %p<3>; .reg .b32 %r<12>; .reg .b64 %rd<8>;
  .shared .align 8 .b64 bar;
  .shared .align 128 .b32 s[64];
  ld.param.u64 %rd1, [in]; ld.param.u64 %rd2, [out];
  mov.u32 %r1, %tid.x;
  setp.eq.s32 %p1, %r1, 0;
  @%p1 mbarrier.init.shared.b64 [bar], 64;
  bar.sync 0;
  @!%p1 bra ARRIVE;
  mbarrier.arrive.expect_tx.shared.b64 %rd3, [bar], 256;
  mov.u32 %r2, s;
  mov.u32 %r3, bar;
  cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%r2], [%rd1], 256, [%r3];
  bra WAIT;
ARRIVE:
  mbarrier.arrive.shared.b64 %rd3, [bar];
WAIT:
  mbarrier.try_wait.shared.b64 %p2, [bar], %rd3;
  @!%p2 bra WAIT;
  shl.b32 %r4, %r1, 2;
  mov.u32 %r5, s;
  add.s32 %r6, %r5, %r4;
  ld.shared.u32 %r7, [%r6];
  add.s32 %r7, %r7, 5;
  mul.wide.u32 %rd4, %r1, 4;
  add.s64 %rd5, %rd2, %rd4;
  st.global.u32 [%rd5], %r7;
  ret;
}
)");
  std::vector<uint32_t> in(64);
  std::iota(in.begin(), in.end(), 40u);
  uint64_t din = upload(l->device, in), dout = upload(l->device, std::vector<uint32_t>(64));
  ExecutorOptions opt;
  opt.watchdog = 1'000'000;
  l->device.set_executor_options(opt);
  LaunchResult r = run(*l, "k", {1}, {64}, {param_bytes(din), param_bytes(dout)});
  ASSERT_TRUE(r.ok()) << r.fault->message;
  auto out = download(l->device, dout, 64);
  for (uint32_t t = 0; t < 64; ++t) EXPECT_EQ(out[t], 45 + t);
}

}  // namespace
}  // namespace warpsim::functional
