// .approx / .full instructions: the special-case tables of the ISA exactly,
// and the documented error bounds on random inputs (against long double).
#include <gtest/gtest.h>

#include <cerrno>
#include <cmath>
#include <random>

#include "functional/fp/approx.h"
#include "functional/fp/half.h"

namespace warpsim::functional::fp {
namespace {

uint32_t F(float f) { return f32_bits(f); }
uint64_t D(double d) { return f64_bits(d); }
constexpr uint32_t kPInf = 0x7f800000u, kNInf = 0xff800000u, kPZ = 0u, kNZ = 0x80000000u;
constexpr uint32_t kNaN = 0x7fc00001u, kOne = 0x3f800000u;
constexpr double kPi = 3.14159265358979323846;

// |got - want| in units of the f32 ulp at want.
double ulps(uint32_t got, long double want) {
  const long double g = f32_from(got);
  int e;
  std::frexp(static_cast<double>(want), &e);
  const long double ulp = std::ldexp(1.0L, std::max(e - 24, -149));
  return static_cast<double>(std::fabs(g - want) / ulp);
}
double rel(uint32_t got, long double want) {
  return static_cast<double>(std::fabs((f32_from(got) - want) / want));
}

float random_in(std::mt19937& g, float lo, float hi) {
  return std::uniform_real_distribution<float>(lo, hi)(g);
}

TEST(FpApprox, RcpSqrtRsqrtSpecialCases) {
  EXPECT_EQ(rcp_approx_f32(kNInf), kNZ);
  EXPECT_EQ(rcp_approx_f32(kNZ), kNInf);
  EXPECT_EQ(rcp_approx_f32(kPZ), kPInf);
  EXPECT_EQ(rcp_approx_f32(kPInf), kPZ);
  EXPECT_EQ(rcp_approx_f32(kNaN), kF32CanonicalNaN);
  EXPECT_EQ(rcp_approx_f32(0x80000001u, true), kNInf);  // flushed to -0 first
  EXPECT_EQ(sqrt_approx_f32(kNInf), kF32CanonicalNaN);
  EXPECT_EQ(sqrt_approx_f32(F(-4.0f)), kF32CanonicalNaN);
  EXPECT_EQ(sqrt_approx_f32(kNZ), kNZ);
  EXPECT_EQ(sqrt_approx_f32(kPZ), kPZ);
  EXPECT_EQ(sqrt_approx_f32(kPInf), kPInf);
  EXPECT_EQ(sqrt_approx_f32(kNaN), kF32CanonicalNaN);
  EXPECT_EQ(sqrt_approx_f32(0x80000001u, true), kNZ);
  EXPECT_EQ(rsqrt_approx_f32(kNInf), kF32CanonicalNaN);
  EXPECT_EQ(rsqrt_approx_f32(F(-1.0f)), kF32CanonicalNaN);
  EXPECT_EQ(rsqrt_approx_f32(kNZ), kNInf);
  EXPECT_EQ(rsqrt_approx_f32(kPZ), kPInf);
  EXPECT_EQ(rsqrt_approx_f32(kPInf), kPZ);
  EXPECT_EQ(rsqrt_approx_f32(kNaN), kF32CanonicalNaN);
  EXPECT_EQ(rsqrt_approx_f32(0x00000001u, true), kPInf);
  EXPECT_EQ(rsqrt_approx_f32(F(4.0f)), F(0.5f));
}

TEST(FpApprox, TranscendentalSpecialCases) {
  errno = 0;  // none of these may reach libm with a domain or range error
  EXPECT_EQ(sin_approx_f32(kNInf), kF32CanonicalNaN);
  EXPECT_EQ(sin_approx_f32(kPInf), kF32CanonicalNaN);
  EXPECT_EQ(sin_approx_f32(kNZ), kNZ);
  EXPECT_EQ(sin_approx_f32(kPZ), kPZ);
  EXPECT_EQ(sin_approx_f32(kNaN), kF32CanonicalNaN);
  EXPECT_EQ(sin_approx_f32(0x80000001u), 0x80000001u);  // sin(x) = x for tiny x
  EXPECT_EQ(sin_approx_f32(0x80000001u, true), kNZ);
  EXPECT_EQ(cos_approx_f32(kNInf), kF32CanonicalNaN);
  EXPECT_EQ(cos_approx_f32(kPInf), kF32CanonicalNaN);
  EXPECT_EQ(cos_approx_f32(kNZ), kOne);
  EXPECT_EQ(cos_approx_f32(kPZ), kOne);
  EXPECT_EQ(cos_approx_f32(kNaN), kF32CanonicalNaN);
  EXPECT_EQ(lg2_approx_f32(kNInf), kF32CanonicalNaN);
  EXPECT_EQ(lg2_approx_f32(F(-1.0f)), kF32CanonicalNaN);
  EXPECT_EQ(lg2_approx_f32(kNZ), kNInf);
  EXPECT_EQ(lg2_approx_f32(kPZ), kNInf);
  EXPECT_EQ(lg2_approx_f32(kPInf), kPInf);
  EXPECT_EQ(lg2_approx_f32(kNaN), kF32CanonicalNaN);
  EXPECT_EQ(lg2_approx_f32(0x00000001u), F(-149.0f));
  EXPECT_EQ(lg2_approx_f32(0x00000001u, true), kNInf);
  EXPECT_EQ(lg2_approx_f32(0x80000001u), kF32CanonicalNaN);
  EXPECT_EQ(lg2_approx_f32(0x80000001u, true), kNInf);  // -subnormal flushes to -0
  EXPECT_EQ(lg2_approx_f32(F(8.0f)), F(3.0f));
  EXPECT_EQ(ex2_approx_f32(kNInf), kPZ);
  EXPECT_EQ(ex2_approx_f32(kNZ), kOne);
  EXPECT_EQ(ex2_approx_f32(kPZ), kOne);
  EXPECT_EQ(ex2_approx_f32(kPInf), kPInf);
  EXPECT_EQ(ex2_approx_f32(kNaN), kF32CanonicalNaN);
  EXPECT_EQ(ex2_approx_f32(F(10.0f)), F(1024.0f));
  EXPECT_EQ(ex2_approx_f32(F(128.0f)), kPInf);
  EXPECT_EQ(ex2_approx_f32(F(-149.0f)), 0x00000001u);
  EXPECT_EQ(ex2_approx_f32(F(-149.0f), true), kPZ);
  EXPECT_EQ(ex2_approx_f32(F(-1000.0f)), kPZ);
  EXPECT_EQ(tanh_approx_f32(kNInf), F(-1.0f));
  EXPECT_EQ(tanh_approx_f32(kNZ), kNZ);
  EXPECT_EQ(tanh_approx_f32(kPZ), kPZ);
  EXPECT_EQ(tanh_approx_f32(kPInf), kOne);
  EXPECT_EQ(tanh_approx_f32(kNaN), kF32CanonicalNaN);
  EXPECT_EQ(tanh_approx_f32(0x00000007u), 0x00000007u);  // subnormals pass through
  EXPECT_EQ(errno, 0);
}

TEST(FpApprox, DivApproxAndFull) {
  EXPECT_EQ(div_approx_f32(F(1.0f), F(0x1p127f)), kPZ);  // |b| > 2^126: zero
  EXPECT_EQ(div_approx_f32(F(-1.0f), F(0x1p127f)), kNZ);
  EXPECT_EQ(div_approx_f32(kPInf, F(0x1p127f)), kF32CanonicalNaN);
  EXPECT_EQ(div_approx_f32(F(0x1p126f), F(0x1p126f)), kOne);  // 2^126 is still in range
  EXPECT_EQ(div_full_f32(F(1.0f), F(0x1p127f)), F(0x1p-127f));
  EXPECT_EQ(div_full_f32(F(1.0f), F(0x1p127f), true), kPZ);
  EXPECT_EQ(div_approx_f32(F(6.0f), F(3.0f)), F(2.0f));
  EXPECT_EQ(div_approx_f32(kPZ, kPZ), kF32CanonicalNaN);
  EXPECT_EQ(div_approx_f32(F(1.0f), kNZ), kNInf);
  EXPECT_EQ(div_full_f32(kNaN, F(1.0f)), kF32CanonicalNaN);
  std::mt19937 g(3);
  for (int i = 0; i < 50000; ++i) {
    const float a = std::ldexp(random_in(g, 1.0f, 2.0f), static_cast<int>(g() % 120) - 60);
    const float b = std::ldexp(random_in(g, 1.0f, 2.0f), static_cast<int>(g() % 120) - 60) * (g() % 2 ? 1 : -1);
    const long double want = static_cast<long double>(a) / b;
    ASSERT_LE(ulps(div_approx_f32(F(a), F(b)), want), 2.0);
    ASSERT_LE(ulps(div_full_f32(F(a), F(b)), want), 2.0);
  }
}

TEST(FpApprox, F32ErrorBounds) {
  std::mt19937 g(17);
  for (int i = 0; i < 50000; ++i) {
    const float x = std::ldexp(random_in(g, 1.0f, 2.0f), static_cast<int>(g() % 250) - 125);
    ASSERT_LE(ulps(rcp_approx_f32(F(x)), 1.0L / x), 1.0) << x;
    ASSERT_LE(rel(sqrt_approx_f32(F(x)), std::sqrt(static_cast<long double>(x))), std::ldexp(1.0, -23)) << x;
    ASSERT_LE(rel(rsqrt_approx_f32(F(x)), 1.0L / std::sqrt(static_cast<long double>(x))), std::pow(2.0, -22.9))
        << x;
    const float t = random_in(g, static_cast<float>(-2 * kPi), static_cast<float>(2 * kPi));
    ASSERT_LE(std::fabs(f32_from(sin_approx_f32(F(t))) - std::sin(static_cast<long double>(t))),
              std::pow(2.0, -20.5));
    ASSERT_LE(std::fabs(f32_from(cos_approx_f32(F(t))) - std::cos(static_cast<long double>(t))),
              std::pow(2.0, -20.5));
    const float w = random_in(g, static_cast<float>(-100 * kPi), static_cast<float>(100 * kPi));
    ASSERT_LE(std::fabs(f32_from(sin_approx_f32(F(w))) - std::sin(static_cast<long double>(w))),
              std::pow(2.0, -14.7));
    const long double l2 = std::log2(static_cast<long double>(x));
    if (x > 0.5f && x < 2.0f) {
      ASSERT_LE(std::fabs(f32_from(lg2_approx_f32(F(x))) - l2), std::ldexp(1.0, -22)) << x;
    } else {
      ASSERT_LE(rel(lg2_approx_f32(F(x)), l2), std::ldexp(1.0, -22)) << x;
    }
    const float e = random_in(g, -140.0f, 127.9f);
    ASSERT_LE(ulps(ex2_approx_f32(F(e)), std::exp2(static_cast<long double>(e))), 2.0) << e;
    const float h = std::ldexp(random_in(g, -2.0f, 2.0f), static_cast<int>(g() % 40) - 30);
    ASSERT_LE(rel(tanh_approx_f32(F(h)), std::tanh(static_cast<long double>(h))), std::ldexp(1.0, -11)) << h;
  }
}

TEST(FpApprox, HalfTranscendentals) {
  EXPECT_EQ(ex2_approx_f16(0x0000), 0x3c00);
  EXPECT_EQ(ex2_approx_f16(0xfc00), 0x0000);
  EXPECT_EQ(ex2_approx_f16(0x7c00), 0x7c00);
  EXPECT_EQ(ex2_approx_f16(0x3c00), 0x4000);
  EXPECT_EQ(ex2_approx_f16(0x4c00), 0x7c00);  // 2^16 overflows
  EXPECT_EQ(ex2_approx_f16(0x7e00), kF16CanonicalNaN);
  EXPECT_EQ(ex2_approx_ftz_bf16(0x0001), 0x3f80);  // flushed input: 2^0
  EXPECT_EQ(ex2_approx_ftz_bf16(0xc300), 0x0000);  // 2^-128 is subnormal: flushed
  EXPECT_EQ(tanh_approx_f16(0xfc00), 0xbc00);
  EXPECT_EQ(tanh_approx_f16(0x8000), 0x8000);
  EXPECT_EQ(tanh_approx_bf16(0x7f80), 0x3f80);
  EXPECT_EQ(tanh_approx_bf16(0xffc0), kBF16CanonicalNaN);
  for (uint32_t h = 0; h < 0x10000; h += 7) {
    const auto x = static_cast<uint16_t>(h);
    if (is_nan16(x) || (x & 0x7fffu) >= 0x7c00u) continue;
    const long double v = f16_value(x);
    const long double want = std::tanh(v);
    if (want != 0) {
      ASSERT_LE(std::fabs((f16_value(tanh_approx_f16(x)) - want) / want), std::pow(2.0, -10.987)) << h;
    }
  }
}

TEST(FpApprox, F64Approximations) {
  const uint64_t kHiNaN = 0x7fffffff00000000ull;
  EXPECT_EQ(rcp_approx_ftz_f64(0xfff0000000000000ull), 1ull << 63);
  EXPECT_EQ(rcp_approx_ftz_f64(0x8000000000000001ull), 0xfff0000000000000ull);  // -subnormal
  EXPECT_EQ(rcp_approx_ftz_f64(1ull << 63), 0xfff0000000000000ull);
  EXPECT_EQ(rcp_approx_ftz_f64(0), 0x7ff0000000000000ull);
  EXPECT_EQ(rcp_approx_ftz_f64(0x000fffffffffffffull), 0x7ff0000000000000ull);
  EXPECT_EQ(rcp_approx_ftz_f64(0x7ff0000000000000ull), 0ull);
  EXPECT_EQ(rcp_approx_ftz_f64(0x7ff8000000000000ull), kHiNaN);
  EXPECT_EQ(rcp_approx_ftz_f64(0xfff0000100000000ull), kHiNaN);
  EXPECT_EQ(rcp_approx_ftz_f64(D(3.0)), 0x3fd5555500000000ull);
  EXPECT_EQ(rcp_approx_ftz_f64(D(3.0) | 0x12345678ull), 0x3fd5555500000000ull);  // low word ignored
  EXPECT_EQ(rcp_approx_ftz_f64(D(-0.5)), D(-2.0));
  EXPECT_EQ(rcp_approx_ftz_f64(D(0x1p1023)), 0ull);  // 2^-1023 is subnormal: flushed
  EXPECT_EQ(rsqrt_approx_ftz_f64(0xfff0000000000000ull), kHiNaN);
  EXPECT_EQ(rsqrt_approx_ftz_f64(0x8000000000000001ull), 0xfff0000000000000ull);
  EXPECT_EQ(rsqrt_approx_ftz_f64(1ull << 63), 0xfff0000000000000ull);
  EXPECT_EQ(rsqrt_approx_ftz_f64(0), 0x7ff0000000000000ull);
  EXPECT_EQ(rsqrt_approx_ftz_f64(1), 0x7ff0000000000000ull);
  EXPECT_EQ(rsqrt_approx_ftz_f64(0x7ff0000000000000ull), 0ull);
  EXPECT_EQ(rsqrt_approx_ftz_f64(D(-4.0)), kHiNaN);
  EXPECT_EQ(rsqrt_approx_ftz_f64(0x7ff0000000000001ull), 0ull);  // NaN only in the ignored low word: +Inf
  EXPECT_EQ(rsqrt_approx_ftz_f64(D(4.0)), D(0.5));
  EXPECT_EQ(rsqrt_approx_f64(D(-0.0)), 0xfff0000000000000ull);
  EXPECT_EQ(rsqrt_approx_f64(0), 0x7ff0000000000000ull);
  EXPECT_EQ(rsqrt_approx_f64(0x7ff0000000000000ull), 0ull);
  EXPECT_EQ(rsqrt_approx_f64(0xfff0000000000000ull), kF64DefaultNaN);
  EXPECT_EQ(rsqrt_approx_f64(D(-2.0)), kF64DefaultNaN);
  EXPECT_EQ(rsqrt_approx_f64(0x7ff0000000000123ull), 0x7ff8000000000123ull);
  EXPECT_EQ(rsqrt_approx_f64(D(0.25)), D(2.0));
  EXPECT_NEAR(f64_from(rsqrt_approx_f64(1ull)), std::ldexp(1.0, 537), std::ldexp(1.0, 537 - 50));
  std::mt19937_64 g(8);
  for (int i = 0; i < 20000; ++i) {
    const double x = std::ldexp(1.0 + static_cast<double>(g() >> 12) * 0x1p-52, static_cast<int>(g() % 2000) - 1000);
    const long double hi = f64_from(D(x) & 0xffffffff00000000ull);
    ASSERT_LE(std::fabs((f64_from(rcp_approx_ftz_f64(D(x))) - 1.0L / hi) * hi), std::ldexp(1.0, -21));
    ASSERT_LE(std::fabs((f64_from(rsqrt_approx_ftz_f64(D(x))) - 1.0L / std::sqrt(hi)) * std::sqrt(hi)),
              std::ldexp(1.0, -21));
    ASSERT_LE(std::fabs((f64_from(rsqrt_approx_f64(D(x))) - 1.0L / std::sqrt(static_cast<long double>(x))) *
                        std::sqrt(static_cast<long double>(x))),
              std::ldexp(1.0, -51));
  }
}

}  // namespace
}  // namespace warpsim::functional::fp
