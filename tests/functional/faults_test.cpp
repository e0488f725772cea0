// Faulty kernels stop with a structured report and the CUDA error a GPU gives.
#include <gtest/gtest.h>

#include <vector>

#include "functional/device.h"
#include "tests/functional/exec_test_util.h"

namespace warpsim::functional {
namespace {

using namespace testing;  // load, upload, run, download, run_lanes

// Thread `bad` of a 64-thread block accesses shared memory at byte offset
// `off` (a 256-byte array); the others stay in bounds.
LaunchResult shared_access(const std::string& op, uint32_t off) {
  auto l = load(R"(
.visible .entry k(.param .u32 off)
{
  .reg .pred %p<2>; .reg .b32 %r<6>;
  .shared .align 4 .b8 s[256];
  ld.param.u32 %r1, [off];
  mov.u32 %r2, %tid.x;
  shl.b32 %r3, %r2, 2;
  setp.eq.u32 %p1, %r2, 37;
  @%p1 mov.u32 %r3, %r1;
  and.b32 %r3, %r3, 0xffff;
  )" + op + R"(
  ret;
}
)");
  return run(*l, "k", {2}, {64}, {param_bytes(off)});
}

TEST(Faults, SharedLoadOutOfBoundsIsReported) {
  LaunchResult r = shared_access("ld.shared.u32 %r4, [%r3];", 256);
  ASSERT_EQ(r.error, LaunchError::IllegalAddress);
  EXPECT_EQ(r.fault->cta, (Dim3{0, 0, 0}));
  EXPECT_EQ(r.fault->thread, (Dim3{37, 0, 0}));
  EXPECT_NE(r.fault->message.find("outside the 256-byte shared window"), std::string::npos)
      << r.fault->message;
}

TEST(Faults, SharedStoreMisalignedIsReported) {
  LaunchResult r = shared_access("st.shared.u32 [%r3], %r2;", 6);
  ASSERT_EQ(r.error, LaunchError::MisalignedAddress);
  EXPECT_EQ(r.fault->thread, (Dim3{37, 0, 0}));
}

TEST(Faults, InBoundsSharedAccessesAreFine) {
  EXPECT_TRUE(shared_access("ld.shared.u8 %r4, [%r3];", 255).ok());
  EXPECT_TRUE(shared_access("st.shared.u16 [%r3], %r2;", 254).ok());
}

// Regression (rodinia/nw): nvcc addresses s[m - tid][tid] as a 32-bit register
// `&s - 64*tid` plus an immediate; the register is "negative" (it wraps below
// zero) and the sum must wrap at 32 bits too, not fault at 0x1_0000_0004.
TEST(Faults, ThirtyTwoBitAddressArithmeticWraps) {
  auto l = load(R"(
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<8>; .reg .b64 %rd<4>;
  .shared .align 4 .b8 s[1024];
  mov.u32 %r1, %tid.x;
  shl.b32 %r2, %r1, 2;
  mov.u32 %r3, s;
  add.s32 %r4, %r3, %r2;
  st.shared.u32 [%r4], %r1;       // s[tid] = tid
  bar.sync 0;
  shl.b32 %r5, %r1, 6;
  sub.s32 %r6, %r3, %r5;          // &s - 64*tid: below zero for tid > 0
  ld.shared.u32 %r7, [%r6+68];    // thread 1 reads byte 4: s[1]
  ld.param.u64 %rd1, [out];
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r7;
  ret;
}
)");
  uint64_t out = upload(l->device, std::vector<uint32_t>(2));
  LaunchResult r = run(*l, "k", {1}, {2}, {param_bytes(out)});
  ASSERT_TRUE(r.ok()) << (r.fault ? r.fault->message : "");
  // Thread 0 reads byte 68 (s[17], never written: 0); thread 1 byte 4 (s[1] = 1).
  EXPECT_EQ(download<uint32_t>(l->device, out, 2)[1], 1u);
}

TEST(Faults, UseAfterFreeNamesTheFreedAllocation) {
  auto l = load(R"(
.visible .entry k(.param .u64 p)
{
  .reg .b32 %r<2>; .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [p];
  ld.global.u32 %r1, [%rd1+8];
  ret;
}
)");
  uint64_t p = upload(l->device, std::vector<uint32_t>(16));
  ASSERT_FALSE(l->device.memory().free(p));
  LaunchResult r = run(*l, "k", {1}, {1}, {param_bytes(p)});
  ASSERT_EQ(r.error, LaunchError::IllegalAddress);
  EXPECT_EQ(r.fault->fault.kind, FaultKind::UseAfterFree);
  EXPECT_NE(r.fault->message.find("use-after-free"), std::string::npos) << r.fault->message;
}

TEST(Faults, RunawayRecursionOverflowsTheStack) {
  auto l = load(R"(
.func (.param .b32 r) down(.param .b32 n)
{
  .reg .b32 %r<4>;
  .local .align 4 .b8 pad[512];
  ld.param.b32 %r1, [n];
  st.local.u32 [pad], %r1;
  add.s32 %r2, %r1, 1;
  {
    .param .b32 a; .param .b32 b;
    st.param.b32 [a], %r2;
    call (b), down, (a);
    ld.param.b32 %r3, [b];
  }
  st.param.b32 [r], %r3;
  ret;
}
.visible .entry k()
{
  .reg .b32 %r<2>;
  {
    .param .b32 a; .param .b32 b;
    st.param.b32 [a], 0;
    call (b), down, (a);
    ld.param.b32 %r1, [b];
  }
  ret;
}
)");
  LaunchResult r = run(*l, "k", {1}, {32}, {});
  ASSERT_EQ(r.error, LaunchError::LaunchFailure);
  EXPECT_EQ(r.fault->fault.kind, FaultKind::StackOverflow);
}

TEST(Faults, AStackTooLargeToReserveIsAnInvalidConfiguration) {
  auto l = load(".visible .entry k() { ret; }");
  const KernelInfo* k = l->program->find_kernel("k");
  LaunchConfig cfg;
  cfg.block = {1024};
  cfg.local_bytes_per_thread = 64u << 20;  // 64 GiB for the CTA
  auto params = l->device.layout_params(*k, std::vector<std::vector<uint8_t>>{});
  EXPECT_EQ(l->device.launch(*l->program, *k, cfg, *params).error, LaunchError::InvalidConfiguration);
  cfg.local_bytes_per_thread = 1u << 20;  // 1 GiB, reserved lazily: fine
  EXPECT_TRUE(l->device.launch(*l->program, *k, cfg, *params).ok());
}

}  // namespace
}  // namespace warpsim::functional
