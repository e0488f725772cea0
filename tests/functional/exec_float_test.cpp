// Floating-point instructions executed through the device, checked against
// the host's IEEE arithmetic and hand-computed bit patterns (independent of
// functional/fp, which has its own tests).
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <limits>
#include <vector>

#include "functional/device.h"
#include "tests/functional/exec_test_util.h"

namespace warpsim::functional {
namespace {

using namespace testing;  // load, upload, run, download, run_lanes

uint32_t fb(float f) { return std::bit_cast<uint32_t>(f); }
float bf(uint32_t u) { return std::bit_cast<float>(u); }
uint64_t db(double d) { return std::bit_cast<uint64_t>(d); }

constexpr uint32_t kCanonicalNaN = 0x7fffffffu;
const float kInf = std::numeric_limits<float>::infinity();

// Operand pairs covering signs, zeros, subnormals, infinities and values
// whose sums/products round.
std::vector<float> edge_a() {
  return {1.0f, -2.5f, 0.0f, -0.0f, 1e-40f, 3.4e38f, kInf, -kInf, 1.0f, 0.1f, 1e10f, -7.25f, 5e-39f, 123.456f};
}
std::vector<float> edge_b() {
  return {2.0f, 0.5f, -0.0f, -0.0f, 1e-40f, 3.4e38f, 1.0f, kInf, 5.96046448e-8f, 0.2f, -1e10f, 3.0f, -5e-39f, 0.001f};
}

std::vector<uint32_t> bits(const std::vector<float>& v) {
  std::vector<uint32_t> r;
  for (float f : v) r.push_back(fb(f));
  return r;
}

TEST(ExecFloat, F32AddSubMulRoundToNearestMatchTheHost) {
  const auto a = edge_a(), b = edge_b();
  const std::vector<uint32_t> zero(a.size(), 0);
  auto add = run_lanes("  add.f32 %r4, %r1, %r2;", bits(a), bits(b), zero);
  auto sub = run_lanes("  sub.rn.f32 %r4, %r1, %r2;", bits(a), bits(b), zero);
  auto mul = run_lanes("  mul.f32 %r4, %r1, %r2;", bits(a), bits(b), zero);
  for (size_t i = 0; i < a.size(); ++i) {
    auto want = [](float r) { return std::isnan(r) ? kCanonicalNaN : fb(r); };
    EXPECT_EQ(add[i], want(a[i] + b[i])) << i;
    EXPECT_EQ(sub[i], want(a[i] - b[i])) << i;
    EXPECT_EQ(mul[i], want(a[i] * b[i])) << i;
  }
  // inf + -inf is the canonical NaN whatever the host produces.
  EXPECT_EQ(add[7], kCanonicalNaN);
}

TEST(ExecFloat, DirectedRoundingModes) {
  // 1 + 2^-24 is exactly halfway: rn gives 1 (even), rp 1 + 2^-23; rz and rm 1.
  // -1 - 2^-24: rm gives -(1 + 2^-23), rz and rp -1.
  const std::vector<uint32_t> a = {fb(1.0f), fb(-1.0f)}, b = {fb(0x1p-24f), fb(-0x1p-24f)}, c(2, 0);
  auto rn = run_lanes("  add.rn.f32 %r4, %r1, %r2;", a, b, c);
  auto rz = run_lanes("  add.rz.f32 %r4, %r1, %r2;", a, b, c);
  auto rm = run_lanes("  add.rm.f32 %r4, %r1, %r2;", a, b, c);
  auto rp = run_lanes("  add.rp.f32 %r4, %r1, %r2;", a, b, c);
  const uint32_t up = fb(1.0f) + 1;
  EXPECT_EQ(rn, (std::vector<uint32_t>{fb(1.0f), fb(-1.0f)}));
  EXPECT_EQ(rz, (std::vector<uint32_t>{fb(1.0f), fb(-1.0f)}));
  EXPECT_EQ(rm, (std::vector<uint32_t>{fb(1.0f), up | 0x80000000u}));
  EXPECT_EQ(rp, (std::vector<uint32_t>{up, fb(-1.0f)}));
  // Products: 3 * (1 + 2^-23) = 3 + 3*2^-23 needs rounding (ulp at 3 is 2^-22).
  const std::vector<uint32_t> x = {fb(3.0f)}, y = {fb(1.0f) + 1}, z = {0};
  EXPECT_EQ(run_lanes("  mul.rz.f32 %r4, %r1, %r2;", x, y, z)[0], fb(3.0f) + 1);
  EXPECT_EQ(run_lanes("  mul.rp.f32 %r4, %r1, %r2;", x, y, z)[0], fb(3.0f) + 2);
  // f64: 1 + 2^-53 under rp is the next double.
  const std::vector<uint64_t> da = {db(1.0)}, dbv = {db(0x1p-53)}, dc = {0};
  EXPECT_EQ(run_lanes<uint64_t>("  add.rp.f64 %rd4, %rd1, %rd2;", da, dbv, dc)[0], db(1.0) + 1);
  EXPECT_EQ(run_lanes<uint64_t>("  add.rn.f64 %rd4, %rd1, %rd2;", da, dbv, dc)[0], db(1.0));
}

TEST(ExecFloat, FusedMultiplyAddRoundsOnce) {
  // (1 + 2^-12)^2 - 1 - 2^-11 = 2^-24 exactly with one rounding; 0 with two.
  const float x = 1.0f + 0x1p-12f;
  const std::vector<uint32_t> a = {fb(x)}, b = {fb(x)}, c = {fb(-(1.0f + 0x1p-11f))};
  EXPECT_EQ(run_lanes("  fma.rn.f32 %r4, %r1, %r2, %r3;", a, b, c)[0], fb(0x1p-24f));
  EXPECT_EQ(run_lanes("  mad.rn.f32 %r4, %r1, %r2, %r3;", a, b, c)[0], fb(0x1p-24f));
  EXPECT_EQ(run_lanes("  mul.rn.f32 %r6, %r1, %r2; add.rn.f32 %r4, %r6, %r3;", a, b, c)[0], 0u);
  const double dx = 1.0 + 0x1p-27;
  const std::vector<uint64_t> da = {db(dx)}, dc = {db(-(1.0 + 0x1p-26))};
  EXPECT_EQ(run_lanes<uint64_t>("  fma.rn.f64 %rd4, %rd1, %rd2, %rd3;", da, da, dc)[0], db(0x1p-54));
}

TEST(ExecFloat, DivisionSqrtReciprocal) {
  const std::vector<float> a = {1.0f, 2.0f, -9.0f, 0.0f, 1.0f, 7.0f, -0.0f};
  const std::vector<float> b = {3.0f, 0.0f, 4.0f, 0.0f, -kInf, 1e-3f, 5.0f};
  const std::vector<uint32_t> zero(a.size(), 0);
  auto rn = run_lanes("  div.rn.f32 %r4, %r1, %r2;", bits(a), bits(b), zero);
  auto full = run_lanes("  div.full.f32 %r4, %r1, %r2;", bits(a), bits(b), zero);
  auto approx = run_lanes("  div.approx.f32 %r4, %r1, %r2;", bits(a), bits(b), zero);
  for (size_t i = 0; i < a.size(); ++i) {
    const float q = a[i] / b[i];
    EXPECT_EQ(rn[i], std::isnan(q) ? kCanonicalNaN : fb(q)) << i;
    if (std::isnan(q)) continue;
    EXPECT_LE(std::abs(static_cast<int64_t>(full[i]) - fb(q)), 2) << i;
    EXPECT_LE(std::abs(static_cast<int64_t>(approx[i]) - fb(q)), 2) << i;
  }
  const std::vector<float> s = {4.0f, 2.0f, 0.0f, -0.0f, -1.0f, kInf, 1e-40f};
  const std::vector<uint32_t> z(s.size(), 0);
  auto sq = run_lanes("  sqrt.rn.f32 %r4, %r1;", bits(s), z, z);
  auto rcp = run_lanes("  rcp.rn.f32 %r4, %r1;", bits(s), z, z);
  auto rsq = run_lanes("  rsqrt.approx.f32 %r4, %r1;", bits(s), z, z);
  for (size_t i = 0; i < s.size(); ++i) {
    const float r = std::sqrt(s[i]);
    EXPECT_EQ(sq[i], std::isnan(r) ? kCanonicalNaN : fb(r)) << i;
    EXPECT_EQ(rcp[i], fb(1.0f / s[i])) << i;
  }
  EXPECT_EQ(rsq[0], fb(0.5f));
  EXPECT_EQ(rsq[2], fb(kInf));
  EXPECT_EQ(rsq[3], fb(-kInf));
  EXPECT_EQ(rsq[4], kCanonicalNaN);
  // f64 division and square root are correctly rounded.
  const std::vector<uint64_t> x = {db(1.0), db(2.0)}, y = {db(3.0), db(7.0)}, w(2, 0);
  auto d = run_lanes<uint64_t>("  div.rn.f64 %rd4, %rd1, %rd2;", x, y, w);
  EXPECT_EQ(d, (std::vector<uint64_t>{db(1.0 / 3.0), db(2.0 / 7.0)}));
  auto sd = run_lanes<uint64_t>("  sqrt.rn.f64 %rd4, %rd1;", x, y, w);
  EXPECT_EQ(sd, (std::vector<uint64_t>{db(1.0), db(std::sqrt(2.0))}));
}

TEST(ExecFloat, ApproximateTranscendentalsAreWithinTheIsaBounds) {
  const std::vector<float> a = {0.0f, 0.5f, 1.0f, -2.0f, 3.0f, 6.0f, -6.2f, 0.001f};
  const std::vector<uint32_t> z(a.size(), 0);
  auto sn = run_lanes("  sin.approx.f32 %r4, %r1;", bits(a), z, z);
  auto cs = run_lanes("  cos.approx.ftz.f32 %r4, %r1;", bits(a), z, z);
  auto ex = run_lanes("  ex2.approx.f32 %r4, %r1;", bits(a), z, z);
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_NEAR(bf(sn[i]), std::sin(a[i]), 0x1p-20) << i;
    EXPECT_NEAR(bf(cs[i]), std::cos(a[i]), 0x1p-20) << i;
    EXPECT_NEAR(bf(ex[i]), std::exp2(a[i]), std::exp2(a[i]) * 0x1p-21) << i;
  }
  const std::vector<float> p = {1.0f, 2.0f, 10.0f, 0.25f};
  const std::vector<uint32_t> zp(p.size(), 0);
  auto lg = run_lanes("  lg2.approx.f32 %r4, %r1;", bits(p), zp, zp);
  for (size_t i = 0; i < p.size(); ++i) EXPECT_NEAR(bf(lg[i]), std::log2(p[i]), 0x1p-22) << i;
}

TEST(ExecFloat, MinMaxNanRulesAndSignedZeros) {
  const uint32_t qnan = 0x7fc00001u;
  const std::vector<uint32_t> a = {qnan, fb(1.0f), fb(-0.0f), fb(0.0f), qnan, fb(-3.0f)};
  const std::vector<uint32_t> b = {fb(1.0f), qnan, fb(0.0f), fb(-0.0f), qnan, fb(2.0f)};
  const std::vector<uint32_t> z(a.size(), 0);
  EXPECT_EQ(run_lanes("  min.f32 %r4, %r1, %r2;", a, b, z),
            (std::vector<uint32_t>{fb(1.0f), fb(1.0f), fb(-0.0f), fb(-0.0f), kCanonicalNaN, fb(-3.0f)}));
  EXPECT_EQ(run_lanes("  max.f32 %r4, %r1, %r2;", a, b, z),
            (std::vector<uint32_t>{fb(1.0f), fb(1.0f), fb(0.0f), fb(0.0f), kCanonicalNaN, fb(2.0f)}));
  EXPECT_EQ(run_lanes("  min.NaN.f32 %r4, %r1, %r2;", a, b, z)[0], kCanonicalNaN);
  // abs/neg/copysign
  EXPECT_EQ(run_lanes("  abs.f32 %r4, %r1;", {fb(-2.0f)}, {0}, {0})[0], fb(2.0f));
  EXPECT_EQ(run_lanes("  neg.f32 %r4, %r1;", {fb(2.0f)}, {0}, {0})[0], fb(-2.0f));
  EXPECT_EQ(run_lanes("  copysign.f32 %r4, %r1, %r2;", {fb(-1.0f)}, {fb(5.0f)}, {0})[0], fb(-5.0f));
}

TEST(ExecFloat, FlushToZeroAndSaturation) {
  const std::vector<uint32_t> a = {fb(1e-40f), fb(0.75f), fb(-3.0f), fb(2.0f)};
  const std::vector<uint32_t> b = {0, fb(0.5f), fb(1.0f), kCanonicalNaN};
  const std::vector<uint32_t> z(4, 0);
  auto ftz = run_lanes("  add.ftz.f32 %r4, %r1, %r2;", a, b, z);
  EXPECT_EQ(ftz[0], 0u);  // the subnormal input counts as +0
  auto sat = run_lanes("  add.sat.f32 %r4, %r1, %r2;", a, b, z);
  EXPECT_EQ(sat, (std::vector<uint32_t>{fb(1e-40f), fb(1.0f), 0u, 0u}));  // NaN -> +0
}

// setp with every comparison, ordered and unordered, on normal and NaN
// operands; %r4 = bit 0: p, bit 1: q (the complement).
TEST(ExecFloat, SetpEveryComparisonIncludingUnordered) {
  const uint32_t nan = 0x7fc00000u;
  const std::vector<uint32_t> a = {fb(1.0f), fb(2.0f), fb(2.0f), nan, fb(1.0f), fb(-0.0f)};
  const std::vector<uint32_t> b = {fb(2.0f), fb(1.0f), fb(2.0f), fb(1.0f), nan, fb(0.0f)};
  const std::vector<uint32_t> z(a.size(), 0);
  struct Case { const char* op; bool want[6]; };
  const Case cases[] = {
      {"eq", {false, false, true, false, false, true}},  {"ne", {true, true, false, false, false, false}},
      {"lt", {true, false, false, false, false, false}}, {"le", {true, false, true, false, false, true}},
      {"gt", {false, true, false, false, false, false}}, {"ge", {false, true, true, false, false, true}},
      {"equ", {false, false, true, true, true, true}},   {"neu", {true, true, false, true, true, false}},
      {"ltu", {true, false, false, true, true, false}},  {"leu", {true, false, true, true, true, true}},
      {"gtu", {false, true, false, true, true, false}},  {"geu", {false, true, true, true, true, true}},
      {"num", {true, true, true, false, false, true}},   {"nan", {false, false, false, true, true, false}},
  };
  for (const Case& c : cases) {
    auto r = run_lanes(std::string("  setp.") + c.op + ".f32 %p1|%p2, %r1, %r2;\n"
                           "  selp.u32 %r6, 1, 0, %p1; selp.u32 %r7, 2, 0, %p2; or.b32 %r4, %r6, %r7;",
                       a, b, z);
    for (size_t i = 0; i < a.size(); ++i) EXPECT_EQ(r[i], c.want[i] ? 1u : 2u) << c.op << " lane " << i;
  }
  // A boolean op: p = (a < b) and c; with c = lane is even.
  auto r = run_lanes("  and.b32 %r6, %r5, 1; setp.eq.u32 %p3, %r6, 0;\n"
                     "  setp.lt.and.f32 %p1, %r1, %r2, %p3; selp.u32 %r4, 1, 0, %p1;",
                     a, b, z);
  EXPECT_EQ(r, (std::vector<uint32_t>{1, 0, 0, 0, 0, 0}));
  // f64 compares too.
  const std::vector<uint64_t> x = {db(1.0), db(std::nan(""))}, y = {db(1.5), db(0.0)}, w(2, 0);
  auto d = run_lanes<uint64_t>("  setp.ltu.f64 %p1, %rd1, %rd2; selp.u64 %rd4, 1, 0, %p1;", x, y, w);
  EXPECT_EQ(d, (std::vector<uint64_t>{1, 1}));
}

TEST(ExecFloat, SetProducesOnePointZeroOrAllOnes) {
  const std::vector<uint32_t> a = {fb(1.0f), fb(3.0f)}, b = {fb(2.0f), fb(2.0f)}, z(2, 0);
  EXPECT_EQ(run_lanes("  set.lt.f32.f32 %r4, %r1, %r2;", a, b, z), (std::vector<uint32_t>{fb(1.0f), 0u}));
  EXPECT_EQ(run_lanes("  set.gt.u32.f32 %r4, %r1, %r2;", a, b, z), (std::vector<uint32_t>{0u, ~0u}));
}

TEST(ExecFloat, TestpClassifies) {
  const std::vector<uint32_t> a = {fb(1.0f), fb(kInf), 0x7fc00000u, fb(1e-40f)}, z(4, 0);
  auto cls = [&](const char* op) {
    return run_lanes(std::string("  testp.") + op + ".f32 %p1, %r1; selp.u32 %r4, 1, 0, %p1;", a, z, z);
  };
  EXPECT_EQ(cls("finite"), (std::vector<uint32_t>{1, 0, 0, 1}));
  EXPECT_EQ(cls("infinite"), (std::vector<uint32_t>{0, 1, 0, 0}));
  EXPECT_EQ(cls("notanumber"), (std::vector<uint32_t>{0, 0, 1, 0}));
  EXPECT_EQ(cls("subnormal"), (std::vector<uint32_t>{0, 0, 0, 1}));
}

TEST(ExecFloat, HalfPrecisionPairsOperateElementwise) {
  // f16x2: low 1.0 + 0.5 = 1.5, high 2.0 * 3.0 via fma(2, 3, 0) = 6.0.
  const std::vector<uint32_t> a = {0x40003c00u}, b = {0x42003800u}, c = {0x00000000u};
  EXPECT_EQ(run_lanes("  add.f16x2 %r4, %r1, %r2;", a, b, c)[0], 0x45003e00u);  // 5.0 | 1.5
  EXPECT_EQ(run_lanes("  fma.rn.f16x2 %r4, %r1, %r2, %r3;", a, b, c)[0], 0x46003800u);  // 6.0 | 0.5
  // f16 overflow to infinity, and .sat.
  EXPECT_EQ(run_lanes("  mov.b32 {%h1, %h2}, %r1; mul.f16 %h3, %h1, %h1; mov.b32 %r4, {%h3, %h3};",
                      {0x00005c00u}, {0}, {0})[0],
            0x7c007c00u);  // 256^2 > 65504
  // bf16x2: 1.0 + 1.0 = 2.0 in both halves; max of (-1, 3).
  EXPECT_EQ(run_lanes("  add.rn.bf16x2 %r4, %r1, %r2;", {0x3f803f80u}, {0x3f803f80u}, {0})[0], 0x40004000u);
  EXPECT_EQ(run_lanes("  max.bf16x2 %r4, %r1, %r2;", {0xbf804040u}, {0x40403f80u}, {0})[0], 0x40404040u);
  // setp.f16x2: p from the low halves, q from the high halves.
  EXPECT_EQ(run_lanes("  setp.lt.f16x2 %p1|%p2, %r1, %r2;\n"
                      "  selp.u32 %r6, 1, 0, %p1; selp.u32 %r7, 2, 0, %p2; or.b32 %r4, %r6, %r7;",
                      {0x40003c00u}, {0x3c004000u}, {0})[0],
            1u);  // low 1 < 2, high 2 < 1 false
}

TEST(ExecFloat, ImmediatesGuardsAndDivergence) {
  // Lanes with odd %tid skip the guarded add; immediates in f32 and decimal form.
  std::vector<uint32_t> a(40, fb(1.0f)), z(40, 0);
  auto r = run_lanes("  mov.b32 %r4, %r1; and.b32 %r6, %r5, 1; setp.eq.u32 %p1, %r6, 0;\n"
                     "  @%p1 add.f32 %r4, %r1, 0f40000000;\n"
                     "  @!%p1 mul.f32 %r4, %r1, 0f3F000000;",
                     a, z, z);
  for (uint32_t i = 0; i < 40; ++i) EXPECT_EQ(r[i], i % 2 ? fb(0.5f) : fb(3.0f)) << i;
  const std::vector<uint64_t> x = {db(1.5)}, w = {0};
  EXPECT_EQ(run_lanes<uint64_t>("  add.f64 %rd4, %rd1, 0d4000000000000000;", x, w, w)[0], db(3.5));
}

}  // namespace
}  // namespace warpsim::functional
