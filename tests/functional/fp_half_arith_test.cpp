// f16/bf16 add, sub, mul, fma: rounding, .ftz, .sat, .relu, NaN, signed
// zeros, and an oracle check that results are rounded once. The oracle
// computes the exact result rounded to odd in f32 (host FPU toward zero plus
// the inexact flag) and lets the host F16C unit round that to f16: with
// f32 having more than p+2 bits, the second rounding of a round-to-odd value
// equals one rounding of the exact value, in every direction.
#include <gtest/gtest.h>

#include <cfenv>
#include <cmath>
#include <random>

#include "functional/fp/half.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "tests/functional/fp_test_util.h"

namespace warpsim::functional::fp {
namespace {

using namespace test;  // R, kModes, F, D, fe
constexpr uint16_t kOneH = 0x3c00, kMaxH = 0x7bff, kInfH = 0x7c00;

TEST(FpHalfArith, AddRoundsPerMode) {
  const uint16_t tie = 0x1000;  // 2^-11: 1 + 2^-11 is the midpoint above 1
  EXPECT_EQ(add_f16(kOneH, tie, R::Rn), kOneH);
  EXPECT_EQ(add_f16(kOneH, tie, R::Rz), kOneH);
  EXPECT_EQ(add_f16(kOneH, tie, R::Rm), kOneH);
  EXPECT_EQ(add_f16(kOneH, tie, R::Rp), kOneH + 1);
  EXPECT_EQ(add_f16(kOneH + 1, tie, R::Rn), kOneH + 2);
  EXPECT_EQ(sub_f16(0xbc00, tie, R::Rm), 0xbc01);
  EXPECT_EQ(add_f16(kMaxH, kMaxH), kInfH);
  EXPECT_EQ(add_f16(kMaxH, kMaxH, R::Rz), kMaxH);
  EXPECT_EQ(add_f16(kMaxH, 0x4800, R::Rn), kMaxH);  // + 8: below the overflow midpoint
  EXPECT_EQ(add_f16(kMaxH, 0x4800, R::Rp), kInfH);
  EXPECT_EQ(add_f16(kMaxH, 0x4c00, R::Rn), kInfH);  // + 16: the midpoint, ties to "even" infinity
  EXPECT_EQ(add_bf16(0x3f80, 0x3b80), 0x3f80);  // 1 + 2^-8: tie to even
  EXPECT_EQ(add_bf16(0x3f81, 0x3b80), 0x3f82);
  EXPECT_EQ(add_bf16(0x3f80, 0x3b80, R::Rp), 0x3f81);
  // bf16 sums need more than double's 53 bits: the TwoSum tail decides.
  EXPECT_EQ(add_bf16(0x7f00, 0x0001, R::Rp), 0x7f01);
  EXPECT_EQ(add_bf16(0x7f00, 0x8001, R::Rz), 0x7eff);
  EXPECT_EQ(add_bf16(0x7f00, 0x8001, R::Rn), 0x7f00);
}

TEST(FpHalfArith, MulAndFmaRoundOnce) {
  EXPECT_EQ(mul_f16(0x0001, 0x3800), 0x0000);  // 2^-25: tie to even
  EXPECT_EQ(mul_f16(0x0001, 0x3800, R::Rp), 0x0001);
  EXPECT_EQ(mul_f16(0x8001, 0x3800, R::Rm), 0x8001);
  EXPECT_EQ(mul_f16(0x3c01, 0x3c01), 0x3c02);  // (1 + 2^-10)^2 = 1 + 2^-9 + 2^-20
  EXPECT_EQ(mul_f16(0x3c01, 0x3c01, R::Rp), 0x3c03);
  // fma recovers the product's rounding error: 2^-20 (an f16 subnormal).
  EXPECT_EQ(fma_f16(0x3c01, 0x3c01, 0xbc02), 0x0010);
  EXPECT_EQ(add_f16(mul_f16(0x3c01, 0x3c01), 0xbc02), 0x0000);
  EXPECT_EQ(fma_bf16(0x3f81, 0x3f81, 0xbf82), 0x3880);  // (1+2^-7)^2 - (1+2^-6) = 2^-14
  EXPECT_EQ(fma_f16(kOneH, kOneH, 0x0001, R::Rp), kOneH + 1);
  EXPECT_EQ(fma_f16(kOneH, kOneH, 0x0001, R::Rn), kOneH);
}

TEST(FpHalfArith, FtzSatRelu) {
  EXPECT_EQ(add_f16(0x0001, 0x0000), 0x0001);
  EXPECT_EQ(add_f16(0x0001, 0x0000, R::Rn, true), 0x0000);
  EXPECT_EQ(add_f16(0x8001, 0x8000, R::Rn, true), 0x8000);
  EXPECT_EQ(mul_f16(0x0400, 0x3800), 0x0200);              // min normal / 2
  EXPECT_EQ(mul_f16(0x0400, 0x3800, R::Rn, true), 0x0000);  // result flushed
  EXPECT_EQ(add_f16(0x3a00, 0x3800, R::Rn, false, true), kOneH);  // 0.75 + 0.5 -> 1
  EXPECT_EQ(add_f16(0xb800, 0x0000, R::Rn, false, true), 0x0000);
  EXPECT_EQ(add_f16(kInfH, 0xfc00, R::Rn, false, true), 0x0000);  // NaN -> +0
  EXPECT_EQ(mul_f16(0x8000, kOneH, R::Rn, false, true), 0x0000);  // -0 -> +0
  EXPECT_EQ(fma_f16(0x4000, 0x4000, 0xc400, R::Rn, false, false, true), 0x0000);  // 4 - 4 = +0
  EXPECT_EQ(fma_f16(0x4000, 0xc000, 0x3c00, R::Rn, false, false, true), 0x0000);  // -3 -> 0
  EXPECT_EQ(fma_f16(0x4000, 0x4000, 0x3c00, R::Rn, false, false, true), 0x4500);  // 5
  EXPECT_EQ(fma_f16(kInfH, 0x0000, 0x3c00, R::Rn, false, false, true), kF16CanonicalNaN);
  EXPECT_EQ(fma_bf16(0x4000, 0xc000, 0x3f80, R::Rn, true), 0x0000);
  EXPECT_EQ(fma_bf16(0x7f80, 0x0000, 0x3f80, R::Rn, true), kBF16CanonicalNaN);
}

TEST(FpHalfArith, NaNAndSignedZeros) {
  for (R r : kModes) {
    EXPECT_EQ(add_f16(0x7e01, kOneH, r), kF16CanonicalNaN);
    EXPECT_EQ(sub_f16(kInfH, kInfH, r), kF16CanonicalNaN);
    EXPECT_EQ(mul_f16(0x0000, 0xfc00, r), kF16CanonicalNaN);
    EXPECT_EQ(fma_f16(kOneH, kOneH, 0xfd00, r), kF16CanonicalNaN);
    EXPECT_EQ(add_bf16(0xffc1, 0x3f80, r), kBF16CanonicalNaN);
    EXPECT_EQ(mul_bf16(0x7f80, 0x8000, r), kBF16CanonicalNaN);
    EXPECT_EQ(add_f16(0x8000, 0x8000, r), 0x8000);
  }
  EXPECT_EQ(add_f16(0x8000, 0x0000, R::Rn), 0x0000);
  EXPECT_EQ(add_f16(0x8000, 0x0000, R::Rm), 0x8000);
  EXPECT_EQ(sub_f16(0x3e00, 0x3e00, R::Rn), 0x0000);
  EXPECT_EQ(sub_f16(0x3e00, 0x3e00, R::Rm), 0x8000);
  EXPECT_EQ(fma_f16(0x3e00, 0x3e00, 0xc080, R::Rm), 0x8000);  // 1.5*1.5 - 2.25
  EXPECT_EQ(sub_bf16(0x3fc0, 0x3fc0, R::Rm), 0x8000);
  EXPECT_EQ(mul_bf16(0x8000, 0x3f80), 0x8000);
}

#if defined(__x86_64__)
__attribute__((target("f16c"))) uint16_t host_f16(float f, R r) {
  switch (r) {
    case R::Rz: return static_cast<uint16_t>(_cvtss_sh(f, _MM_FROUND_TO_ZERO));
    case R::Rm: return static_cast<uint16_t>(_cvtss_sh(f, _MM_FROUND_TO_NEG_INF));
    case R::Rp: return static_cast<uint16_t>(_cvtss_sh(f, _MM_FROUND_TO_POS_INF));
    default: return static_cast<uint16_t>(_cvtss_sh(f, _MM_FROUND_TO_NEAREST_INT));
  }
}
__attribute__((target("f16c"))) float host_f16_value(uint16_t h) { return _cvtsh_ss(h); }

// fn evaluated exactly-then-rounded-to-odd in f32, then rounded to f16 by F16C.
template <class Fn>
uint16_t oracle_f16(R r, Fn fn) {
  std::feclearexcept(FE_INEXACT);
  std::fesetround(FE_TOWARDZERO);
  volatile float v = fn();
  std::fesetround(FE_TONEAREST);
  if (!std::fetestexcept(FE_INEXACT)) {  // exact: redo in the target mode for the sign of zero
    std::fesetround(fe(r));
    v = fn();
    std::fesetround(FE_TONEAREST);
    const uint16_t h = host_f16(v, r);
    return is_nan16(h) ? kF16CanonicalNaN : h;
  }
  const uint32_t odd = f32_bits(v) | 1u;
  return host_f16(f32_from(odd), r);
}

uint16_t random_f16(std::mt19937& g) {
  switch (g() % 4) {
    case 0: return static_cast<uint16_t>(g());
    case 1: return static_cast<uint16_t>((g() & 0x83ffu) | ((10u + g() % 12u) << 10));
    case 2: return static_cast<uint16_t>(g() & 0x83ffu);  // subnormals
    default: return static_cast<uint16_t>((g() & 0x8000u) | (0x3c00u + g() % 16u - 8u));
  }
}

TEST(FpHalfArith, F16MatchesRoundToOddOracleInEveryMode) {
  if (!__builtin_cpu_supports("f16c")) GTEST_SKIP() << "host has no F16C";
  std::mt19937 g(2024);
  for (int i = 0; i < 60000; ++i) {
    const uint16_t a = random_f16(g), b = random_f16(g), c = random_f16(g);
    if (is_nan16(a) || is_nan16(b) || is_nan16(c)) continue;
    volatile float fa = host_f16_value(a), fb = host_f16_value(b), fc = host_f16_value(c);
    for (R r : kModes) {
      ASSERT_EQ(add_f16(a, b, r), oracle_f16(r, [&] { return fa + fb; })) << std::hex << a << " " << b;
      ASSERT_EQ(sub_f16(a, b, r), oracle_f16(r, [&] { return fa - fb; })) << std::hex << a << " " << b;
      ASSERT_EQ(mul_f16(a, b, r), oracle_f16(r, [&] { return fa * fb; })) << std::hex << a << " " << b;
      ASSERT_EQ(fma_f16(a, b, c, r), oracle_f16(r, [&] { return std::fma(fa, fb, fc); }))
          << std::hex << a << " " << b << " " << c;
    }
  }
}
#endif

// bf16 round-to-nearest against round-to-odd in f32 followed by the integer
// RNE formula on the f32 pattern.
TEST(FpHalfArith, Bf16MatchesRoundToOddReference) {
  std::mt19937 g(77);
  for (int i = 0; i < 100000; ++i) {
    auto a = static_cast<uint16_t>(g()), b = static_cast<uint16_t>(g()), c = static_cast<uint16_t>(g());
    if (i % 2) {  // nearby exponents, so that sums interact
      a = static_cast<uint16_t>((a & 0x807fu) | ((120u + g() % 16u) << 7));
      b = static_cast<uint16_t>((b & 0x807fu) | ((120u + g() % 16u) << 7));
      c = static_cast<uint16_t>((c & 0x807fu) | ((120u + g() % 16u) << 7));
    }
    if (is_nan_bf16(a) || is_nan_bf16(b) || is_nan_bf16(c)) continue;
    const float fa = bf16_value(a), fb = bf16_value(b), fc = bf16_value(c);
    for (int op = 0; op < 3; ++op) {
      std::feclearexcept(FE_INEXACT);
      std::fesetround(FE_TOWARDZERO);
      volatile float va = fa, vb = fb, vc = fc;
      volatile float v = op == 0 ? va + vb : op == 1 ? va * vb : std::fma(va, vb, vc);
      std::fesetround(FE_TONEAREST);
      uint32_t x = f32_bits(v);
      if (std::fetestexcept(FE_INEXACT)) x |= 1u;
      if (is_nan32(x)) continue;
      const auto want = static_cast<uint16_t>((x + 0x7fffu + ((x >> 16) & 1u)) >> 16);
      const uint16_t got = op == 0 ? add_bf16(a, b) : op == 1 ? mul_bf16(a, b) : fma_bf16(a, b, c);
      if ((want & 0x7fffu) == 0) continue;  // exact zeros: sign checked elsewhere
      ASSERT_EQ(got, want) << op << " " << std::hex << a << " " << b << " " << c;
    }
  }
}

}  // namespace
}  // namespace warpsim::functional::fp
