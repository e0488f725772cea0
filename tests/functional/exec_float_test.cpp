// Floating-point instructions end to end: real PTX through functional::Device,
// one small kernel per operation shape (per-lane operands loaded from global
// buffers, one instruction, the result stored), fed tables of edge cases.
//
// Expected values are independent of functional/fp wherever that is
// practical: the host's own IEEE arithmetic in round-to-nearest (float,
// double, std::fma, std::sqrt), exact double results rounded by a few lines
// written here (directed f32 rounding with nextafter, f16/bf16 by scaling to
// the format's grid), the host's comparisons, and hand-computed bit patterns.
// functional/fp (tested on its own in fp_*_test.cpp) is the oracle only for
// directed-mode fma/div/sqrt/rcp on random operands, where these tests check
// that each instruction form reaches the right function with the right mode.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "functional/fp/fp.h"
#include "tests/functional/exec_test_util.h"

namespace warpsim::functional {
namespace {

using namespace testing;  // load, upload, run, download, run_lanes

using V32 = std::vector<uint32_t>;
using V64 = std::vector<uint64_t>;
using V16 = std::vector<uint16_t>;

constexpr uint32_t kNaN32 = 0x7fffffffu;  // the canonical f32 NaN
constexpr uint16_t kNaN16 = 0x7fffu;      // the canonical f16/bf16 NaN
const float kInf = std::numeric_limits<float>::infinity();
const float kMax = std::numeric_limits<float>::max();

uint32_t fb(float f) { return std::bit_cast<uint32_t>(f); }
float bf(uint32_t u) { return std::bit_cast<float>(u); }
uint64_t db(double d) { return std::bit_cast<uint64_t>(d); }
double bd(uint64_t u) { return std::bit_cast<double>(u); }
uint32_t canon(float r) { return std::isnan(r) ? kNaN32 : fb(r); }
bool nan32(uint32_t u) { return std::isnan(bf(u)); }

// f32 edge cases: signed zeros, subnormals, extremes, infinities, NaNs (quiet
// and signalling, both signs), and ordinary values that round.
const V32& edges32() {
  static const V32 v = {
      fb(0.0f),    fb(-0.0f),   fb(1.0f),    fb(-1.5f),
      0x00000001u,  // the smallest subnormal
      0x80300000u,  // a negative subnormal
      0x00800000u,  // the smallest normal
      fb(kMax),    fb(-kMax),   fb(kInf),    fb(-kInf),
      0x7fc00001u,  // quiet NaN with a payload
      0xffa00000u,  // negative signalling NaN
      fb(0.1f),    fb(3.0f),
      0x3f800001u,  // 1 + 2^-23
  };
  return v;
}

// All (a, b) pairs of `v`, one per lane; c is a rotated copy for fma.
struct Lanes3 {
  V32 a, b, c;
};
Lanes3 pairs(const V32& v) {
  Lanes3 p;
  for (uint32_t x : v)
    for (uint32_t y : v) {
      p.a.push_back(x);
      p.b.push_back(y);
    }
  p.c = p.a;
  std::rotate(p.c.begin(), p.c.begin() + 7, p.c.end());
  return p;
}

// Seeded random f32 values with exponents in [-10, 10]: sums and products of
// two of them are exact in double.
V32 random32(uint32_t n, uint32_t seed, bool positive = false) {
  std::mt19937 g(seed);
  V32 v;
  for (uint32_t i = 0; i < n; ++i) {
    const uint32_t exp = 127 - 10 + g() % 21, man = g() & 0x7fffffu, sign = positive ? 0 : g() & 1;
    v.push_back(sign << 31 | exp << 23 | man);
  }
  return v;
}

// An exact value x rounded to f32 in `mode` (n, z, m, p): round to nearest,
// then step once toward the required direction if needed.
uint32_t round_f32(double x, char mode) {
  float r = static_cast<float>(x);
  if (mode == 'z' && std::fabs(static_cast<double>(r)) > std::fabs(x)) r = std::nextafter(r, 0.0f);
  if (mode == 'm' && static_cast<double>(r) > x) r = std::nextafter(r, -kInf);
  if (mode == 'p' && static_cast<double>(r) < x) r = std::nextafter(r, kInf);
  return fb(r);
}

// An instruction form with its RND placeholder replaced by a rounding modifier.
std::string with_mode(std::string form, const char* mode) {
  form.replace(form.find("RND"), 3, mode);
  return "  " + form;
}

ptx::Rounding rounding_of(char mode) {
  return mode == 'z' ? ptx::Rounding::Rz : mode == 'm' ? ptx::Rounding::Rm : mode == 'p' ? ptx::Rounding::Rp
                                                                                         : ptx::Rounding::Rn;
}

// ---- 16-bit formats, written independently of functional/fp --------------------------

struct Half {
  int mbits, emin;
  double max;
  bool bf;
};
constexpr Half kF16{10, -14, 65504.0, false};
constexpr Half kBF16{7, -126, 0x1.fep127, true};

double value16(const Half& f, uint16_t h) {
  if (f.bf) return bf(static_cast<uint32_t>(h) << 16);
  const double sign = h & 0x8000 ? -1 : 1;
  const int e = h >> 10 & 0x1f, m = h & 0x3ff;
  if (e == 0x1f) return m ? std::nan("") : sign * INFINITY;
  return e == 0 ? sign * std::ldexp(m, -24) : sign * std::ldexp(1024 + m, e - 25);
}
// The pattern of a value exactly representable in the format (or +-Inf/NaN).
uint16_t bits16(const Half& f, double v) {
  if (std::isnan(v)) return kNaN16;
  if (f.bf) return static_cast<uint16_t>(fb(static_cast<float>(v)) >> 16);
  const uint16_t sign = std::signbit(v) ? 0x8000 : 0;
  v = std::fabs(v);
  if (std::isinf(v)) return sign | 0x7c00;
  if (v < 0x1p-14) return static_cast<uint16_t>(sign | static_cast<uint16_t>(v * 0x1p24));
  const int e = std::ilogb(v);
  return static_cast<uint16_t>(sign | (e + 15) << 10 | static_cast<uint16_t>((std::ldexp(v, -e) - 1) * 1024));
}
// An exact value rounded to nearest-even onto the format (overflow: Inf).
uint16_t round16(const Half& f, double x) {
  if (x == 0 || !std::isfinite(x)) return bits16(f, x);
  const double ulp = std::ldexp(1.0, std::max(std::ilogb(x), f.emin) - f.mbits);
  const double r = std::nearbyint(x / ulp) * ulp;
  return bits16(f, std::fabs(r) > f.max ? std::copysign(INFINITY, x) : r);
}

// Random 16-bit values with exponents in [-6, 6] (sums, products and fma of
// them are exact in double), plus edge cases.
V16 random16(const Half& f, uint32_t n, uint32_t seed) {
  std::mt19937 g(seed);
  V16 v;
  for (uint32_t i = 0; i < n; ++i) {
    const double m = 1.0 + static_cast<double>(g() % (1u << f.mbits)) / (1u << f.mbits);
    const double x = std::ldexp(m, static_cast<int>(g() % 13) - 6) * (g() & 1 ? -1 : 1);
    v.push_back(bits16(f, x));
  }
  return v;
}

// Runs `body` on the 16-bit operands %h1, %h2, %h3 (the low halves of the
// per-lane a, b, c) and returns its 16-bit result %h4.
V16 run16(const std::string& body, const V16& a, const V16& b, const V16& c) {
  const V32 a32(a.begin(), a.end()), b32(b.begin(), b.end()), c32(c.begin(), c.end());
  const V32 r = run_lanes("  mov.b32 {%h1, %h5}, %r1; mov.b32 {%h2, %h5}, %r2; mov.b32 {%h3, %h5}, %r3;\n" +
                              body + "\n  mov.b32 %r4, {%h4, %h4};",
                          a32, b32, c32);
  return V16(r.begin(), r.end());
}

V32 pack(const V16& lo, const V16& hi) {
  V32 r;
  for (size_t i = 0; i < lo.size(); ++i) r.push_back(lo[i] | static_cast<uint32_t>(hi[i]) << 16);
  return r;
}

// Runs a PTX form expected to be rejected: it must fault as unsupported when
// (and only when) a lane executes it.
void expect_unsupported(const std::string& form) {
  auto l = load(".visible .entry k()\n{\n  .reg .pred %p<3>; .reg .b16 %h<4>; .reg .b32 %r<5>; .reg .b64 %rd<4>;\n  " +
                form + ";\n  ret;\n}\n");
  ASSERT_TRUE(l->program) << form;
  auto r = run(*l, "k", {1}, {32}, {});
  ASSERT_TRUE(r.fault) << form;
  EXPECT_EQ(r.fault->fault.kind, FaultKind::Unsupported) << form << "\n" << r.fault->message;
}

// ---- f32 / f64 arithmetic -------------------------------------------------------------------

TEST(ExecFloat, F32ArithmeticInRoundToNearestMatchesTheHost) {
  const Lanes3 p = pairs(edges32());
  struct Case {
    const char* body;
    std::function<float(float, float, float)> host;
  };
  const Case cases[] = {
      {"add.f32 %r4, %r1, %r2;", [](float a, float b, float) { return a + b; }},
      {"add.rn.f32 %r4, %r1, %r2;", [](float a, float b, float) { return a + b; }},
      {"sub.f32 %r4, %r1, %r2;", [](float a, float b, float) { return a - b; }},
      {"mul.rn.f32 %r4, %r1, %r2;", [](float a, float b, float) { return a * b; }},
      {"div.rn.f32 %r4, %r1, %r2;", [](float a, float b, float) { return a / b; }},
      {"fma.rn.f32 %r4, %r1, %r2, %r3;", [](float a, float b, float c) { return std::fma(a, b, c); }},
      {"mad.rn.f32 %r4, %r1, %r2, %r3;", [](float a, float b, float c) { return std::fma(a, b, c); }},
      {"mad.f32 %r4, %r1, %r2, %r3;", [](float a, float b, float c) { return std::fma(a, b, c); }},
      {"sqrt.rn.f32 %r4, %r1;", [](float a, float, float) { return std::sqrt(a); }},
      {"rcp.rn.f32 %r4, %r1;", [](float a, float, float) { return 1.0f / a; }},
  };
  for (const Case& c : cases) {
    const V32 got = run_lanes(std::string("  ") + c.body, p.a, p.b, p.c);
    for (size_t i = 0; i < got.size(); ++i)
      ASSERT_EQ(got[i], canon(c.host(bf(p.a[i]), bf(p.b[i]), bf(p.c[i]))))
          << c.body << " a=" << std::hex << p.a[i] << " b=" << p.b[i] << " c=" << p.c[i];
  }
}

TEST(ExecFloat, F32DirectedRoundingHandPicked) {
  const uint32_t one = fb(1.0f), up1 = one + 1, third = 0x3eaaaaabu;  // RN(1/3) lies above 1/3
  struct Case {
    const char* op;
    V32 a, b, c;
    V32 rn, rz, rm, rp;
  };
  const Case cases[] = {
      // 1 + 2^-24 is a tie (rn: even), -1 - 2^-24 its mirror; 1 + -1 is -0 under .rm only.
      {"add.RND.f32 %r4, %r1, %r2;", {one, fb(-1.0f), one}, {fb(0x1p-24f), fb(-0x1p-24f), fb(-1.0f)}, {0, 0, 0},
       {one, fb(-1.0f), 0}, {one, fb(-1.0f), 0}, {one, up1 | 0x80000000u, 0x80000000u}, {up1, fb(-1.0f), 0}},
      // 1 - 2^-25 is a tie between 1 - 2^-24 and 1; max - -max overflows.
      {"sub.RND.f32 %r4, %r1, %r2;", {one, fb(kMax)}, {fb(0x1p-25f), fb(-kMax)}, {0, 0},
       {one, fb(kInf)}, {one - 1, fb(kMax)}, {one - 1, fb(kMax)}, {one, fb(kInf)}},
      // 3 * (1 + 2^-23) = 3 + 3 * 2^-23: a tie between 3 + 2^-22 and 3 + 2^-21 (rn: even).
      {"mul.RND.f32 %r4, %r1, %r2;", {fb(3.0f), fb(-3.0f)}, {up1, up1}, {0, 0},
       {fb(3.0f) + 2, fb(-3.0f) + 2}, {fb(3.0f) + 1, fb(-3.0f) + 1}, {fb(3.0f) + 1, fb(-3.0f) + 2},
       {fb(3.0f) + 2, fb(-3.0f) + 1}},
      {"div.RND.f32 %r4, %r1, %r2;", {one, fb(-1.0f)}, {fb(3.0f), fb(3.0f)}, {0, 0},
       {third, third | 0x80000000u}, {third - 1, (third - 1) | 0x80000000u}, {third - 1, third | 0x80000000u},
       {third, (third - 1) | 0x80000000u}},
      {"rcp.RND.f32 %r4, %r1;", {fb(3.0f)}, {0}, {0}, {third}, {third - 1}, {third - 1}, {third}},
      // sqrt(2): RN lies below.
      {"sqrt.RND.f32 %r4, %r1;", {fb(2.0f)}, {0}, {0}, {0x3fb504f3u}, {0x3fb504f3u}, {0x3fb504f3u}, {0x3fb504f4u}},
      // (1 + 2^-23)^2 = 1 + 2^-22 + 2^-46 in one rounding.
      {"fma.RND.f32 %r4, %r1, %r2, %r3;", {up1}, {up1}, {0}, {one + 2}, {one + 2}, {one + 2}, {one + 3}},
      {"mad.RND.f32 %r4, %r1, %r2, %r3;", {up1}, {up1}, {fb(-1.0f)}, {fb(0x1p-22f)}, {fb(0x1p-22f)},
       {fb(0x1p-22f)}, {fb(0x1p-22f) + 1}},
  };
  for (const Case& c : cases) {
    const std::pair<const char*, const V32*> modes[] = {{"rn", &c.rn}, {"rz", &c.rz}, {"rm", &c.rm}, {"rp", &c.rp}};
    for (const auto& [mode, want] : modes) {
      const std::string body = with_mode(c.op, mode);
      EXPECT_EQ(run_lanes(body, c.a, c.b, c.c), *want) << body;
    }
  }
}

TEST(ExecFloat, F32DirectedRoundingRandomOperands) {
  const uint32_t n = 64;
  const V32 a = random32(n, 1), b = random32(n, 2), c = random32(n, 3), pos = random32(n, 4, true);
  for (char mode : {'n', 'z', 'm', 'p'}) {
    const std::string m = mode == 'n' ? "rn" : std::string("r") + mode;
    const ptx::Rounding r = rounding_of(mode);
    const V32 add = run_lanes("  add." + m + ".f32 %r4, %r1, %r2;", a, b, c);
    const V32 sub = run_lanes("  sub." + m + ".f32 %r4, %r1, %r2;", a, b, c);
    const V32 mul = run_lanes("  mul." + m + ".f32 %r4, %r1, %r2;", a, b, c);
    const V32 fma = run_lanes("  fma." + m + ".f32 %r4, %r1, %r2, %r3;", a, b, c);
    const V32 div = run_lanes("  div." + m + ".f32 %r4, %r1, %r2;", a, b, c);
    const V32 sqrt = run_lanes("  sqrt." + m + ".f32 %r4, %r1;", pos, b, c);
    const V32 rcp = run_lanes("  rcp." + m + ".f32 %r4, %r1;", a, b, c);
    for (uint32_t i = 0; i < n; ++i) {
      const double x = bf(a[i]), y = bf(b[i]);  // sums and products of these are exact in double
      EXPECT_EQ(add[i], round_f32(x + y, mode)) << m << " " << i;
      EXPECT_EQ(sub[i], round_f32(x - y, mode)) << m << " " << i;
      EXPECT_EQ(mul[i], round_f32(x * y, mode)) << m << " " << i;
      EXPECT_EQ(fma[i], fp::fma_f32(a[i], b[i], c[i], r)) << m << " " << i;
      EXPECT_EQ(div[i], fp::div_f32(a[i], b[i], r)) << m << " " << i;
      EXPECT_EQ(sqrt[i], fp::sqrt_f32(pos[i], r)) << m << " " << i;
      EXPECT_EQ(rcp[i], fp::rcp_f32(a[i], r)) << m << " " << i;
      // Every mode brackets the exact value: rm <= exact <= rp.
      if (mode == 'm') {
        EXPECT_LE(static_cast<double>(bf(div[i])), x / y) << i;
      } else if (mode == 'p') {
        EXPECT_GE(static_cast<double>(bf(div[i])), x / y) << i;
      }
    }
  }
}

TEST(ExecFloat, F64ArithmeticEveryRoundingMode) {
  // Round to nearest against the host on edge cases (NaN operands excluded:
  // their payload rules are checked below).
  const V64 e = {db(0.0), db(-0.0), db(1.0), db(-2.5), 1u /*min sub*/, db(0x1p-1022), db(1e308), db(-1e308),
                 db(INFINITY), db(-INFINITY), db(0.1), db(3.0)};
  V64 a, b;
  for (uint64_t x : e)
    for (uint64_t y : e) a.push_back(x), b.push_back(y);
  V64 c = a;
  std::rotate(c.begin(), c.begin() + 5, c.end());
  auto want = [](double r) { return std::isnan(r) ? 0xfff8000000000000ull : db(r); };  // default NaN
  const V64 add = run_lanes<uint64_t>("  add.f64 %rd4, %rd1, %rd2;", a, b, c);
  const V64 sub = run_lanes<uint64_t>("  sub.rn.f64 %rd4, %rd1, %rd2;", a, b, c);
  const V64 mul = run_lanes<uint64_t>("  mul.rn.f64 %rd4, %rd1, %rd2;", a, b, c);
  const V64 div = run_lanes<uint64_t>("  div.rn.f64 %rd4, %rd1, %rd2;", a, b, c);
  const V64 fma = run_lanes<uint64_t>("  fma.rn.f64 %rd4, %rd1, %rd2, %rd3;", a, b, c);
  const V64 mad = run_lanes<uint64_t>("  mad.rn.f64 %rd4, %rd1, %rd2, %rd3;", a, b, c);
  const V64 sqrt = run_lanes<uint64_t>("  sqrt.rn.f64 %rd4, %rd1;", a, b, c);
  const V64 rcp = run_lanes<uint64_t>("  rcp.rn.f64 %rd4, %rd1;", a, b, c);
  for (size_t i = 0; i < a.size(); ++i) {
    const double x = bd(a[i]), y = bd(b[i]), z = bd(c[i]);
    EXPECT_EQ(add[i], want(x + y)) << i;
    EXPECT_EQ(sub[i], want(x - y)) << i;
    EXPECT_EQ(mul[i], want(x * y)) << i;
    EXPECT_EQ(div[i], want(x / y)) << i;
    EXPECT_EQ(fma[i], want(std::fma(x, y, z))) << i;
    EXPECT_EQ(mad[i], want(std::fma(x, y, z))) << i;
    EXPECT_EQ(sqrt[i], want(x < 0 ? NAN : std::sqrt(x))) << i;
    EXPECT_EQ(rcp[i], want(1.0 / x)) << i;
  }
  // Directed modes, hand-picked: 1 + 2^-53 (a tie), 1/3 (RN below), sqrt(2)
  // (RN above), (1 + 2^-52)^2 = 1 + 2^-51 + 2^-104, and overflow.
  const uint64_t one = db(1.0), third = 0x3fd5555555555555ull, r2 = 0x3ff6a09e667f3bcdull;
  const uint64_t big = db(std::numeric_limits<double>::max());
  struct Case {
    const char* op;
    V64 a, b, c;
    V64 rn, rz, rm, rp;
  };
  const Case cases[] = {
      {"add.RND.f64 %rd4, %rd1, %rd2;", {one, one, big}, {db(0x1p-53), db(-1.0), big}, {0, 0, 0},
       {one, 0, db(INFINITY)}, {one, 0, big}, {one, 1ull << 63, big}, {one + 1, 0, db(INFINITY)}},
      {"div.RND.f64 %rd4, %rd1, %rd2;", {one}, {db(3.0)}, {0}, {third}, {third}, {third}, {third + 1}},
      {"rcp.RND.f64 %rd4, %rd1;", {db(-3.0)}, {0}, {0}, {third | 1ull << 63}, {third | 1ull << 63},
       {(third + 1) | 1ull << 63}, {third | 1ull << 63}},
      {"sqrt.RND.f64 %rd4, %rd1;", {db(2.0)}, {0}, {0}, {r2}, {r2 - 1}, {r2 - 1}, {r2}},
      {"mul.RND.f64 %rd4, %rd1, %rd2;", {one + 1}, {one + 1}, {0}, {one + 2}, {one + 2}, {one + 2}, {one + 3}},
      // (1 + 2^-52)^2 - 1 = 2^-51 (1 + 2^-53): a tie, in one rounding.
      {"fma.RND.f64 %rd4, %rd1, %rd2, %rd3;", {one + 1}, {one + 1}, {db(-1.0)}, {db(0x1p-51)}, {db(0x1p-51)},
       {db(0x1p-51)}, {db(0x1p-51) + 1}},
      {"mad.RND.f64 %rd4, %rd1, %rd2, %rd3;", {one + 1}, {one + 1}, {0}, {one + 2}, {one + 2}, {one + 2},
       {one + 3}},
  };
  for (const Case& k : cases) {
    const std::pair<const char*, const V64*> modes[] = {{"rn", &k.rn}, {"rz", &k.rz}, {"rm", &k.rm}, {"rp", &k.rp}};
    for (const auto& [mode, w] : modes) {
      const std::string body = with_mode(k.op, mode);
      EXPECT_EQ(run_lanes<uint64_t>(body, k.a, k.b, k.c), *w) << body;
    }
  }
  // f64 propagates the first NaN operand, quieted; an invalid operation
  // without NaN input gives the default NaN.
  const V64 na = {0x7ff0000000000123ull, db(1.0), 0xfff8000000000456ull, db(INFINITY)};
  const V64 nb = {db(1.0), 0x7ff8000000000789ull, 0x7ff0000000000001ull, db(-INFINITY)};
  EXPECT_EQ(run_lanes<uint64_t>("  add.f64 %rd4, %rd1, %rd2;", na, nb, nb),
            (V64{0x7ff8000000000123ull, 0x7ff8000000000789ull, 0xfff8000000000456ull, 0xfff8000000000000ull}));
}

TEST(ExecFloat, F32FlushToZeroAndSaturation) {
  const uint32_t sub = 0x00000005u, nsub = 0x80000005u, nz = 0x80000000u;
  const V32 a = {sub, nsub, fb(1e-20f), fb(-1e-20f), fb(0.75f), fb(-3.0f), kNaN32, fb(0.25f)};
  const V32 b = {0, nz, fb(1e-20f), fb(1e-20f), fb(0.5f), fb(1.0f), fb(1.0f), nsub};
  const V32 c(a.size(), 0);
  // Without .ftz subnormal inputs and results are kept.
  EXPECT_EQ(run_lanes("  add.f32 %r4, %r1, %r2;", a, b, c)[0], sub);
  EXPECT_EQ(run_lanes("  mul.rn.f32 %r4, %r1, %r2;", a, b, c)[2], canon(1e-20f * 1e-20f));
  // .ftz: subnormal inputs and results become zeros of the same sign.
  EXPECT_EQ(run_lanes("  add.ftz.f32 %r4, %r1, %r2;", a, b, c), (V32{0, nz, fb(2e-20f), 0, fb(1.25f), fb(-2.0f),
                                                                      kNaN32, fb(0.25f)}));
  const V32 mul = run_lanes("  mul.rn.ftz.f32 %r4, %r1, %r2;", a, b, c);
  EXPECT_EQ(mul[2], 0u);
  EXPECT_EQ(mul[3], nz);
  EXPECT_EQ(run_lanes("  fma.rn.ftz.f32 %r4, %r1, %r2, %r3;", a, b, c)[3], nz);  // -1e-40 + 0
  EXPECT_EQ(run_lanes("  div.rn.ftz.f32 %r4, %r2, %r1;", a, b, c)[7], nz);       // -sub / 0.25
  EXPECT_EQ(run_lanes("  sqrt.rn.ftz.f32 %r4, %r1;", a, b, c)[0], 0u);
  EXPECT_EQ(run_lanes("  rcp.rn.ftz.f32 %r4, %r1;", a, b, c)[1], fb(-kInf));
  EXPECT_EQ(run_lanes("  min.ftz.f32 %r4, %r1, %r2;", {sub}, {fb(1.0f)}, {0})[0], 0u);
  EXPECT_EQ(run_lanes("  min.f32 %r4, %r1, %r2;", {sub}, {fb(1.0f)}, {0})[0], sub);
  EXPECT_EQ(run_lanes("  abs.ftz.f32 %r4, %r1;", {nsub}, {0}, {0})[0], 0u);
  EXPECT_EQ(run_lanes("  abs.f32 %r4, %r1;", {nsub}, {0}, {0})[0], sub);
  EXPECT_EQ(run_lanes("  neg.ftz.f32 %r4, %r1;", {sub}, {0}, {0})[0], nz);
  // .sat clamps to [+0, 1]; NaN and -0 become +0.
  const V32 sa = {fb(0.75f), fb(-3.0f), kNaN32, fb(0.25f), nz, fb(2.0f), sub};
  const V32 sb = {fb(0.5f), fb(1.0f), fb(1.0f), fb(0.5f), 0, fb(-1.5f), 0};
  const V32 sc(sa.size(), 0);
  EXPECT_EQ(run_lanes("  add.sat.f32 %r4, %r1, %r2;", sa, sb, sc),
            (V32{fb(1.0f), 0, 0, fb(0.75f), 0, fb(0.5f), sub}));
  EXPECT_EQ(run_lanes("  add.ftz.sat.f32 %r4, %r1, %r2;", sa, sb, sc)[6], 0u);
  EXPECT_EQ(run_lanes("  sub.rz.sat.f32 %r4, %r1, %r2;", sa, sb, sc), (V32{fb(0.25f), 0, 0, 0, 0, fb(1.0f), sub}));
  EXPECT_EQ(run_lanes("  mul.sat.f32 %r4, %r1, %r2;", sa, sb, sc), (V32{fb(0.375f), 0, 0, fb(0.125f), 0, 0, 0}));
  EXPECT_EQ(run_lanes("  fma.rn.sat.f32 %r4, %r1, %r2, %r2;", sa, sb, sc)[0], fb(0.875f));
  EXPECT_EQ(run_lanes("  mad.sat.f32 %r4, %r1, %r2, %r2;", sa, sb, sc)[5], 0u);
}

// ---- approximations -----------------------------------------------------------------------

TEST(ExecFloat, F32ApproximationsSpecialCasesAndBounds) {
  const V32 a = {fb(1.0f), fb(-7.0f), fb(0.3f), fb(100.0f), fb(2.5e-3f), fb(-1e30f)};
  const V32 b = {fb(3.0f), fb(0.7f), fb(-9.0f), fb(1e-30f), fb(7.0f), fb(3.0f)};
  const V32 z(a.size(), 0);
  auto ulps = [](uint32_t x, float want) { return std::abs(static_cast<int64_t>(x) - fb(want)); };
  const V32 approx = run_lanes("  div.approx.f32 %r4, %r1, %r2;", a, b, z);
  const V32 full = run_lanes("  div.full.ftz.f32 %r4, %r1, %r2;", a, b, z);
  const V32 rcp = run_lanes("  rcp.approx.f32 %r4, %r2;", a, b, z);
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_LE(ulps(approx[i], bf(a[i]) / bf(b[i])), 2) << i;
    EXPECT_LE(ulps(full[i], bf(a[i]) / bf(b[i])), 2) << i;
    EXPECT_LE(ulps(rcp[i], 1.0f / bf(b[i])), 1) << i;
  }
  // div.approx for 2^126 < |b| < 2^128: a zero of the quotient's sign, NaN for an infinite a.
  EXPECT_EQ(run_lanes("  div.approx.f32 %r4, %r1, %r2;", {fb(-1.0f), fb(kInf)}, {fb(0x1p127f), fb(0x1p127f)}, {0, 0}),
            (V32{0x80000000u, kNaN32}));
  EXPECT_EQ(run_lanes("  div.full.f32 %r4, %r1, %r2;", {fb(1.0f)}, {fb(0x1p127f)}, {0})[0], fb(0x1p-127f));
  // rcp/sqrt/rsqrt special cases (ISA tables).
  const V32 s = {0, 0x80000000u, fb(kInf), fb(-kInf), fb(-1.0f), 0x7fc00000u, fb(4.0f), 0x00000008u /*2^-146*/};
  const V32 zs(s.size(), 0);
  EXPECT_EQ(run_lanes("  rcp.approx.f32 %r4, %r1;", s, zs, zs),
            (V32{fb(kInf), fb(-kInf), 0, 0x80000000u, fb(-1.0f), kNaN32, fb(0.25f), fb(kInf)}));
  EXPECT_EQ(run_lanes("  rcp.approx.ftz.f32 %r4, %r1;", s, zs, zs)[7], fb(kInf));
  EXPECT_EQ(run_lanes("  sqrt.approx.f32 %r4, %r1;", s, zs, zs),
            (V32{0, 0x80000000u, fb(kInf), kNaN32, kNaN32, kNaN32, fb(2.0f), fb(0x1p-73f)}));
  EXPECT_EQ(run_lanes("  rsqrt.approx.f32 %r4, %r1;", s, zs, zs),
            (V32{fb(kInf), fb(-kInf), 0, kNaN32, kNaN32, kNaN32, fb(0.5f), fb(0x1p73f)}));
  EXPECT_EQ(run_lanes("  rsqrt.approx.ftz.f32 %r4, %r1;", s, zs, zs)[7], fb(kInf));
  // Transcendentals: ISA error bounds against libm, then the special cases.
  const V32 t = {fb(0.0f), fb(0.5f), fb(1.0f), fb(-2.0f), fb(3.0f), fb(6.0f), fb(-6.2f), fb(1e-3f), fb(10.5f)};
  const V32 zt(t.size(), 0);
  const V32 sn = run_lanes("  sin.approx.f32 %r4, %r1;", t, zt, zt);
  const V32 cs = run_lanes("  cos.approx.ftz.f32 %r4, %r1;", t, zt, zt);
  const V32 ex = run_lanes("  ex2.approx.f32 %r4, %r1;", t, zt, zt);
  const V32 th = run_lanes("  tanh.approx.f32 %r4, %r1;", t, zt, zt);
  for (size_t i = 0; i < t.size(); ++i) {
    const double x = bf(t[i]);
    EXPECT_NEAR(bf(sn[i]), std::sin(x), 0x1p-20) << i;
    EXPECT_NEAR(bf(cs[i]), std::cos(x), 0x1p-20) << i;
    EXPECT_NEAR(bf(ex[i]), std::exp2(x), std::exp2(x) * 0x1p-22) << i;
    EXPECT_NEAR(bf(th[i]), std::tanh(x), std::fabs(std::tanh(x)) * 0x1p-11) << i;
  }
  const V32 l = {fb(1.0f), fb(2.0f), fb(10.0f), fb(0.25f), fb(3e-39f) /*subnormal*/};
  const V32 lg = run_lanes("  lg2.approx.f32 %r4, %r1;", l, V32(5, 0), V32(5, 0));
  for (size_t i = 0; i < l.size(); ++i) EXPECT_NEAR(bf(lg[i]), std::log2(bf(l[i])), 0x1p-22 * 128) << i;
  EXPECT_EQ(run_lanes("  lg2.approx.ftz.f32 %r4, %r1;", l, V32(5, 0), V32(5, 0))[4], fb(-kInf));
  const V32 sp = {0, 0x80000000u, fb(kInf), fb(-kInf), 0x7fc00000u, fb(-2.0f), 0x80000001u};
  const V32 zsp(sp.size(), 0);
  EXPECT_EQ(run_lanes("  sin.approx.f32 %r4, %r1;", sp, zsp, zsp),
            (V32{0, 0x80000000u, kNaN32, kNaN32, kNaN32, fb(static_cast<float>(std::sin(-2.0))), 0x80000001u}));
  EXPECT_EQ(run_lanes("  cos.approx.f32 %r4, %r1;", sp, zsp, zsp)[0], fb(1.0f));
  EXPECT_EQ(run_lanes("  lg2.approx.f32 %r4, %r1;", sp, zsp, zsp),
            (V32{fb(-kInf), fb(-kInf), fb(kInf), kNaN32, kNaN32, kNaN32, kNaN32}));
  EXPECT_EQ(run_lanes("  ex2.approx.f32 %r4, %r1;", sp, zsp, zsp),
            (V32{fb(1.0f), fb(1.0f), fb(kInf), 0, kNaN32, fb(0.25f), fb(1.0f)}));
  EXPECT_EQ(run_lanes("  tanh.approx.f32 %r4, %r1;", sp, zsp, zsp),
            (V32{0, 0x80000000u, fb(1.0f), fb(-1.0f), kNaN32, fb(static_cast<float>(std::tanh(-2.0))), 0x80000001u}));
}

TEST(ExecFloat, F64Approximations) {
  const V64 a = {db(2.0), db(3.0), db(-0.7), db(0.0), db(-0.0), db(INFINITY), 1u /*subnormal*/, db(1e300)};
  const V64 z(a.size(), 0);
  const V64 rcp = run_lanes<uint64_t>("  rcp.approx.ftz.f64 %rd4, %rd1;", a, z, z);
  EXPECT_EQ(rcp[0], db(0.5));
  for (size_t i : {1, 2, 7}) {
    EXPECT_EQ(rcp[i] & 0xffffffffu, 0u) << i;  // only the upper word is computed
    EXPECT_NEAR(bd(rcp[i]) * bd(a[i]), 1.0, 0x1p-19) << i;
  }
  EXPECT_EQ(rcp[3], db(INFINITY));
  EXPECT_EQ(rcp[4], db(-INFINITY));
  EXPECT_EQ(rcp[5], db(0.0));
  EXPECT_EQ(rcp[6], db(INFINITY));  // the subnormal is flushed
  const V64 rs = run_lanes<uint64_t>("  rsqrt.approx.f64 %rd4, %rd1;", a, z, z);
  EXPECT_EQ(rs[0], db(1.0 / std::sqrt(2.0)));
  EXPECT_NEAR(bd(rs[1]), 1.0 / std::sqrt(3.0), 1e-15);
  EXPECT_TRUE(std::isnan(bd(rs[2])));
  EXPECT_EQ(rs[3], db(INFINITY));
  EXPECT_EQ(rs[4], db(-INFINITY));
  EXPECT_EQ(rs[5], db(0.0));
  EXPECT_NEAR(bd(rs[6]), 1.0 / std::sqrt(bd(1u)), 1e-15 / std::sqrt(bd(1u)));  // subnormals supported
  const V64 rsf = run_lanes<uint64_t>("  rsqrt.approx.ftz.f64 %rd4, %rd1;", a, z, z);
  EXPECT_EQ(rsf[1] & 0xffffffffu, 0u);
  EXPECT_NEAR(bd(rsf[1]), 1.0 / std::sqrt(3.0), 0x1p-19);
  EXPECT_EQ(rsf[6], db(INFINITY));
}

// ---- min / max / abs / neg / copysign / testp ------------------------------------------------

// PTX min/max on host values: a NaN operand yields the other; two NaNs (or
// any NaN with .NaN) the canonical NaN; -0 < +0.
uint32_t host_minmax(uint32_t a, uint32_t b, bool is_max, bool nan_mode, bool xorsign_abs) {
  const uint32_t sign = (a ^ b) & 0x80000000u;
  if (xorsign_abs) a &= 0x7fffffffu, b &= 0x7fffffffu;
  const bool an = nan32(a), bn = nan32(b);
  if ((an && bn) || (nan_mode && (an || bn))) return kNaN32;
  if (an) return xorsign_abs ? b | sign : b;
  if (bn) return xorsign_abs ? a | sign : a;
  const float x = bf(a), y = bf(b);
  uint32_t r;
  if (x == y) r = (std::signbit(x) != is_max) ? a : b;  // -0 < +0
  else r = (x < y) != is_max ? a : b;
  return xorsign_abs ? (r & 0x7fffffffu) | sign : r;
}

TEST(ExecFloat, F32MinMaxEveryModifier) {
  const Lanes3 p = pairs(edges32());
  for (bool is_max : {false, true})
    for (const char* mods : {"", ".NaN", ".xorsign.abs", ".NaN.xorsign.abs"}) {
      const std::string m = mods;
      const std::string body = std::string("  ") + (is_max ? "max" : "min") + m + ".f32 %r4, %r1, %r2;";
      const V32 got = run_lanes(body, p.a, p.b, p.c);
      for (size_t i = 0; i < got.size(); ++i)
        ASSERT_EQ(got[i], host_minmax(p.a[i], p.b[i], is_max, m.find("NaN") != std::string::npos,
                                      m.find("abs") != std::string::npos))
            << (is_max ? "max" : "min") << m << " " << std::hex << p.a[i] << " " << p.b[i];
    }
  // Three inputs: NaN only when all are NaN (pairwise), .abs on every input.
  const V32 a = {fb(3.0f), kNaN32, kNaN32, fb(-5.0f), fb(2.0f), 0x80000000u};
  const V32 b = {fb(-1.0f), fb(2.0f), kNaN32, fb(4.0f), kNaN32, 0};
  const V32 c = {fb(2.0f), fb(7.0f), kNaN32, fb(-4.5f), fb(-9.0f), 0x80000000u};
  EXPECT_EQ(run_lanes("  min.f32 %r4, %r1, %r2, %r3;", a, b, c),
            (V32{fb(-1.0f), fb(2.0f), kNaN32, fb(-5.0f), fb(-9.0f), 0x80000000u}));
  EXPECT_EQ(run_lanes("  max.f32 %r4, %r1, %r2, %r3;", a, b, c),
            (V32{fb(3.0f), fb(7.0f), kNaN32, fb(4.0f), fb(2.0f), 0}));
  EXPECT_EQ(run_lanes("  max.abs.f32 %r4, %r1, %r2, %r3;", a, b, c),
            (V32{fb(3.0f), fb(7.0f), kNaN32, fb(5.0f), fb(9.0f), 0}));
  EXPECT_EQ(run_lanes("  min.NaN.abs.f32 %r4, %r1, %r2, %r3;", a, b, c),
            (V32{fb(1.0f), kNaN32, kNaN32, fb(4.0f), kNaN32, 0}));
  // f64: payload-free cases are exact; two NaNs give a NaN.
  const V64 x = {db(1.0), 0x7ff8000000000001ull, db(-0.0), db(-INFINITY), 0x7ff8000000000001ull};
  const V64 y = {db(-2.0), db(3.0), db(0.0), db(5.0), 0xfff8000000000002ull};
  const V64 mn = run_lanes<uint64_t>("  min.f64 %rd4, %rd1, %rd2;", x, y, y);
  const V64 mx = run_lanes<uint64_t>("  max.f64 %rd4, %rd1, %rd2;", x, y, y);
  EXPECT_EQ(V64(mn.begin(), mn.begin() + 4), (V64{db(-2.0), db(3.0), db(-0.0), db(-INFINITY)}));
  EXPECT_EQ(V64(mx.begin(), mx.begin() + 4), (V64{db(1.0), db(3.0), db(0.0), db(5.0)}));
  EXPECT_TRUE(std::isnan(bd(mn[4])) && std::isnan(bd(mx[4])));
}

TEST(ExecFloat, AbsNegCopysign) {
  const V32 a = {fb(-2.0f), fb(3.0f), 0x80000000u, 0, fb(-kInf), 0xffc00001u, 0x80000003u};
  const V32 z(a.size(), 0);
  const V32 abs = run_lanes("  abs.f32 %r4, %r1;", a, z, z);
  const V32 neg = run_lanes("  neg.f32 %r4, %r1;", a, z, z);
  for (size_t i = 0; i < a.size(); ++i) {
    if (nan32(a[i])) {  // the ISA leaves the NaN unspecified
      EXPECT_TRUE(nan32(abs[i]) && nan32(neg[i])) << i;
      continue;
    }
    EXPECT_EQ(abs[i], fb(std::fabs(bf(a[i])))) << i;
    EXPECT_EQ(neg[i], fb(-bf(a[i]))) << i;
  }
  // abs.f64 passes NaNs through unchanged.
  const V64 d = {db(-2.0), 0xfff0000000000001ull, db(-0.0), db(INFINITY)};
  const V64 dz(d.size(), 0);
  EXPECT_EQ(run_lanes<uint64_t>("  abs.f64 %rd4, %rd1;", d, dz, dz),
            (V64{db(2.0), 0xfff0000000000001ull, db(0.0), db(INFINITY)}));
  const V64 dn = run_lanes<uint64_t>("  neg.f64 %rd4, %rd1;", d, dz, dz);
  EXPECT_EQ(dn[0], db(2.0));
  EXPECT_TRUE(std::isnan(bd(dn[1])));
  EXPECT_EQ(dn[2], db(0.0));
  EXPECT_EQ(dn[3], db(-INFINITY));
  // copysign d, a, b: the magnitude of b with the sign of a.
  EXPECT_EQ(run_lanes("  copysign.f32 %r4, %r1, %r2;", {fb(-1.0f), fb(1.0f), 0x80000000u},
                      {fb(5.0f), fb(-5.0f), 0x7fc00123u}, {0, 0, 0}),
            (V32{fb(-5.0f), fb(5.0f), 0xffc00123u}));
  EXPECT_EQ(run_lanes<uint64_t>("  copysign.f64 %rd4, %rd1, %rd2;", {db(-0.0), db(2.0)}, {db(3.0), db(-INFINITY)},
                                {0, 0}),
            (V64{db(-3.0), db(INFINITY)}));
}

TEST(ExecFloat, TestpClassifies) {
  const V32 a = {0, 0x80000000u, fb(1.0f), 0x00000001u, 0x807fffffu, fb(kInf), fb(-kInf), 0x7fc00000u, 0xff800001u,
                 fb(kMax)};
  const V32 z(a.size(), 0);
  V64 d, dz;
  for (uint32_t x : a) d.push_back(db(static_cast<double>(bf(x)))), dz.push_back(0);
  d[3] = 1u;  // an f64 subnormal
  d[4] = 0x800fffffffffffffull;
  struct Case {
    const char* op;
    std::function<bool(int)> host;  // on the host's classification (std::fpclassify)
  };
  const Case cases[] = {
      {"finite", [](int k) { return k != FP_INFINITE && k != FP_NAN; }},
      {"infinite", [](int k) { return k == FP_INFINITE; }},
      {"number", [](int k) { return k != FP_NAN; }},
      {"notanumber", [](int k) { return k == FP_NAN; }},
      {"normal", [](int k) { return k == FP_NORMAL || k == FP_ZERO; }},  // zeros count as normal
      {"subnormal", [](int k) { return k == FP_SUBNORMAL; }},
  };
  for (const Case& c : cases) {
    const V32 r32 = run_lanes(std::string("  testp.") + c.op + ".f32 %p1, %r1; selp.u32 %r4, 1, 0, %p1;", a, z, z);
    const V64 r64 =
        run_lanes<uint64_t>(std::string("  testp.") + c.op + ".f64 %p1, %rd1; selp.u64 %rd4, 1, 0, %p1;", d, dz, dz);
    for (size_t i = 0; i < a.size(); ++i) {
      EXPECT_EQ(r32[i], c.host(std::fpclassify(bf(a[i]))) ? 1u : 0u) << c.op << " f32 " << i;
      EXPECT_EQ(r64[i], c.host(std::fpclassify(bd(d[i]))) ? 1u : 0u) << c.op << " f64 " << i;
    }
  }
}

// ---- setp / set --------------------------------------------------------------------------

struct Compare {
  const char* op;
  std::function<bool(double, double)> host;
};
const std::vector<Compare>& compares() {
  static const std::vector<Compare> v = {
      {"eq", [](double a, double b) { return a == b; }},
      {"ne", [](double a, double b) { return a < b || a > b; }},
      {"lt", [](double a, double b) { return a < b; }},
      {"le", [](double a, double b) { return a <= b; }},
      {"gt", [](double a, double b) { return a > b; }},
      {"ge", [](double a, double b) { return a >= b; }},
      {"equ", [](double a, double b) { return !(a < b || a > b); }},
      {"neu", [](double a, double b) { return a != b; }},
      {"ltu", [](double a, double b) { return !(a >= b); }},
      {"leu", [](double a, double b) { return !(a > b); }},
      {"gtu", [](double a, double b) { return !(a <= b); }},
      {"geu", [](double a, double b) { return !(a < b); }},
      {"num", [](double a, double b) { return !std::isunordered(a, b); }},
      {"nan", [](double a, double b) { return std::isunordered(a, b); }},
  };
  return v;
}

// %r4 = p | q << 1 after `setp`.
const char* const kPQ = "\n  selp.u32 %r6, 1, 0, %p1; selp.u32 %r7, 2, 0, %p2; or.b32 %r4, %r6, %r7;";

TEST(ExecFloat, SetpEveryComparisonOnEveryPair) {
  const std::vector<float> vals = {std::nanf(""), -kInf, -1.0f, -0.0f, 0.0f, 1e-45f, 1.0f, kInf};
  V32 a, b;
  V64 da, dbv;
  for (float x : vals)
    for (float y : vals) a.push_back(fb(x)), b.push_back(fb(y)), da.push_back(db(x)), dbv.push_back(db(y));
  const V32 z(a.size(), 0);
  for (const Compare& c : compares()) {
    const V32 r32 = run_lanes(std::string("  setp.") + c.op + ".f32 %p1|%p2, %r1, %r2;" + kPQ, a, b, z);
    const V64 r64 = run_lanes<uint64_t>(
        std::string("  setp.") + c.op +
            ".f64 %p1|%p2, %rd1, %rd2;\n"
            "  selp.u64 %rd6, 1, 0, %p1; selp.u64 %rd7, 2, 0, %p2; or.b64 %rd4, %rd6, %rd7;",
        da, dbv, V64(a.size(), 0));
    for (size_t i = 0; i < a.size(); ++i) {
      const uint32_t want = c.host(bf(a[i]), bf(b[i])) ? 1u : 2u;  // q is the complement
      ASSERT_EQ(r32[i], want) << c.op << ".f32 " << bf(a[i]) << " " << bf(b[i]);
      ASSERT_EQ(r64[i], want) << c.op << ".f64 " << bf(a[i]) << " " << bf(b[i]);
    }
  }
}

TEST(ExecFloat, SetpBooleanOpsSinksAndFtz) {
  const float nan = std::nanf("");
  const V32 a = {fb(1.0f), fb(2.0f), fb(nan), fb(1.0f), fb(1.0f), fb(2.0f), fb(nan), fb(1.0f)};
  const V32 b = {fb(2.0f), fb(1.0f), fb(1.0f), fb(1.0f), fb(2.0f), fb(1.0f), fb(1.0f), fb(1.0f)};
  const V32 z(a.size(), 0);
  // c = (lane >= 4); p = BoolOp(a < b, c), q = BoolOp(!(a < b), c).
  const std::string c = "  setp.ge.u32 %p3, %r5, 4;\n";
  for (const char* op : {"and", "or", "xor"})
    for (bool negate : {false, true}) {
      const V32 r = run_lanes(c + "  setp.lt." + op + ".f32 %p1|%p2, %r1, %r2, " + (negate ? "!" : "") + "%p3;" + kPQ,
                              a, b, z);
      for (uint32_t i = 0; i < a.size(); ++i) {
        const bool t = bf(a[i]) < bf(b[i]), cv = (i >= 4) != negate;
        auto apply = [&](bool x) { return op[0] == 'a' ? x && cv : op[0] == 'o' ? x || cv : x != cv; };
        EXPECT_EQ(r[i], (apply(t) ? 1u : 0u) | (apply(!t) ? 2u : 0u)) << op << negate << " " << i;
      }
    }
  // A sink for either destination.
  EXPECT_EQ(run_lanes("  setp.ltu.f32 _|%p2, %r1, %r2; selp.u32 %r4, 1, 0, %p2;", a, b, z),
            (V32{0, 1, 0, 1, 0, 1, 0, 1}));
  EXPECT_EQ(run_lanes("  setp.ltu.f32 %p1|_, %r1, %r2; selp.u32 %r4, 1, 0, %p1;", a, b, z),
            (V32{1, 0, 1, 0, 1, 0, 1, 0}));
  // .ftz: a subnormal equals zero.
  const V32 s = {0x00000001u, 0x80400000u}, zero = {0, 0};
  EXPECT_EQ(run_lanes("  setp.eq.f32 %p1, %r1, %r2; selp.u32 %r4, 1, 0, %p1;", s, zero, zero), (V32{0, 0}));
  EXPECT_EQ(run_lanes("  setp.eq.ftz.f32 %p1, %r1, %r2; selp.u32 %r4, 1, 0, %p1;", s, zero, zero), (V32{1, 1}));
  EXPECT_EQ(run_lanes("  setp.ge.u32 %p3, %r5, 1;\n"
                      "  setp.lt.ftz.and.f32 %p1, %r1, %r2, %p3; selp.u32 %r4, 1, 0, %p1;",
                      s, {fb(1.0f), fb(1.0f)}, zero),
            (V32{0, 1}));
}

TEST(ExecFloat, SetpHalfPrecision) {
  const std::vector<double> vals = {NAN, -INFINITY, -1.5, -0.0, 0.0, 0x1p-24, 1.0, INFINITY};
  for (const Half* f : {&kF16, &kBF16}) {
    V16 a, b;
    for (double x : vals)
      for (double y : vals) a.push_back(bits16(*f, x)), b.push_back(bits16(*f, y));
    const std::string ty = f->bf ? "bf16" : "f16";
    for (const Compare& c : compares()) {
      const std::string body = "  setp." + std::string(c.op) + "." + ty + " %p1, %h1, %h2; selp.b16 %h4, 1, 0, %p1;";
      const V16 r = run16(body, a, b, a);
      for (size_t i = 0; i < a.size(); ++i)
        ASSERT_EQ(r[i], c.host(value16(*f, a[i]), value16(*f, b[i])) ? 1 : 0) << c.op << "." << ty << " " << i;
    }
    // Packed: p from the low elements, q from the high ones (both through the boolean op).
    const uint16_t one = bits16(*f, 1.0), two = bits16(*f, 2.0);
    const V32 pa = pack({one, two, one, two}, {two, one, one, two});
    const V32 pb = pack({two, two, two, two}, {one, two, two, one});
    const V32 z4(4, 0);
    EXPECT_EQ(run_lanes("  setp.lt." + ty + "x2 %p1|%p2, %r1, %r2;" + kPQ, pa, pb, z4), (V32{1, 2, 3, 0})) << ty;
    EXPECT_EQ(run_lanes("  setp.ge.u32 %p3, %r5, 1;\n  setp.lt.xor." + ty + "x2 %p1|%p2, %r1, %r2, %p3;" + kPQ, pa, pb,
                        z4),
              (V32{1, 1, 0, 3}))
        << ty;
  }
  // setp.ftz.f16: the f16 subnormal 2^-24 equals zero.
  EXPECT_EQ(run16("  setp.eq.ftz.f16 %p1, %h1, %h2; selp.b16 %h4, 1, 0, %p1;", {0x0001}, {0x8000}, {0})[0], 1);
  EXPECT_EQ(run16("  setp.eq.f16 %p1, %h1, %h2; selp.b16 %h4, 1, 0, %p1;", {0x0001}, {0x8000}, {0})[0], 0);
}

TEST(ExecFloat, SetWritesOnePointZeroOrAllOnes) {
  const float nan = std::nanf("");
  const V32 a = {fb(1.0f), fb(3.0f), fb(nan), fb(2.0f)}, b = {fb(2.0f), fb(2.0f), fb(1.0f), fb(2.0f)};
  const V32 z(4, 0);
  const uint32_t one = fb(1.0f);
  EXPECT_EQ(run_lanes("  set.lt.f32.f32 %r4, %r1, %r2;", a, b, z), (V32{one, 0, 0, 0}));
  EXPECT_EQ(run_lanes("  set.gtu.u32.f32 %r4, %r1, %r2;", a, b, z), (V32{0, ~0u, ~0u, 0}));
  EXPECT_EQ(run_lanes("  set.ge.s32.f32 %r4, %r1, %r2;", a, b, z), (V32{0, ~0u, 0, ~0u}));
  // With a boolean op: (a == b) xor (lane is odd).
  EXPECT_EQ(run_lanes("  and.b32 %r6, %r5, 1; setp.ne.u32 %p3, %r6, 0;\n  set.eq.xor.u32.f32 %r4, %r1, %r2, %p3;", a,
                      b, z),
            (V32{0, ~0u, 0, 0}));
  const V64 da = {db(1.0), db(3.0), db(NAN), db(2.0)}, dbv = {db(2.0), db(2.0), db(1.0), db(2.0)};
  EXPECT_EQ(run_lanes<uint64_t>("  set.num.f32.f64 %r4, %rd1, %rd2; cvt.u64.u32 %rd4, %r4;", da, dbv, V64(4, 0)),
            (V64{one, one, 0, one}));
  EXPECT_EQ(run_lanes<uint64_t>("  set.le.u32.f64 %r4, %rd1, %rd2; cvt.u64.u32 %rd4, %r4;", da, dbv, V64(4, 0)),
            (V64{0xffffffffu, 0, 0, 0xffffffffu}));
  // Half-precision sources and destinations.
  const V16 ha = {0x3c00, 0x4200, 0x7e00, 0x4000}, hb = {0x4000, 0x4000, 0x3c00, 0x4000};  // 1, 3, NaN, 2 vs 2, 2, 1, 2
  EXPECT_EQ(run16("  set.lt.f16.f16 %h4, %h1, %h2;", ha, hb, ha), (V16{0x3c00, 0, 0, 0}));
  EXPECT_EQ(run16("  set.ltu.u16.f16 %h4, %h1, %h2;", ha, hb, ha), (V16{0xffff, 0, 0xffff, 0}));
  EXPECT_EQ(run16("  set.ge.bf16.f16 %h4, %h1, %h2;", ha, hb, ha), (V16{0, 0x3f80, 0, 0x3f80}));
  EXPECT_EQ(run_lanes("  mov.b32 {%h1, %h5}, %r1; mov.b32 {%h2, %h5}, %r2; set.eq.u32.f16 %r4, %h1, %h2;",
                      V32(ha.begin(), ha.end()), V32(hb.begin(), hb.end()), z),
            (V32{0, 0, 0, ~0u}));
  // Packed sources: one result per element, low element in the low half.
  const V32 pa = pack({0x3c00, 0x4200}, {0x4200, 0x7e00}), pb = pack({0x4000, 0x4000}, {0x4000, 0x4000});
  EXPECT_EQ(run_lanes("  set.lt.f16x2.f16x2 %r4, %r1, %r2;", pa, pb, {0, 0}), (V32{0x00003c00u, 0}));
  EXPECT_EQ(run_lanes("  set.gtu.u32.f16x2 %r4, %r1, %r2;", pa, pb, {0, 0}), (V32{0xffff0000u, 0xffffffffu}));
  const V32 ba = pack({0x3f80, 0x4040}, {0x4040, 0x7fc0}), bb = pack({0x4000, 0x4000}, {0x4000, 0x4000});
  EXPECT_EQ(run_lanes("  set.lt.bf16x2.bf16x2 %r4, %r1, %r2;", ba, bb, {0, 0}), (V32{0x00003f80u, 0}));
  EXPECT_EQ(run_lanes("  set.nan.s32.bf16x2 %r4, %r1, %r2;", ba, bb, {0, 0}), (V32{0, 0xffff0000u}));
}

// ---- half precision --------------------------------------------------------------------------

TEST(ExecFloat, HalfArithmeticRoundsOnce) {
  const uint32_t n = 48;
  for (const Half* f : {&kF16, &kBF16}) {
    V16 a = random16(*f, n, 11), b = random16(*f, n, 12), c = random16(*f, n, 13);
    const std::string ty = f->bf ? "bf16" : "f16";
    const V16 add = run16("  add.rn." + ty + " %h4, %h1, %h2;", a, b, c);
    const V16 sub = run16("  sub." + ty + " %h4, %h1, %h2;", a, b, c);
    const V16 mul = run16("  mul.rn." + ty + " %h4, %h1, %h2;", a, b, c);
    const V16 fma = run16("  fma.rn." + ty + " %h4, %h1, %h2, %h3;", a, b, c);
    const V16 relu = run16("  fma.rn.relu." + ty + " %h4, %h1, %h2, %h3;", a, b, c);
    // Packed: the high elements are (b, c, a) so that swapping halves is caught.
    const V32 pa = pack(a, b), pb = pack(b, c), pc = pack(c, a);
    const V32 fma2 = run_lanes("  fma.rn." + ty + "x2 %r4, %r1, %r2, %r3;", pa, pb, pc);
    const V32 sub2 = run_lanes("  sub.rn." + ty + "x2 %r4, %r1, %r2;", pa, pb, pc);
    for (uint32_t i = 0; i < n; ++i) {
      const double x = value16(*f, a[i]), y = value16(*f, b[i]), w = value16(*f, c[i]);
      EXPECT_EQ(add[i], round16(*f, x + y)) << ty << i;
      EXPECT_EQ(sub[i], round16(*f, x - y)) << ty << i;
      EXPECT_EQ(mul[i], round16(*f, x * y)) << ty << i;
      EXPECT_EQ(fma[i], round16(*f, x * y + w)) << ty << i;  // exact in double
      const uint16_t r = round16(*f, x * y + w);
      EXPECT_EQ(relu[i], r & 0x8000 ? 0 : r) << ty << i;
      EXPECT_EQ(fma2[i], round16(*f, x * y + w) | static_cast<uint32_t>(round16(*f, y * w + x)) << 16) << ty << i;
      EXPECT_EQ(sub2[i], round16(*f, x - y) | static_cast<uint32_t>(round16(*f, y - w)) << 16) << ty << i;
    }
  }
  // f16 overflow and the largest finite value; 65504 + 16 is a tie that rounds to infinity.
  EXPECT_EQ(run16("  mul.f16 %h4, %h1, %h2;", {0x5c00, 0xdc00}, {0x5c00, 0x5c00}, {0, 0}), (V16{0x7c00, 0xfc00}));
  EXPECT_EQ(run16("  add.f16 %h4, %h1, %h2;", {0x7bff, 0x7bff}, {0x4c00, 0x4b00}, {0, 0}), (V16{0x7c00, 0x7bff}));
  // Subnormals are kept unless .ftz; .sat clamps to [0, 1] (NaN -> 0).
  const V16 s = {0x0001, 0x3800, 0xc000, 0x7e00, 0x3c00}, t = {0x0001, 0x3a00, 0x3c00, 0x3c00, 0x0001};
  EXPECT_EQ(run16("  add.f16 %h4, %h1, %h2;", s, t, s)[0], 0x0002);
  EXPECT_EQ(run16("  add.ftz.f16 %h4, %h1, %h2;", s, t, s)[0], 0);
  EXPECT_EQ(run16("  add.sat.f16 %h4, %h1, %h2;", s, t, s), (V16{0x0002, 0x3c00, 0, 0, 0x3c00}));
  EXPECT_EQ(run16("  mul.ftz.sat.f16 %h4, %h1, %h2;", s, t, s), (V16{0, 0x3600, 0, 0, 0}));
  EXPECT_EQ(run16("  fma.rn.ftz.relu.f16 %h4, %h1, %h2, %h3;", s, t, s), (V16{0, 0x3b00, 0, kNaN16, 0x3c00}));
  EXPECT_EQ(run16("  fma.rn.sat.f16 %h4, %h1, %h2, %h3;", s, t, s), (V16{0x0001, 0x3b00, 0, 0, 0x3c00}));
  EXPECT_EQ(run_lanes("  sub.ftz.sat.f16x2 %r4, %r1, %r2;", pack({0x3c00}, {0x0001}), pack({0xbc00}, {0}), {0}),
            (V32{0x00003c00u}));
  // bf16 keeps f32's range: 2^60 * 2^60 is finite.
  EXPECT_EQ(run16("  mul.rn.bf16 %h4, %h1, %h2;", {0x5d80}, {0x5d80}, {0})[0], 0x7b80);
}

TEST(ExecFloat, HalfMinMaxAbsNeg) {
  const uint16_t nan = 0x7e01, nnan = 0xfe00;
  const V16 a = {0x3c00, nan, nan, 0x8000, 0xc200, 0x0001, 0x4000};
  const V16 b = {0xc000, 0x4000, nnan, 0x0000, 0x4100, 0x8002, 0xc200};
  const V16 z(a.size(), 0);
  EXPECT_EQ(run16("  min.f16 %h4, %h1, %h2;", a, b, z), (V16{0xc000, 0x4000, kNaN16, 0x8000, 0xc200, 0x8002, 0xc200}));
  EXPECT_EQ(run16("  max.f16 %h4, %h1, %h2;", a, b, z), (V16{0x3c00, 0x4000, kNaN16, 0x0000, 0x4100, 0x0001, 0x4000}));
  EXPECT_EQ(run16("  max.NaN.f16 %h4, %h1, %h2;", a, b, z)[1], kNaN16);
  EXPECT_EQ(run16("  min.ftz.f16 %h4, %h1, %h2;", a, b, z)[5], 0x8000);
  // .xorsign.abs: min/max of the magnitudes, sign = sign(a) ^ sign(b).
  EXPECT_EQ(run16("  max.xorsign.abs.f16 %h4, %h1, %h2;", a, b, z)[0], 0xc000);
  EXPECT_EQ(run16("  min.xorsign.abs.f16 %h4, %h1, %h2;", a, b, z)[4], 0xc100);
  EXPECT_EQ(run16("  abs.f16 %h4, %h1;", a, b, z)[4], 0x4200);
  EXPECT_EQ(run16("  neg.f16 %h4, %h1;", a, b, z)[0], 0xbc00);
  EXPECT_EQ(run16("  neg.ftz.f16 %h4, %h1;", a, b, z)[5], 0x8000);
  EXPECT_EQ(run16("  abs.f16 %h4, %h1;", a, b, z)[1], kNaN16);
  // bf16: 1.0 = 0x3f80, -2 = 0xc000, 3 = 0x4040.
  const V16 x = {0x3f80, 0x7fc1, 0x8000, 0xc000}, y = {0xc000, 0x4040, 0x0000, 0x4040};
  EXPECT_EQ(run16("  min.bf16 %h4, %h1, %h2;", x, y, x), (V16{0xc000, 0x4040, 0x8000, 0xc000}));
  EXPECT_EQ(run16("  max.NaN.bf16 %h4, %h1, %h2;", x, y, x), (V16{0x3f80, kNaN16, 0x0000, 0x4040}));
  EXPECT_EQ(run16("  max.xorsign.abs.bf16 %h4, %h1, %h2;", x, y, x)[3], 0xc040);
  EXPECT_EQ(run16("  neg.bf16 %h4, %h1;", x, y, x), (V16{0xbf80, kNaN16, 0x0000, 0x4000}));
  EXPECT_EQ(run16("  abs.bf16 %h4, %h1;", x, y, x)[3], 0x4000);
  // Packed forms keep element order.
  EXPECT_EQ(run_lanes("  max.f16x2 %r4, %r1, %r2;", pack({0x3c00}, {0xc000}), pack({0x4000}, {0xc200}), {0}),
            (V32{0xc0004000u}));
  EXPECT_EQ(run_lanes("  min.bf16x2 %r4, %r1, %r2;", pack({0x3f80}, {0x4040}), pack({0xc000}, {0x4000}), {0}),
            (V32{0x4000c000u}));
  EXPECT_EQ(run_lanes("  neg.f16x2 %r4, %r1;", pack({0x3c00}, {0xc000}), {0}, {0}), (V32{0x4000bc00u}));
  EXPECT_EQ(run_lanes("  abs.bf16x2 %r4, %r1;", pack({0xbf80}, {0x4040}), {0}, {0}), (V32{0x40403f80u}));
}

TEST(ExecFloat, HalfEx2AndTanh) {
  // ISA special cases: ex2(-Inf) = +0, ex2(+-0) = 1, ex2(+Inf) = +Inf; tanh keeps +-0 and gives +-1 at +-Inf.
  const V16 f = {0xfc00, 0x8000, 0x0000, 0x7c00, 0x7e00, 0x4400 /*4*/, 0xbc00 /*-1*/, 0x0001};
  const V16 z(f.size(), 0);
  const V16 ex = run16("  ex2.approx.f16 %h4, %h1;", f, z, z);
  EXPECT_EQ(V16(ex.begin(), ex.begin() + 7), (V16{0, 0x3c00, 0x3c00, 0x7c00, kNaN16, 0x4c00, 0x3800}));
  EXPECT_NEAR(value16(kF16, ex[7]), 1.0, 0x1p-10);
  const V16 th = run16("  tanh.approx.f16 %h4, %h1;", f, z, z);
  EXPECT_EQ(V16(th.begin(), th.begin() + 5), (V16{0xbc00, 0x8000, 0x0000, 0x3c00, kNaN16}));
  EXPECT_NEAR(value16(kF16, th[6]), std::tanh(-1.0), std::exp2(-10.987));
  // bf16: ex2.approx.ftz flushes subnormal inputs (2^x = 1 for them).
  const V16 g = {0xff80, 0x8000, 0x0001, 0x7f80, 0x4080 /*4*/, 0xbf80 /*-1*/};
  const V16 zg(g.size(), 0);
  EXPECT_EQ(run16("  ex2.approx.ftz.bf16 %h4, %h1;", g, zg, zg), (V16{0, 0x3f80, 0x3f80, 0x7f80, 0x4180, 0x3f00}));
  const V16 tb = run16("  tanh.approx.bf16 %h4, %h1;", g, zg, zg);
  EXPECT_EQ(tb[3], 0x3f80);
  EXPECT_NEAR(value16(kBF16, tb[5]), std::tanh(-1.0), 0x1p-8);
  // Packed forms: element order.
  EXPECT_EQ(run_lanes("  ex2.approx.f16x2 %r4, %r1;", pack({0x4400}, {0xbc00}), {0}, {0}), (V32{0x38004c00u}));
  EXPECT_EQ(run_lanes("  ex2.approx.ftz.bf16x2 %r4, %r1;", pack({0x4080}, {0x0000}), {0}, {0}), (V32{0x3f804180u}));
  EXPECT_EQ(run_lanes("  tanh.approx.f16x2 %r4, %r1;", pack({0x7c00}, {0x8000}), {0}, {0}), (V32{0x80003c00u}));
  EXPECT_EQ(run_lanes("  tanh.approx.bf16x2 %r4, %r1;", pack({0xff80}, {0}), {0}, {0}), (V32{0x0000bf80u}));
}

TEST(ExecFloat, MixedPrecisionAndF32x2) {
  // add/sub/fma .f32.{f16,bf16}: the 16-bit operands widen exactly, one f32 rounding.
  const V16 h = {0x3c00 /*1*/, 0xc200 /*-3*/, 0x0001 /*2^-24*/, 0x7e00};
  const V32 c = {fb(0x1p-24f), fb(0.5f), fb(1.0f), fb(1.0f)};
  const V32 h32(h.begin(), h.end()), z(h.size(), 0);
  const std::string unpack = "  mov.b32 {%h1, %h5}, %r1;\n";
  EXPECT_EQ(run_lanes(unpack + "  add.rn.f32.f16 %r4, %h1, %r2;", h32, c, z),
            (V32{fb(1.0f), fb(-2.5f), fb(1.0f), kNaN32}));  // 1 + 2^-24 ties to 1
  EXPECT_EQ(run_lanes(unpack + "  add.rp.f32.f16 %r4, %h1, %r2;", h32, c, z)[0], fb(1.0f) + 1);
  EXPECT_EQ(run_lanes(unpack + "  sub.f32.f16 %r4, %h1, %r2;", h32, c, z)[1], fb(-3.5f));
  EXPECT_EQ(run_lanes(unpack + "  add.sat.f32.f16 %r4, %h1, %r2;", h32, c, z), (V32{fb(1.0f), 0, fb(1.0f), 0}));
  EXPECT_EQ(run_lanes(unpack + "  fma.rn.f32.f16 %r4, %h1, %h1, %r2;", h32, c, z)[1], fb(9.5f));
  const V32 b16 = {0x3f80 /*1*/, 0xc040 /*-3*/};
  EXPECT_EQ(run_lanes(unpack + "  fma.rz.f32.bf16 %r4, %h1, %h1, %r2;", b16, {fb(-1.0f), fb(0x1p-30f)}, {0, 0}),
            (V32{0, fb(9.0f)}));  // 9 + 2^-30 rounds toward zero
  EXPECT_EQ(run_lanes(unpack + "  sub.rm.f32.bf16 %r4, %h1, %r2;", b16, {fb(1.0f), 0}, {0, 0}),
            (V32{0x80000000u, fb(-3.0f)}));  // 1 - 1 is -0 under .rm
  // .f32x2: two f32 operations on the halves of b64 registers (low = element 0).
  auto p64 = [](float lo, float hi) { return uint64_t{fb(lo)} | uint64_t{fb(hi)} << 32; };
  const V64 x = {p64(1.0f, 3.0f), p64(0x1p-140f, -1.0f)}, y = {p64(0x1p-24f, 0.5f), p64(1.0f, 0x1p-24f)};
  const V64 w = {p64(2.0f, -1.0f), p64(0.0f, 0.0f)};
  EXPECT_EQ(run_lanes<uint64_t>("  add.rn.f32x2 %rd4, %rd1, %rd2;", x, y, w),
            (V64{p64(1.0f, 3.5f), p64(1.0f, bf(0xbf7fffffu))}));  // -1 + 2^-24 is exact
  EXPECT_EQ(run_lanes<uint64_t>("  add.rp.f32x2 %rd4, %rd1, %rd2;", x, y, w)[0], p64(bf(fb(1.0f) + 1), 3.5f));
  EXPECT_EQ(run_lanes<uint64_t>("  sub.rm.f32x2 %rd4, %rd1, %rd2;", x, y, w)[1], p64(-1.0f, bf(fb(-1.0f) + 1)));
  EXPECT_EQ(run_lanes<uint64_t>("  mul.ftz.f32x2 %rd4, %rd1, %rd2;", x, y, w)[1], p64(0.0f, -0x1p-24f));
  EXPECT_EQ(run_lanes<uint64_t>("  fma.rn.f32x2 %rd4, %rd1, %rd2, %rd3;", x, y, w)[0], p64(2.0f, 0.5f));
}

// ---- operands, guards, divergence, unsupported forms ----------------------------------------

TEST(ExecFloat, ImmediateOperands) {
  const V32 a = {fb(1.5f), fb(-2.0f)}, z = {0, 0};
  EXPECT_EQ(run_lanes("  add.f32 %r4, %r1, 0f40000000;", a, z, z), (V32{fb(3.5f), 0}));
  EXPECT_EQ(run_lanes("  mul.f32 %r4, %r1, 0.1;", a, z, z), (V32{fb(1.5f * 0.1f), fb(-2.0f * 0.1f)}));
  EXPECT_EQ(run_lanes("  sub.f32 %r4, 0d3FF8000000000000, %r1;", a, z, z), (V32{0, fb(3.5f)}));
  EXPECT_EQ(run_lanes("  fma.rn.f32 %r4, %r1, 2.0, -1.0;", a, z, z), (V32{fb(2.0f), fb(-5.0f)}));
  EXPECT_EQ(run_lanes("  setp.gt.f32 %p1, %r1, 0f00000000; selp.u32 %r4, 1, 0, %p1;", a, z, z), (V32{1, 0}));
  EXPECT_EQ(run_lanes("  set.lt.u32.f32 %r4, %r1, -1.0;", a, z, z), (V32{0, ~0u}));
  const V64 d = {db(1.5), db(-1.0)}, dz = {0, 0};
  EXPECT_EQ(run_lanes<uint64_t>("  add.f64 %rd4, %rd1, 0d4000000000000000;", d, dz, dz), (V64{db(3.5), db(1.0)}));
  EXPECT_EQ(run_lanes<uint64_t>("  mul.f64 %rd4, %rd1, 0.1;", d, dz, dz), (V64{db(1.5 * 0.1), db(-0.1)}));
  EXPECT_EQ(run_lanes<uint64_t>("  add.f64 %rd4, %rd1, 0f3F800000;", d, dz, dz), (V64{db(2.5), db(0.0)}));
  // A literal given to an f16 operand is rounded once from its own value:
  // 1 + 2^-11 + 2^-40 lies just above the f16 midpoint 1 + 2^-11, so it gives
  // 1 + 2^-10 (rounding through f32 first would land on the tie and give 1).
  EXPECT_EQ(run16("  add.f16 %h4, %h1, 0d3FF0020000001000;", {0, 0x8000}, {0, 0}, {0, 0}), (V16{0x3c01, 0x3c01}));
  EXPECT_EQ(run16("  add.f16 %h4, %h1, 0f3FC00000;", {0x3c00}, {0}, {0})[0], 0x4100);  // 1 + 1.5
  EXPECT_EQ(run16("  mul.rn.bf16 %h4, %h1, 0f40000000;", {0x3f80}, {0}, {0})[0], 0x4000);
}

TEST(ExecFloat, GuardedAndDivergentLanesWriteOnlyWhenActive) {
  // 40 lanes (a full warp and a partial one), %r4 preset to a sentinel.
  const uint32_t n = 40, sentinel = 0xdeadbeefu;
  V32 a(n), b(n, fb(2.0f)), z(n, 0);
  for (uint32_t i = 0; i < n; ++i) a[i] = fb(static_cast<float>(i));
  // Guard: lanes with tid % 3 == 0 skip the multiply.
  const V32 guarded = run_lanes("  mov.b32 %r4, 0xdeadbeef; rem.u32 %r6, %r5, 3; setp.ne.u32 %p1, %r6, 0;\n"
                                "  @%p1 mul.rn.f32 %r4, %r1, %r2;",
                                a, b, z);
  // Divergence: odd lanes branch to an fma, even lanes run a division then a
  // compare guarded by its result.
  const V32 branched = run_lanes("  mov.b32 %r4, 0xdeadbeef; and.b32 %r6, %r5, 1; setp.eq.u32 %p1, %r6, 1;\n"
                                 "  @%p1 bra ODD;\n"
                                 "  div.rn.f32 %r4, %r1, %r2;\n"
                                 "  setp.ge.f32 %p2, %r4, 10.0;\n"
                                 "  @%p2 neg.f32 %r4, %r4;\n"
                                 "  bra DONE;\n"
                                 "ODD:\n"
                                 "  fma.rn.f32 %r4, %r1, %r2, 0f3F800000;\n"
                                 "DONE:",
                                 a, b, z);
  for (uint32_t i = 0; i < n; ++i) {
    const float x = static_cast<float>(i);
    EXPECT_EQ(guarded[i], i % 3 ? fb(x * 2.0f) : sentinel) << i;
    const float even = x / 2.0f >= 10.0f ? -(x / 2.0f) : x / 2.0f;
    EXPECT_EQ(branched[i], i % 2 ? fb(x * 2.0f + 1.0f) : fb(even)) << i;
  }
}

TEST(ExecFloat, UnsupportedFormsFaultWhenExecuted) {
  for (const char* form : {
           "div.f32 %r1, %r2, %r3",                 // PTX 1.4+: a mode, .approx or .full is required
           "div.approx.f64 %rd1, %rd2, %rd3",       // no such form
           "rcp.approx.f64 %rd1, %rd2",             // only rcp.approx.ftz.f64
           "sqrt.approx.f64 %rd1, %rd2",            // no such form
           "rcp.f32 %r1, %r2",                      // legacy default (approx.ftz): needs an explicit mode
           "sin.f32 %r1, %r2",                      // legacy default: .approx is required
           "add.sat.f64 %rd1, %rd2, %rd3",          // no .sat on f64
           "add.rz.f16 %h1, %h2, %h3",              // half precision rounds .rn only
           "add.ftz.bf16 %h1, %h2, %h3",            // no .ftz on bf16
           "ex2.approx.bf16 %h1, %h2",              // only ex2.approx.ftz.bf16
           "ex2.approx.ftz.f16 %h1, %h2",           // no .ftz on f16 ex2
           "fma.rn.oob.f16 %h1, %h2, %h3, %h1",     // .oob is not modelled
           "fma.rn.sat.relu.f16 %h1, %h2, %h3, %h1",  // .sat and .relu exclude each other
           "min.xorsign.f32 %r1, %r2, %r3",         // .xorsign needs .abs
           "min.abs.f32 %r1, %r2, %r3",             // a lone .abs is the three-input form's
           "max.xorsign.abs.f32 %r1, %r2, %r3, %r4",  // and .xorsign.abs the two-input one's
           "min.NaN.f64 %rd1, %rd2, %rd3",          // f64 min has no modifiers
           "mul.sat.f32x2 %rd1, %rd2, %rd3",        // .f32x2 has no .sat
           "sin.approx.f64 %rd1, %rd2",             // f32 only
           "copysign.f16 %h1, %h2, %h3",            // f32/f64 only
           "setp.lo.f32 %p1, %r1, %r2",             // integer-only comparison
           "setp.eq.ftz.bf16 %p1, %h1, %h2",        // no .ftz on bf16
           "set.lt.f64.f32 %rd1, %r2, %r3",         // destination type
           "testp.normal.f16 %p1, %h1",             // f32/f64 only
       })
    expect_unsupported(form);
  // An unsupported instruction no lane executes does not fault.
  auto l = load(".visible .entry k()\n{\n  .reg .pred %p; .reg .b32 %r<4>;\n  setp.ne.u32 %p, 0, 0;\n"
                "  @%p div.f32 %r1, %r2, %r3;\n  ret;\n}\n");
  ASSERT_TRUE(l->program);
  EXPECT_TRUE(run(*l, "k", {1}, {32}, {}).ok());
}

}  // namespace
}  // namespace warpsim::functional
