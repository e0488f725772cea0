// Corpus execution: tests/ptx/src/half.cu (__half, __half2, __nv_bfloat16).
//
// Halves travel as uint16_t bit patterns. The references round once from
// the exact result (sums and products of halves are exact in double), as
// the native f16/bf16 instructions do; where the CUDA headers emulate an
// operation in fp32 for the build's architecture (bf16 below sm_80), the
// reference does the same fp32 operation and then rounds.
#include "tests/functional/corpus_exec_util.h"

namespace warpsim::functional::corpus {
namespace {

CORPUS_EXEC_SUITE(HalfExec, "half");

double h2d(uint16_t h) { return half_to_double(h); }
double b2d(uint16_t h) { return bf16_to_float(h); }

// Half operands: random values over several binades, some subnormal, some
// infinite; no NaN (its payload is unspecified), and no pair of zeros with
// different signs (min/max may return either).
std::vector<uint16_t> half_inputs(Rng& rng, size_t n) {
  std::vector<uint16_t> v = {0x7c00, 0xfc00, 0x7bff, 0x0001, 0x8001, 0x3c00, 0x0000};
  while (v.size() < n) {
    const double r = rng.real(0, 1);
    v.push_back(half_from_double(r < 0.6   ? rng.real(-10, 10)
                                 : r < 0.8 ? rng.real(-60000, 60000)
                                           : std::ldexp(rng.real(-1, 1), rng.i32(-24, -12))));
  }
  return v;
}

void avoid_signed_zero_pairs(std::vector<uint16_t>& a, const std::vector<uint16_t>& b) {
  for (size_t i = 0; i < a.size(); ++i)
    if ((a[i] & 0x7fff) == 0 && (b[i] & 0x7fff) == 0) a[i] = b[i];
}

TEST_P(HalfExec, HalfOps) {
  const int n = 400;
  Rng rng(150);
  auto a = half_inputs(rng, n), b = half_inputs(rng, n);
  std::reverse(b.begin(), b.end());
  avoid_signed_zero_pairs(a, b);
  uint64_t da = upload(a), db = upload(b), dout = zeros<uint16_t>(6 * n);
  ASSERT_LAUNCH(launch("half_ops", {blocks_for(n, 128)}, {128}, {da, db, dout, n}));
  std::vector<uint16_t> want(6 * n);
  for (int i = 0; i < n; ++i) {
    const double x = h2d(a[i]), y = h2d(b[i]);
    want[6 * i + 0] = half_from_double(x + y);
    want[6 * i + 1] = half_from_double(x * y);
    want[6 * i + 2] = round_f16(exact_fma(x, y, 1.0));
    want[6 * i + 3] = half_from_double(x - y);
    want[6 * i + 4] = x > y ? a[i] : b[i];  // __hmax
    want[6 * i + 5] = x < y ? a[i] : b[i];  // __hlt(x, y) ? x : y
  }
  EXPECT_TRUE(exact_f16(download<uint16_t>(dout, 6 * n), want));
}

TEST_P(HalfExec, Half2Ops) {
  const int n = 300;  // __half2 elements: 2n halves
  Rng rng(151);
  auto a = half_inputs(rng, 2 * n), b = half_inputs(rng, 2 * n);
  std::rotate(b.begin(), b.begin() + 5, b.end());
  uint64_t da = upload(a), db = upload(b), dout = zeros<uint16_t>(6 * n);
  ASSERT_LAUNCH(launch("half2_ops", {blocks_for(n, 64)}, {64}, {da, db, dout, n}));
  std::vector<uint16_t> want(6 * n);
  for (int i = 0; i < n; ++i)
    for (int lane = 0; lane < 2; ++lane) {  // .x (low half) and .y
      const double x = h2d(a[2 * i + lane]), y = h2d(b[2 * i + lane]);
      want[6 * i + 0 + lane] = half_from_double(x + y);
      want[6 * i + 2 + lane] = half_from_double(x * y);
      want[6 * i + 4 + lane] = round_f16(exact_fma(x, y, x));
    }
  EXPECT_TRUE(exact_f16(download<uint16_t>(dout, 6 * n), want));
}

TEST_P(HalfExec, HalfConvert) {
  const int n = 3000;  // indices past 2048 are not all representable in half
  Rng rng(152);
  std::vector<float> f = {0.0f,  -0.0f, 2049.0f,       2051.0f, 65504.0f, 65519.99f,  65520.0f,
                          -1e6f, 6e-8f, 2.9802322e-8f, 1e-9f,   0.1f,     -3.3333333f};
  while (f.size() < static_cast<size_t>(n)) {
    const double r = rng.real(0, 1);
    f.push_back(r < 0.7   ? rng.f32(-100, 100)
                : r < 0.9 ? rng.f32(-7e4f, 7e4f)
                          : rng.f32(-1e-5f, 1e-5f));
  }
  uint64_t df = upload(f), dh = zeros<uint16_t>(n), dback = zeros<float>(n);
  ASSERT_LAUNCH(launch("half_convert", {blocks_for(n, 256)}, {256}, {df, dh, dback, n}));
  std::vector<uint16_t> wh(n);
  std::vector<float> wback(n);
  for (int i = 0; i < n; ++i) {
    wh[i] = half_from_double(f[i]);  // a float is exact in double: one rounding
    const int k = static_cast<int>(std::trunc(h2d(half_from_double(i))));  // rn, then rz
    wback[i] = half_to_float(wh[i]) + static_cast<float>(k);
  }
  EXPECT_TRUE(exact_f16(download<uint16_t>(dh, n), wh));
  EXPECT_TRUE(exact(download<float>(dback, n), wback));
}

TEST_P(HalfExec, Bf16Ops) {
  const int n = 500;
  Rng rng(153);
  auto gen = [&] {
    const double r = rng.real(0, 1);
    return bf16_from_double(r < 0.7   ? rng.real(-100, 100)
                            : r < 0.9 ? std::ldexp(rng.real(-1, 1), rng.i32(-130, 120))
                                      : rng.real(-1, 1) * 1e38);
  };
  auto a = rng.vec<uint16_t>(n, gen), b = rng.vec<uint16_t>(n, gen);
  a[0] = 0x7f80, b[0] = 0x3f80;  // inf
  a[1] = 0x7f7f, b[1] = 0x7f7f;  // overflow of a + b
  a[2] = 0x0001, b[2] = 0x8003;  // subnormals
  uint64_t da = upload(a), db = upload(b), dout = zeros<uint16_t>(3 * n), dfout = zeros<float>(n);
  ASSERT_LAUNCH(launch("bf16_ops", {blocks_for(n, 128)}, {128}, {da, db, dout, dfout, n}));
  // sm_80+: fma.rn.bf16 (and add/mul.bf16 on sm_90) round once. sm_75: the
  // headers compute in fp32 (fma(x, 1, y), fma(x, y, -0), fmaf) and round
  // the float to bf16.
  const bool native = arch() >= 800;
  std::vector<uint16_t> want(3 * n);
  std::vector<float> wf(n);
  for (int i = 0; i < n; ++i) {
    const double x = b2d(a[i]), y = b2d(b[i]);
    const float fx = static_cast<float>(x), fy = static_cast<float>(y);
    want[3 * i + 0] = native ? bf16_from_double(x + y) : bf16_from_double(fx + fy);
    want[3 * i + 1] = bf16_from_double(x * y);  // exact in fp32 too
    want[3 * i + 2] =
        native ? round_bf16(exact_fma(x, y, x)) : bf16_from_double(std::fma(fx, fy, fx));
    wf[i] = fx + fy;
  }
  EXPECT_TRUE(exact_bf16(download<uint16_t>(dout, 3 * n), want));
  EXPECT_TRUE(exact(download<float>(dfout, n), wf));
}

TEST_P(HalfExec, HalfDot) {
  // Every thread adds its dot product into out[0] in any order: multiples of
  // 1/8 up to 4 keep the products and all partial sums exact in fp32.
  const int n = 700;
  Rng rng(154);
  auto gen = [&] { return half_from_double(rng.i32(-32, 32) / 8.0); };
  auto a = rng.vec<uint16_t>(2 * n, gen), b = rng.vec<uint16_t>(2 * n, gen);
  uint64_t da = upload(a), db = upload(b), dout = zeros<float>(1);
  ASSERT_LAUNCH(launch("half_dot", {blocks_for(n, 128)}, {128}, {da, db, dout, n}));
  double sum = 0;
  for (int i = 0; i < 2 * n; ++i) sum += h2d(a[i]) * h2d(b[i]);
  EXPECT_TRUE(exact(download<float>(dout, 1), {static_cast<float>(sum)}));
}

}  // namespace
}  // namespace warpsim::functional::corpus
