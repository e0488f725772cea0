// f32/f64 add, sub, mul, fma, div, sqrt, rcp: every rounding mode on cases
// where they differ, overflow, subnormals with and without .ftz, NaN rules,
// signed zeros, .sat. Random f32 inputs are checked against the host FPU run
// under fesetround (an oracle independent of the software rounding path).
#include <gtest/gtest.h>

#include <cfenv>
#include <cmath>
#include <random>

#include "functional/fp/arith.h"

#include "tests/functional/fp_test_util.h"

namespace warpsim::functional::fp {
namespace {

using namespace test;  // R, kModes, F, D, fe

constexpr uint32_t kOne = 0x3f800000u, kMax32 = 0x7f7fffffu, kInf32 = 0x7f800000u;
constexpr uint64_t kOne64 = 0x3ff0000000000000ull, kMax64 = 0x7fefffffffffffffull;

// Runs fn (which reads volatile inputs) under the host rounding mode; NaNs
// are reported as the PTX canonical NaN.
template <class Fn>
uint32_t host32(R r, Fn fn) {
  std::fesetround(fe(r));
  volatile float out = fn();
  std::fesetround(FE_TONEAREST);
  const uint32_t b = f32_bits(out);
  return is_nan32(b) ? kF32CanonicalNaN : b;
}

uint32_t random_f32(std::mt19937& g) {
  switch (g() % 5) {
    case 0: return g();
    case 1: return (g() & 0x807fffffu) | ((100u + g() % 56u) << 23);
    case 2: return g() & 0x807fffffu;  // subnormals and zeros
    case 3: return (g() & 0x80000000u) | (kOne + g() % 64u - 32u);
    default: return (g() & 0x807fffffu) | ((g() % 2 ? 250u : 2u) << 23);  // extremes
  }
}

TEST(FpArith, AddRoundingModesDiffer) {
  const uint32_t tie = F(0x1p-24f), above = F(0x1.8p-24f);
  EXPECT_EQ(add_f32(kOne, tie, R::Rn), kOne);  // tie to even
  EXPECT_EQ(add_f32(kOne, tie, R::Rz), kOne);
  EXPECT_EQ(add_f32(kOne, tie, R::Rm), kOne);
  EXPECT_EQ(add_f32(kOne, tie, R::Rp), kOne + 1);
  EXPECT_EQ(add_f32(kOne, above, R::Rn), kOne + 1);
  EXPECT_EQ(add_f32(kOne, above, R::Rz), kOne);
  EXPECT_EQ(add_f32(kOne + 1, tie, R::Rn), kOne + 2);  // tie, even above
  const uint32_t m1 = kOne | 0x80000000u, mtie = tie | 0x80000000u;
  EXPECT_EQ(add_f32(m1, mtie, R::Rm), m1 + 1);
  EXPECT_EQ(add_f32(m1, mtie, R::Rp), m1);
  EXPECT_EQ(add_f32(m1, mtie, R::Rz), m1);
  EXPECT_EQ(sub_f32(kOne, tie, R::Rm), 0x3f7fffffu);  // 1 - 2^-24 is exact (finer grid below 1)
  EXPECT_EQ(sub_f32(kOne, F(0x1p-25f), R::Rm), 0x3f7fffffu);
  EXPECT_EQ(sub_f32(kOne, F(0x1p-25f), R::Rn), kOne);
  EXPECT_EQ(sub_f32(kOne, F(0x1p-25f), R::Rz), 0x3f7fffffu);
}

TEST(FpArith, MulAndFmaRoundingModes) {
  const uint32_t a = kOne + 1;  // (1 + 2^-23)^2 = 1 + 2^-22 + 2^-46
  EXPECT_EQ(mul_f32(a, a, R::Rn), kOne + 2);
  EXPECT_EQ(mul_f32(a, a, R::Rz), kOne + 2);
  EXPECT_EQ(mul_f32(a, a, R::Rm), kOne + 2);
  EXPECT_EQ(mul_f32(a, a, R::Rp), kOne + 3);
  EXPECT_EQ(mul_f32(a | 0x80000000u, a, R::Rm), (kOne + 3) | 0x80000000u);
  // fma rounds once: the error of a*a is recovered exactly.
  const uint32_t b = 0x3f800800u;  // 1 + 2^-12; b*b = 1 + 2^-11 + 2^-24
  const uint32_t p = mul_f32(b, b);
  EXPECT_EQ(p, 0x3f801000u);
  EXPECT_EQ(fma_f32(b, b, p ^ 0x80000000u), F(0x1p-24f));
  EXPECT_EQ(fma_f32(kOne, kOne, F(0x1p-30f), R::Rp), kOne + 1);
  EXPECT_EQ(fma_f32(kOne, kOne, F(0x1p-30f), R::Rn), kOne);
  EXPECT_EQ(fma_f32(kOne | 0x80000000u, kOne, F(-0x1p-30f), R::Rm), (kOne + 1) | 0x80000000u);
  EXPECT_EQ(fma_f32(kOne | 0x80000000u, kOne, F(-0x1p-30f), R::Rz), kOne | 0x80000000u);
}

TEST(FpArith, OverflowToInfinityOrMaxPerMode) {
  EXPECT_EQ(add_f32(kMax32, kMax32, R::Rn), kInf32);
  EXPECT_EQ(add_f32(kMax32, kMax32, R::Rz), kMax32);
  EXPECT_EQ(add_f32(kMax32, kMax32, R::Rm), kMax32);
  EXPECT_EQ(add_f32(kMax32, kMax32, R::Rp), kInf32);
  const uint32_t nmax = kMax32 | 0x80000000u, ninf = kInf32 | 0x80000000u;
  EXPECT_EQ(mul_f32(nmax, F(2.0f), R::Rm), ninf);
  EXPECT_EQ(mul_f32(nmax, F(2.0f), R::Rp), nmax);
  EXPECT_EQ(mul_f32(nmax, F(2.0f), R::Rz), nmax);
  EXPECT_EQ(add_f32(kMax32, F(0x1p102f), R::Rp), kInf32);  // max + ulp/4: rp overflows, rn does not
  EXPECT_EQ(add_f32(kMax32, F(0x1p102f), R::Rn), kMax32);
  EXPECT_EQ(add_f32(kMax32, F(0x1p103f), R::Rn), kInf32);  // max + ulp/2: the tie rounds to infinity
  EXPECT_EQ(div_f32(kMax32, F(0.5f), R::Rz), kMax32);
  EXPECT_EQ(add_f64(kMax64, kMax64, R::Rz), kMax64);
  EXPECT_EQ(add_f64(kMax64, kMax64, R::Rp), 0x7ff0000000000000ull);
  EXPECT_EQ(mul_f64(kMax64 | (1ull << 63), D(2.0), R::Rp), kMax64 | (1ull << 63));
  EXPECT_EQ(mul_f64(kMax64 | (1ull << 63), D(2.0), R::Rm), 0xfff0000000000000ull);
}

TEST(FpArith, SubnormalsWithAndWithoutFtz) {
  EXPECT_EQ(mul_f32(F(0x1p-126f), F(0.5f)), 0x00400000u);
  EXPECT_EQ(mul_f32(F(0x1p-126f), F(0.5f), R::Rn, true), 0u);
  EXPECT_EQ(mul_f32(F(-0x1p-126f), F(0.5f), R::Rn, true), 0x80000000u);  // sign-preserving
  EXPECT_EQ(add_f32(0x00000001u, 0u), 0x00000001u);
  EXPECT_EQ(add_f32(0x00000001u, 0u, R::Rn, true), 0u);
  EXPECT_EQ(add_f32(0x80000001u, 0x80000000u, R::Rn, true), 0x80000000u);
  EXPECT_EQ(mul_f32(0x00000001u, F(2.0f)), 0x00000002u);
  EXPECT_EQ(mul_f32(0x00000001u, F(0x1p30f), R::Rn, true), 0u);  // input flushed first
  // Underflow under the directed modes.
  const uint32_t t = F(0x1p-100f);
  EXPECT_EQ(mul_f32(t, t, R::Rn), 0u);
  EXPECT_EQ(mul_f32(t, t, R::Rp), 0x00000001u);
  EXPECT_EQ(mul_f32(t, t, R::Rm), 0u);
  EXPECT_EQ(mul_f32(t | 0x80000000u, t, R::Rm), 0x80000001u);
  EXPECT_EQ(mul_f32(t, t, R::Rp, true), 0u);  // rounded to the min subnormal, then flushed
  EXPECT_EQ(mul_f32(F(0x1.fffffep-64f), F(0x1p-63f), R::Rp), 0x00800000u);  // rounds up to min normal
  EXPECT_EQ(mul_f32(F(0x1.fffffep-64f), F(0x1p-63f), R::Rp, true), 0x00800000u);
  EXPECT_EQ(mul_f32(F(0x1.fffffep-64f), F(0x1p-63f), R::Rz, true), 0u);
  EXPECT_EQ(div_f32(F(0x1p-149f), F(2.0f), R::Rp), 1u);
  EXPECT_EQ(div_f32(F(0x1p-149f), F(2.0f), R::Rn), 0u);
  EXPECT_EQ(mul_f64(D(0x1p-1000), D(0x1p-100), R::Rp), 1ull);
  EXPECT_EQ(mul_f64(D(0x1p-1000), D(0x1p-100), R::Rm), 0ull);
  EXPECT_EQ(mul_f64(D(0x1p-1000), D(0x1p-74)), 1ull);  // min f64 subnormal: no flush for f64
}

TEST(FpArith, NaNResultsF32AreCanonical) {
  const uint32_t qnan = 0x7fc12345u, nnan = 0xffc00001u, snan = 0x7f800001u;
  for (R r : kModes) {
    EXPECT_EQ(add_f32(qnan, kOne, r), kF32CanonicalNaN);
    EXPECT_EQ(sub_f32(kOne, nnan, r), kF32CanonicalNaN);
    EXPECT_EQ(mul_f32(snan, kOne, r), kF32CanonicalNaN);
    EXPECT_EQ(fma_f32(kOne, kOne, qnan, r), kF32CanonicalNaN);
    EXPECT_EQ(div_f32(nnan, kOne, r), kF32CanonicalNaN);
    EXPECT_EQ(sqrt_f32(qnan, r), kF32CanonicalNaN);
    EXPECT_EQ(rcp_f32(snan, r), kF32CanonicalNaN);
    EXPECT_EQ(add_f32(kInf32, kInf32 | 0x80000000u, r), kF32CanonicalNaN);
    EXPECT_EQ(mul_f32(0u, kInf32, r), kF32CanonicalNaN);
    EXPECT_EQ(fma_f32(0u, kInf32, kOne, r), kF32CanonicalNaN);
    EXPECT_EQ(div_f32(0u, 0x80000000u, r), kF32CanonicalNaN);
    EXPECT_EQ(div_f32(kInf32, kInf32, r), kF32CanonicalNaN);
    EXPECT_EQ(sqrt_f32(F(-1.0f), r), kF32CanonicalNaN);
    EXPECT_EQ(sqrt_f32(0xff800000u, r), kF32CanonicalNaN);
  }
}

TEST(FpArith, NaNResultsF64PropagatePayload) {
  const uint64_t qa = 0x7ff8000000000123ull, sb = 0xfff0000000000456ull;
  for (R r : kModes) {
    EXPECT_EQ(add_f64(qa, kOne64, r), qa);
    EXPECT_EQ(add_f64(kOne64, sb, r), 0xfff8000000000456ull);  // quieted, sign and payload kept
    EXPECT_EQ(sub_f64(kOne64, sb, r), 0xfff8000000000456ull);
    EXPECT_EQ(mul_f64(sb, qa, r), 0xfff8000000000456ull);  // first NaN operand wins
    EXPECT_EQ(fma_f64(0ull, 0x7ff0000000000000ull, qa, r), qa);
    EXPECT_EQ(fma_f64(kOne64, sb, qa, r), 0xfff8000000000456ull);
    EXPECT_EQ(div_f64(qa, 0ull, r), qa);
    EXPECT_EQ(sqrt_f64(sb, r), 0xfff8000000000456ull);
    EXPECT_EQ(add_f64(0x7ff0000000000000ull, 0xfff0000000000000ull, r), kF64DefaultNaN);
    EXPECT_EQ(div_f64(0ull, 0ull, r), kF64DefaultNaN);
    EXPECT_EQ(sqrt_f64(D(-2.0), r), kF64DefaultNaN);
  }
}

TEST(FpArith, SignedZeros) {
  const uint32_t pz = 0, nz = 0x80000000u, x = F(1.5f), mx = F(-1.5f);
  EXPECT_EQ(add_f32(nz, pz, R::Rn), pz);
  EXPECT_EQ(add_f32(nz, pz, R::Rz), pz);
  EXPECT_EQ(add_f32(nz, pz, R::Rp), pz);
  EXPECT_EQ(add_f32(nz, pz, R::Rm), nz);
  EXPECT_EQ(add_f32(pz, pz, R::Rm), pz);
  for (R r : kModes) EXPECT_EQ(add_f32(nz, nz, r), nz);
  EXPECT_EQ(add_f32(x, mx, R::Rn), pz);
  EXPECT_EQ(add_f32(x, mx, R::Rm), nz);
  EXPECT_EQ(sub_f32(x, x, R::Rm), nz);
  EXPECT_EQ(sub_f32(x, x, R::Rp), pz);
  EXPECT_EQ(fma_f32(x, nz, pz, R::Rn), pz);
  EXPECT_EQ(fma_f32(x, nz, pz, R::Rm), nz);
  EXPECT_EQ(fma_f32(mx, pz, nz, R::Rp), nz);
  EXPECT_EQ(fma_f32(x, x, F(-2.25f), R::Rm), nz);  // exact cancellation
  EXPECT_EQ(mul_f32(nz, x, R::Rp), nz);
  EXPECT_EQ(div_f32(pz, mx, R::Rz), nz);
  EXPECT_EQ(sqrt_f32(nz, R::Rp), nz);
  const uint64_t pz64 = 0, nz64 = 1ull << 63;
  EXPECT_EQ(add_f64(nz64, pz64, R::Rn), pz64);
  EXPECT_EQ(add_f64(nz64, pz64, R::Rm), nz64);
  EXPECT_EQ(sub_f64(D(1.5), D(1.5), R::Rm), nz64);
  EXPECT_EQ(sub_f64(D(1.5), D(1.5), R::Rz), pz64);
  EXPECT_EQ(fma_f64(D(1.5), D(1.5), D(-2.25), R::Rm), nz64);
  EXPECT_EQ(sqrt_f64(nz64, R::Rm), nz64);
}

TEST(FpArith, SaturateClampsAndFlushesNaN) {
  EXPECT_EQ(add_f32(F(0.75f), F(0.5f), R::Rn, false, true), kOne);
  EXPECT_EQ(add_f32(F(-2.0f), F(1.0f), R::Rn, false, true), 0u);
  EXPECT_EQ(add_f32(F(0.25f), F(0.25f), R::Rn, false, true), F(0.5f));
  EXPECT_EQ(add_f32(kInf32, kInf32 | 0x80000000u, R::Rn, false, true), 0u);  // NaN -> +0
  EXPECT_EQ(mul_f32(0x80000000u, kOne, R::Rn, false, true), 0u);                // -0 -> +0
  EXPECT_EQ(sub_f32(F(3.0f), F(1.0f), R::Rz, false, true), kOne);
  EXPECT_EQ(fma_f32(F(2.0f), F(2.0f), F(-3.5f), R::Rn, false, true), F(0.5f));
  EXPECT_EQ(fma_f32(F(2.0f), F(2.0f), F(-30.0f), R::Rp, false, true), 0u);
  EXPECT_EQ(mul_f32(kInf32, kInf32, R::Rn, false, true), kOne);
}

TEST(FpArith, DivSqrtRcpPerMode) {
  const uint32_t three = F(3.0f), m3 = F(-3.0f);
  EXPECT_EQ(div_f32(kOne, three, R::Rn), 0x3eaaaaabu);
  EXPECT_EQ(div_f32(kOne, three, R::Rz), 0x3eaaaaaau);
  EXPECT_EQ(div_f32(kOne, three, R::Rm), 0x3eaaaaaau);
  EXPECT_EQ(div_f32(kOne, three, R::Rp), 0x3eaaaaabu);
  EXPECT_EQ(div_f32(kOne, m3, R::Rm), 0xbeaaaaabu);
  EXPECT_EQ(div_f32(kOne, m3, R::Rp), 0xbeaaaaaau);
  EXPECT_EQ(div_f32(kOne, F(4.0f), R::Rp), F(0.25f));
  EXPECT_EQ(div_f32(m3, 0u, R::Rz), 0xff800000u);
  EXPECT_EQ(rcp_f32(three, R::Rz), 0x3eaaaaaau);
  EXPECT_EQ(rcp_f32(0x80000000u, R::Rn), 0xff800000u);
  EXPECT_EQ(rcp_f32(kInf32, R::Rm), 0u);
  EXPECT_EQ(rcp_f32(kMax32, R::Rn), 0x00200000u);  // 2^-128 (approximately): subnormal
  EXPECT_EQ(rcp_f32(kMax32, R::Rn, true), 0u);
  const uint32_t two = F(2.0f);
  EXPECT_EQ(sqrt_f32(two, R::Rn), 0x3fb504f3u);
  EXPECT_EQ(sqrt_f32(two, R::Rz), 0x3fb504f3u);
  EXPECT_EQ(sqrt_f32(two, R::Rm), 0x3fb504f3u);
  EXPECT_EQ(sqrt_f32(two, R::Rp), 0x3fb504f4u);
  EXPECT_EQ(sqrt_f32(kInf32, R::Rz), kInf32);
  EXPECT_EQ(sqrt_f32(0x00000001u, R::Rn), F(0x1.6a09e6p-75f));
  EXPECT_EQ(sqrt_f32(0x00000001u, R::Rn, true), 0u);
  EXPECT_EQ(div_f64(kOne64, D(3.0), R::Rz) + 1, div_f64(kOne64, D(3.0), R::Rp));
  EXPECT_EQ(div_f64(kOne64, D(3.0), R::Rn), D(1.0 / 3.0));
  EXPECT_EQ(rcp_f64(D(-3.0), R::Rm), div_f64(kOne64, D(-3.0), R::Rz) + 1);
  EXPECT_EQ(sqrt_f64(D(2.0), R::Rz) + 1, sqrt_f64(D(2.0), R::Rp));
  EXPECT_EQ(add_f64(kOne64, D(0x1p-53), R::Rn), kOne64);
  EXPECT_EQ(add_f64(kOne64, D(0x1p-53), R::Rp), kOne64 + 1);
  EXPECT_EQ(add_f64(D(-1.0), D(-0x1p-53), R::Rm), D(-1.0) + 1);
  EXPECT_EQ(fma_f64(kOne64, kOne64, D(0x1p-80), R::Rp), kOne64 + 1);
  EXPECT_EQ(fma_f64(kOne64, kOne64, D(0x1p-80), R::Rz), kOne64);
}

TEST(FpArith, DirectedF64LeavesHostRoundingModeAlone) {
  ASSERT_EQ(std::fegetround(), FE_TONEAREST);
  (void)add_f64(kOne64, D(0x1p-60), R::Rp);
  (void)fma_f64(kOne64, kOne64, D(0x1p-60), R::Rm);
  (void)sqrt_f64(D(3.0), R::Rz);
  EXPECT_EQ(std::fegetround(), FE_TONEAREST);
}

// The software (double + error term) f32 path against the host FPU.
TEST(FpArith, F32MatchesHostFpuInEveryMode) {
  std::mt19937 g(1234);
  for (int i = 0; i < 60000; ++i) {
    const uint32_t a = random_f32(g), c = random_f32(g);
    uint32_t b = random_f32(g);
    if (i % 7 == 0) b = (a ^ 0x80000000u) + (g() % 5) - 2;  // near-cancellation
    volatile float va = f32_from(a), vb = f32_from(b), vc = f32_from(c);
    for (R r : kModes) {
      ASSERT_EQ(add_f32(a, b, r), host32(r, [&] { return va + vb; })) << std::hex << a << " " << b;
      ASSERT_EQ(sub_f32(a, b, r), host32(r, [&] { return va - vb; })) << std::hex << a << " " << b;
      ASSERT_EQ(mul_f32(a, b, r), host32(r, [&] { return va * vb; })) << std::hex << a << " " << b;
      ASSERT_EQ(div_f32(a, b, r), host32(r, [&] { return va / vb; })) << std::hex << a << " " << b;
      ASSERT_EQ(fma_f32(a, b, c, r), host32(r, [&] { return std::fma(va, vb, vc); }))
          << std::hex << a << " " << b << " " << c;
      if (!(a & 0x80000000u)) {
        ASSERT_EQ(sqrt_f32(a, r), host32(r, [&] { return std::sqrt(va); })) << std::hex << a;
      }
    }
  }
}

// Directed f64 results bracket the exact value and sit one ulp apart exactly
// when the operation is inexact (checked with error-free transformations).
TEST(FpArith, F64DirectedResultsBracketTheExactValue) {
  std::mt19937_64 g(99);
  for (int i = 0; i < 20000; ++i) {
    const double a = std::ldexp(static_cast<double>(g() >> 11), -52 + static_cast<int>(g() % 200) - 100);
    const double b = std::ldexp(static_cast<double>(g() >> 11), -52 + static_cast<int>(g() % 200) - 100) *
                     (g() % 2 ? 1 : -1);
    double err;
    const double s = two_sum(a, b, err);
    const uint64_t rn = add_f64(D(a), D(b)), rz = add_f64(D(a), D(b), R::Rz);
    const uint64_t rm = add_f64(D(a), D(b), R::Rm), rp = add_f64(D(a), D(b), R::Rp);
    ASSERT_EQ(rn, D(s));
    if (err == 0) {
      ASSERT_TRUE(rm == rn && rp == rn && rz == rn);
    } else {
      ASSERT_LT(f64_from(rm), f64_from(rp));
      ASSERT_EQ(f64_from(rp), std::nextafter(f64_from(rm), INFINITY));
      ASSERT_TRUE(f64_from(rm) <= s && s <= f64_from(rp));
      ASSERT_EQ(rz, s > 0 ? rm : rp);
    }
    const double p = a * b;
    const double perr = std::fma(a, b, -p);  // exact: no underflow in this range
    const uint64_t mm = mul_f64(D(a), D(b), R::Rm), mp = mul_f64(D(a), D(b), R::Rp);
    if (perr == 0) {
      ASSERT_EQ(mm, mp);
    } else {
      ASSERT_EQ(f64_from(mp), std::nextafter(f64_from(mm), INFINITY));
    }
    const double q = a / b;
    const double qrem = std::fma(-q, b, a);
    const uint64_t dm = div_f64(D(a), D(b), R::Rm), dp = div_f64(D(a), D(b), R::Rp);
    ASSERT_EQ(qrem == 0, dm == dp);
  }
}

}  // namespace
}  // namespace warpsim::functional::fp
