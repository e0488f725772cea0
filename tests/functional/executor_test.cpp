// End-to-end functional execution of hand-written PTX: launches through the
// embedding API, results checked against host computations.
#include <gtest/gtest.h>

#include <cstring>
#include <numeric>
#include <vector>

#include "functional/device.h"
#include "tests/functional/exec_test_util.h"
#include "tests/racing_sum_kernel.h"

namespace warpsim::functional {
namespace {

using namespace testing;  // load, upload, run, download, run_lanes

const char* kVecAdd = R"(
.visible .entry vadd(.param .u64 a, .param .u64 b, .param .u64 c, .param .u32 n)
{
  .reg .pred %p<2>; .reg .b32 %r<8>; .reg .b64 %rd<10>;
  ld.param.u64 %rd1, [a]; ld.param.u64 %rd2, [b]; ld.param.u64 %rd3, [c]; ld.param.u32 %r1, [n];
  mov.u32 %r2, %ctaid.x; mov.u32 %r3, %ntid.x; mov.u32 %r4, %tid.x;
  mad.lo.s32 %r5, %r2, %r3, %r4;
  setp.ge.s32 %p1, %r5, %r1;
  @%p1 bra DONE;
  cvta.to.global.u64 %rd4, %rd1;
  mul.wide.s32 %rd5, %r5, 4;
  add.s64 %rd6, %rd4, %rd5;
  ld.global.u32 %r6, [%rd6];
  cvta.to.global.u64 %rd7, %rd2;
  add.s64 %rd8, %rd7, %rd5;
  ld.global.u32 %r7, [%rd8];
  add.s32 %r6, %r6, %r7;
  cvta.to.global.u64 %rd9, %rd3;
  add.s64 %rd9, %rd9, %rd5;
  st.global.u32 [%rd9], %r6;
DONE:
  ret;
}
)";

TEST(Executor, FaultReportText) {
  auto l = load(kVecAdd, true, strict_memory());
  uint64_t buf = upload(l->device, std::vector<uint32_t>(4));
  auto r = run(*l, "vadd", {1}, {32}, {param_bytes(buf), param_bytes(buf), param_bytes(buf), param_bytes(uint32_t{32})});
  ASSERT_TRUE(r.fault);
  EXPECT_EQ(r.fault->message,
            "warpsim: kernel 'vadd' stopped: out-of-bounds read of 4 bytes at 0x7f0000000010: 0 "
            "bytes past the end of allocation 'buf' [0x7f0000000000, +16) (device)\n"
            "  block (0, 0, 0), thread (4, 0, 0), in function 'vadd'\n"
            "  at test.ptx:16: ld.global.u32 %r6, [%rd6]\n"
            "  the launch fails with cudaErrorIllegalAddress\n");
}

TEST(Executor, VectorAdd) {
  auto l = load(kVecAdd);
  const uint32_t n = 1000;
  std::vector<uint32_t> a(n), b(n);
  std::iota(a.begin(), a.end(), 0u);
  for (uint32_t i = 0; i < n; ++i) b[i] = 3 * i + 7;
  uint64_t da = upload(l->device, a), db = upload(l->device, b), dc = upload(l->device, std::vector<uint32_t>(n));
  auto r = run(*l, "vadd", {4}, {256}, {param_bytes(da), param_bytes(db), param_bytes(dc), param_bytes(n)});
  ASSERT_TRUE(r.ok()) << (r.fault ? r.fault->message : "");
  auto c = download(l->device, dc, n);
  for (uint32_t i = 0; i < n; ++i) ASSERT_EQ(c[i], a[i] + b[i]) << i;
  EXPECT_EQ(r.ctas, 4u);
  EXPECT_GT(r.thread_instructions, 1000u * 15);
}

TEST(Executor, OutOfBoundsReportsAndContinues) {
  auto l = load(kVecAdd, true, strict_memory());
  const uint32_t n = 64;
  uint64_t da = upload(l->device, std::vector<uint32_t>(n)), db = upload(l->device, std::vector<uint32_t>(n));
  uint64_t dc = upload(l->device, std::vector<uint32_t>(n));
  // n larger than the buffers: thread 64 reads past the end of `a`.
  auto r = run(*l, "vadd", {1}, {128}, {param_bytes(da), param_bytes(db), param_bytes(dc), param_bytes(uint32_t{100})});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error, LaunchError::IllegalAddress);
  ASSERT_TRUE(r.fault);
  EXPECT_EQ(r.fault->thread.x, 64u);
  EXPECT_NE(r.fault->message.find("out-of-bounds read of 4 bytes"), std::string::npos) << r.fault->message;
  EXPECT_NE(r.fault->message.find("ld.global.u32"), std::string::npos) << r.fault->message;
  EXPECT_NE(r.fault->message.find("test.ptx:"), std::string::npos) << r.fault->message;
  EXPECT_NE(r.fault->message.find("cudaErrorIllegalAddress"), std::string::npos) << r.fault->message;
  EXPECT_NE(r.fault->message.find("block (0, 0, 0), thread (64, 0, 0)"), std::string::npos)
      << r.fault->message;
  // The device is still usable afterwards.
  auto ok = run(*l, "vadd", {1}, {64}, {param_bytes(da), param_bytes(db), param_bytes(dc), param_bytes(n)});
  EXPECT_TRUE(ok.ok());
}

// The default memory check is a GPU's: the same overrun stays inside the
// buffers' mapped 2 MiB granules, so it reads zeros, its stores are dropped
// and the launch succeeds; a stride that leaves the granules still faults.
TEST(Executor, GpuMemoryCheckLetsSlackAccessesThrough) {
  auto l = load(kVecAdd);
  const uint32_t n = 64;
  std::vector<uint32_t> a(n), b(n);
  std::iota(a.begin(), a.end(), 1u);
  std::iota(b.begin(), b.end(), 100u);
  uint64_t da = upload(l->device, a), db = upload(l->device, b);
  uint64_t dc = upload(l->device, std::vector<uint32_t>(n));
  auto r = run(*l, "vadd", {1}, {128}, {param_bytes(da), param_bytes(db), param_bytes(dc), param_bytes(uint32_t{100})});
  ASSERT_TRUE(r.ok()) << (r.fault ? r.fault->message : "");
  auto c = download(l->device, dc, n);
  for (uint32_t i = 0; i < n; ++i) ASSERT_EQ(c[i], a[i] + b[i]) << i;
  // `a` 256 bytes below the end of the last granule: thread 64 leaves it.
  const uint64_t tail = dc + (2 << 20) - 256;
  auto far = run(*l, "vadd", {1}, {128}, {param_bytes(tail), param_bytes(db), param_bytes(dc), param_bytes(uint32_t{100})});
  ASSERT_FALSE(far.ok());
  EXPECT_EQ(far.error, LaunchError::IllegalAddress);
  ASSERT_TRUE(far.fault);
  EXPECT_EQ(far.fault->fault.kind, FaultKind::OutOfBounds);
  EXPECT_EQ(far.fault->thread.x, 64u);
}

// Nested divergence in a loop with break/continue: each thread sums the odd
// numbers below its tid, stopping at 20.
TEST(Executor, DivergentLoopWithBreakAndContinue) {
  auto l = load(R"(
.visible .entry k(.param .u64 out)
{
  .reg .pred %p<4>; .reg .b32 %r<8>; .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, 0;      // i
  mov.u32 %r3, 0;      // sum
LOOP:
  setp.ge.u32 %p1, %r2, %r1;
  @%p1 bra END;
  setp.ge.u32 %p2, %r2, 20;
  @%p2 bra END;        // break
  and.b32 %r4, %r2, 1;
  add.u32 %r2, %r2, 1;
  setp.eq.u32 %p3, %r4, 0;
  @%p3 bra LOOP;       // continue
  add.u32 %r3, %r3, %r2;
  sub.u32 %r3, %r3, 1;
  bra LOOP;
END:
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r3;
  ret;
}
)");
  uint64_t out = upload(l->device, std::vector<uint32_t>(64));
  auto r = run(*l, "k", {1}, {64}, {param_bytes(out)});
  ASSERT_TRUE(r.ok()) << (r.fault ? r.fault->message : "");
  auto v = download(l->device, out, 64);
  for (uint32_t t = 0; t < 64; ++t) {
    uint32_t sum = 0;
    for (uint32_t i = 0; i < t && i < 20; ++i)
      if (i & 1) sum += i;
    EXPECT_EQ(v[t], sum) << t;
  }
}

// Tree reduction in shared memory with bar.sync, 3 CTAs of 128 threads.
TEST(Executor, SharedMemoryReductionWithBarriers) {
  auto l = load(R"(
.visible .entry reduce(.param .u64 in, .param .u64 out)
{
  .reg .pred %p<3>; .reg .b32 %r<12>; .reg .b64 %rd<8>;
  .shared .align 4 .b8 buf[512];
  ld.param.u64 %rd1, [in]; ld.param.u64 %rd2, [out];
  mov.u32 %r1, %tid.x; mov.u32 %r2, %ctaid.x; mov.u32 %r3, %ntid.x;
  mad.lo.s32 %r4, %r2, %r3, %r1;
  mul.wide.u32 %rd3, %r4, 4;
  add.s64 %rd4, %rd1, %rd3;
  ld.global.u32 %r5, [%rd4];
  shl.b32 %r6, %r1, 2;
  mov.u32 %r7, buf;
  add.u32 %r8, %r7, %r6;
  st.shared.u32 [%r8], %r5;
  bar.sync 0;
  shr.u32 %r9, %r3, 1;
STEP:
  setp.eq.u32 %p1, %r9, 0;
  @%p1 bra WRITE;
  setp.ge.u32 %p2, %r1, %r9;
  @%p2 bra SKIP;
  shl.b32 %r10, %r9, 2;
  add.u32 %r10, %r8, %r10;
  ld.shared.u32 %r11, [%r10];
  ld.shared.u32 %r5, [%r8];
  add.u32 %r5, %r5, %r11;
  st.shared.u32 [%r8], %r5;
SKIP:
  bar.sync 0;
  shr.u32 %r9, %r9, 1;
  bra STEP;
WRITE:
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra DONE;
  ld.shared.u32 %r5, [buf];
  mul.wide.u32 %rd5, %r2, 4;
  add.s64 %rd6, %rd2, %rd5;
  st.global.u32 [%rd6], %r5;
DONE:
  ret;
}
)");
  std::vector<uint32_t> in(384);
  for (uint32_t i = 0; i < in.size(); ++i) in[i] = i * 7 % 13;
  uint64_t din = upload(l->device, in), dout = upload(l->device, std::vector<uint32_t>(3));
  auto r = run(*l, "reduce", {3}, {128}, {param_bytes(din), param_bytes(dout)});
  ASSERT_TRUE(r.ok()) << (r.fault ? r.fault->message : "");
  auto v = download(l->device, dout, 3);
  for (uint32_t b = 0; b < 3; ++b)
    EXPECT_EQ(v[b], std::accumulate(in.begin() + b * 128, in.begin() + (b + 1) * 128, 0u));
}

// Recursion through a device function with the .param calling convention.
TEST(Executor, RecursiveDeviceFunction) {
  auto l = load(R"(
.func (.param .b32 ret) fib(.param .b32 n)
{
  .reg .pred %p<2>; .reg .b32 %r<8>;
  ld.param.b32 %r1, [n];
  setp.lt.u32 %p1, %r1, 2;
  @%p1 bra BASE;
  sub.u32 %r2, %r1, 1;
  { .param .b32 a0; .param .b32 r0;
    st.param.b32 [a0], %r2;
    call.uni (r0), fib, (a0);
    ld.param.b32 %r3, [r0]; }
  sub.u32 %r2, %r1, 2;
  { .param .b32 a0; .param .b32 r0;
    st.param.b32 [a0], %r2;
    call.uni (r0), fib, (a0);
    ld.param.b32 %r4, [r0]; }
  add.u32 %r1, %r3, %r4;
BASE:
  st.param.b32 [ret], %r1;
  ret;
}
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<4>; .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  { .param .b32 a0; .param .b32 r0;
    st.param.b32 [a0], %r1;
    call.uni (r0), fib, (a0);
    ld.param.b32 %r2, [r0]; }
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r2;
  ret;
}
)");
  uint64_t out = upload(l->device, std::vector<uint32_t>(16));
  auto r = run(*l, "k", {1}, {16}, {param_bytes(out)});
  ASSERT_TRUE(r.ok()) << (r.fault ? r.fault->message : "");
  auto v = download(l->device, out, 16);
  uint32_t f[16] = {0, 1};
  for (int i = 2; i < 16; ++i) f[i] = f[i - 1] + f[i - 2];
  for (uint32_t t = 0; t < 16; ++t) EXPECT_EQ(v[t], f[t]) << t;
}

TEST(Executor, BarrierDeadlockIsReported) {
  auto l = load(R"(
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
  auto r = run(*l, "k", {1}, {64}, {});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error, LaunchError::LaunchFailure);
  EXPECT_NE(r.fault->message.find("can never complete"), std::string::npos) << r.fault->message;
}

TEST(Executor, TrapStopsTheLaunch) {
  auto l = load(".visible .entry k()\n{\n  trap;\n}\n");
  auto r = run(*l, "k", {2}, {32}, {});
  EXPECT_EQ(r.error, LaunchError::LaunchFailure);
  EXPECT_NE(r.fault->message.find("trap executed"), std::string::npos);
}

// Corpus regression (structs.cu, clang and nvcc): a by-value struct kernel
// parameter indexed through a register holding its address (`mov.b64 %rd,
// param`) is read from the parameter buffer, not from local memory.
TEST(Executor, KernelParamLoadThroughRegister) {
  auto l = load(R"(
.visible .entry k(.param .align 8 .b8 s[24], .param .u64 out)
{
  .reg .b32 %r<4>; .reg .b64 %rd<8>;
  mov.b64 %rd1, s;
  ld.param.u64 %rd2, [out];
  cvta.to.global.u64 %rd3, %rd2;
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd4, %r1, 8;
  add.s64 %rd5, %rd1, %rd4;
  ld.param.u64 %rd6, [%rd5];
  add.s64 %rd7, %rd3, %rd4;
  st.global.u64 [%rd7], %rd6;
  ld.param.u32 %r2, [%rd1+20];
  st.global.u32 [%rd3+24], %r2;
  ret;
}
)");
  const std::vector<uint64_t> s = {0x1111222233334444ull, 0x5555666677778888ull,
                                   0x99990000aaaabbbbull};
  uint64_t out = upload(l->device, std::vector<uint64_t>(4));
  std::vector<uint8_t> sb(24);
  std::memcpy(sb.data(), s.data(), 24);
  auto r = run(*l, "k", {1}, {3}, {sb, param_bytes(out)});
  ASSERT_TRUE(r.ok()) << (r.fault ? r.fault->message : "");
  auto v = download<uint64_t>(l->device, out, 4);
  EXPECT_EQ(v[0], s[0]);
  EXPECT_EQ(v[1], s[1]);
  EXPECT_EQ(v[2], s[2]);
  EXPECT_EQ(v[3] & 0xffffffffu, 0x99990000u);
}

// Corpus regression (devfunc.cu fnptr_table): an indirect call whose lanes
// hold different targets calls each target in turn; every group of lanes
// receives its own callee's return value.
TEST(Executor, DivergentIndirectCallReturnValues) {
  auto l = load(R"(
.func (.param .b32 r) add100(.param .b32 x)
{
  .reg .b32 %r<2>;
  ld.param.b32 %r1, [x];
  add.s32 %r1, %r1, 100;
  st.param.b32 [r], %r1;
  ret;
}
.func (.param .b32 r) times3(.param .b32 x)
{
  .reg .b32 %r<2>;
  ld.param.b32 %r1, [x];
  mul.lo.s32 %r1, %r1, 3;
  st.param.b32 [r], %r1;
  ret;
}
.visible .entry k(.param .u64 out)
{
  .reg .pred %p<2>; .reg .b32 %r<4>; .reg .b64 %rd<8>;
  mov.u32 %r1, %tid.x;
  and.b32 %r2, %r1, 1;
  setp.eq.u32 %p1, %r2, 0;
  mov.u64 %rd1, add100;
  mov.u64 %rd2, times3;
  selp.b64 %rd3, %rd1, %rd2, %p1;
  {
  .param .b32 param0;
  st.param.b32 [param0], %r1;
  .param .b32 retval0;
  prototype_0 : .callprototype (.param .b32 _) _ (.param .b32 _);
  call (retval0), %rd3, (param0), prototype_0;
  ld.param.b32 %r3, [retval0];
  }
  ld.param.u64 %rd4, [out];
  mul.wide.u32 %rd5, %r1, 4;
  add.s64 %rd6, %rd4, %rd5;
  st.global.u32 [%rd6], %r3;
  ret;
}
)");
  uint64_t out = upload(l->device, std::vector<uint32_t>(32));
  auto r = run(*l, "k", {1}, {32}, {param_bytes(out)});
  ASSERT_TRUE(r.ok()) << (r.fault ? r.fault->message : "");
  auto v = download(l->device, out, 32);
  for (uint32_t t = 0; t < 32; ++t) EXPECT_EQ(v[t], t % 2 == 0 ? t + 100 : 3 * t) << t;
}

}  // namespace
}  // namespace warpsim::functional

namespace warpsim::functional {
namespace {

using namespace testing;


// The racing sum (tests/racing_sum_kernel.h): x ends as one warp's sum.
TEST(Executor, WarpsInterleaveAtGlobalLoadsAsOnAGpu) {
  auto l = load(kRacingSumPtx);
  const uint32_t n = 200;
  std::vector<uint32_t> a(n);
  std::iota(a.begin(), a.end(), 1u);
  const uint32_t one_warp = n * (n + 1) / 2;
  uint64_t dx = upload(l->device, std::vector<uint32_t>(32)), da = upload(l->device, a);
  auto r = run(*l, "racing_sum", {1}, {256}, {param_bytes(dx), param_bytes(da), param_bytes(n)});
  ASSERT_TRUE(r.ok()) << (r.fault ? r.fault->message : "");
  auto x = download(l->device, dx, 32);
  for (uint32_t i = 0; i < 32; ++i) EXPECT_EQ(x[i], one_warp) << "lane " << i << " (8 warps' sum: "
                                                            << 8 * one_warp << ")";
}

}  // namespace
}  // namespace warpsim::functional
