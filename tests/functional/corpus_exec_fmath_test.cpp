// Corpus execution: tests/ptx/src/fmath.cu.
//
// Tolerances: the CUDA programming guide's maximum ulp errors of the
// single-precision library (sinf/cosf/expf/tanhf/exp2f 2, logf/log2f 1,
// powf 4, atan2f/hypotf 3, rsqrtf 2, __fdividef 2, __expf 2 + 1.173|x|,
// __sinf 2^-21.41 absolute within [-pi, pi] and 2^-20.5 within +-100 pi for
// sin.approx) plus one ulp for the host libm reference. Functions the guide
// calls exact (sqrtf, division, fmaf, rounding functions, fminf...) and the
// IEEE intrinsics with a rounding mode are compared bit for bit.
//
// The clang build links libdevice with clang's defaults, which differ from
// nvcc's: sqrtf is sqrt.approx.f32 (the guide's -prec-sqrt=false bound: 1 ulp;
// hypotf gets one more), and fp-contract=fast fuses the compensated step
// of libdevice's powf that splits y * log2(x) into integer and fraction, so
// its error grows with |log(result)| like __expf's and gets __expf's bound.
#include <cfloat>

#include "tests/functional/corpus_exec_util.h"

namespace warpsim::functional::corpus {
namespace {

CORPUS_EXEC_SUITE(FmathExec, "fmath");

// Inputs: random values over the ranges where the results stay normal, plus
// edge cases (zeros, halfway points for the rounding functions, values that
// take libdevice's slow argument reduction, overflow of exp).
std::vector<float> unary_inputs(size_t n, uint64_t seed) {
  Rng rng(seed);
  std::vector<float> v = {0.0f,        -0.0f,  1.0f,   -1.0f, 0.5f,   -0.5f,
                          1.5f,        2.5f,   -2.5f,  3.5f,  1e-3f,  -7e-4f,
                          3.14159265f, 100.0f, -87.0f, 90.0f, -90.0f, 12345.678f,
                          -40000.0f,   1e6f,   -3e7f,  20.0f, -20.0f, 0.75f};
  while (v.size() < n) {
    const double r = rng.real(0, 1);
    v.push_back(r < 0.7 ? rng.f32(-10, 10) : r < 0.9 ? rng.f32(-80, 80) : rng.f32(-300, 300));
  }
  return v;
}

TEST_P(FmathExec, FmathUnary) {
  const int n = 300;
  auto x = unary_inputs(n, 40);
  uint64_t dx = upload(x), dout = zeros<float>(16 * n);
  ASSERT_LAUNCH(launch("fmath_unary", {blocks_for(n, 128)}, {128}, {dx, dout, n}));
  auto out = download<float>(dout, 16 * n);
  std::vector<std::vector<float>> want(16, std::vector<float>(n));
  for (int i = 0; i < n; ++i) {
    const float v = x[i];
    const float a = std::fabs(v);
    want[0][i] = std::sin(v);
    want[1][i] = std::cos(v);
    want[2][i] = std::exp(v);
    want[3][i] = std::log(a + 1.0f);
    want[4][i] = std::pow(a, 1.5f);
    want[5][i] = std::sqrt(a);
    want[6][i] = static_cast<float>(1.0 / std::sqrt(static_cast<double>(a + 1.0f)));
    want[7][i] = std::sin(v);
    want[8][i] = std::exp(v);
    want[9][i] = static_cast<float>(static_cast<double>(v) / 3.0);
    want[10][i] = std::floor(v);
    want[11][i] = std::ceil(v);
    want[12][i] = std::round(v);
    want[13][i] = std::trunc(v);
    want[14][i] = std::tanh(v);
    want[15][i] = static_cast<float>(std::exp2(static_cast<double>(v)) +
                                     std::log2(static_cast<double>(a + 2.0f)));
  }
  auto col = [&](int k) { return column(out, 16, k); };
  // Results below FLT_MIN (exp of large negative values) are allowed an
  // absolute error of FLT_MIN: the bounds are for normal results.
  EXPECT_TRUE(within_ulp(col(0), want[0], 3, "sinf", FLT_MIN));
  EXPECT_TRUE(within_ulp(col(1), want[1], 3, "cosf", FLT_MIN));
  EXPECT_TRUE(within_ulp(col(2), want[2], 3, "expf", FLT_MIN));
  EXPECT_TRUE(within_ulp(col(3), want[3], 2, "logf"));
  // __expf(e)'s bound, 2 + 1.173 |e| ulp (plus the host's ulp).
  auto exp_bound = [](double e) {
    return std::isfinite(e) ? static_cast<uint64_t>(3 + std::floor(1.173 * std::fabs(e))) : 3;
  };
  if (is_clang()) {
    EXPECT_TRUE(within_ulp(
        col(4), want[4], [&](size_t i) { return exp_bound(1.5 * std::log(std::fabs(x[i]))); },
        "powf"));
    EXPECT_TRUE(within_ulp(col(5), want[5], 1, "sqrtf"));
  } else {
    EXPECT_TRUE(within_ulp(col(4), want[4], 5, "powf"));
    EXPECT_TRUE(exact(col(5), want[5], "sqrtf"));
  }
  EXPECT_TRUE(within_ulp(col(6), want[6], 3, "rsqrtf"));
  // __sinf: an absolute bound, and none at all beyond +-100 pi.
  auto sin_fast = col(7);
  for (int i = 0; i < n; ++i)
    if (std::fabs(x[i]) > 100 * 3.14159265f) sin_fast[i] = want[7][i];
  EXPECT_TRUE(within_ulp(sin_fast, want[7], 1, "__sinf", std::ldexp(1.0, -20)));
  EXPECT_TRUE(within_ulp(
      col(8), want[8], [&](size_t i) { return exp_bound(x[i]); }, "__expf", FLT_MIN));
  EXPECT_TRUE(within_ulp(col(9), want[9], 2, "__fdividef"));
  EXPECT_TRUE(exact(col(10), want[10], "floorf"));
  EXPECT_TRUE(exact(col(11), want[11], "ceilf"));
  EXPECT_TRUE(exact(col(12), want[12], "roundf"));
  EXPECT_TRUE(exact(col(13), want[13], "truncf"));
  EXPECT_TRUE(within_ulp(col(14), want[14], 3, "tanhf"));
  EXPECT_TRUE(within_ulp(col(15), want[15], 4, "exp2f + log2f"));
}

TEST_P(FmathExec, FmathBinary) {
  const int n = 260;
  Rng rng(41);
  std::vector<float> a = {1.0f, -3.0f, NAN, 5.0f, -0.0f, 7.5f};
  std::vector<float> b = {0.0f, INFINITY, 1.0f, NAN, 2.0f, -7.5f};
  while (a.size() < static_cast<size_t>(n)) {
    a.push_back(rng.f32(-100, 100));
    b.push_back(rng.chance(0.1) ? a.back() : rng.f32(-20, 20));
  }
  auto c = rng.vec<float>(n, [&] { return rng.f32(-1000, 1000); });
  uint64_t da = upload(a), db = upload(b), dc = upload(c), dout = zeros<float>(8 * n);
  ASSERT_LAUNCH(launch("fmath_binary", {blocks_for(n, 64)}, {64}, {da, db, dc, dout, n}));
  auto out = download<float>(dout, 8 * n);
  std::vector<std::vector<float>> want(8, std::vector<float>(n));
  for (int i = 0; i < n; ++i) {
    const float x = a[i], y = b[i], z = c[i];
    want[0][i] = std::fmin(x, y);
    want[1][i] = std::fmax(x, y);
    want[2][i] = std::fma(x, y, z);
    want[3][i] = std::copysign(x, y);
    want[4][i] = x / y;
    want[5][i] = std::fmod(x, y);
    want[6][i] = std::atan2(x, y);
    want[7][i] = std::hypot(x, y);
  }
  auto col = [&](int k) { return column(out, 8, k); };
  EXPECT_TRUE(exact(col(0), want[0], "fminf"));
  EXPECT_TRUE(exact(col(1), want[1], "fmaxf"));
  EXPECT_TRUE(exact(col(2), want[2], "fmaf"));
  EXPECT_TRUE(exact(col(3), want[3], "copysignf"));
  EXPECT_TRUE(exact(col(4), want[4], "division"));
  EXPECT_TRUE(exact(col(5), want[5], "fmodf"));
  EXPECT_TRUE(within_ulp(col(6), want[6], 4, "atan2f"));
  EXPECT_TRUE(within_ulp(col(7), want[7], is_clang() ? 5 : 4, "hypotf"));
}

TEST_P(FmathExec, FmathFast) {
  const int n = 200;
  Rng rng(42);
  // Subnormals too: the IEEE intrinsics do not flush them.
  std::vector<float> x = {0.0f, -0.0f, 1e-40f, -3e-39f, FLT_MAX, -FLT_MAX, 1.0f, -1.0f, 3.0f};
  while (x.size() < static_cast<size_t>(n))
    x.push_back(rng.chance(0.8) ? rng.f32(-100, 100)
                                : std::ldexp(rng.f32(-1, 1), rng.i32(-140, 120)));
  uint64_t dx = upload(x), dout = zeros<float>(4 * n);
  ASSERT_LAUNCH(launch("fmath_fast", {blocks_for(n, 96)}, {96}, {dx, dout, n}));
  std::vector<float> want(4 * n);
  for (int i = 0; i < n; ++i) {
    const float v = x[i];
    want[4 * i + 0] = v + 1.0f;
    want[4 * i + 1] = round_f32({v * 3.0, 0.0}, Round::Zero);  // the product is exact in double
    want[4 * i + 2] = round_f32(exact_fma(v, v, 1.0), Round::Down);
    want[4 * i + 3] = 1.0f / v;  // IEEE division rounds to nearest, as rcp.rn
  }
  EXPECT_TRUE(exact(download<float>(dout, 4 * n), want));
}

TEST_P(FmathExec, FmathConv) {
  const int n = 230;
  Rng rng(43);
  // Every value converts in range ((int)v of an out-of-range float is
  // undefined in CUDA C++); ties exercise __float2int_rn's even rounding.
  std::vector<float> x = {0.0f,        -0.0f,  0.5f,    1.5f,        2.5f,  -0.5f, -2.5f, -1.25f,
                          0.99999994f, 2.0e9f, -2.1e9f, 16777217.0f, -1.0f, 1.0f,  7.0f};
  while (x.size() < static_cast<size_t>(n))
    x.push_back(rng.chance(0.7) ? rng.f32(-50, 50) : rng.f32(-2e9f, 2e9f));
  uint64_t dx = upload(x), di = zeros<int>(4 * n), df = zeros<float>(2 * n);
  ASSERT_LAUNCH(launch("fmath_conv", {blocks_for(n, 64)}, {64}, {dx, di, df, n}));
  std::vector<int> wi(4 * n);
  std::vector<float> wf(2 * n);
  for (int i = 0; i < n; ++i) {
    const float v = x[i];
    wi[4 * i + 0] = static_cast<int>(v);
    wi[4 * i + 1] = static_cast<int>(std::nearbyint(v));  // default mode: ties to even
    wi[4 * i + 2] = static_cast<int>(std::floor(v));
    wi[4 * i + 3] = static_cast<int>(static_cast<unsigned>(std::fabs(v)));
    wf[2 * i + 0] = static_cast<float>(static_cast<int>(v));
    wf[2 * i + 1] = v > 0 ? std::min(v, 1.0f) : 0.0f;  // [+0, 1]: -0 gives +0
  }
  EXPECT_TRUE(exact(download<int>(di, 4 * n), wi));
  EXPECT_TRUE(exact(download<float>(df, 2 * n), wf));
}

}  // namespace
}  // namespace warpsim::functional::corpus
