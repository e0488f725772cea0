// Narrow-format conversions: f32/f64 -> f16/bf16/tf32/e4m3/e5m2 and back,
// with every rounding mode, .satfinite, .relu, .sat, subnormals and NaN.
// Exact values from the formats' definitions; random inputs are checked
// against the host's F16C converter (an independent hardware oracle).
#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include "functional/fp/half.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "tests/functional/fp_test_util.h"

namespace warpsim::functional::fp {
namespace {

using namespace test;  // R, kModes, F, D, fe


TEST(FpHalfConvert, F16MaxAndOverflowPerMode) {
  for (R r : kModes) EXPECT_EQ(f32_to_f16(F(65504.0f), r), 0x7bff);
  // 65520 is the midpoint between 65504 (odd mantissa) and 2^16: rn overflows.
  EXPECT_EQ(f32_to_f16(F(65520.0f), R::Rn), 0x7c00);
  EXPECT_EQ(f32_to_f16(F(65520.0f), R::Rz), 0x7bff);
  EXPECT_EQ(f32_to_f16(F(65520.0f), R::Rm), 0x7bff);
  EXPECT_EQ(f32_to_f16(F(65520.0f), R::Rp), 0x7c00);
  EXPECT_EQ(f32_to_f16(F(-65520.0f), R::Rn), 0xfc00);
  EXPECT_EQ(f32_to_f16(F(-65520.0f), R::Rz), 0xfbff);
  EXPECT_EQ(f32_to_f16(F(-65520.0f), R::Rm), 0xfc00);
  EXPECT_EQ(f32_to_f16(F(-65520.0f), R::Rp), 0xfbff);
  EXPECT_EQ(f32_to_f16(F(65519.0f), R::Rn), 0x7bff);
  EXPECT_EQ(f32_to_f16(F(65505.0f), R::Rp), 0x7c00);
  EXPECT_EQ(f32_to_f16(F(1e10f), R::Rz), 0x7bff);
  EXPECT_EQ(f32_to_f16(F(INFINITY), R::Rz), 0x7c00);  // infinity is exact, not an overflow
}

TEST(FpHalfConvert, F16Satfinite) {
  EXPECT_EQ(f32_to_f16(F(65520.0f), R::Rn, false, false, false, true), 0x7bff);
  EXPECT_EQ(f32_to_f16(F(INFINITY), R::Rn, false, false, false, true), 0x7bff);
  EXPECT_EQ(f32_to_f16(F(-INFINITY), R::Rz, false, false, false, true), 0xfbff);
  EXPECT_EQ(f32_to_f16(F(NAN), R::Rn, false, false, false, true), kF16CanonicalNaN);
  EXPECT_EQ(f32_to_f16(F(1.0f), R::Rn, false, false, false, true), 0x3c00);
}

TEST(FpHalfConvert, F16ReluAndSat) {
  EXPECT_EQ(f32_to_f16(F(-1.0f), R::Rn, false, false, true), 0x0000);
  EXPECT_EQ(f32_to_f16(F(-0.0f), R::Rn, false, false, true), 0x0000);
  EXPECT_EQ(f32_to_f16(F(2.0f), R::Rn, false, false, true), 0x4000);
  EXPECT_EQ(f32_to_f16(F(NAN), R::Rn, false, false, true), kF16CanonicalNaN);
  EXPECT_EQ(f32_to_f16(F(-70000.0f), R::Rn, false, false, true, true), 0x0000);
  EXPECT_EQ(f32_to_f16(F(1.5f), R::Rn, false, true), 0x3c00);
  EXPECT_EQ(f32_to_f16(F(-0.25f), R::Rn, false, true), 0x0000);
  EXPECT_EQ(f32_to_f16(F(NAN), R::Rn, false, true), 0x0000);  // .sat flushes NaN to +0
  EXPECT_EQ(f32_to_f16(F(0.5f), R::Rn, false, true), 0x3800);
}

TEST(FpHalfConvert, F16SubnormalsAndTies) {
  EXPECT_EQ(f32_to_f16(F(0x1p-24f), R::Rn), 0x0001);
  EXPECT_EQ(f32_to_f16(F(0x1p-25f), R::Rn), 0x0000);  // tie -> even (0)
  EXPECT_EQ(f32_to_f16(F(0x1p-25f), R::Rp), 0x0001);
  EXPECT_EQ(f32_to_f16(F(-0x1p-25f), R::Rm), 0x8001);
  EXPECT_EQ(f32_to_f16(F(-0x1p-25f), R::Rn), 0x8000);
  EXPECT_EQ(f32_to_f16(F(0x1.8p-24f), R::Rn), 0x0002);  // 1.5 quanta -> 2
  EXPECT_EQ(f32_to_f16(F(0x1.8p-25f), R::Rn), 0x0001);  // 0.75 quanta -> 1
  EXPECT_EQ(f32_to_f16(F(1023 * 0x1p-24f), R::Rn), 0x03ff);
  EXPECT_EQ(f32_to_f16(F(0x1p-14f), R::Rn), 0x0400);
  EXPECT_EQ(f32_to_f16(F(0x1.ffcp-15f), R::Rn), 0x0400);  // rounds up into the normals
  EXPECT_EQ(f32_to_f16(F(1.0f + 0x1p-11f), R::Rn), 0x3c00);
  EXPECT_EQ(f32_to_f16(F(1.0f + 0x1p-11f), R::Rna), 0x3c01);
  EXPECT_EQ(f32_to_f16(F(1.0f + 0x1p-11f), R::Rp), 0x3c01);
  EXPECT_EQ(f32_to_f16(F(1.0f + 3 * 0x1p-11f), R::Rn), 0x3c02);
  EXPECT_EQ(f32_to_f16(F(-1.0f - 0x1p-11f), R::Rm), 0xbc01);
  EXPECT_EQ(f32_to_f16(F(-1.0f - 0x1p-11f), R::Rp), 0xbc00);
  EXPECT_EQ(f32_to_f16(F(-0.0f), R::Rn), 0x8000);
  // f32 subnormal input: .ftz flushes it (to -0 here), otherwise it is just tiny.
  EXPECT_EQ(f32_to_f16(0x80000001u, R::Rm), 0x8001);
  EXPECT_EQ(f32_to_f16(0x80000001u, R::Rm, /*ftz=*/true), 0x8000);
}

TEST(FpHalfConvert, F64ToF16RoundsOnce) {
  // Just above the f16 tie 1 + 2^-11: direct rounding goes up; going through
  // f32 first would land exactly on the tie and round to even (down).
  const double x = 1.0 + 0x1p-11 + 0x1p-40;
  EXPECT_EQ(f64_to_f16(D(x), R::Rn), 0x3c01);
  EXPECT_EQ(f32_to_f16(F(static_cast<float>(x)), R::Rn), 0x3c00);
  EXPECT_EQ(f64_to_f16(D(-x), R::Rz), 0xbc00);
  EXPECT_EQ(f64_to_f16(D(1e300), R::Rn), 0x7c00);
  EXPECT_EQ(f64_to_f16(D(1e300), R::Rz), 0x7bff);
  EXPECT_EQ(f64_to_f16(D(1e-300), R::Rp), 0x0001);
  EXPECT_EQ(f64_to_f16(D(-1e-300), R::Rn), 0x8000);
  EXPECT_EQ(f64_to_f16(D(5e-324), R::Rn), 0x0000);  // f64 subnormal input
  EXPECT_EQ(f64_to_f16(D(NAN)), kF16CanonicalNaN);
}

TEST(FpHalfConvert, F16ToF32IsExact) {
  EXPECT_EQ(f16_to_f32(0x0001), F(0x1p-24f));
  EXPECT_EQ(f16_to_f32(0x83ff), F(-1023 * 0x1p-24f));
  EXPECT_EQ(f16_to_f32(0x7bff), F(65504.0f));
  EXPECT_EQ(f16_to_f32(0x8000), 0x80000000u);
  EXPECT_EQ(f16_to_f32(0xfc00), 0xff800000u);
  EXPECT_EQ(f16_to_f32(0x7e00), kF32CanonicalNaN);
  // Round trip of every non-NaN half.
  for (uint32_t h = 0; h < 0x10000; ++h) {
    if (is_nan16(static_cast<uint16_t>(h))) continue;
    ASSERT_EQ(f32_to_f16(f16_to_f32(static_cast<uint16_t>(h))), h);
  }
}

TEST(FpHalfConvert, Bf16TiesAndOverflow) {
  EXPECT_EQ(f32_to_bf16(0x3f808000u), 0x3f80);  // tie, even below
  EXPECT_EQ(f32_to_bf16(0x3f818000u), 0x3f82);  // tie, even above
  EXPECT_EQ(f32_to_bf16(0x3f808001u), 0x3f81);
  EXPECT_EQ(f32_to_bf16(0x3f81ffffu, R::Rz), 0x3f81);
  EXPECT_EQ(f32_to_bf16(0x3f810001u, R::Rp), 0x3f82);
  EXPECT_EQ(f32_to_bf16(0xbf810001u, R::Rm), 0xbf82);
  EXPECT_EQ(f32_to_bf16(0x7f7fffffu), 0x7f80);  // f32 max rounds to infinity
  EXPECT_EQ(f32_to_bf16(0x7f7fffffu, R::Rz), 0x7f7f);
  EXPECT_EQ(f32_to_bf16(0x7f7fffffu, R::Rn, false, false, true), 0x7f7f);
  EXPECT_EQ(f32_to_bf16(0xff800000u, R::Rn, false, false, true), 0xff7f);
  EXPECT_EQ(f32_to_bf16(0x7fc00001u), kBF16CanonicalNaN);
  EXPECT_EQ(f32_to_bf16(0xbf800000u, R::Rn, false, true), 0x0000);  // relu
  EXPECT_EQ(f32_to_bf16(0x00000001u, R::Rp), 0x0001);                // subnormal
  EXPECT_EQ(f32_to_bf16(0x00000001u, R::Rp, /*ftz=*/true), 0x0000);
  EXPECT_EQ(bf16_to_f32(0x0001), 0x00010000u);
  EXPECT_EQ(bf16_to_f32(0x8001, /*ftz=*/true), 0x80000000u);
  EXPECT_EQ(bf16_to_f32(0x7fc1), kF32CanonicalNaN);
}

TEST(FpHalfConvert, Bf16RoundNearestMatchesIntegerReference) {
  std::mt19937 rng(7);
  for (int i = 0; i < 200000; ++i) {
    const uint32_t x = rng();
    if (is_nan32(x)) continue;
    const uint32_t ref = (x + 0x7fffu + ((x >> 16) & 1u)) >> 16;  // RNE on the bit pattern
    ASSERT_EQ(f32_to_bf16(x), ref) << std::hex << x;
  }
}

TEST(FpHalfConvert, F16AndBf16CrossConversions) {
  EXPECT_EQ(f16_to_bf16(0x3c01), 0x3f80);  // 1 + 2^-10 is below the bf16 midpoint
  EXPECT_EQ(f16_to_bf16(0x3c01, R::Rp), 0x3f81);
  EXPECT_EQ(f16_to_bf16(0x0001), 0x3380);  // 2^-24 is a normal bf16
  EXPECT_EQ(bf16_to_f16(0x4780), 0x7c00);  // 65536 overflows f16
  EXPECT_EQ(bf16_to_f16(0x4780, R::Rz), 0x7bff);
  EXPECT_EQ(bf16_to_f16(0x7fc0), kF16CanonicalNaN);
}

TEST(FpHalfConvert, Tf32) {
  EXPECT_EQ(f32_to_tf32(F(1.0f + 0x1p-11f), R::Rna), 0x3f802000u);  // tie away
  EXPECT_EQ(f32_to_tf32(F(1.0f + 0x1p-11f), R::Rn), 0x3f800000u);
  EXPECT_EQ(f32_to_tf32(F(-1.0f - 0x1p-11f), R::Rna), 0xbf802000u);
  EXPECT_EQ(f32_to_tf32(F(1.0f + 0x1p-11f + 0x1p-23f), R::Rz), 0x3f800000u);
  EXPECT_EQ(f32_to_tf32(0x3f801fffu, R::Rn), 0x3f802000u);
  EXPECT_EQ(f32_to_tf32(0x7f7fffffu, R::Rna), 0x7f800000u);
  EXPECT_EQ(f32_to_tf32(0x7f7fffffu, R::Rna, true), 0x7f7fe000u);
  EXPECT_EQ(f32_to_tf32(0x7f800000u, R::Rna, true), 0x7f7fe000u);
  EXPECT_EQ(f32_to_tf32(0x7f800000u, R::Rna), 0x7f800000u);
  EXPECT_EQ(f32_to_tf32(0x7fc00000u), kF32CanonicalNaN);
  EXPECT_EQ(f32_to_tf32(F(-2.0f), R::Rn, false, true), 0u);  // relu
  EXPECT_EQ(f32_to_tf32(0x00001000u, R::Rna), 0x00002000u);  // subnormal tie away
  EXPECT_EQ(f32_to_tf32(0x00000fffu, R::Rna), 0x00000000u);
}

TEST(FpHalfConvert, E4M3) {
  EXPECT_EQ(f32_to_e4m3(F(1.0f)), 0x38);
  EXPECT_EQ(f32_to_e4m3(F(-1.0f)), 0xb8);
  EXPECT_EQ(f32_to_e4m3(F(448.0f)), 0x7e);
  EXPECT_EQ(f32_to_e4m3(F(464.0f)), 0x7e);  // beyond MAX_NORM: saturates
  EXPECT_EQ(f32_to_e4m3(F(1e6f)), 0x7e);
  EXPECT_EQ(f32_to_e4m3(F(INFINITY)), 0x7e);
  EXPECT_EQ(f32_to_e4m3(F(-INFINITY)), 0xfe);
  EXPECT_EQ(f32_to_e4m3(F(NAN)), 0x7f);
  EXPECT_EQ(f32_to_e4m3(F(0x1p-9f)), 0x01);  // min subnormal
  EXPECT_EQ(f32_to_e4m3(F(0x1p-10f)), 0x00);  // tie to even
  EXPECT_EQ(f32_to_e4m3(F(0x1.8p-9f)), 0x02);
  EXPECT_EQ(f32_to_e4m3(F(1.0625f)), 0x38);  // tie to even
  EXPECT_EQ(f32_to_e4m3(F(1.1875f)), 0x3a);
  EXPECT_EQ(f32_to_e4m3(F(-3.0f), /*relu=*/true), 0x00);
  EXPECT_EQ(f32_to_e4m3(F(480.0f), false, /*satfinite=*/false), 0x7f);  // no infinity: NaN
  EXPECT_EQ(f32_to_e4m3(F(464.0f), false, /*satfinite=*/false), 0x7e);  // tie, even is 448
  EXPECT_EQ(f16_to_e4m3(0x5f00), 0x7e);  // 448
  EXPECT_EQ(bf16_to_e4m3(0x3f80), 0x38);
  EXPECT_EQ(e4m3_to_f16(0x7e), 0x5f00);
  EXPECT_EQ(e4m3_to_f16(0x01), 0x1800);  // 2^-9
  EXPECT_EQ(e4m3_to_f16(0x7f), kF16CanonicalNaN);
  EXPECT_EQ(e4m3_to_f16(0xb8, /*relu=*/true), 0x0000);
  for (uint32_t x = 0; x < 256; ++x) {  // every finite e4m3 survives f16 and back
    if (is_nan_e4m3(static_cast<uint8_t>(x))) continue;
    ASSERT_EQ(f16_to_e4m3(e4m3_to_f16(static_cast<uint8_t>(x))), x);
  }
}

TEST(FpHalfConvert, E5M2) {
  EXPECT_EQ(f32_to_e5m2(F(1.0f)), 0x3c);
  EXPECT_EQ(f32_to_e5m2(F(57344.0f)), 0x7b);
  EXPECT_EQ(f32_to_e5m2(F(61440.0f)), 0x7b);
  EXPECT_EQ(f32_to_e5m2(F(INFINITY)), 0x7b);
  EXPECT_EQ(f32_to_e5m2(F(-INFINITY)), 0xfb);
  EXPECT_EQ(f32_to_e5m2(F(NAN)), 0x7f);
  EXPECT_EQ(f32_to_e5m2(F(0x1p-16f)), 0x01);
  EXPECT_EQ(f32_to_e5m2(F(61440.0f), false, /*satfinite=*/false), 0x7c);
  EXPECT_EQ(f32_to_e5m2(F(1.125f)), 0x3c);  // tie to even
  EXPECT_EQ(f32_to_e5m2(F(1.375f)), 0x3e);
  EXPECT_EQ(e5m2_to_f16(0x3c), 0x3c00);
  EXPECT_EQ(e5m2_to_f16(0x7d), kF16CanonicalNaN);
  EXPECT_EQ(e5m2_to_f16(0xbc, true), 0x0000);
  for (uint32_t x = 0; x < 256; ++x) {
    if (is_nan_e5m2(static_cast<uint8_t>(x)) || (x & 0x7f) == 0x7c) continue;  // NaN, Inf
    ASSERT_EQ(f16_to_e5m2(e5m2_to_f16(static_cast<uint8_t>(x))), x);
  }
}

#if defined(__x86_64__)
__attribute__((target("f16c"))) uint16_t host_f16(float f, int imm) {
  switch (imm) {
    case 0: return static_cast<uint16_t>(_cvtss_sh(f, _MM_FROUND_TO_NEAREST_INT));
    case 1: return static_cast<uint16_t>(_cvtss_sh(f, _MM_FROUND_TO_ZERO));
    case 2: return static_cast<uint16_t>(_cvtss_sh(f, _MM_FROUND_TO_NEG_INF));
    default: return static_cast<uint16_t>(_cvtss_sh(f, _MM_FROUND_TO_POS_INF));
  }
}

// F16C rounds f32 -> f16 in hardware in all four IEEE directions.
TEST(FpHalfConvert, F32ToF16MatchesHostF16cInEveryMode) {
  if (!__builtin_cpu_supports("f16c")) GTEST_SKIP() << "host has no F16C";
  std::mt19937 rng(11);
  for (int i = 0; i < 400000; ++i) {
    uint32_t x = rng();
    if (i & 1) x = (x & 0x807fffffu) | ((90u + rng() % 61u) << 23);  // exponents around the f16 range
    if (is_nan32(x)) continue;
    for (int m = 0; m < 4; ++m) {
      ASSERT_EQ(f32_to_f16(x, kModes[m]), host_f16(f32_from(x), m)) << std::hex << x << " mode " << m;
    }
  }
}
#endif

}  // namespace
}  // namespace warpsim::functional::fp
