// The grid executor's schedules: parallel CTAs give the in-order results,
// cooperative launches let CTAs wait for each other, warps of a CTA that spin
// on each other make progress, and the watchdog turns a hang into an error.
#include <gtest/gtest.h>

#include <vector>

#include "functional/cta.h"
#include "functional/device.h"
#include "tests/functional/exec_test_util.h"

namespace warpsim::functional {
namespace {

using namespace testing;  // load, upload, run, download, run_lanes

// Each thread: out[i] = i * 7 + clock-free work; CTA-level shared reduction
// into sums[ctaid]; a global integer histogram via atom.add; the first thread
// of every fourth CTA prints; a thread of CTA `bad` reads far out of bounds.
const char* kMixed = R"(
.extern .func (.param .b32 r) vprintf(.param .b64 f, .param .b64 a);
.visible .entry mixed(.param .u64 out, .param .u64 sums, .param .u64 hist, .param .u32 bad)
{
  .reg .pred %p<4>; .reg .b32 %r<20>; .reg .b64 %rd<20>;
  .shared .align 4 .b32 acc;
  .global .align 1 .b8 fmt[12] = {99, 116, 97, 32, 37, 117, 32, 37, 117, 10, 0, 0};
  .local .align 8 .b8 args[8];
  ld.param.u64 %rd1, [out]; ld.param.u64 %rd2, [sums]; ld.param.u64 %rd3, [hist];
  ld.param.u32 %r10, [bad];
  mov.u32 %r1, %ctaid.x; mov.u32 %r2, %ntid.x; mov.u32 %r3, %tid.x;
  mad.lo.s32 %r4, %r1, %r2, %r3;
  setp.eq.s32 %p1, %r3, 0;
  @%p1 st.shared.u32 [acc], 0;
  bar.sync 0;
  mul.lo.s32 %r5, %r4, 7;
  mul.wide.u32 %rd4, %r4, 4;
  add.s64 %rd5, %rd1, %rd4;
  st.global.u32 [%rd5], %r5;
  atom.shared.add.u32 %r6, [acc], %r4;
  and.b32 %r7, %r4, 15;
  mul.wide.u32 %rd6, %r7, 4;
  add.s64 %rd7, %rd3, %rd6;
  red.global.add.u32 [%rd7], 1;
  setp.eq.s32 %p2, %r1, %r10;
  and.pred %p3, %p2, %p1;
  @%p3 ld.global.u32 %r8, [%rd1+-1048576];
  bar.sync 0;
  @!%p1 bra DONE;
  ld.shared.u32 %r9, [acc];
  mul.wide.u32 %rd8, %r1, 4;
  add.s64 %rd9, %rd2, %rd8;
  st.global.u32 [%rd9], %r9;
  and.b32 %r11, %r1, 3;
  setp.ne.s32 %p2, %r11, 0;
  @%p2 bra DONE;
  mov.u64 %rd10, args;
  cvta.local.u64 %rd11, %rd10;
  st.local.u32 [args], %r1;
  st.local.u32 [args+4], %r9;
  mov.u64 %rd12, fmt;
  cvta.global.u64 %rd13, %rd12;
  {
    .param .b64 p0; .param .b64 p1; .param .b32 rv;
    st.param.b64 [p0], %rd13;
    st.param.b64 [p1], %rd11;
    call.uni (rv), vprintf, (p0, p1);
  }
DONE:
  ret;
}
)";

struct MixedRun {
  LaunchResult result;
  std::vector<uint32_t> out, sums, hist;
  std::string printed;
};

MixedRun run_mixed(uint32_t threads, uint32_t bad_cta) {
  const uint32_t ctas = 24, block = 96, n = ctas * block;
  auto l = load(kMixed, true, strict_memory());  // the bad CTA stores just past `out`
  ExecutorOptions opt;
  opt.threads = threads;
  l->device.set_executor_options(opt);
  uint64_t out = upload(l->device, std::vector<uint32_t>(n));
  uint64_t sums = upload(l->device, std::vector<uint32_t>(ctas));
  uint64_t hist = upload(l->device, std::vector<uint32_t>(16));
  MixedRun r;
  r.result = run(*l, "mixed", {ctas}, {block},
                 {param_bytes(out), param_bytes(sums), param_bytes(hist), param_bytes(bad_cta)});
  r.out = download(l->device, out, n);
  r.sums = download(l->device, sums, ctas);
  r.hist = download(l->device, hist, 16);
  r.printed = l->device.printed();
  return r;
}

TEST(Grid, ParallelCtasGiveTheInOrderResults) {
  MixedRun a = run_mixed(1, ~0u), b = run_mixed(3, ~0u);
  ASSERT_TRUE(a.result.ok()) << a.result.fault->message;
  ASSERT_TRUE(b.result.ok()) << b.result.fault->message;
  EXPECT_EQ(a.out, b.out);
  EXPECT_EQ(a.sums, b.sums);
  EXPECT_EQ(a.hist, b.hist);
  EXPECT_EQ(a.printed, b.printed);
  EXPECT_EQ(a.result.ctas, b.result.ctas);
  EXPECT_EQ(a.result.warp_instructions, b.result.warp_instructions);
  EXPECT_EQ(a.result.thread_instructions, b.result.thread_instructions);
  // And they are right: CTA c sums c*96 .. c*96+95; the histogram counts i % 16.
  for (uint32_t c = 0; c < 24; ++c) EXPECT_EQ(a.sums[c], 96 * c * 96 + 95 * 96 / 2) << c;
  for (uint32_t h : a.hist) EXPECT_EQ(h, 24u * 96 / 16);
  for (uint32_t i = 0; i < a.out.size(); ++i) ASSERT_EQ(a.out[i], i * 7);
  EXPECT_EQ(a.printed.substr(0, 23), "cta 0 4560\ncta 4 41424\n");
}

TEST(Grid, ParallelFaultIsTheFirstFaultingCtaAndOutputStopsThere) {
  MixedRun a = run_mixed(1, 9), b = run_mixed(4, 9);
  ASSERT_FALSE(a.result.ok());
  ASSERT_FALSE(b.result.ok());
  EXPECT_EQ(a.result.error, LaunchError::IllegalAddress);
  EXPECT_EQ(a.result.fault->message, b.result.fault->message);
  EXPECT_EQ(b.result.fault->cta, (Dim3{9, 0, 0}));
  // printf output of CTAs 0, 4, 8 only: later CTAs may have run in parallel,
  // but their output is not shown, as in order it never happened.
  EXPECT_EQ(a.printed, b.printed);
  EXPECT_EQ(a.printed, "cta 0 4560\ncta 4 41424\ncta 8 78288\n");
}

// A grid-wide barrier the way cooperative groups builds it: every CTA adds to
// a counter in the workspace whose address the driver passes in %envreg2
// (low half) and %envreg1 (high half), as nvcc's cooperative-groups code
// reads it, then spins until all have arrived. CTA c then reads
// what CTA (c+1) % n wrote before the barrier.
const char* kGridSync = R"(
.visible .entry gsync(.param .u64 data, .param .u64 out)
{
  .reg .pred %p<2>; .reg .b32 %r<12>; .reg .b64 %rd<12>;
  ld.param.u64 %rd1, [data]; ld.param.u64 %rd2, [out];
  mov.u32 %r1, %ctaid.x; mov.u32 %r2, %nctaid.x; mov.u32 %r3, %tid.x;
  mov.u32 %r4, %envreg1; mov.u32 %r5, %envreg2;
  mov.b64 %rd5, {%r5, %r4};
  setp.ne.s32 %p1, %r3, 0;
  @%p1 bra WAIT;
  mul.wide.u32 %rd6, %r1, 4;
  add.s64 %rd7, %rd1, %rd6;
  add.s32 %r6, %r1, 100;
  st.global.u32 [%rd7], %r6;
  membar.gl;
  atom.add.release.gpu.u32 %r7, [%rd5], 1;
SPIN:
  ld.acquire.gpu.u32 %r8, [%rd5];
  setp.lt.u32 %p1, %r8, %r2;
  @%p1 bra SPIN;
WAIT:
  bar.sync 0;
  @%p1 bra DONE;
  add.s32 %r9, %r1, 1;
  rem.u32 %r9, %r9, %r2;
  mul.wide.u32 %rd8, %r9, 4;
  add.s64 %rd9, %rd1, %rd8;
  ld.global.u32 %r10, [%rd9];
  mul.wide.u32 %rd10, %r1, 4;
  add.s64 %rd11, %rd2, %rd10;
  st.global.u32 [%rd11], %r10;
DONE:
  ret;
}
)";

LaunchResult run_gsync(bool cooperative, std::vector<uint32_t>* result) {
  const uint32_t n = 12;
  auto l = load(kGridSync);
  ExecutorOptions opt;
  opt.watchdog = 1'000'000;
  l->device.set_executor_options(opt);
  uint64_t data = upload(l->device, std::vector<uint32_t>(n));
  uint64_t out = upload(l->device, std::vector<uint32_t>(n));
  uint64_t workspace = upload(l->device, std::vector<uint32_t>(1));
  const KernelInfo* k = l->program->find_kernel("gsync");
  auto params = l->device.layout_params(*k, std::vector{param_bytes(data), param_bytes(out)});
  LaunchConfig cfg;
  cfg.grid = {n};
  cfg.block = {64};
  cfg.cooperative = cooperative;
  cfg.envreg[2] = static_cast<uint32_t>(workspace);
  cfg.envreg[1] = static_cast<uint32_t>(workspace >> 32);
  LaunchResult r = l->device.launch(*l->program, *k, cfg, *params);
  if (result) *result = download(l->device, out, n);
  return r;
}

TEST(Grid, CooperativeLaunchLetsCtasWaitForEachOther) {
  std::vector<uint32_t> out;
  LaunchResult r = run_gsync(true, &out);
  ASSERT_TRUE(r.ok()) << r.fault->message;
  for (uint32_t c = 0; c < out.size(); ++c) EXPECT_EQ(out[c], (c + 1) % 12 + 100) << c;
}

TEST(Grid, WatchdogStopsACtaThatWaitsForever) {
  // Without co-residency CTA 0 waits for CTAs that cannot start before it ends.
  LaunchResult r = run_gsync(false, nullptr);
  ASSERT_EQ(r.error, LaunchError::LaunchTimeout);
  ASSERT_TRUE(r.fault);
  EXPECT_EQ(r.fault->cta, (Dim3{0, 0, 0}));
  EXPECT_NE(r.fault->message.find("more than 1000000 warp instructions"), std::string::npos)
      << r.fault->message;
  EXPECT_NE(r.fault->message.find("cudaErrorLaunchTimeout"), std::string::npos);
  const std::string& inst = r.fault->instruction;
  EXPECT_TRUE(inst.find("ld.acquire") == 0 || inst.find("setp.lt.u32") == 0 || inst.find("bra") != std::string::npos)
      << "blamed instruction is not in the spin loop: " << r.fault->instruction;
}

// Warp 1 waits for a flag that warp 0 sets only after a long computation; with
// each warp running only a quantum at a time, both progress.
TEST(Grid, WarpsOfACtaSpinningOnEachOtherProgress) {
  auto l = load(R"(
.visible .entry flag(.param .u64 out)
{
  .reg .pred %p<3>; .reg .b32 %r<8>; .reg .b64 %rd<4>;
  .shared .align 4 .b32 f;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  setp.lt.u32 %p1, %r1, 32;
  @%p1 bra PRODUCER;
SPIN:
  ld.volatile.shared.u32 %r2, [f];
  setp.eq.s32 %p2, %r2, 0;
  @%p2 bra SPIN;
  st.global.u32 [%rd1], %r2;
  bra DONE;
PRODUCER:
  mov.u32 %r3, 0;
  mov.u32 %r4, 0;
LOOP:
  add.s32 %r3, %r3, %r4;
  add.s32 %r4, %r4, 1;
  setp.lt.u32 %p2, %r4, 20000;
  @%p2 bra LOOP;
  setp.eq.s32 %p2, %r1, 0;
  @%p2 st.volatile.shared.u32 [f], %r3;
DONE:
  ret;
}
)");
  ExecutorOptions opt;
  opt.watchdog = 10'000'000;
  l->device.set_executor_options(opt);
  uint64_t out = upload(l->device, std::vector<uint32_t>(1));
  LaunchResult r = run(*l, "flag", {1}, {64}, {param_bytes(out)});
  ASSERT_TRUE(r.ok()) << r.fault->message;
  EXPECT_EQ(download(l->device, out, 1)[0], 19999u * 20000u / 2);
}

// %clock64 depends only on the warp's own work, so it is the same whatever
// the schedule, and it increases.
TEST(Grid, ClockIsDeterministicAcrossSchedules) {
  const char* text = R"(
.visible .entry clk(.param .u64 out)
{
  .reg .b32 %r<4>; .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [out];
  mov.u64 %rd2, %clock64;
  mov.u64 %rd3, %clock64;
  sub.s64 %rd4, %rd3, %rd2;
  mov.u32 %r1, %ctaid.x;
  mul.wide.u32 %rd5, %r1, 16;
  add.s64 %rd6, %rd1, %rd5;
  st.global.v2.u64 [%rd6], {%rd2, %rd4};
  ret;
}
)";
  std::vector<uint64_t> results[2];
  for (uint32_t t : {1u, 4u}) {
    auto l = load(text);
    ExecutorOptions opt;
    opt.threads = t;
    l->device.set_executor_options(opt);
    uint64_t out = upload(l->device, std::vector<uint64_t>(2 * 16));
    ASSERT_TRUE(run(*l, "clk", {16}, {32}, {param_bytes(out)}).ok());
    results[t == 4] = download<uint64_t>(l->device, out, 32);
  }
  EXPECT_EQ(results[0], results[1]);
  for (size_t i = 1; i < 32; i += 2) EXPECT_GT(results[0][i], 0u);
}

// Each thread stores %r3 before writing it (0: registers start zeroed), then
// leaves a non-zero value in it, so a CTA that inherits the storage of an
// ended CTA's register file sees that value unless the file is reset.
const char* kDirtyRegisters = R"(
.visible .entry dirty(.param .u64 out)
{
  .reg .b32 %r<4>; .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %ctaid.x;
  mov.u32 %r2, %tid.x;
  mad.lo.s32 %r1, %r1, 64, %r2;
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r3;
  add.s32 %r3, %r1, 12345;
  st.global.u32 [%rd3+1024], %r3;
  ret;
}
)";

// Register files are reused from CTA to CTA (allocating them afresh for every
// CTA made sdk/scan 10x slower) and still start at zero in every CTA.
TEST(Grid, CtasReuseRegisterFilesWhichStartAtZero) {
  auto l = load(kDirtyRegisters);
  ExecutorOptions opt;
  opt.threads = 1;
  l->device.set_executor_options(opt);
  uint64_t out = upload(l->device, std::vector<uint32_t>(512, 0xdeadbeef));
  ASSERT_TRUE(run(*l, "dirty", {4}, {64}, {param_bytes(out)}).ok());
  std::vector<uint32_t> got = download<uint32_t>(l->device, out, 512);
  for (uint32_t i = 0; i < 256; ++i) {
    EXPECT_EQ(got[i], 0u) << "thread " << i;
    EXPECT_EQ(got[256 + i], i + 12345);
  }

  // The storage itself: the second CTA takes the first one's register files.
  LaunchContext ctx;
  ctx.program = l->program.get();
  ctx.kernel = l->program->find_kernel("dirty");
  ctx.memory = &l->device.memory();
  ctx.config.grid = {2};
  ctx.config.block = {64};
  std::string why;
  const std::vector<std::vector<uint8_t>> args{param_bytes(out)};
  auto params = l->device.layout_params(*ctx.kernel, args, &why);
  ASSERT_TRUE(params) << why;
  ctx.params = *params;
  CtaBuffers buffers;
  {
    Cta first(ctx, {0, 0, 0}, buffers);
    EXPECT_EQ(first.run(), CtaStatus::Done);
  }
  ASSERT_EQ(buffers.spare_registers.size(), 2u);  // two warps' files
  EXPECT_GE(buffers.spare_registers.back().capacity(), size_t{4} * 32);  // %r0..%r3 at least
  Cta second(ctx, {1, 0, 0}, buffers);
  EXPECT_TRUE(buffers.spare_registers.empty());
  EXPECT_EQ(second.run(), CtaStatus::Done);
}

}  // namespace
}  // namespace warpsim::functional
