// Independent thread scheduling (functional/warp.h): on sm_70 and later the
// divergent paths of a warp progress independently, so lanes of one warp can
// hand data to each other across a divergent branch (bar.warp.sync), take a
// lock from one another and wait for a flag another lane sets. Pre-Volta
// targets keep the reconvergence stack and its lockstep results.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <cstdint>
#include <string>
#include <vector>

#include "functional/device.h"
#include "tests/functional/exec_test_util.h"

namespace warpsim::functional {
namespace {

using namespace testing;  // load, upload, run, download

constexpr const char* kVolta = ".version 8.5\n.target sm_90\n.address_size 64\n";
constexpr const char* kPascal = ".version 6.0\n.target sm_60\n.address_size 64\n";

std::string fault_of(const LaunchResult& r) { return r.fault ? r.fault->message : std::string(); }

// Each side of a branch on the lane's parity writes its own slot, syncs the
// whole warp and reads the other side's slot: only independent paths meeting
// at the two bar.warp.sync instructions give every lane its neighbour's value.
constexpr const char* kExchange = R"(
.visible .entry k(.param .u64 pout)
{
  .reg .pred %p<4>; .reg .b32 %r<20>; .reg .b64 %rd<4>;
  .shared .align 4 .b32 buf[32];
  ld.param.u64 %rd1, [pout];
  mov.u32 %r1, %laneid;
  mov.u32 %r2, buf;
  shl.b32 %r3, %r1, 2; add.u32 %r3, %r2, %r3;                     // &buf[lane]
  xor.b32 %r4, %r1, 1; shl.b32 %r4, %r4, 2; add.u32 %r4, %r2, %r4;  // &buf[lane ^ 1]
  st.shared.u32 [%r3], 0;
  bar.warp.sync 0xffffffff;
  and.b32 %r5, %r1, 1;
  setp.eq.u32 %p1, %r5, 0;
  @%p1 bra EVEN;
  mad.lo.u32 %r6, %r1, 7, 1;
  st.shared.u32 [%r3], %r6;
  bar.warp.sync 0xffffffff;
  ld.shared.u32 %r7, [%r4];
  bra JOIN;
EVEN:
  mad.lo.u32 %r6, %r1, 10, 3;
  st.shared.u32 [%r3], %r6;
  bar.warp.sync 0xffffffff;
  ld.shared.u32 %r7, [%r4];
JOIN:
  mul.wide.u32 %rd2, %r1, 4; add.s64 %rd2, %rd1, %rd2;
  st.global.u32 [%rd2], %r7;
  ret;
}
)";

uint32_t written_by(uint32_t lane) { return lane % 2 == 0 ? lane * 10 + 3 : lane * 7 + 1; }

std::vector<uint32_t> exchange(const char* header) {
  auto l = load(std::string(header) + kExchange, false);
  uint64_t out = upload(l->device, std::vector<uint32_t>(32, 0xdeadbeefu));
  auto r = run(*l, "k", {1}, {32}, {param_bytes(out)});
  EXPECT_TRUE(r.ok()) << fault_of(r);
  return download(l->device, out, 32);
}

TEST(IndependentThreads, BarWarpSyncJoinsTheTwoSidesOfADivergentBranch) {
  auto out = exchange(kVolta);
  for (uint32_t lane = 0; lane < 32; ++lane) EXPECT_EQ(out[lane], written_by(lane ^ 1)) << "lane " << lane;
}

// The reconvergence stack runs the taken side (the even lanes) to the join
// before the other side starts: the even lanes read the zeros.
TEST(IndependentThreads, PreVoltaTargetsKeepTheReconvergenceStack) {
  auto out = exchange(kPascal);
  for (uint32_t lane = 0; lane < 32; ++lane)
    EXPECT_EQ(out[lane], lane % 2 == 0 ? 0u : written_by(lane ^ 1)) << "lane " << lane;
}

// Every thread takes one global spin lock in turn and increments a counter
// with plain loads and stores: the lanes that lose the compare-and-swap spin
// while the winner, which waits at the loop's exit on the stack, must go on
// to release the lock.
TEST(IndependentThreads, ASpinLockTakenByEveryLaneOfAWarp) {
  auto l = load(R"(
.visible .entry k(.param .u64 plock, .param .u64 pcount, .param .u64 porder)
{
  .reg .pred %p<4>; .reg .b32 %r<20>; .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [plock]; ld.param.u64 %rd2, [pcount]; ld.param.u64 %rd3, [porder];
  mov.u32 %r1, %tid.x; mov.u32 %r2, %ctaid.x; mov.u32 %r3, %ntid.x;
  mad.lo.s32 %r4, %r2, %r3, %r1;
SPIN:
  atom.global.cas.b32 %r5, [%rd1], 0, 1;
  setp.ne.u32 %p1, %r5, 0;
  @%p1 bra SPIN;
  ld.volatile.global.u32 %r6, [%rd2];
  add.u32 %r7, %r6, 1;
  st.volatile.global.u32 [%rd2], %r7;
  mul.wide.u32 %rd4, %r6, 4; add.s64 %rd4, %rd3, %rd4;
  st.global.u32 [%rd4], %r4;
  membar.gl;
  atom.global.exch.b32 %r8, [%rd1], 0;
  ret;
}
)");
  const uint32_t grid = 2, block = 64, threads = grid * block;
  uint64_t lock = upload(l->device, std::vector<uint32_t>{0});
  uint64_t count = upload(l->device, std::vector<uint32_t>{0});
  uint64_t order = upload(l->device, std::vector<uint32_t>(threads, 0xdeadbeefu));
  auto r = run(*l, "k", {grid}, {block}, {param_bytes(lock), param_bytes(count), param_bytes(order)});
  ASSERT_TRUE(r.ok()) << fault_of(r);
  EXPECT_EQ(download(l->device, count, 1)[0], threads);
  EXPECT_EQ(download(l->device, lock, 1)[0], 0u);
  std::vector<uint32_t> seen(threads, 0);
  for (uint32_t t : download(l->device, order, threads)) {
    ASSERT_LT(t, threads);
    ++seen[t];
  }
  for (uint32_t t = 0; t < threads; ++t) EXPECT_EQ(seen[t], 1u) << "thread " << t;
}

// Lanes 1..31 wait for a flag that lane 0 sets after writing the data, on the
// other side of a branch the stack would run second.
TEST(IndependentThreads, LanesWaitForAFlagAnotherLaneSets) {
  auto l = load(R"(
.visible .entry k(.param .u64 pdata, .param .u64 pout)
{
  .reg .pred %p<4>; .reg .b32 %r<20>; .reg .b64 %rd<8>;
  .shared .align 4 .b32 flag;
  .shared .align 4 .b32 data[32];
  ld.param.u64 %rd1, [pdata]; ld.param.u64 %rd2, [pout];
  mov.u32 %r1, %laneid;
  st.shared.u32 [flag], 0;
  bar.warp.sync 0xffffffff;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra CONSUME;
  mov.u32 %r2, 0;
PRODUCE:
  mul.wide.u32 %rd3, %r2, 4; add.s64 %rd3, %rd1, %rd3;
  ld.global.u32 %r3, [%rd3];
  mov.u32 %r4, data; shl.b32 %r5, %r2, 2; add.u32 %r4, %r4, %r5;
  st.shared.u32 [%r4], %r3;
  add.u32 %r2, %r2, 1;
  setp.lt.u32 %p2, %r2, 32;
  @%p2 bra PRODUCE;
  membar.cta;
  st.volatile.shared.u32 [flag], 1;
  bra DONE;
CONSUME:
  ld.volatile.shared.u32 %r6, [flag];
  setp.eq.u32 %p3, %r6, 0;
  @%p3 bra CONSUME;
DONE:
  mov.u32 %r7, data; shl.b32 %r8, %r1, 2; add.u32 %r7, %r7, %r8;
  ld.shared.u32 %r9, [%r7];
  mul.wide.u32 %rd4, %r1, 4; add.s64 %rd4, %rd2, %rd4;
  st.global.u32 [%rd4], %r9;
  ret;
}
)");
  std::vector<uint32_t> data(32);
  for (uint32_t i = 0; i < 32; ++i) data[i] = 1000 + i * i;
  uint64_t din = upload(l->device, data);
  uint64_t out = upload(l->device, std::vector<uint32_t>(32, 0xdeadbeefu));
  auto r = run(*l, "k", {1}, {32}, {param_bytes(din), param_bytes(out)});
  ASSERT_TRUE(r.ok()) << fault_of(r);
  EXPECT_EQ(download(l->device, out, 32), data);
}

// A tree reduction through shared memory with bar.warp.sync between the
// steps gives the same sum with and without independent thread scheduling.
TEST(IndependentThreads, TreeReductionWithBarWarpSyncBetweenSteps) {
  constexpr const char* kReduce = R"(
.visible .entry k(.param .u64 pin, .param .u64 pout)
{
  .reg .pred %p<4>; .reg .b32 %r<20>; .reg .b64 %rd<8>;
  .shared .align 4 .b32 buf[32];
  ld.param.u64 %rd1, [pin]; ld.param.u64 %rd2, [pout];
  mov.u32 %r1, %laneid;
  mov.u32 %r2, buf; shl.b32 %r3, %r1, 2; add.u32 %r3, %r2, %r3;
  mul.wide.u32 %rd3, %r1, 4; add.s64 %rd3, %rd1, %rd3;
  ld.global.u32 %r4, [%rd3];
  st.shared.u32 [%r3], %r4;
  bar.warp.sync 0xffffffff;
  mov.u32 %r5, 16;
STEP:
  setp.ge.u32 %p1, %r1, %r5;
  @%p1 bra SKIP;
  shl.b32 %r6, %r5, 2; add.u32 %r6, %r3, %r6;
  ld.shared.u32 %r7, [%r6];
  ld.shared.u32 %r8, [%r3];
  add.u32 %r8, %r8, %r7;
  st.shared.u32 [%r3], %r8;
SKIP:
  bar.warp.sync 0xffffffff;
  shr.u32 %r5, %r5, 1;
  setp.ne.u32 %p2, %r5, 0;
  @%p2 bra STEP;
  ld.shared.u32 %r9, [buf];
  mul.wide.u32 %rd4, %r1, 4; add.s64 %rd4, %rd2, %rd4;
  st.global.u32 [%rd4], %r9;
  ret;
}
)";
  std::vector<uint32_t> in(32);
  uint32_t sum = 0;
  for (uint32_t i = 0; i < 32; ++i) sum += in[i] = 3 * i * i + 1;
  for (const char* header : {kVolta, kPascal}) {
    auto l = load(std::string(header) + kReduce, false);
    uint64_t din = upload(l->device, in);
    uint64_t out = upload(l->device, std::vector<uint32_t>(32, 0xdeadbeefu));
    auto r = run(*l, "k", {1}, {32}, {param_bytes(din), param_bytes(out)});
    ASSERT_TRUE(r.ok()) << fault_of(r);
    EXPECT_EQ(download(l->device, out, 32), std::vector<uint32_t>(32, sum)) << header;
  }
}

// Lanes that leave instead of arriving cannot hold the others at
// bar.warp.sync forever: the waiting path goes on once nothing else can run.
TEST(IndependentThreads, BarWarpSyncDoesNotWaitForLanesThatExited) {
  auto l = load(R"(
.visible .entry k(.param .u64 pout)
{
  .reg .pred %p<4>; .reg .b32 %r<20>; .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [pout];
  mov.u32 %r1, %laneid;
  setp.ge.u32 %p1, %r1, 8;
  @%p1 bra WAIT;
  exit;
WAIT:
  bar.warp.sync 0xffffffff;
  mul.wide.u32 %rd2, %r1, 4; add.s64 %rd2, %rd1, %rd2;
  st.global.u32 [%rd2], %r1;
  ret;
}
)");
  uint64_t out = upload(l->device, std::vector<uint32_t>(32, 0xdeadbeefu));
  auto r = run(*l, "k", {1}, {32}, {param_bytes(out)});
  ASSERT_TRUE(r.ok()) << fault_of(r);
  auto got = download(l->device, out, 32);
  for (uint32_t lane = 0; lane < 32; ++lane) EXPECT_EQ(got[lane], lane < 8 ? 0xdeadbeefu : lane);
}

// Ordinary divergent loops (trip counts up to 31 * 20 here) reconverge as on
// the stack: the same warp instructions under both targets.
TEST(IndependentThreads, DivergentLoopsReconvergeAsOnTheStack) {
  constexpr const char* kLoop = R"(
.visible .entry k(.param .u64 pout)
{
  .reg .pred %p<4>; .reg .b32 %r<20>; .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [pout];
  mov.u32 %r1, %laneid;
  mul.lo.u32 %r2, %r1, 20;
  mov.u32 %r3, 0; mov.u32 %r4, 0;
LOOP:
  setp.ge.u32 %p1, %r3, %r2;
  @%p1 bra DONE;
  add.u32 %r4, %r4, %r3;
  add.u32 %r3, %r3, 1;
  bra LOOP;
DONE:
  mul.wide.u32 %rd2, %r1, 4; add.s64 %rd2, %rd1, %rd2;
  st.global.u32 [%rd2], %r4;
  ret;
}
)";
  uint64_t counts[2] = {};
  int i = 0;
  for (const char* header : {kVolta, kPascal}) {
    auto l = load(std::string(header) + kLoop, false);
    uint64_t out = upload(l->device, std::vector<uint32_t>(32, 0xdeadbeefu));
    auto r = run(*l, "k", {1}, {32}, {param_bytes(out)});
    ASSERT_TRUE(r.ok()) << fault_of(r);
    auto got = download(l->device, out, 32);
    for (uint32_t lane = 0; lane < 32; ++lane) {
      const uint32_t n = lane * 20;
      EXPECT_EQ(got[lane], n * (n - (n > 0 ? 1 : 0)) / 2) << "lane " << lane;
    }
    counts[i++] = r.warp_instructions;
  }
  EXPECT_EQ(counts[0], counts[1]);
}

}  // namespace
}  // namespace warpsim::functional
