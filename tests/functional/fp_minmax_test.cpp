// min/max (.NaN, .xorsign.abs, three inputs), abs, neg, copysign, testp.
#include <gtest/gtest.h>

#include <random>

#include "functional/fp/minmax.h"

namespace warpsim::functional::fp {
namespace {

uint32_t F(float f) { return f32_bits(f); }
uint64_t D(double d) { return f64_bits(d); }
constexpr uint32_t kNaN = 0x7fc01234u, kNegNaN = 0xff800001u;
constexpr uint32_t kPZ = 0u, kNZ = 0x80000000u;

TEST(FpMinMax, F32NaNRules) {
  EXPECT_EQ(min_f32(kNaN, F(2.0f)), F(2.0f));
  EXPECT_EQ(min_f32(F(2.0f), kNegNaN), F(2.0f));
  EXPECT_EQ(max_f32(kNaN, F(-3.0f)), F(-3.0f));
  EXPECT_EQ(min_f32(kNaN, kNegNaN), kF32CanonicalNaN);
  EXPECT_EQ(max_f32(kNegNaN, kNaN), kF32CanonicalNaN);
  // .NaN propagates (as the canonical NaN).
  EXPECT_EQ(min_f32(kNaN, F(2.0f), false, true), kF32CanonicalNaN);
  EXPECT_EQ(max_f32(F(2.0f), kNegNaN, false, true), kF32CanonicalNaN);
  EXPECT_EQ(max_f32(F(2.0f), F(5.0f), false, true), F(5.0f));
}

TEST(FpMinMax, F32SignedZerosAndOrder) {
  EXPECT_EQ(min_f32(kPZ, kNZ), kNZ);
  EXPECT_EQ(min_f32(kNZ, kPZ), kNZ);
  EXPECT_EQ(max_f32(kPZ, kNZ), kPZ);
  EXPECT_EQ(max_f32(kNZ, kPZ), kPZ);
  EXPECT_EQ(min_f32(F(-1.0f), F(-2.0f)), F(-2.0f));
  EXPECT_EQ(max_f32(F(-1.0f), F(-2.0f)), F(-1.0f));
  EXPECT_EQ(min_f32(F(1.0f), 0xff800000u), 0xff800000u);
  EXPECT_EQ(max_f32(F(1.0f), 0x7f800000u), 0x7f800000u);
  EXPECT_EQ(min_f32(F(1.0f), F(1.0f)), F(1.0f));
  // Against the host's ordered comparison on random non-NaN pairs.
  std::mt19937 g(5);
  for (int i = 0; i < 100000; ++i) {
    const uint32_t a = g(), b = g();
    if (is_nan32(a) || is_nan32(b) || ((a | b) & 0x7fffffffu) == 0) continue;
    const float fa = f32_from(a), fb = f32_from(b);
    if (fa == fb) continue;
    ASSERT_EQ(min_f32(a, b), fa < fb ? a : b);
    ASSERT_EQ(max_f32(a, b), fa > fb ? a : b);
  }
}

TEST(FpMinMax, F32FtzFlushesInputs) {
  EXPECT_EQ(min_f32(0x00000005u, F(1.0f)), 0x00000005u);
  EXPECT_EQ(min_f32(0x00000005u, F(1.0f), true), kPZ);
  EXPECT_EQ(max_f32(0x80000005u, F(-1.0f), true), kNZ);
  EXPECT_EQ(min_f32(0x80000005u, kPZ, true), kNZ);  // -0 < +0 after flushing
}

TEST(FpMinMax, XorsignAbs) {
  EXPECT_EQ(min_f32(F(-2.0f), F(3.0f), false, false, true), F(-2.0f));
  EXPECT_EQ(min_f32(F(-4.0f), F(3.0f), false, false, true), F(-3.0f));
  EXPECT_EQ(min_f32(F(-4.0f), F(-3.0f), false, false, true), F(3.0f));
  EXPECT_EQ(max_f32(F(-4.0f), F(3.0f), false, false, true), F(-4.0f));
  EXPECT_EQ(max_f32(F(4.0f), F(3.0f), false, false, true), F(4.0f));
  // One NaN: the other magnitude, with the xor of both signs (NaN's included).
  EXPECT_EQ(min_f32(kNegNaN, F(3.0f), false, false, true), F(-3.0f));
  EXPECT_EQ(min_f32(kNegNaN, F(3.0f), false, true, true), kF32CanonicalNaN);
  EXPECT_EQ(max_f32(kNaN, kNegNaN, false, false, true), kF32CanonicalNaN);
  EXPECT_EQ(min_f16(0xc000, 0x4200, false, false, true), 0xc000);  // -2, 3
  EXPECT_EQ(max_bf16(0xc080, 0xc040, false, true), 0x4080);        // |-4|, |-3|, same signs
}

TEST(FpMinMax, ThreeInputs) {
  EXPECT_EQ(min3_f32(F(3.0f), F(-1.0f), F(2.0f)), F(-1.0f));
  EXPECT_EQ(max3_f32(F(3.0f), F(-1.0f), F(7.0f)), F(7.0f));
  EXPECT_EQ(min3_f32(F(3.0f), F(-1.0f), F(2.0f), false, false, true), F(1.0f));
  EXPECT_EQ(min3_f32(kNaN, kNaN, F(2.0f)), F(2.0f));
  EXPECT_EQ(min3_f32(kNaN, F(5.0f), F(2.0f), false, true), kF32CanonicalNaN);
  EXPECT_EQ(max3_f32(kNZ, kPZ, kNZ), kPZ);
}

TEST(FpMinMax, F64AndHalf) {
  EXPECT_EQ(min_f64(D(1.0), D(-0.5)), D(-0.5));
  EXPECT_EQ(max_f64(D(-0.0), D(0.0)), D(0.0));
  EXPECT_EQ(min_f64(0x7ff0000000000001ull, D(2.0)), D(2.0));
  EXPECT_EQ(min_f64(0x7ff0000000000001ull, 0x7ff8000000000002ull), 0x7ff8000000000001ull);  // payload
  EXPECT_EQ(min_f16(0x7e00, 0x3c00), 0x3c00);
  EXPECT_EQ(min_f16(0x7e00, 0xfe01), kF16CanonicalNaN);
  EXPECT_EQ(max_f16(0x3c00, 0x7e00, false, true), kF16CanonicalNaN);
  EXPECT_EQ(min_f16(0x8000, 0x0000), 0x8000);
  EXPECT_EQ(max_f16(0x8001, 0x8000, true), 0x8000);  // ftz: -subnormal -> -0
  EXPECT_EQ(max_f16(0x8001, 0x8000), 0x8000);
  EXPECT_EQ(min_bf16(0x7fc0, 0x3f80), 0x3f80);
  EXPECT_EQ(min_bf16(0x7fc0, 0x3f80, true), kBF16CanonicalNaN);
  EXPECT_EQ(max_bf16(0x0000, 0x8000), 0x0000);
}

TEST(FpMinMax, AbsNegCopysign) {
  EXPECT_EQ(abs_f32(F(-2.5f)), F(2.5f));
  EXPECT_EQ(abs_f32(kNZ), kPZ);
  EXPECT_EQ(neg_f32(kPZ), kNZ);
  EXPECT_EQ(neg_f32(F(1.0f)), F(-1.0f));
  EXPECT_EQ(abs_f32(0x80000003u), 0x00000003u);
  EXPECT_EQ(abs_f32(0x80000003u, true), kPZ);
  EXPECT_EQ(neg_f32(0x00000003u, true), kNZ);
  EXPECT_EQ(abs_f32(kNegNaN), kF32CanonicalNaN);
  EXPECT_EQ(neg_f32(kNaN), kF32CanonicalNaN);
  EXPECT_EQ(abs_f64(0xfff0000000000001ull), 0xfff0000000000001ull);  // NaN passed through unchanged
  EXPECT_EQ(abs_f64(D(-3.0)), D(3.0));
  EXPECT_EQ(neg_f64(D(3.0)), D(-3.0));
  EXPECT_EQ(neg_f64(0x0000000000000001ull), 0x8000000000000001ull);  // no ftz for f64
  EXPECT_EQ(abs_f16(0xbc00), 0x3c00);
  EXPECT_EQ(abs_f16(0x8001, true), 0x0000);
  EXPECT_EQ(neg_f16(0x0001, true), 0x8000);
  EXPECT_EQ(neg_f16(0xfe00), kF16CanonicalNaN);
  EXPECT_EQ(neg_bf16(0x3f80), 0xbf80);
  EXPECT_EQ(abs_bf16(0x8001), 0x0001);
  EXPECT_EQ(copysign_f32(F(-1.0f), F(2.0f)), F(-2.0f));
  EXPECT_EQ(copysign_f32(F(1.0f), F(-2.0f)), F(2.0f));
  EXPECT_EQ(copysign_f32(kNZ, kNaN), kNaN | 0x80000000u);  // payload kept
  EXPECT_EQ(copysign_f64(D(-0.0), D(5.0)), D(-5.0));
}

TEST(FpMinMax, Testp) {
  using ptx::Flag;
  struct Case {
    uint32_t v;
    bool finite, infinite, number, notanumber, normal, subnormal;
  };
  const Case cases[] = {
      {F(1.0f), true, false, true, false, true, false},
      {kPZ, true, false, true, false, true, false},  // zeros count as normal
      {kNZ, true, false, true, false, true, false},
      {0x00000001u, true, false, true, false, false, true},
      {0x807fffffu, true, false, true, false, false, true},
      {0x7f800000u, false, true, true, false, false, false},
      {0xff800000u, false, true, true, false, false, false},
      {kNaN, false, false, false, true, false, false},
      {kNegNaN, false, false, false, true, false, false},
      {0x7f7fffffu, true, false, true, false, true, false},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(testp_f32(c.v, Flag::Finite), c.finite) << std::hex << c.v;
    EXPECT_EQ(testp_f32(c.v, Flag::Infinite), c.infinite) << std::hex << c.v;
    EXPECT_EQ(testp_f32(c.v, Flag::Number), c.number) << std::hex << c.v;
    EXPECT_EQ(testp_f32(c.v, Flag::Notanumber), c.notanumber) << std::hex << c.v;
    EXPECT_EQ(testp_f32(c.v, Flag::Normal), c.normal) << std::hex << c.v;
    EXPECT_EQ(testp_f32(c.v, Flag::Subnormal), c.subnormal) << std::hex << c.v;
  }
  EXPECT_TRUE(testp_f64(D(-0.0), Flag::Normal));
  EXPECT_TRUE(testp_f64(1ull, Flag::Subnormal));
  EXPECT_FALSE(testp_f64(1ull, Flag::Normal));
  EXPECT_TRUE(testp_f64(0x7ff0000000000000ull, Flag::Infinite));
  EXPECT_FALSE(testp_f64(0x7ff0000000000000ull, Flag::Finite));
  EXPECT_TRUE(testp_f64(0x7ff0000000000001ull, Flag::Notanumber));
  EXPECT_FALSE(testp_f64(0x7ff0000000000001ull, Flag::Number));
  EXPECT_TRUE(testp_f64(D(1e300), Flag::Finite));
}

}  // namespace
}  // namespace warpsim::functional::fp
