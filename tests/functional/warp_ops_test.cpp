// Warp-collective PTX instructions (functional/exec_warp.cpp: shfl, vote,
// match, redux, activemask, elect) and bar.warp.sync (exec_control.cpp), run
// through functional::Device and checked against host models written here
// from the PTX ISA text (and, for shfl widths, from the CUDA intrinsics'
// documented behaviour), independently of the simulator's code.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "functional/device.h"
#include "tests/functional/exec_test_util.h"

namespace warpsim::functional {
namespace {

using namespace testing;  // load, upload, run, download, run_lanes

constexpr uint32_t kSentinel = 0xdeadbeefu;  // output words no lane should write
constexpr uint32_t kCanonicalNaN = 0x7fffffffu;

std::string fault_of(const LaunchResult& r) { return r.fault ? r.fault->message : std::string(); }

// xorshift32: deterministic inputs without <random>'s per-platform differences.
struct Rng {
  uint32_t s;
  uint32_t next() {
    s ^= s << 13;
    s ^= s >> 17;
    s ^= s << 5;
    return s;
  }
};

uint32_t bit(uint32_t lane) { return 1u << lane; }
uint32_t lanes_below(uint32_t n) { return n >= 32 ? 0xffffffffu : (1u << n) - 1; }

// Shared kernel prologue: %r4 = global thread id, %r5 = %laneid.
constexpr const char* kPrologue = R"(
  mov.u32 %r1, %tid.x; mov.u32 %r2, %ctaid.x; mov.u32 %r3, %ntid.x;
  mad.lo.s32 %r4, %r2, %r3, %r1;
  mov.u32 %r5, %laneid;
)";

// ============================================================================
// shfl.sync
// ============================================================================

enum class Mode { Up, Down, Bfly, Idx };
constexpr Mode kModes[] = {Mode::Up, Mode::Down, Mode::Bfly, Mode::Idx};
const char* mode_name(Mode m) {
  switch (m) {
    case Mode::Up: return "up";
    case Mode::Down: return "down";
    case Mode::Bfly: return "bfly";
    case Mode::Idx: return "idx";
  }
  return "?";
}

struct ShflOut {
  uint32_t d;
  bool p;
  uint32_t src;  // the lane d came from
};

// The PTX ISA shfl.sync "Semantics" pseudocode, line by line. `source_a` is
// SourceA[] (each lane's `a`); `laneid` is the executing lane.
ShflOut isa_shfl(Mode mode, const std::vector<uint32_t>& source_a, uint32_t laneid, uint32_t b,
                 uint32_t c) {
  const int lane = static_cast<int>(laneid & 0x1f);
  const int bval = static_cast<int>(b & 0x1f);         // bval[4:0] = b[4:0]
  const int cval = static_cast<int>(c & 0x1f);         // cval[4:0] = c[4:0]
  const int segmask = static_cast<int>((c >> 8) & 0x1f);  // segmask[4:0] = c[12:8]
  const int maxLane = (lane & segmask) | (cval & ~segmask);
  const int minLane = lane & segmask;
  int j = 0;
  bool pval = false;
  switch (mode) {
    case Mode::Up: j = lane - bval; pval = (j >= maxLane); break;
    case Mode::Down: j = lane + bval; pval = (j <= maxLane); break;
    case Mode::Bfly: j = lane ^ bval; pval = (j <= maxLane); break;
    case Mode::Idx: j = minLane | (bval & ~segmask); pval = (j <= maxLane); break;
  }
  if (!pval) j = lane;  // copy from own lane
  return {source_a[static_cast<size_t>(j)], pval, static_cast<uint32_t>(j)};
}

// What __shfl{,_up,_down,_xor}_sync(mask, var, x, width) return according to
// the CUDA programming guide, for 0 <= x < 32: the lane is addressed within
// its `width`-lane segment; up/down falling off the segment, or xor reaching a
// later segment, return the caller's own var.
ShflOut cuda_shfl(Mode mode, const std::vector<uint32_t>& var, uint32_t lane, uint32_t x,
                  uint32_t width) {
  const int64_t first = lane / width * width, last = first + width - 1;
  int64_t src = lane;
  bool ok = true;
  switch (mode) {
    case Mode::Up: src = int64_t{lane} - x; ok = src >= first; break;
    case Mode::Down: src = int64_t{lane} + x; ok = src <= last; break;
    case Mode::Bfly: src = lane ^ x; ok = src <= last; break;  // earlier segments are reachable
    case Mode::Idx: src = first + x % width; break;
  }
  if (!ok) src = lane;
  return {var[static_cast<size_t>(src)], ok, static_cast<uint32_t>(src)};
}

// The c operand __shfl_*_sync(mask, v, x, width) passes.
uint32_t width_c(Mode mode, uint32_t width) { return ((32 - width) << 8) | (mode == Mode::Up ? 0 : 31); }

// One kernel per mode: a, b and c come from registers loaded per thread.
std::string shfl_register_module() {
  std::string text;
  for (Mode m : kModes)
    text += fmt::format(R"(
.visible .entry shfl_{0}(.param .u64 pa, .param .u64 pb, .param .u64 pc, .param .u64 pd, .param .u64 pp)
{{
  .reg .pred %p<2>; .reg .b32 %r<12>; .reg .b64 %rd<12>;
  ld.param.u64 %rd1, [pa]; ld.param.u64 %rd2, [pb]; ld.param.u64 %rd3, [pc];
  ld.param.u64 %rd4, [pd]; ld.param.u64 %rd5, [pp];
  {1}
  mul.wide.u32 %rd6, %r4, 4;
  add.s64 %rd7, %rd1, %rd6; ld.global.u32 %r6, [%rd7];
  add.s64 %rd8, %rd2, %rd6; ld.global.u32 %r7, [%rd8];
  add.s64 %rd9, %rd3, %rd6; ld.global.u32 %r8, [%rd9];
  shfl.sync.{0}.b32 %r9|%p1, %r6, %r7, %r8, 0xffffffff;
  selp.u32 %r10, 1, 0, %p1;
  add.s64 %rd10, %rd4, %rd6; st.global.u32 [%rd10], %r9;
  add.s64 %rd11, %rd5, %rd6; st.global.u32 [%rd11], %r10;
  ret;
}}
)",
                        mode_name(m), kPrologue);
  return text;
}

struct ShflInputs {
  std::vector<uint32_t> a, b, c;
};

// Runs shfl_<mode> over full warps (blocks of 64 threads) and returns d and p.
std::pair<std::vector<uint32_t>, std::vector<uint32_t>> run_shfl(testing::Loaded& l, Mode m,
                                                                 const ShflInputs& in) {
  const size_t n = in.a.size();
  EXPECT_EQ(n % 64, 0u);
  Device& dev = l.device;
  uint64_t da = upload(dev, in.a), db = upload(dev, in.b), dc = upload(dev, in.c);
  uint64_t dd = upload(dev, std::vector<uint32_t>(n, kSentinel));
  uint64_t dp = upload(dev, std::vector<uint32_t>(n, kSentinel));
  auto r = run(l, std::string("shfl_") + mode_name(m), {static_cast<uint32_t>(n / 64)}, {64},
               {param_bytes(da), param_bytes(db), param_bytes(dc), param_bytes(dd), param_bytes(dp)});
  EXPECT_TRUE(r.ok()) << fault_of(r);
  return {download(dev, dd, n), download(dev, dp, n)};
}

// Distinct per-lane values, so a wrong source lane can never read as right.
uint32_t lane_value(uint32_t warp, uint32_t lane) { return 0xa5000000u | (warp << 8) | (lane * 3 + 1); }

TEST(WarpOps, ShflSyncEveryWidthMatchesTheCudaIntrinsics) {
  auto l = load(shfl_register_module());
  const uint32_t widths[] = {1, 2, 4, 8, 16, 32};
  const uint32_t uniform_x[] = {0, 1, 2, 3, 5, 7, 8, 15, 16, 17, 31};
  Rng rng{12345};
  for (Mode m : kModes) {
    SCOPED_TRACE(mode_name(m));
    // One warp per (width, x); per width one more warp with a different x in
    // every lane (b is a per-lane register operand).
    ShflInputs in;
    std::vector<uint32_t> warp_width;
    for (uint32_t width : widths) {
      for (size_t k = 0; k <= std::size(uniform_x); ++k) {
        const uint32_t w = static_cast<uint32_t>(warp_width.size());
        warp_width.push_back(width);
        for (uint32_t lane = 0; lane < 32; ++lane) {
          in.a.push_back(lane_value(w, lane));
          in.b.push_back(k < std::size(uniform_x) ? uniform_x[k] : rng.next() % 32);
          in.c.push_back(width_c(m, width));
        }
      }
    }
    auto [d, p] = run_shfl(*l, m, in);
    for (size_t w = 0; w < warp_width.size(); ++w) {
      const std::vector<uint32_t> a(in.a.begin() + 32 * w, in.a.begin() + 32 * (w + 1));
      for (uint32_t lane = 0; lane < 32; ++lane) {
        const size_t t = 32 * w + lane;
        const ShflOut cuda = cuda_shfl(m, a, lane, in.b[t], warp_width[w]);
        const ShflOut isa = isa_shfl(m, a, lane, in.b[t], in.c[t]);
        ASSERT_EQ(d[t], cuda.d) << "width " << warp_width[w] << " x " << in.b[t] << " lane " << lane;
        ASSERT_EQ(p[t], cuda.p ? 1u : 0u) << "width " << warp_width[w] << " x " << in.b[t] << " lane " << lane;
        ASSERT_EQ(cuda.d, isa.d);  // the two host models agree on the CUDA encoding
        ASSERT_EQ(cuda.p, isa.p);
      }
    }
  }
}

// Arbitrary b and c: offsets beyond 31 and negative ones (only b[4:0]
// counts), clamp values that are not segment ends, ragged segment masks, and
// junk in the bits of c the ISA ignores.
TEST(WarpOps, ShflSyncArbitraryOffsetsClampsAndSegmentMasks) {
  auto l = load(shfl_register_module());
  const uint32_t special_b[] = {0xffffffffu, 0xffffffe1u, 32, 33, 63, 0x80000000u, 0x7fffffffu, 0xfffffff0u};
  Rng rng{777};
  for (Mode m : kModes) {
    SCOPED_TRACE(mode_name(m));
    ShflInputs in;
    const uint32_t warps = 48;
    for (uint32_t w = 0; w < warps; ++w)
      for (uint32_t lane = 0; lane < 32; ++lane) {
        in.a.push_back(lane_value(w, lane));
        in.b.push_back(w < std::size(special_b) ? special_b[w] : rng.next());
        in.c.push_back(w % 3 == 0 ? (rng.next() & 0x1f1f) : rng.next());
      }
    auto [d, p] = run_shfl(*l, m, in);
    for (uint32_t w = 0; w < warps; ++w) {
      const std::vector<uint32_t> a(in.a.begin() + 32 * w, in.a.begin() + 32 * (w + 1));
      for (uint32_t lane = 0; lane < 32; ++lane) {
        const size_t t = 32 * w + lane;
        const ShflOut want = isa_shfl(m, a, lane, in.b[t], in.c[t]);
        ASSERT_EQ(d[t], want.d) << fmt::format("lane {} b 0x{:x} c 0x{:x}", lane, in.b[t], in.c[t]);
        ASSERT_EQ(p[t], want.p ? 1u : 0u) << fmt::format("lane {} b 0x{:x} c 0x{:x}", lane, in.b[t], in.c[t]);
      }
    }
  }
}

// Immediate b and c, with the predicate output, without it, or sunk (`d|_`),
// and in place (d is a: every lane must still read the other lanes' old
// values).
enum class PredOut { None, Reg, Sink };
struct ImmCase {
  Mode mode;
  int64_t b;   // as written in the PTX text
  uint32_t c;
  bool in_place;
  PredOut pred = PredOut::Reg;
};

const ImmCase kImmCases[] = {
    {Mode::Up, 1, width_c(Mode::Up, 32), false},
    {Mode::Up, 3, width_c(Mode::Up, 8), false},
    {Mode::Up, -1, 0, false},  // bval 31
    {Mode::Up, 33, 0, false},  // bval 1
    {Mode::Up, 2, width_c(Mode::Up, 4), true},
    {Mode::Down, 1, 0x1f, false},
    {Mode::Down, 16, width_c(Mode::Down, 16), false},
    {Mode::Down, -2, 0x1f, false},  // bval 30
    {Mode::Down, 3, width_c(Mode::Down, 32), true, PredOut::None},
    {Mode::Down, 4, 0x0c, false},  // clamp at lane 12 without segments
    {Mode::Bfly, 1, 0x1f, false, PredOut::None},
    {Mode::Bfly, 16, 0x1f, false},
    {Mode::Bfly, 5, width_c(Mode::Bfly, 4), false},
    {Mode::Bfly, 31, width_c(Mode::Bfly, 16), false},
    {Mode::Bfly, 1, width_c(Mode::Bfly, 2), true},
    {Mode::Idx, 0, 0x1f, false},
    {Mode::Idx, 7, 0x1f, false, PredOut::Sink},
    {Mode::Idx, 40, 0x1f, false},  // lane 8
    {Mode::Idx, -1, 0x1f, false},  // lane 31
    {Mode::Idx, 3, width_c(Mode::Idx, 4), false},
    {Mode::Idx, 5, width_c(Mode::Idx, 1), false},
    {Mode::Idx, 0, width_c(Mode::Idx, 8), true},
    {Mode::Idx, 9, 0x1f07, false},  // clamp 7 with every bit a segment bit: own lane
};

std::string shfl_immediate_module() {
  const size_t n = std::size(kImmCases);
  std::string body;
  for (size_t k = 0; k < n; ++k) {
    const ImmCase& c = kImmCases[k];
    const char* src = c.in_place ? "%r8" : "%r6";
    if (c.in_place) body += "  mov.b32 %r8, %r6;\n";
    const char* pred = c.pred == PredOut::Reg ? "|%p1" : c.pred == PredOut::Sink ? "|_" : "";
    body += fmt::format("  shfl.sync.{}.b32 %r8{}, {}, {}, {}, 0xffffffff;\n", mode_name(c.mode), pred,
                        src, c.b, c.c);
    body += fmt::format("  st.global.u32 [%rd5+{}], %r8;\n", 4 * k);
    if (c.pred == PredOut::Reg) {
      body += "  selp.u32 %r9, 1, 0, %p1;\n";
      body += fmt::format("  st.global.u32 [%rd6+{}], %r9;\n", 4 * k);
    }
  }
  return fmt::format(R"(
.visible .entry shfl_imm(.param .u64 pa, .param .u64 pd, .param .u64 pp)
{{
  .reg .pred %p<2>; .reg .b32 %r<12>; .reg .b64 %rd<10>;
  ld.param.u64 %rd1, [pa]; ld.param.u64 %rd2, [pd]; ld.param.u64 %rd3, [pp];
  {}
  mul.wide.u32 %rd4, %r4, 4;
  add.s64 %rd4, %rd1, %rd4; ld.global.u32 %r6, [%rd4];
  mul.wide.u32 %rd7, %r4, {};
  add.s64 %rd5, %rd2, %rd7;
  add.s64 %rd6, %rd3, %rd7;
{}  ret;
}}
)",
                     kPrologue, 4 * n, body);
}

// Full warps and a partial one (blocks of 20 threads: lanes 20..31 do not
// exist, so only results whose source lane exists are defined).
TEST(WarpOps, ShflSyncImmediateOperandsInPlaceAndPartialWarps) {
  auto l = load(shfl_immediate_module());
  const size_t n = std::size(kImmCases);
  for (uint32_t block : {64u, 20u}) {
    SCOPED_TRACE(fmt::format("block of {} threads", block));
    const uint32_t grid = 3, threads = grid * block;
    std::vector<uint32_t> a(threads);
    for (uint32_t t = 0; t < threads; ++t) a[t] = lane_value(t / 32, t % 32) ^ (block << 20);
    uint64_t da = upload(l->device, a);
    uint64_t dd = upload(l->device, std::vector<uint32_t>(threads * n, kSentinel));
    uint64_t dp = upload(l->device, std::vector<uint32_t>(threads * n, kSentinel));
    auto r = run(*l, "shfl_imm", {grid}, {block}, {param_bytes(da), param_bytes(dd), param_bytes(dp)});
    ASSERT_TRUE(r.ok()) << fault_of(r);
    auto d = download(l->device, dd, threads * n), p = download(l->device, dp, threads * n);
    for (uint32_t t = 0; t < threads; ++t) {
      const uint32_t tid = t % block, lane = tid % 32, warp_first = t - lane;
      const uint32_t exist = std::min(32u, block - (tid - lane));  // lanes of this warp
      std::vector<uint32_t> warp_a(32, 0);
      for (uint32_t j = 0; j < exist; ++j) warp_a[j] = a[warp_first + j];
      for (size_t k = 0; k < n; ++k) {
        const ImmCase& c = kImmCases[k];
        SCOPED_TRACE(fmt::format("case {}: shfl.{} b={} c=0x{:x} thread {}", k, mode_name(c.mode), c.b, c.c, t));
        const ShflOut want = isa_shfl(c.mode, warp_a, lane, static_cast<uint32_t>(c.b), c.c);
        ASSERT_EQ(p[t * n + k], c.pred == PredOut::Reg ? (want.p ? 1u : 0u) : kSentinel);
        if (want.src >= exist) continue;  // reads a lane past the end of the block: undefined
        ASSERT_EQ(d[t * n + k], want.d);
      }
    }
  }
}

// Divergence: the even lanes shuffle among themselves (membermask
// 0x55555555) while the odd lanes do on the other path (0xaaaaaaaa).
// Sources that are active give defined values; sourcing an inactive lane is
// undefined in PTX, and warpsim documents (exec_warp.cpp) that it reads that
// lane's register as it stands: here, the value it wrote before the branch,
// or 0 for a lane past the end of a partial block.
TEST(WarpOps, ShflSyncInDivergentCodeAndFromInactiveLanes) {
  auto l = load(fmt::format(R"(
.visible .entry k(.param .u64 pout)
{{
  .reg .pred %p<4>; .reg .b32 %r<16>; .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [pout];
  {}
  mad.lo.u32 %r6, %r5, 10, 7;      // a = 10 * lane + 7, in every lane
  mul.wide.u32 %rd2, %r4, 16;
  add.s64 %rd3, %rd1, %rd2;
  and.b32 %r7, %r5, 1;
  setp.ne.u32 %p1, %r7, 0;
  @%p1 bra ODD;
  add.u32 %r8, %r5, 2;
  and.b32 %r8, %r8, 31;
  shfl.sync.idx.b32 %r9|%p2, %r6, %r8, 31, 0x55555555;   // from lane + 2: active
  shfl.sync.bfly.b32 %r10|%p3, %r6, 1, 31, 0x55555555;   // from lane ^ 1: inactive
  selp.u32 %r11, 1, 0, %p2;
  selp.u32 %r12, 1, 0, %p3;
  st.global.v4.u32 [%rd3], {{%r9, %r11, %r10, %r12}};
  bra DONE;
ODD:
  shfl.sync.down.b32 %r9|%p2, %r6, 2, 31, 0xaaaaaaaa;   // from lane + 2: active
  selp.u32 %r11, 1, 0, %p2;
  st.global.v2.u32 [%rd3], {{%r9, %r11}};
DONE:
  ret;
}}
)",
                            kPrologue));
  for (uint32_t block : {32u, 20u}) {
    SCOPED_TRACE(fmt::format("block of {} threads", block));
    const uint32_t grid = 2, threads = grid * block;
    uint64_t dout = upload(l->device, std::vector<uint32_t>(4 * threads, kSentinel));
    auto r = run(*l, "k", {grid}, {block}, {param_bytes(dout)});
    ASSERT_TRUE(r.ok()) << fault_of(r);
    auto out = download(l->device, dout, 4 * threads);
    auto a_of = [&](uint32_t lane) { return lane < block ? 10 * lane + 7 : 0u; };  // 0: never written
    for (uint32_t t = 0; t < threads; ++t) {
      const uint32_t lane = t % block;
      const uint32_t* o = &out[4 * t];
      SCOPED_TRACE(fmt::format("lane {}", lane));
      if (lane % 2 == 0) {
        EXPECT_EQ(o[0], a_of((lane + 2) % 32));
        EXPECT_EQ(o[1], 1u);
        EXPECT_EQ(o[2], a_of(lane ^ 1));  // documented warpsim choice, undefined in PTX
        EXPECT_EQ(o[3], 1u);
      } else {
        const bool in_range = lane + 2 <= 31;
        EXPECT_EQ(o[0], in_range ? a_of(lane + 2) : a_of(lane));
        EXPECT_EQ(o[1], in_range ? 1u : 0u);
        EXPECT_EQ(o[2], kSentinel);
        EXPECT_EQ(o[3], kSentinel);
      }
    }
  }
}

// The pre-PTX-6.0 forms without .sync (removed for sm_70+ targets, so the
// module says sm_60): shfl and vote over the active lanes.
TEST(WarpOps, NonSyncShflAndVoteOnAnOldTarget) {
  auto l = load(fmt::format(R"(
.version 6.0
.target sm_60
.address_size 64
.visible .entry k(.param .u64 pin, .param .u64 pout)
{{
  .reg .pred %p<8>; .reg .b32 %r<24>; .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [pin]; ld.param.u64 %rd2, [pout];
  {}
  mul.wide.u32 %rd3, %r4, 4; add.s64 %rd3, %rd1, %rd3; ld.global.u32 %r6, [%rd3];
  mul.wide.u32 %rd4, %r4, 24; add.s64 %rd4, %rd2, %rd4;
  // The ISA's own inclusive-scan example.
  mov.u32 %r10, %r6;
  shfl.up.b32 %r11|%p1, %r10, 0x1, 0x0;
  @%p1 add.u32 %r10, %r11, %r10;
  shfl.up.b32 %r11|%p1, %r10, 0x2, 0x0;
  @%p1 add.u32 %r10, %r11, %r10;
  shfl.up.b32 %r11|%p1, %r10, 0x4, 0x0;
  @%p1 add.u32 %r10, %r11, %r10;
  shfl.up.b32 %r11|%p1, %r10, 0x8, 0x0;
  @%p1 add.u32 %r10, %r11, %r10;
  shfl.up.b32 %r11|%p1, %r10, 0x10, 0x0;
  @%p1 add.u32 %r10, %r11, %r10;
  st.global.u32 [%rd4], %r10;
  // The odd lanes alone vote on their value's low bit.
  and.b32 %r12, %r6, 1;
  setp.ne.u32 %p2, %r12, 0;
  and.b32 %r13, %r5, 1;
  setp.eq.u32 %p3, %r13, 0;
  @%p3 bra DONE;
  vote.ballot.b32 %r14, %p2;
  vote.all.pred %p4, %p2;
  vote.any.pred %p5, !%p2;
  vote.uni.pred %p6, %p2;
  selp.u32 %r15, 1, 0, %p4;
  selp.u32 %r16, 1, 0, %p5;
  selp.u32 %r17, 1, 0, %p6;
  shfl.idx.b32 %r18, %r6, 3, 0x1f;
  st.global.u32 [%rd4+4], %r14;
  st.global.u32 [%rd4+8], %r15;
  st.global.u32 [%rd4+12], %r16;
  st.global.u32 [%rd4+16], %r17;
  st.global.u32 [%rd4+20], %r18;
DONE:
  ret;
}}
)",
                            kPrologue),
            /*with_header=*/false);
  const uint32_t grid = 4, block = 64, threads = grid * block;
  Rng rng{99};
  std::vector<uint32_t> in(threads);
  for (uint32_t w = 0; w < threads / 32; ++w)
    for (uint32_t lane = 0; lane < 32; ++lane)  // warp 1: every odd lane's value is odd
      in[32 * w + lane] = (rng.next() % 1000) | (w == 1 ? 1u : 0u);
  uint64_t din = upload(l->device, in), dout = upload(l->device, std::vector<uint32_t>(6 * threads, kSentinel));
  auto r = run(*l, "k", {grid}, {block}, {param_bytes(din), param_bytes(dout)});
  ASSERT_TRUE(r.ok()) << fault_of(r);
  auto out = download(l->device, dout, 6 * threads);
  for (uint32_t t = 0; t < threads; ++t) {
    const uint32_t lane = t % 32, first = t - lane;
    SCOPED_TRACE(fmt::format("thread {}", t));
    uint32_t scan = 0;
    for (uint32_t j = 0; j <= lane; ++j) scan += in[first + j];
    EXPECT_EQ(out[6 * t], scan);
    if (lane % 2 == 0) {
      for (int k = 1; k < 6; ++k) EXPECT_EQ(out[6 * t + k], kSentinel);
      continue;
    }
    uint32_t ballot = 0;
    for (uint32_t j = 1; j < 32; j += 2)
      if (in[first + j] & 1) ballot |= bit(j);
    EXPECT_EQ(out[6 * t + 1], ballot);
    EXPECT_EQ(out[6 * t + 2], ballot == 0xaaaaaaaau ? 1u : 0u);            // all
    EXPECT_EQ(out[6 * t + 3], ballot != 0xaaaaaaaau ? 1u : 0u);            // any of !p
    EXPECT_EQ(out[6 * t + 4], ballot == 0 || ballot == 0xaaaaaaaau ? 1u : 0u);  // uni
    EXPECT_EQ(out[6 * t + 5], in[first + 3]);
  }
}

// ============================================================================
// vote.sync, match.sync, redux.sync, elect.sync: one harness
// ============================================================================

// One warp's inputs. Every lane either skips the collective (path 0) or runs
// it in branch 1 or 2 of an if/else, naming its group in `mask`; the lanes of
// a group must run the same branch (the defined case).
struct Scenario {
  std::string name;
  uint32_t lanes = 32;  // threads in this warp: only the last warp of the block may be partial
  std::array<uint64_t, 32> value{};
  std::array<uint32_t, 32> mask{};
  std::array<uint32_t, 32> path{};
};

enum class Layout {
  Whole,        // all lanes, membermask 0xffffffff
  Halves,       // if (lane < 16) / else, each half naming itself
  Interleaved,  // if (lane even) / else
  Tiles8,       // cooperative-groups tiles of 8: per-lane masks, one instruction
  Tiles4,
  EveryThird,   // lanes 0, 3, 6... run it, the rest skip it
  Lane13,       // one lane alone
};

Scenario make_scenario(std::string name, Layout layout, const std::function<uint64_t(uint32_t)>& value,
                       uint32_t lanes = 32) {
  Scenario s;
  s.name = std::move(name);
  s.lanes = lanes;
  for (uint32_t l = 0; l < 32; ++l) {
    s.value[l] = value(l);
    uint32_t path = 1, mask = 0xffffffffu;
    switch (layout) {
      case Layout::Whole: break;
      case Layout::Halves:
        path = l < 16 ? 1 : 2;
        mask = l < 16 ? 0x0000ffffu : 0xffff0000u;
        break;
      case Layout::Interleaved:
        path = l % 2 ? 2 : 1;
        mask = l % 2 ? 0xaaaaaaaau : 0x55555555u;
        break;
      case Layout::Tiles8: mask = 0xffu << (l & ~7u); break;
      case Layout::Tiles4: mask = 0xfu << (l & ~3u); break;
      case Layout::EveryThird:
        path = l % 3 == 0 ? 1 : 0;
        mask = 0x49249249u;
        break;
      case Layout::Lane13:
        path = l == 13 ? 1 : 0;
        mask = bit(13);
        break;
    }
    s.path[l] = l < lanes ? path : 0;
    s.mask[l] = mask;
  }
  return s;
}

// The lanes whose values `lane`'s collective combines: the existing lanes of
// its membermask that run the same branch (as the ISA puts it, the non-exited
// threads in membermask, all of which execute the instruction).
uint32_t participants(const Scenario& s, uint32_t lane) {
  uint32_t m = 0;
  for (uint32_t j = 0; j < s.lanes; ++j)
    if ((s.mask[lane] >> j & 1) && s.path[j] == s.path[lane]) m |= bit(j);
  return m;
}

// Expected output words of one participating lane.
using Model = std::function<std::vector<uint32_t>(const Scenario&, uint32_t lane, uint32_t members)>;

// A kernel running `body` in two branches of a divergent if/else. In the
// body: %r6 = the value's low 32 bits, %rd20 = the 64-bit value, %r7 = the
// membermask, %rd10 = this thread's output words; %r9.. and %p2.. are free.
std::string collective_kernel(const std::string& name, uint32_t outputs, const std::string& body) {
  return fmt::format(R"(
.visible .entry {0}(.param .u64 pval, .param .u64 pmask, .param .u64 ppath, .param .u64 pout)
{{
  .reg .pred %p<12>; .reg .b32 %r<40>; .reg .b64 %rd<24>;
  ld.param.u64 %rd1, [pval]; ld.param.u64 %rd2, [pmask];
  ld.param.u64 %rd3, [ppath]; ld.param.u64 %rd4, [pout];
  {1}
  mul.wide.u32 %rd5, %r4, 8; add.s64 %rd6, %rd1, %rd5;
  ld.global.u64 %rd20, [%rd6];
  ld.global.u32 %r6, [%rd6];
  mul.wide.u32 %rd7, %r4, 4;
  add.s64 %rd8, %rd2, %rd7; ld.global.u32 %r7, [%rd8];
  add.s64 %rd9, %rd3, %rd7; ld.global.u32 %r8, [%rd9];
  mul.wide.u32 %rd11, %r4, {2}; add.s64 %rd10, %rd4, %rd11;
  setp.eq.u32 %p1, %r8, 1;
  @%p1 bra PATH1;
  setp.eq.u32 %p1, %r8, 2;
  @%p1 bra PATH2;
  bra DONE;
PATH1:
{3}  bra DONE;
PATH2:
{3}DONE:
  ret;
}}
)",
                     name, kPrologue, 4 * outputs, body);
}

// Runs one warp per scenario (in one block) and checks every output word.
void check_collective(testing::Loaded& l, const std::string& kernel, uint32_t outputs,
                      const std::vector<Scenario>& scenarios, const Model& model) {
  const uint32_t warps = static_cast<uint32_t>(scenarios.size());
  const uint32_t threads = 32 * (warps - 1) + scenarios.back().lanes;
  std::vector<uint64_t> value(threads);
  std::vector<uint32_t> mask(threads), path(threads);
  for (uint32_t w = 0; w < warps; ++w) {
    const Scenario& s = scenarios[w];
    ASSERT_TRUE(s.lanes == 32 || w + 1 == warps) << "only the last warp can be partial";
    for (uint32_t lane = 0; lane < s.lanes; ++lane) {
      if (s.path[lane]) {  // the test's own inputs must be the defined case
        ASSERT_TRUE(s.mask[lane] >> lane & 1) << s.name;
        for (uint32_t j = 0; j < s.lanes; ++j)
          if (s.mask[lane] >> j & 1) {
            ASSERT_EQ(s.path[j], s.path[lane]) << s.name << " lane " << lane;
          }
      }
      value[32 * w + lane] = s.value[lane];
      mask[32 * w + lane] = s.mask[lane];
      path[32 * w + lane] = s.path[lane];
    }
  }
  Device& dev = l.device;
  uint64_t dv = upload(dev, value), dm = upload(dev, mask), dpath = upload(dev, path);
  uint64_t dout = upload(dev, std::vector<uint32_t>(size_t{threads} * outputs, kSentinel));
  auto r = run(l, kernel, {1}, {threads}, {param_bytes(dv), param_bytes(dm), param_bytes(dpath), param_bytes(dout)});
  ASSERT_TRUE(r.ok()) << fault_of(r);
  auto out = download(dev, dout, size_t{threads} * outputs);
  for (uint32_t w = 0; w < warps; ++w) {
    const Scenario& s = scenarios[w];
    for (uint32_t lane = 0; lane < s.lanes; ++lane) {
      const uint32_t* got = &out[size_t{32 * w + lane} * outputs];
      std::vector<uint32_t> want(outputs, kSentinel);
      if (s.path[lane]) want = model(s, lane, participants(s, lane));
      for (uint32_t k = 0; k < outputs; ++k)
        EXPECT_EQ(got[k], want[k]) << fmt::format("{}: {} lane {}, output {}", kernel, s.name, lane, k);
    }
  }
}

uint64_t random_bits(uint32_t seed, uint32_t lane) {
  Rng r{seed * 2654435761u + lane * 40503u + 1};
  r.next();
  return r.next();
}

// ---- vote.sync ----------------------------------------------------------------

TEST(WarpOps, VoteSyncAllAnyUniBallot) {
  // Predicate a = (value != 0); every mode with a and with !a.
  std::string body;
  body += "  setp.ne.u32 %p2, %r6, 0;\n";
  const char* modes[] = {"all.pred", "any.pred", "uni.pred"};
  int k = 0;
  for (const char* neg : {"", "!"}) {
    for (const char* m : modes)
      body += fmt::format("  vote.sync.{} %p3, {}%p2, %r7;\n  selp.u32 %r9, 1, 0, %p3;\n  st.global.u32 [%rd10+{}], %r9;\n",
                          m, neg, 4 * k++);
    body += fmt::format("  vote.sync.ballot.b32 %r9, {}%p2, %r7;\n  st.global.u32 [%rd10+{}], %r9;\n", neg, 4 * k++);
  }
  auto l = load(collective_kernel("vote", 8, body));
  auto random_votes = [](uint32_t seed) {
    return [seed](uint32_t lane) -> uint64_t { return random_bits(seed, lane) & 1; };
  };
  const std::vector<Scenario> scenarios = {
      make_scenario("whole warp, mixed votes", Layout::Whole, random_votes(1)),
      make_scenario("whole warp, all true", Layout::Whole, [](uint32_t) { return 1u; }),
      make_scenario("whole warp, all false", Layout::Whole, [](uint32_t) { return 0u; }),
      make_scenario("if/else halves", Layout::Halves, [](uint32_t l) { return l < 16 ? 1u : l % 5 == 0; }),
      make_scenario("interleaved if/else", Layout::Interleaved, [](uint32_t l) { return l % 2 ? 0u : l < 20; }),
      make_scenario("tiles of 8", Layout::Tiles8, [](uint32_t l) { return l < 8 ? 1u : l < 16 ? 0u : l % 3 == 0; }),
      make_scenario("tiles of 4", Layout::Tiles4, random_votes(2)),
      make_scenario("every third lane", Layout::EveryThird, random_votes(3)),
      make_scenario("one lane", Layout::Lane13, [](uint32_t) { return 1u; }),
      make_scenario("partial last warp, full membermask", Layout::Whole, random_votes(4), 20),
  };
  check_collective(*l, "vote", 8, scenarios, [](const Scenario& s, uint32_t, uint32_t members) {
    std::vector<uint32_t> out;
    for (bool negate : {false, true}) {
      bool all = true, any = false;
      uint32_t ballot = 0;
      for (uint32_t j = 0; j < 32; ++j) {
        if (!(members >> j & 1)) continue;
        const bool a = (s.value[j] != 0) != negate;
        all = all && a;
        any = any || a;
        if (a) ballot |= bit(j);
      }
      const bool uni = all || !any;
      out.insert(out.end(), {all ? 1u : 0u, any ? 1u : 0u, uni ? 1u : 0u, ballot});
    }
    return out;
  });
}

// ---- match.sync -----------------------------------------------------------------

TEST(WarpOps, MatchSyncAnyAndAllB32B64) {
  const std::string body = R"(
  match.any.sync.b32 %r9, %r6, %r7;
  match.all.sync.b32 %r10|%p2, %r6, %r7;
  selp.u32 %r11, 1, 0, %p2;
  match.any.sync.b64 %r12, %rd20, %r7;
  match.all.sync.b64 %r13|%p3, %rd20, %r7;
  selp.u32 %r14, 1, 0, %p3;
  match.all.sync.b64 _|%p4, %rd20, %r7;
  selp.u32 %r15, 1, 0, %p4;
  match.all.sync.b32 %r16|_, %r6, %r7;
  match.all.sync.b64 %r17, %rd20, %r7;
  st.global.u32 [%rd10], %r9;
  st.global.u32 [%rd10+4], %r10;
  st.global.u32 [%rd10+8], %r11;
  st.global.u32 [%rd10+12], %r12;
  st.global.u32 [%rd10+16], %r13;
  st.global.u32 [%rd10+20], %r14;
  st.global.u32 [%rd10+24], %r15;
  st.global.u32 [%rd10+28], %r16;
  st.global.u32 [%rd10+32], %r17;
)";
  auto l = load(collective_kernel("match", 9, body));
  auto groups_of = [](uint32_t n) {
    return [n](uint32_t lane) -> uint64_t { return 0x100000001ull * (lane / n + 1); };
  };
  const std::vector<Scenario> scenarios = {
      make_scenario("groups of 4", Layout::Whole, groups_of(4)),
      make_scenario("all equal", Layout::Whole, [](uint32_t) { return 0x123456789abcdef0ull; }),
      // Equal low words, high words in three groups: b32 sees one value.
      make_scenario("high words differ", Layout::Whole,
                    [](uint32_t l) { return uint64_t{l % 3} << 32 | 0x77u; }),
      make_scenario("all distinct", Layout::Whole, [](uint32_t l) { return random_bits(5, l) | l; }),
      make_scenario("tiles of 8", Layout::Tiles8,
                    [](uint32_t l) -> uint64_t { return l < 16 ? l / 8 : l < 24 ? l / 2 : l; }),
      make_scenario("if/else halves, uniform within each", Layout::Halves,
                    [](uint32_t l) -> uint64_t { return l < 16 ? 5 : 6; }),
      make_scenario("interleaved if/else", Layout::Interleaved,
                    [](uint32_t l) -> uint64_t { return l % 2 ? 9 : l % 4; }),
      make_scenario("every third lane, equal", Layout::EveryThird, [](uint32_t) { return 42u; }),
      make_scenario("one lane", Layout::Lane13, [](uint32_t l) { return uint64_t{l}; }),
      // Lanes 20..31 do not exist: match.all's mask holds only the 20 real lanes.
      make_scenario("partial last warp, full membermask", Layout::Whole,
                    [](uint32_t) { return 0xfeedull << 32; }, 20),
  };
  check_collective(*l, "match", 9, scenarios, [](const Scenario& s, uint32_t lane, uint32_t members) {
    // .any: the non-exited members with my value; .all: every non-exited
    // member if they all agree (else 0), and p.
    auto match = [&](uint64_t keep) {
      uint32_t any = 0;
      bool all = true;
      for (uint32_t j = 0; j < 32; ++j) {
        if (!(members >> j & 1)) continue;
        if ((s.value[j] & keep) == (s.value[lane] & keep)) any |= bit(j);
        else all = false;
      }
      return std::pair{any, all};
    };
    auto [any32, all32] = match(0xffffffffull);
    auto [any64, all64] = match(~0ull);
    return std::vector<uint32_t>{any32, all32 ? members : 0, all32,       any64, all64 ? members : 0,
                                 all64,  all64,              all32 ? members : 0, all64 ? members : 0};
  });
}

// ---- redux.sync ------------------------------------------------------------------

TEST(WarpOps, ReduxSyncIntegerOps) {
  const char* ops[] = {"add.u32", "add.s32", "min.u32", "min.s32", "max.u32",
                       "max.s32", "and.b32", "or.b32",  "xor.b32"};
  std::string body;
  for (size_t k = 0; k < std::size(ops); ++k)
    body += fmt::format("  redux.sync.{} %r9, %r6, %r7;\n  st.global.u32 [%rd10+{}], %r9;\n", ops[k], 4 * k);
  auto l = load(collective_kernel("redux", 9, body));
  const uint32_t extremes[] = {0, 1, 0x7fffffffu, 0x80000000u, 0xffffffffu, 0xfffffffeu, 0x12345678u};
  auto random_values = [](uint32_t seed) {
    return [seed](uint32_t lane) -> uint64_t { return random_bits(seed, lane) & 0xffffffffu; };
  };
  const std::vector<Scenario> scenarios = {
      make_scenario("whole warp, random", Layout::Whole, random_values(11)),
      make_scenario("whole warp, extremes (add wraps; signed and unsigned order differ)", Layout::Whole,
                    [&](uint32_t l) -> uint64_t { return extremes[l % std::size(extremes)]; }),
      make_scenario("whole warp, small negatives", Layout::Whole,
                    [](uint32_t l) -> uint64_t { return static_cast<uint32_t>(-static_cast<int32_t>(l) - 3); }),
      make_scenario("tiles of 8", Layout::Tiles8, random_values(12)),
      make_scenario("if/else halves", Layout::Halves, random_values(13)),
      make_scenario("interleaved if/else", Layout::Interleaved,
                    [&](uint32_t l) -> uint64_t { return extremes[(l * 5) % std::size(extremes)]; }),
      make_scenario("every third lane", Layout::EveryThird, random_values(14)),
      make_scenario("one lane", Layout::Lane13, [](uint32_t) { return 0x80000001ull; }),
      make_scenario("partial last warp, full membermask", Layout::Whole, random_values(15), 20),
  };
  check_collective(*l, "redux", 9, scenarios, [](const Scenario& s, uint32_t, uint32_t members) {
    std::vector<uint32_t> u;
    for (uint32_t j = 0; j < 32; ++j)
      if (members >> j & 1) u.push_back(static_cast<uint32_t>(s.value[j]));
    std::vector<int32_t> si(u.size());
    std::transform(u.begin(), u.end(), si.begin(), [](uint32_t x) { return static_cast<int32_t>(x); });
    uint64_t sum = 0;  // the .add result is the sum truncated to 32 bits
    uint32_t and_v = ~0u, or_v = 0, xor_v = 0;
    for (uint32_t x : u) {
      sum += x;
      and_v &= x;
      or_v |= x;
      xor_v ^= x;
    }
    const uint32_t add = static_cast<uint32_t>(sum);
    return std::vector<uint32_t>{add,
                                 add,
                                 *std::min_element(u.begin(), u.end()),
                                 static_cast<uint32_t>(*std::min_element(si.begin(), si.end())),
                                 *std::max_element(u.begin(), u.end()),
                                 static_cast<uint32_t>(*std::max_element(si.begin(), si.end())),
                                 and_v,
                                 or_v,
                                 xor_v};
  });
}

// redux.sync.{min,max}{.abs}{.NaN}.f32 needs sm_100a. Values travel as .b32
// bit patterns (no float instruction besides redux itself).
TEST(WarpOps, ReduxSyncF32MinMaxAbsNaN) {
  const char* ops[] = {"min", "max", "min.abs", "max.abs", "min.NaN", "max.NaN", "min.abs.NaN", "max.abs.NaN"};
  std::string body;
  for (size_t k = 0; k < std::size(ops); ++k)
    body += fmt::format("  redux.sync.{}.f32 %r9, %r6, %r7;\n  st.global.u32 [%rd10+{}], %r9;\n", ops[k], 4 * k);
  auto l = load(".version 8.6\n.target sm_100a\n.address_size 64\n" + collective_kernel("redux_f32", 8, body),
                /*with_header=*/false);
  auto f = [](float x) -> uint64_t { return std::bit_cast<uint32_t>(x); };
  const uint64_t inf = 0x7f800000u, ninf = 0xff800000u, qnan = 0x7fc00000u, nnan = 0xffc00001u,
                 snan = 0x7f800001u, pz = 0, nz = 0x80000000u, sub = 0x00000005u, nsub = 0x80000007u;
  auto from = [](std::vector<uint64_t> v) {
    return [v](uint32_t lane) { return v[lane % v.size()]; };
  };
  const std::vector<Scenario> scenarios = {
      make_scenario("mixed signs", Layout::Whole, from({f(1.5f), f(-2.25f), f(3.0f), f(-0.5f), f(7.0f), f(-7.5f)})),
      make_scenario("infinities and subnormals", Layout::Whole, from({inf, f(1.0f), ninf, sub, nsub, f(-1e30f)})),
      make_scenario("signed zeros only", Layout::Whole, from({pz, nz, nz, pz})),
      make_scenario("zeros against subnormals", Layout::Whole, from({nz, sub, pz, nsub})),
      make_scenario("one NaN among numbers", Layout::Whole,
                    [&](uint32_t l) { return l == 17 ? nnan : f(static_cast<float>(l) - 10.0f); }),
      make_scenario("quiet and signalling NaNs only", Layout::Whole, from({qnan, nnan, snan})),
      make_scenario("tiles of 8", Layout::Tiles8,
                    [&](uint32_t l) { return l / 8 == 2 ? qnan : f(static_cast<float>(l * 37 % 11) - 5.0f); }),
      make_scenario("if/else halves", Layout::Halves, from({f(-3.0f), f(2.0f), nz, f(-0.25f), inf})),
      make_scenario("every third lane", Layout::EveryThird, from({f(4.0f), snan, f(-4.5f), f(0.125f)})),
      make_scenario("partial last warp", Layout::Whole,
                    [&](uint32_t l) { return f(static_cast<float>(l) * 0.5f - 3.0f); }, 20),
  };
  // The ISA's ordering: numerical, with +0.0 > -0.0.
  auto less = [](uint32_t x, uint32_t y) {
    const float fx = std::bit_cast<float>(x), fy = std::bit_cast<float>(y);
    if (fx != fy) return fx < fy;
    return std::signbit(fx) && !std::signbit(fy);
  };
  check_collective(*l, "redux_f32", 8, scenarios, [&](const Scenario& s, uint32_t, uint32_t members) {
    std::vector<uint32_t> out;
    for (bool nan_mode : {false, true})
      for (bool abs : {false, true})
        for (bool is_max : {false, true}) {
          std::vector<uint32_t> numbers;
          bool saw_nan = false;
          for (uint32_t j = 0; j < 32; ++j) {
            if (!(members >> j & 1)) continue;
            uint32_t x = static_cast<uint32_t>(s.value[j]);
            if (abs) x &= 0x7fffffffu;
            if (std::isnan(std::bit_cast<float>(x))) saw_nan = true;
            else numbers.push_back(x);
          }
          if ((nan_mode && saw_nan) || numbers.empty()) out.push_back(kCanonicalNaN);
          else out.push_back(is_max ? *std::max_element(numbers.begin(), numbers.end(), less)
                                    : *std::min_element(numbers.begin(), numbers.end(), less));
        }
    return out;  // nested NaN / abs / max: the kernel's op order
  });
}

// ---- elect.sync ------------------------------------------------------------------

TEST(WarpOps, ElectSyncFullAndPartialMembermasks) {
  const std::string body = R"(
  elect.sync %r9|%p2, %r7;
  selp.u32 %r10, 1, 0, %p2;
  elect.sync _|%p3, %r7;
  selp.u32 %r11, 1, 0, %p3;
  elect.sync %r12|_, %r7;
  st.global.u32 [%rd10], %r9;
  st.global.u32 [%rd10+4], %r10;
  st.global.u32 [%rd10+8], %r11;
  st.global.u32 [%rd10+12], %r12;
)";
  auto l = load(collective_kernel("elect", 4, body));
  auto zero = [](uint32_t) -> uint64_t { return 0; };
  const std::vector<Scenario> scenarios = {
      make_scenario("whole warp", Layout::Whole, zero),
      make_scenario("tiles of 8", Layout::Tiles8, zero),
      make_scenario("tiles of 4", Layout::Tiles4, zero),
      make_scenario("if/else halves", Layout::Halves, zero),
      make_scenario("interleaved if/else", Layout::Interleaved, zero),
      make_scenario("every third lane", Layout::EveryThird, zero),
      make_scenario("one lane", Layout::Lane13, zero),
      make_scenario("partial last warp, full membermask", Layout::Whole, zero, 20),
  };
  // PTX only promises a deterministic leader; warpsim (like hardware) elects
  // the lowest lane of the group.
  check_collective(*l, "elect", 4, scenarios, [](const Scenario&, uint32_t lane, uint32_t members) {
    const uint32_t leader = static_cast<uint32_t>(std::countr_zero(members));
    return std::vector<uint32_t>{leader, lane == leader, lane == leader, leader};
  });
}

// Exited lanes are not "non-exited threads in membermask": collectives with
// a full membermask after some lanes exited cover only the remaining lanes.
TEST(WarpOps, CollectivesAfterLanesExited) {
  auto l = load(fmt::format(R"(
.visible .entry k(.param .u64 pout)
{{
  .reg .pred %p<8>; .reg .b32 %r<24>; .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [pout];
  {}
  mul.wide.u32 %rd2, %r4, 32; add.s64 %rd3, %rd1, %rd2;
  setp.lt.u32 %p1, %r5, 4;
  @%p1 exit;
  setp.ge.u32 %p1, %r5, 28;
  @%p1 ret;                        // ret from the kernel exits too
  mov.u32 %r6, 42;
  match.all.sync.b32 %r7|%p2, %r6, 0xffffffff;
  selp.u32 %r8, 1, 0, %p2;
  match.any.sync.b32 %r9, %r6, 0xffffffff;
  setp.eq.u32 %p3, %r5, %r5;
  vote.sync.ballot.b32 %r10, %p3, 0xffffffff;
  redux.sync.add.u32 %r11, %r5, 0xffffffff;
  activemask.b32 %r12;
  elect.sync %r13|%p4, %r12;
  selp.u32 %r14, 1, 0, %p4;
  st.global.v4.u32 [%rd3], {{%r7, %r8, %r9, %r10}};
  st.global.v4.u32 [%rd3+16], {{%r11, %r12, %r13, %r14}};
  ret;
}}
)",
                            kPrologue));
  const uint32_t threads = 64;
  uint64_t dout = upload(l->device, std::vector<uint32_t>(8 * threads, kSentinel));
  auto r = run(*l, "k", {1}, {threads}, {param_bytes(dout)});
  ASSERT_TRUE(r.ok()) << fault_of(r);
  auto out = download(l->device, dout, 8 * threads);
  const uint32_t alive = 0x0ffffff0u;
  uint32_t lane_sum = 0;
  for (uint32_t j = 4; j < 28; ++j) lane_sum += j;
  for (uint32_t t = 0; t < threads; ++t) {
    const uint32_t lane = t % 32;
    std::vector<uint32_t> want(8, kSentinel);
    if (lane >= 4 && lane < 28) want = {alive, 1, alive, alive, lane_sum, alive, 4, lane == 4};
    for (uint32_t k = 0; k < 8; ++k) EXPECT_EQ(out[8 * t + k], want[k]) << "thread " << t << " output " << k;
  }
}

// ============================================================================
// activemask
// ============================================================================

TEST(WarpOps, ActivemaskInNestedDivergenceAndUnderGuards) {
  auto l = load(fmt::format(R"(
.visible .entry k(.param .u64 pout)
{{
  .reg .pred %p<8>; .reg .b32 %r<16>; .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [pout];
  {}
  mul.wide.u32 %rd2, %r4, 16; add.s64 %rd3, %rd1, %rd2;
  setp.eq.u32 %p1, %r5, 30;
  @%p1 exit;                       // lane 30 leaves first
  activemask.b32 %r6;
  st.global.u32 [%rd3], %r6;       // 0: converged
  and.b32 %r7, %r5, 3;
  setp.eq.u32 %p2, %r7, 0;         // lane % 4 == 0
  setp.lt.u32 %p3, %r5, 12;
  @%p3 bra LOW;
  and.b32 %r8, %r5, 1;
  setp.eq.u32 %p4, %r8, 0;
  @%p4 bra HIGH_EVEN;
  activemask.b32 %r6;              // 1: odd lanes >= 12
  st.global.u32 [%rd3+4], %r6;
  bra JOIN;
HIGH_EVEN:
  activemask.b32 %r6;              // 1: even lanes >= 12
  st.global.u32 [%rd3+4], %r6;
  @%p2 activemask.b32 %r9;         // 2: and of those, lane % 4 == 0
  @%p2 st.global.u32 [%rd3+8], %r9;
  bra JOIN;
LOW:
  activemask.b32 %r6;              // 1: lanes < 12
  st.global.u32 [%rd3+4], %r6;
  @!%p2 activemask.b32 %r9;        // 2: and of those, lane % 4 != 0
  @!%p2 st.global.u32 [%rd3+8], %r9;
JOIN:
  activemask.b32 %r6;              // 3: reconverged
  st.global.u32 [%rd3+12], %r6;
  ret;
}}
)",
                            kPrologue));
  const uint32_t grid = 2, block = 52;  // warp 1 of each block has 20 lanes
  uint64_t dout = upload(l->device, std::vector<uint32_t>(4 * grid * block, kSentinel));
  auto r = run(*l, "k", {grid}, {block}, {param_bytes(dout)});
  ASSERT_TRUE(r.ok()) << fault_of(r);
  auto out = download(l->device, dout, 4 * grid * block);
  for (uint32_t t = 0; t < grid * block; ++t) {
    const uint32_t tid = t % block, lane = tid % 32;
    const uint32_t alive = lanes_below(std::min(32u, block - (tid - lane))) & ~bit(30);
    auto lanes_where = [&](auto pred) {
      uint32_t m = 0;
      for (uint32_t j = 0; j < 32; ++j)
        if ((alive >> j & 1) && pred(j)) m |= bit(j);
      return m;
    };
    auto same_path = [&](uint32_t j) { return (j < 12) == (lane < 12) && (lane < 12 || j % 2 == lane % 2); };
    std::vector<uint32_t> want(4, kSentinel);
    if (lane != 30) {
      want[0] = want[3] = alive;
      want[1] = lanes_where(same_path);
      if (lane < 12 && lane % 4 != 0) want[2] = lanes_where([&](uint32_t j) { return same_path(j) && j % 4 != 0; });
      if (lane >= 12 && lane % 4 == 0) want[2] = lanes_where([&](uint32_t j) { return same_path(j) && j % 4 == 0; });
    }
    for (uint32_t k = 0; k < 4; ++k) EXPECT_EQ(out[4 * t + k], want[k]) << "thread " << t << " slot " << k;
  }
}

// ============================================================================
// Realistic warp algorithms over many blocks
// ============================================================================

// CUB-style WarpReduce: shfl.sync.down clamped at the last valid lane (so a
// partial warp never reads a missing lane), result in lane 0; plus a
// butterfly all-reduce (sum and max) that leaves the result in every lane.
TEST(WarpOps, WarpReduceLikeCub) {
  auto l = load(fmt::format(R"(
.visible .entry reduce(.param .u64 pin, .param .u64 psum, .param .u64 pall)
{{
  .reg .pred %p<4>; .reg .b32 %r<24>; .reg .b64 %rd<12>;
  ld.param.u64 %rd1, [pin]; ld.param.u64 %rd2, [psum]; ld.param.u64 %rd3, [pall];
  {}
  mul.wide.u32 %rd4, %r4, 4; add.s64 %rd5, %rd1, %rd4; ld.global.u32 %r6, [%rd5];
  activemask.b32 %r7;
  popc.b32 %r8, %r7;               // valid lanes
  sub.u32 %r9, %r8, 1;             // c: clamp at the last one, no segments
  mov.u32 %r10, %r6;
  mov.u32 %r11, 1;
DOWN:
  shfl.sync.down.b32 %r12|%p1, %r10, %r11, %r9, %r7;
  @%p1 add.u32 %r10, %r10, %r12;
  shl.b32 %r11, %r11, 1;
  setp.lt.u32 %p2, %r11, %r8;
  @%p2 bra DOWN;
  setp.ne.u32 %p3, %r5, 0;
  @%p3 bra ALL;
  shr.u32 %r13, %r1, 5;            // warp in block
  add.u32 %r14, %r3, 31;
  shr.u32 %r14, %r14, 5;           // warps per block
  mad.lo.u32 %r15, %r2, %r14, %r13;
  mul.wide.u32 %rd6, %r15, 4; add.s64 %rd7, %rd2, %rd6;
  st.global.u32 [%rd7], %r10;
ALL:
  mov.u32 %r16, %r6;
  mov.u32 %r17, %r6;
  mov.u32 %r18, 16;
BFLY:
  shfl.sync.bfly.b32 %r19, %r16, %r18, 0x1f, 0xffffffff;
  add.u32 %r16, %r16, %r19;
  shfl.sync.bfly.b32 %r20, %r17, %r18, 0x1f, 0xffffffff;
  max.u32 %r17, %r17, %r20;
  shr.u32 %r18, %r18, 1;
  setp.ne.u32 %p2, %r18, 0;
  @%p2 bra BFLY;
  mul.wide.u32 %rd8, %r4, 8; add.s64 %rd9, %rd3, %rd8;
  st.global.v2.u32 [%rd9], {{%r16, %r17}};
  ret;
}}
)",
                            kPrologue));
  const uint32_t grid = 40, block = 100, warps_per_block = 4, threads = grid * block;
  Rng rng{2024};
  std::vector<uint32_t> in(threads);
  for (uint32_t& v : in) v = rng.next();  // sums wrap, as u32 arithmetic does
  uint64_t din = upload(l->device, in);
  uint64_t dsum = upload(l->device, std::vector<uint32_t>(grid * warps_per_block, kSentinel));
  uint64_t dall = upload(l->device, std::vector<uint32_t>(2 * threads, kSentinel));
  auto r = run(*l, "reduce", {grid}, {block}, {param_bytes(din), param_bytes(dsum), param_bytes(dall)});
  ASSERT_TRUE(r.ok()) << fault_of(r);
  auto sums = download(l->device, dsum, grid * warps_per_block);
  auto all = download(l->device, dall, 2 * threads);
  for (uint32_t b = 0; b < grid; ++b)
    for (uint32_t w = 0; w < warps_per_block; ++w) {
      const uint32_t first = b * block + 32 * w, count = std::min(32u, block - 32 * w);
      uint32_t sum = 0, max = 0;
      for (uint32_t j = 0; j < count; ++j) {
        sum += in[first + j];
        max = std::max(max, in[first + j]);
      }
      EXPECT_EQ(sums[b * warps_per_block + w], sum) << "block " << b << " warp " << w;
      if (count < 32) continue;  // the butterfly reads missing lanes of a partial warp
      for (uint32_t j = 0; j < 32; ++j) {
        ASSERT_EQ(all[2 * (first + j)], sum) << "block " << b << " warp " << w << " lane " << j;
        ASSERT_EQ(all[2 * (first + j) + 1], max) << "block " << b << " warp " << w << " lane " << j;
      }
    }
}

// Warp-level inclusive and exclusive prefix sums with shfl.sync.up, over the
// whole warp and within 8-lane segments (__shfl_up_sync(mask, v, d, 8)).
TEST(WarpOps, WarpPrefixScanWithShflUp) {
  auto l = load(fmt::format(R"(
.visible .entry scan(.param .u64 pin, .param .u64 pout)
{{
  .reg .pred %p<4>; .reg .b32 %r<24>; .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [pin]; ld.param.u64 %rd2, [pout];
  {}
  mul.wide.u32 %rd3, %r4, 4; add.s64 %rd3, %rd1, %rd3; ld.global.u32 %r6, [%rd3];
  mov.u32 %r10, %r6;
  mov.u32 %r11, 1;
UP:
  shfl.sync.up.b32 %r12|%p1, %r10, %r11, 0, 0xffffffff;
  @%p1 add.u32 %r10, %r10, %r12;
  shl.b32 %r11, %r11, 1;
  setp.lt.u32 %p2, %r11, 32;
  @%p2 bra UP;
  shfl.sync.up.b32 %r13|%p1, %r10, 1, 0, 0xffffffff;
  @!%p1 mov.u32 %r13, 0;           // exclusive: lane 0 gets the identity
  mov.u32 %r14, %r6;
  mov.u32 %r11, 1;
UP8:
  shfl.sync.up.b32 %r12|%p1, %r14, %r11, 0x1800, 0xffffffff;
  @%p1 add.u32 %r14, %r14, %r12;
  shl.b32 %r11, %r11, 1;
  setp.lt.u32 %p2, %r11, 8;
  @%p2 bra UP8;
  mul.wide.u32 %rd4, %r4, 12; add.s64 %rd4, %rd2, %rd4;
  st.global.u32 [%rd4], %r10;
  st.global.u32 [%rd4+4], %r13;
  st.global.u32 [%rd4+8], %r14;
  ret;
}}
)",
                            kPrologue));
  const uint32_t grid = 64, block = 128, threads = grid * block;
  Rng rng{31337};
  std::vector<uint32_t> in(threads);
  for (uint32_t& v : in) v = rng.next() % 100000;
  uint64_t din = upload(l->device, in), dout = upload(l->device, std::vector<uint32_t>(3 * threads, kSentinel));
  auto r = run(*l, "scan", {grid}, {block}, {param_bytes(din), param_bytes(dout)});
  ASSERT_TRUE(r.ok()) << fault_of(r);
  auto out = download(l->device, dout, 3 * threads);
  for (uint32_t t = 0; t < threads; ++t) {
    const uint32_t lane = t % 32;
    uint32_t inclusive = 0, segment = 0;
    for (uint32_t j = t - lane; j <= t; ++j) inclusive += in[j];
    for (uint32_t j = t - lane % 8; j <= t; ++j) segment += in[j];
    ASSERT_EQ(out[3 * t], inclusive) << "thread " << t;
    ASSERT_EQ(out[3 * t + 1], inclusive - in[t]) << "thread " << t;
    ASSERT_EQ(out[3 * t + 2], segment) << "thread " << t;
  }
}

// ============================================================================
// bar.warp.sync
// ============================================================================

// Each half of a diverged warp exchanges values through shared memory behind
// its own bar.warp.sync (immediate and register membermasks), then the
// reconverged warp syncs as a whole and reads the other half's values. A
// guarded-off bar.warp.sync is skipped.
TEST(WarpOps, BarWarpSyncInDivergentRegions) {
  auto l = load(fmt::format(R"(
.visible .entry k(.param .u64 pout)
{{
  .reg .pred %p<4>; .reg .b32 %r<20>; .reg .b64 %rd<4>;
  .shared .align 4 .b32 buf[64];
  ld.param.u64 %rd1, [pout];
  {}
  mov.u32 %r6, buf;
  shl.b32 %r7, %r1, 2; add.u32 %r7, %r6, %r7;              // &buf[tid]
  xor.b32 %r8, %r1, 5; shl.b32 %r8, %r8, 2; add.u32 %r8, %r6, %r8;     // &buf[tid ^ 5]: same half
  xor.b32 %r9, %r1, 16; shl.b32 %r9, %r9, 2; add.u32 %r9, %r6, %r9;    // &buf[tid ^ 16]: other half
  mul.wide.u32 %rd2, %r4, 12; add.s64 %rd3, %rd1, %rd2;
  setp.lt.u32 %p1, %r5, 16;
  @%p1 bra LOW;
  mad.lo.u32 %r10, %r4, 3, 1;
  st.shared.u32 [%r7], %r10;
  bar.warp.sync 0xffff0000;
  ld.shared.u32 %r11, [%r8];
  bra JOIN;
LOW:
  mad.lo.u32 %r10, %r4, 3, 2;
  st.shared.u32 [%r7], %r10;
  activemask.b32 %r12;
  bar.warp.sync %r12;
  ld.shared.u32 %r11, [%r8];
JOIN:
  bar.warp.sync 0xffffffff;
  ld.shared.u32 %r13, [%r9];
  setp.gt.u32 %p2, %r5, 40;
  @%p2 bar.warp.sync 0;
  st.global.u32 [%rd3], %r11;
  st.global.u32 [%rd3+4], %r13;
  st.global.u32 [%rd3+8], %r5;
  ret;
}}
)",
                            kPrologue));
  const uint32_t grid = 4, block = 64, threads = grid * block;
  uint64_t dout = upload(l->device, std::vector<uint32_t>(3 * threads, kSentinel));
  auto r = run(*l, "k", {grid}, {block}, {param_bytes(dout)});
  ASSERT_TRUE(r.ok()) << fault_of(r);
  auto out = download(l->device, dout, 3 * threads);
  auto stored = [&](uint32_t t) { return 3 * t + (t % 32 < 16 ? 2 : 1); };
  for (uint32_t t = 0; t < threads; ++t) {
    const uint32_t base = t - t % block, tid = t % block;
    EXPECT_EQ(out[3 * t], stored(base + (tid ^ 5))) << "thread " << t;
    EXPECT_EQ(out[3 * t + 1], stored(base + (tid ^ 16))) << "thread " << t;
    EXPECT_EQ(out[3 * t + 2], t % 32) << "thread " << t;
  }
}

}  // namespace
}  // namespace warpsim::functional
