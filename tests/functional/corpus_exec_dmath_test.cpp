// Corpus execution: tests/ptx/src/dmath.cu.
//
// Tolerances: the CUDA programming guide's maximum ulp errors of the
// double-precision library (sin/cos/pow 2, exp/log/cbrt/rsqrt 1) plus one
// ulp for the host libm reference; sqrt, division, fma, fmin/fmax, floor and
// the rounding intrinsics are exact.
#include <cfloat>

#include "tests/functional/corpus_exec_util.h"

namespace warpsim::functional::corpus {
namespace {

CORPUS_EXEC_SUITE(DmathExec, "dmath");

TEST_P(DmathExec, DmathUnary) {
  const int n = 200;
  Rng rng(50);
  std::vector<double> x = {0.0,   -0.0,   1.0, -1.0,  0.5,  -2.5, 1e-300,
                           700.0, -700.0, 1e6, -3e10, 27.0, -8.0, 3.141592653589793};
  while (x.size() < static_cast<size_t>(n))
    x.push_back(rng.chance(0.8) ? rng.real(-20, 20) : rng.real(-600, 600));
  uint64_t dx = upload(x), dout = zeros<double>(10 * n);
  ASSERT_LAUNCH(launch("dmath_unary", {blocks_for(n, 64)}, {64}, {dx, dout, n}));
  auto out = download<double>(dout, 10 * n);
  std::vector<std::vector<double>> want(10, std::vector<double>(n));
  for (int i = 0; i < n; ++i) {
    const double v = x[i], a = std::fabs(v);
    want[0][i] = std::sin(v);
    want[1][i] = std::cos(v);
    want[2][i] = std::exp(v);
    want[3][i] = std::log(a + 1.0);
    want[4][i] = std::pow(a, 2.5);
    want[5][i] = std::sqrt(a);
    want[6][i] = 1.0 / v;
    want[7][i] = std::floor(v);
    want[8][i] = 1.0 / std::sqrt(a + 1.0);  // within half an ulp of the true value
    want[9][i] = std::cbrt(v);
  }
  auto col = [&](int k) { return column(out, 10, k); };
  EXPECT_TRUE(within_ulp(col(0), want[0], 3, "sin", DBL_MIN));
  EXPECT_TRUE(within_ulp(col(1), want[1], 3, "cos", DBL_MIN));
  EXPECT_TRUE(within_ulp(col(2), want[2], 2, "exp", DBL_MIN));
  EXPECT_TRUE(within_ulp(col(3), want[3], 2, "log"));
  EXPECT_TRUE(within_ulp(col(4), want[4], 3, "pow"));
  EXPECT_TRUE(exact(col(5), want[5], "sqrt"));
  EXPECT_TRUE(exact(col(6), want[6], "1.0 / v"));
  EXPECT_TRUE(exact(col(7), want[7], "floor"));
  EXPECT_TRUE(within_ulp(col(8), want[8], 2, "rsqrt"));
  EXPECT_TRUE(within_ulp(col(9), want[9], 2, "cbrt"));
}

TEST_P(DmathExec, DmathBinary) {
  const int n = 210;
  Rng rng(51);
  std::vector<double> a = {1.0, -3.0, NAN, 5.0, 1e308, -1e-310};
  std::vector<double> b = {0.0, INFINITY, 2.0, NAN, 1e308, 3e-310};
  while (a.size() < static_cast<size_t>(n)) {
    a.push_back(rng.real(-1e3, 1e3));
    b.push_back(rng.chance(0.1) ? -a.back() : rng.real(-50, 50));
  }
  uint64_t da = upload(a), db = upload(b), dout = zeros<double>(6 * n);
  ASSERT_LAUNCH(launch("dmath_binary", {blocks_for(n, 64)}, {64}, {da, db, dout, n}));
  auto out = download<double>(dout, 6 * n);
  std::vector<std::vector<double>> want(6, std::vector<double>(n));
  for (int i = 0; i < n; ++i) {
    const double x = a[i], y = b[i];
    want[0][i] = x / y;
    want[1][i] = std::fma(x, y, x);
    want[2][i] = std::fmin(x, y);
    want[3][i] = std::fmax(x, y);
    want[4][i] = std::atan2(x, y);
    want[5][i] = add_f64(x, y, Round::Zero);
  }
  auto col = [&](int k) { return column(out, 6, k); };
  EXPECT_TRUE(exact(col(0), want[0], "division"));
  EXPECT_TRUE(exact(col(1), want[1], "fma"));
  EXPECT_TRUE(exact(col(2), want[2], "fmin"));
  EXPECT_TRUE(exact(col(3), want[3], "fmax"));
  EXPECT_TRUE(within_ulp(col(4), want[4], 3, "atan2"));
  EXPECT_TRUE(exact(col(5), want[5], "__dadd_rz"));
}

TEST_P(DmathExec, DmathConv) {
  const int n = 150;
  Rng rng(52);
  // Ties for __double2ll_rn, values that round differently to float; the
  // last fixed value is the float midpoint above FLT_MAX (rounds to
  // infinity), beyond long long's range: (long long)v is undefined in C++
  // there, so only its float conversion is compared.
  std::vector<double> x = {0.0,
                           -0.0,
                           0.5,
                           1.5,
                           2.5,
                           -2.5,
                           -0.5,
                           9.2e18,
                           -9.2e18,
                           1e-320,
                           1.0000000596046448,
                           16777217.0,
                           3.4028235677973366e38};
  const size_t huge = x.size() - 1;
  while (x.size() < static_cast<size_t>(n))
    x.push_back(rng.chance(0.6) ? rng.real(-1e6, 1e6) : rng.real(-9e18, 9e18));
  uint64_t dx = upload(x), di = zeros<long long>(2 * n), df = zeros<float>(n);
  ASSERT_LAUNCH(launch("dmath_conv", {blocks_for(n, 32)}, {32}, {dx, di, df, n}));
  std::vector<long long> wi(2 * n);
  std::vector<float> wf(n);
  for (int i = 0; i < n; ++i) {
    wf[i] = static_cast<float>(x[i]);  // nearest even, overflowing to infinity
    if (static_cast<size_t>(i) == huge) continue;
    wi[2 * i] = static_cast<long long>(x[i]);
    wi[2 * i + 1] = static_cast<long long>(std::nearbyint(x[i]));
  }
  auto gi = download<long long>(di, 2 * n);
  gi[2 * huge] = gi[2 * huge + 1] = 0;
  EXPECT_TRUE(exact(gi, wi));
  EXPECT_TRUE(exact(download<float>(df, n), wf));
}

TEST_P(DmathExec, DmathBits) {
  const int n = 100;
  Rng rng(53);
  std::vector<double> x = {0.0, -0.0, INFINITY, 1e308, -4.9e-324};
  while (x.size() < static_cast<size_t>(n)) x.push_back(std::bit_cast<double>(rng.next()));
  for (auto& v : x)
    if (std::isnan(v)) v = 1.5;  // doubling a NaN need not keep its payload
  uint64_t dx = upload(x), dout = zeros<int>(2 * n);
  ASSERT_LAUNCH(launch("dmath_bits", {blocks_for(n, 64)}, {64}, {dx, dout, n}));
  std::vector<int> wi(2 * n);
  std::vector<double> wx(n);
  for (int i = 0; i < n; ++i) {
    wi[2 * i] = static_cast<int>(dbits(x[i]) >> 32);
    wi[2 * i + 1] = static_cast<int>(dbits(x[i]) & 0xffffffffu);
    wx[i] = x[i] * 2.0;
  }
  EXPECT_TRUE(exact(download<int>(dout, 2 * n), wi));
  EXPECT_TRUE(exact(download<double>(dx, n), wx));
}

}  // namespace
}  // namespace warpsim::functional::corpus
