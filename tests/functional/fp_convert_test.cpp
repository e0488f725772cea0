// cvt: float -> int saturation and NaN rules for every integer rounding,
// int -> float with exact directed rounding of 64-bit integers, int -> int
// with and without .sat, float -> float rounding, .rni-style integral
// rounding, .ftz and .sat, and the ScalarType dispatcher.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "functional/fp/convert.h"

namespace warpsim::functional::fp {
namespace {

using R = ptx::Rounding;
using T = ptx::ScalarType;
constexpr R kIntModes[] = {R::Rni, R::Rzi, R::Rmi, R::Rpi};
constexpr R kModes[] = {R::Rn, R::Rz, R::Rm, R::Rp};

uint32_t F(float f) { return f32_bits(f); }
uint64_t D(double d) { return f64_bits(d); }
uint64_t S(int64_t v) { return static_cast<uint64_t>(v); }  // sign-extended result
constexpr uint64_t kMsb64 = 1ull << 63;

TEST(FpConvert, FloatToIntNaN) {
  for (R r : kIntModes) {
    EXPECT_EQ(cvt_f32_to_int(0x7fc00000u, T::S32, r), 0u);
    EXPECT_EQ(cvt_f32_to_int(0xffc00000u, T::U32, r), 0u);
    EXPECT_EQ(cvt_f32_to_int(0x7fc00000u, T::S8, r), 0u);
    EXPECT_EQ(cvt_f32_to_int(0x7fc00000u, T::S64, r), kMsb64);  // 64-bit destination
    EXPECT_EQ(cvt_f32_to_int(0x7fc00000u, T::U64, r), kMsb64);
    EXPECT_EQ(cvt_f64_to_int(0x7ff8000000000000ull, T::S32, r), S(INT32_MIN));  // .f64 source
    EXPECT_EQ(cvt_f64_to_int(0x7ff8000000000000ull, T::U32, r), 0x80000000u);
    EXPECT_EQ(cvt_f64_to_int(0x7ff8000000000000ull, T::S8, r), S(-128));
    EXPECT_EQ(cvt_f64_to_int(0xfff8000000000000ull, T::U16, r), 0x8000u);
    EXPECT_EQ(cvt_f64_to_int(0x7ff8000000000000ull, T::S64, r), kMsb64);
    EXPECT_EQ(cvt_f16_to_int(0x7e00, T::S32, r), 0u);
    EXPECT_EQ(cvt_f16_to_int(0x7e00, T::U64, r), kMsb64);
    EXPECT_EQ(cvt_bf16_to_int(0x7fc0, T::S16, r), 0u);
  }
}

TEST(FpConvert, FloatToIntSaturatesInEveryMode) {
  for (R r : kIntModes) {
    EXPECT_EQ(cvt_f32_to_int(0x7f800000u, T::S32, r), 0x7fffffffu);
    EXPECT_EQ(cvt_f32_to_int(0xff800000u, T::S32, r), S(INT32_MIN));
    EXPECT_EQ(cvt_f32_to_int(0x7f800000u, T::U32, r), 0xffffffffu);
    EXPECT_EQ(cvt_f32_to_int(0xff800000u, T::U32, r), 0u);
    EXPECT_EQ(cvt_f32_to_int(0x7f800000u, T::S64, r), 0x7fffffffffffffffull);
    EXPECT_EQ(cvt_f32_to_int(0xff800000u, T::S64, r), kMsb64);
    EXPECT_EQ(cvt_f32_to_int(0x7f800000u, T::U64, r), ~0ull);
    EXPECT_EQ(cvt_f32_to_int(0x7f800000u, T::S8, r), 127u);
    EXPECT_EQ(cvt_f32_to_int(0xff800000u, T::S8, r), S(-128));
    EXPECT_EQ(cvt_f32_to_int(0x7f800000u, T::U8, r), 255u);
    EXPECT_EQ(cvt_f32_to_int(F(0x1p31f), T::S32, r), 0x7fffffffu);
    EXPECT_EQ(cvt_f32_to_int(F(0x1p31f), T::U32, r), 0x80000000u);
    EXPECT_EQ(cvt_f32_to_int(F(-0x1p31f), T::S32, r), S(INT32_MIN));
    EXPECT_EQ(cvt_f64_to_int(D(-2147483649.0), T::S32, r), S(INT32_MIN));
    EXPECT_EQ(cvt_f64_to_int(D(2147483648.0), T::S32, r), 0x7fffffffu);
    EXPECT_EQ(cvt_f64_to_int(D(0x1p63), T::S64, r), 0x7fffffffffffffffull);
    EXPECT_EQ(cvt_f64_to_int(D(-0x1p63), T::S64, r), kMsb64);
    EXPECT_EQ(cvt_f64_to_int(D(0x1p63), T::U64, r), kMsb64);
    EXPECT_EQ(cvt_f64_to_int(D(0x1p64), T::U64, r), ~0ull);
    EXPECT_EQ(cvt_f64_to_int(D(-1.0), T::U64, r), 0u);
    EXPECT_EQ(cvt_f64_to_int(D(300.0), T::U8, r), 255u);
    EXPECT_EQ(cvt_f64_to_int(D(-300.0), T::S8, r), S(-128));
    EXPECT_EQ(cvt_f16_to_int(0x7bff, T::S16, r), 0x7fffu);
    EXPECT_EQ(cvt_f16_to_int(0x7bff, T::U16, r), 65504u);
    EXPECT_EQ(cvt_f16_to_int(0xfc00, T::S8, r), S(-128));
    EXPECT_EQ(cvt_bf16_to_int(0x7f7f, T::S64, r), 0x7fffffffffffffffull);
  }
}

TEST(FpConvert, FloatToIntRoundingDirections) {
  auto s32 = [](float f, R r) { return static_cast<int32_t>(cvt_f32_to_int(F(f), T::S32, r)); };
  EXPECT_EQ(s32(2.5f, R::Rni), 2);
  EXPECT_EQ(s32(3.5f, R::Rni), 4);
  EXPECT_EQ(s32(2.5f, R::Rzi), 2);
  EXPECT_EQ(s32(2.5f, R::Rmi), 2);
  EXPECT_EQ(s32(2.5f, R::Rpi), 3);
  EXPECT_EQ(s32(-2.5f, R::Rni), -2);
  EXPECT_EQ(s32(-2.5f, R::Rzi), -2);
  EXPECT_EQ(s32(-2.5f, R::Rmi), -3);
  EXPECT_EQ(s32(-2.5f, R::Rpi), -2);
  EXPECT_EQ(s32(-2.7f, R::Rni), -3);
  EXPECT_EQ(s32(-0.5f, R::Rmi), -1);
  EXPECT_EQ(s32(8388609.0f, R::Rni), 8388609);
  EXPECT_EQ(s32(2.7f, R::None), 2);  // no modifier: truncate
  EXPECT_EQ(cvt_f32_to_int(F(-0.3f), T::U32, R::Rpi), 0u);
  EXPECT_EQ(cvt_f32_to_int(F(-0.7f), T::U32, R::Rmi), 0u);
  EXPECT_EQ(cvt_f32_to_int(F(255.5f), T::U8, R::Rni), 255u);  // 256 clamps
  EXPECT_EQ(cvt_f32_to_int(0x00000001u, T::S32, R::Rpi), 1u);
  EXPECT_EQ(cvt_f32_to_int(0x00000001u, T::S32, R::Rpi, true), 0u);  // .ftz
  EXPECT_EQ(cvt_f32_to_int(0x80000001u, T::S32, R::Rmi), S(-1));
  EXPECT_EQ(cvt_f32_to_int(0x80000001u, T::S32, R::Rmi, true), 0u);
  EXPECT_EQ(cvt_f64_to_int(D(4503599627370495.5), T::S64, R::Rni), 4503599627370496ull);
  EXPECT_EQ(cvt_f64_to_int(D(-9007199254740993.0), T::S64, R::Rzi), S(-9007199254740992));
  EXPECT_EQ(cvt_f64_to_int(D(1e19), T::U64, R::Rzi), 10000000000000000000ull);
  // Random agreement with the host's own conversions of integral values.
  std::mt19937_64 g(21);
  for (int i = 0; i < 20000; ++i) {
    const double v = std::ldexp(static_cast<double>(g() >> 11), -static_cast<int>(g() % 64));
    const double sv = g() % 2 ? v : -v;
    if (std::fabs(sv) < 0x1p62) {
      ASSERT_EQ(cvt_f64_to_int(D(sv), T::S64, R::Rmi), S(static_cast<int64_t>(std::floor(sv))));
      ASSERT_EQ(cvt_f64_to_int(D(sv), T::S64, R::Rpi), S(static_cast<int64_t>(std::ceil(sv))));
      ASSERT_EQ(cvt_f64_to_int(D(sv), T::S64, R::Rzi), S(static_cast<int64_t>(std::trunc(sv))));
      ASSERT_EQ(cvt_f64_to_int(D(sv), T::S64, R::Rni), S(static_cast<int64_t>(std::nearbyint(sv))));
    }
  }
}

TEST(FpConvert, IntToFloatDirectedRounding) {
  const uint64_t p24 = (1ull << 24) + 1;  // 2^24 + 1: the f32 midpoint
  EXPECT_EQ(cvt_int_to_f32(p24, T::S32, R::Rn), F(0x1p24f));
  EXPECT_EQ(cvt_int_to_f32(p24, T::S32, R::Rz), F(0x1p24f));
  EXPECT_EQ(cvt_int_to_f32(p24, T::S32, R::Rm), F(0x1p24f));
  EXPECT_EQ(cvt_int_to_f32(p24, T::S32, R::Rp), F(0x1p24f) + 1);
  EXPECT_EQ(cvt_int_to_f32(p24 + 2, T::U32, R::Rn), F(0x1p24f) + 2);  // 2^24 + 3: tie to even above
  const uint64_t m24 = S(-static_cast<int64_t>(p24));
  EXPECT_EQ(cvt_int_to_f32(m24, T::S64, R::Rm), F(-0x1p24f) + 1);
  EXPECT_EQ(cvt_int_to_f32(m24, T::S64, R::Rp), F(-0x1p24f));
  EXPECT_EQ(cvt_int_to_f32(m24, T::S64, R::Rz), F(-0x1p24f));
  const uint64_t p53 = (1ull << 53) + 1;
  EXPECT_EQ(cvt_int_to_f64(p53, T::U64, R::Rn), D(0x1p53));
  EXPECT_EQ(cvt_int_to_f64(p53, T::U64, R::Rz), D(0x1p53));
  EXPECT_EQ(cvt_int_to_f64(p53, T::U64, R::Rm), D(0x1p53));
  EXPECT_EQ(cvt_int_to_f64(p53, T::U64, R::Rp), D(0x1p53) + 1);
  EXPECT_EQ(cvt_int_to_f64(S(-static_cast<int64_t>(p53)), T::S64, R::Rm), D(-0x1p53) + 1);
  EXPECT_EQ(cvt_int_to_f64(S(-static_cast<int64_t>(p53)), T::S64, R::Rp), D(-0x1p53));
  EXPECT_EQ(cvt_int_to_f64(~0ull, T::U64, R::Rz), 0x43efffffffffffffull);
  EXPECT_EQ(cvt_int_to_f64(~0ull, T::U64, R::Rn), D(0x1p64));
  EXPECT_EQ(cvt_int_to_f32(~0ull, T::U64, R::Rz), 0x5f7fffffu);
  EXPECT_EQ(cvt_int_to_f32(~0ull, T::U64, R::Rp), F(0x1p64f));
  EXPECT_EQ(cvt_int_to_f64(kMsb64, T::S64, R::Rz), D(-0x1p63));
  EXPECT_EQ(cvt_int_to_f32(~0ull, T::S64, R::Rn), F(-1.0f));
  EXPECT_EQ(cvt_int_to_f32(0xffffffffull, T::S32, R::Rn), F(-1.0f));  // low 32 bits, sign-extended
  EXPECT_EQ(cvt_int_to_f32(0xffull, T::U8, R::Rn), F(255.0f));
  EXPECT_EQ(cvt_int_to_f32(0x80ull, T::S8, R::Rn), F(-128.0f));
  // One rounding, not int -> f64 -> f32: just above an f32 midpoint.
  const uint64_t v = (1ull << 60) + (1ull << 36) + 1;
  EXPECT_EQ(cvt_int_to_f32(v, T::U64, R::Rn), F(0x1p60f) + 1);
  EXPECT_EQ(cvt_int_to_f32(v, T::U64, R::Rz), F(0x1p60f));
  EXPECT_EQ(cvt_int_to_f16(65520, T::U32, R::Rn), 0x7c00);
  EXPECT_EQ(cvt_int_to_f16(65520, T::U32, R::Rz), 0x7bff);
  EXPECT_EQ(cvt_int_to_f16(S(-3), T::S32, R::Rn), 0xc200);
  EXPECT_EQ(cvt_int_to_f16(5, T::S32, R::Rn, true), 0x3c00);  // .sat
  EXPECT_EQ(cvt_int_to_f32(S(-5), T::S32, R::Rn, true), 0u);
  EXPECT_EQ(cvt_int_to_bf16(257, T::S32, R::Rn), 0x4380);
  EXPECT_EQ(cvt_int_to_bf16(257, T::S32, R::Rp), 0x4381);
  // Random 64-bit integers: f64 directed results bracket the integer.
  std::mt19937_64 g(4);
  for (int i = 0; i < 20000; ++i) {
    const uint64_t x = g() >> (g() % 12);
    const double lo = f64_from(cvt_int_to_f64(x, T::U64, R::Rm)), hi = f64_from(cvt_int_to_f64(x, T::U64, R::Rp));
    const auto xl = static_cast<long double>(x);
    ASSERT_TRUE(lo <= xl && xl <= hi);
    ASSERT_TRUE(lo == hi ? static_cast<long double>(lo) == xl : std::nextafter(lo, INFINITY) == hi);
    ASSERT_EQ(cvt_int_to_f64(x, T::U64, R::Rz), D(lo));
  }
}

TEST(FpConvert, IntToInt) {
  EXPECT_EQ(cvt_int(0xff, T::U8, T::S32, false), 255u);
  EXPECT_EQ(cvt_int(0xff, T::S8, T::S32, false), ~0ull);
  EXPECT_EQ(cvt_int(0xff, T::S8, T::U32, false), 0xffffffffu);
  EXPECT_EQ(cvt_int(0x1ff, T::S32, T::S8, false), ~0ull);  // truncated to 0xff, sign-extended
  EXPECT_EQ(cvt_int(0x1ff, T::S32, T::S8, true), 127u);
  EXPECT_EQ(cvt_int(0x1ff, T::S32, T::U8, true), 255u);
  EXPECT_EQ(cvt_int(0xffffffff, T::S32, T::U32, true), 0u);
  EXPECT_EQ(cvt_int(0xffffffff, T::U32, T::S32, true), 0x7fffffffu);
  EXPECT_EQ(cvt_int(0xffffffff, T::U32, T::S32, false), ~0ull);
  EXPECT_EQ(cvt_int(~0ull, T::U64, T::S64, true), 0x7fffffffffffffffull);
  EXPECT_EQ(cvt_int(kMsb64, T::S64, T::S16, true), S(-32768));
  EXPECT_EQ(cvt_int(kMsb64, T::S64, T::U64, true), 0u);
  EXPECT_EQ(cvt_int(0xfffb, T::S16, T::U64, true), 0u);
  EXPECT_EQ(cvt_int(0xfffb, T::S16, T::U64, false), 0xfffffffffffffffbull);
  EXPECT_EQ(cvt_int(0xfffb, T::U16, T::S64, false), 65531u);
  EXPECT_EQ(cvt_int(0x12345678, T::U32, T::U16, false), 0x5678u);
  EXPECT_EQ(cvt_int(0x12345678, T::U32, T::U16, true), 0xffffu);
  EXPECT_EQ(cvt_int(0x8000, T::S16, T::S8, true), S(-128));
}

TEST(FpConvert, FloatToFloat) {
  const uint64_t third = D(1.0 / 3.0);
  EXPECT_EQ(cvt_float(third, T::F32, T::F64, R::Rn, {}), 0x3eaaaaabu);
  EXPECT_EQ(cvt_float(third, T::F32, T::F64, R::Rz, {}), 0x3eaaaaaau);
  EXPECT_EQ(cvt_float(third, T::F32, T::F64, R::Rm, {}), 0x3eaaaaaau);
  EXPECT_EQ(cvt_float(third, T::F32, T::F64, R::Rp, {}), 0x3eaaaaabu);
  EXPECT_EQ(cvt_float(D(-1.0 / 3.0), T::F32, T::F64, R::Rm, {}), 0xbeaaaaabu);
  EXPECT_EQ(cvt_float(D(1e39), T::F32, T::F64, R::Rn, {}), 0x7f800000u);
  EXPECT_EQ(cvt_float(D(1e39), T::F32, T::F64, R::Rz, {}), 0x7f7fffffu);
  EXPECT_EQ(cvt_float(D(-1e39), T::F32, T::F64, R::Rp, {}), 0xff7fffffu);
  EXPECT_EQ(cvt_float(D(1e-50), T::F32, T::F64, R::Rn, {}), 0u);
  EXPECT_EQ(cvt_float(D(1e-50), T::F32, T::F64, R::Rp, {}), 1u);
  EXPECT_EQ(cvt_float(D(1e-40), T::F32, T::F64, R::Rn, {}), 0x000116c2u);
  EXPECT_EQ(cvt_float(D(-1e-40), T::F32, T::F64, R::Rn, {.ftz = true}), 0x80000000u);
  EXPECT_EQ(cvt_float(D(1.5), T::F32, T::F64, R::Rn, {.sat = true}), 0x3f800000u);
  EXPECT_EQ(cvt_float(0x7ff8000000000001ull, T::F32, T::F64, R::Rn, {}), kF32CanonicalNaN);
  EXPECT_EQ(cvt_float(0x7ff8000000000001ull, T::F32, T::F64, R::Rn, {.sat = true}), 0u);
  // Widening is exact; NaN payloads carry into f64.
  EXPECT_EQ(cvt_float(0x00000001u, T::F64, T::F32, R::None, {}), D(0x1p-149));
  EXPECT_EQ(cvt_float(0x00000001u, T::F64, T::F32, R::None, {.ftz = true}), 0u);
  EXPECT_EQ(cvt_float(0x7fc00001u, T::F64, T::F32, R::None, {}), 0x7ff8000020000000ull);
  EXPECT_EQ(cvt_float(0xff800001u, T::F64, T::F32, R::None, {}), 0xfff8000020000000ull);
  EXPECT_EQ(cvt_float(0x3c00, T::F64, T::F16, R::None, {}), D(1.0));
  EXPECT_EQ(cvt_float(0x0001, T::F32, T::BF16, R::None, {.ftz = true}), 0u);
  EXPECT_EQ(cvt_float(D(-2.0), T::F64, T::F64, R::None, {.sat = true}), 0u);
  // Narrowing to the half formats through the dispatcher.
  EXPECT_EQ(cvt_float(F(65520.0f), T::F16, T::F32, R::Rn, {.satfinite = true}), 0x7bffu);
  EXPECT_EQ(cvt_float(F(-1.0f), T::BF16, T::F32, R::Rz, {.relu = true}), 0u);
  EXPECT_EQ(cvt_float(F(1.0f + 0x1p-11f), T::TF32, T::F32, R::Rna, {}), 0x3f802000u);
  EXPECT_EQ(cvt_float(F(500.0f), T::E4M3, T::F32, R::Rn, {.satfinite = true}), 0x7eu);
  EXPECT_EQ(cvt_float(0x0001, T::F16, T::BF16, R::Rn, {}), 0x0000u);  // 2^-133 underflows f16
  EXPECT_EQ(cvt_float(0x7e, T::F16, T::E4M3, R::Rn, {}), 0x5f00u);
}

TEST(FpConvert, IntegralRoundingInFloatFormats) {
  auto f32 = [](float v, R r, CvtModifiers m = {}) { return cvt_float(F(v), T::F32, T::F32, r, m); };
  EXPECT_EQ(f32(2.5f, R::Rni), F(2.0f));
  EXPECT_EQ(f32(3.5f, R::Rni), F(4.0f));
  EXPECT_EQ(f32(2.5f, R::Rpi), F(3.0f));
  EXPECT_EQ(f32(-0.5f, R::Rmi), F(-1.0f));
  EXPECT_EQ(f32(-0.5f, R::Rpi), 0x80000000u);  // keeps the sign of zero
  EXPECT_EQ(f32(-0.5f, R::Rni), 0x80000000u);
  EXPECT_EQ(f32(0.7f, R::Rzi), 0u);
  EXPECT_EQ(f32(1e10f, R::Rzi), F(1e10f));
  EXPECT_EQ(f32(0x1.8p-140f, R::Rpi), F(1.0f));
  EXPECT_EQ(f32(0x1.8p-140f, R::Rpi, {.ftz = true}), 0u);
  EXPECT_EQ(f32(2.5f, R::Rpi, {.sat = true}), F(1.0f));
  EXPECT_EQ(cvt_float(0x7fc00005u, T::F32, T::F32, R::Rni, {}), kF32CanonicalNaN);
  EXPECT_EQ(cvt_float(0x7f800000u, T::F32, T::F32, R::Rmi, {}), 0x7f800000u);
  EXPECT_EQ(cvt_float(D(4503599627370495.5), T::F64, T::F64, R::Rni, {}), D(4503599627370496.0));
  EXPECT_EQ(cvt_float(D(-1.5), T::F64, T::F64, R::Rzi, {}), D(-1.0));
  EXPECT_EQ(cvt_float(0x7ff0000000000001ull, T::F64, T::F64, R::Rni, {}), 0x7ff8000000000001ull);
  EXPECT_EQ(cvt_float(0x3e00, T::F16, T::F16, R::Rni, {}), 0x4000u);  // 1.5 -> 2
  EXPECT_EQ(cvt_float(0xb900, T::F16, T::F16, R::Rzi, {}), 0x8000u);  // -0.625 -> -0
  EXPECT_EQ(cvt_float(0x3fc0, T::BF16, T::BF16, R::Rpi, {}), 0x4000u);
  // cvt.f32.f32 without rounding: .ftz and .sat only.
  EXPECT_EQ(cvt_float(0x80000001u, T::F32, T::F32, R::None, {.ftz = true}), 0x80000000u);
  EXPECT_EQ(cvt_float(0x80000001u, T::F32, T::F32, R::None, {}), 0x80000001u);
}

TEST(FpConvert, Dispatcher) {
  EXPECT_EQ(cvt(0xff, T::S32, T::S8, R::None), ~0ull);
  EXPECT_EQ(cvt(0x1ff, T::U8, T::S32, R::None, {.sat = true}), 255u);
  EXPECT_EQ(cvt(F(-2.5f), T::S8, T::F32, R::Rni), S(-2));
  EXPECT_EQ(cvt(F(-2.5f), T::S8, T::F32, R::Rmi), S(-3));
  EXPECT_EQ(cvt(D(1e300), T::U16, T::F64, R::Rzi), 0xffffu);
  EXPECT_EQ(cvt(0x3c00, T::S32, T::F16, R::Rni), 1u);
  EXPECT_EQ(cvt(0x4049, T::S32, T::BF16, R::Rni), 3u);  // 3.140625
  EXPECT_EQ(cvt((1ull << 24) + 1, T::F32, T::U32, R::Rp), F(0x1p24f) + 1);
  EXPECT_EQ(cvt((1ull << 53) + 1, T::F64, T::S64, R::Rp), D(0x1p53) + 1);
  EXPECT_EQ(cvt(65520, T::F16, T::S32, R::Rz), 0x7bffu);
  EXPECT_EQ(cvt(257, T::BF16, T::U16, R::Rn), 0x4380u);
  EXPECT_EQ(cvt(F(1.0f / 3.0f), T::F16, T::F32, R::Rz), 0x3555u);
  EXPECT_EQ(cvt(D(1.0 / 3.0), T::F32, T::F64, R::Rz), 0x3eaaaaaau);
  for (R r : kModes) EXPECT_EQ(cvt(F(65504.0f), T::F16, T::F32, r), 0x7bffu);
}

}  // namespace
}  // namespace warpsim::functional::fp
