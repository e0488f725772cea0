// Corpus execution: tests/ptx/src/templates.cu (kernels named by their
// mangled C++ names).
#include "tests/functional/corpus_exec_util.h"

namespace warpsim::functional::corpus {
namespace {

CORPUS_EXEC_SUITE(TemplatesExec, "templates");

// axpby<T>: out[i] = a * x[i] + b * y[i]. Optimised builds contract the
// floating-point forms into fma(a, x, b * y) (nvcc and clang alike).
template <typename T>
void check_axpby(CorpusExec& t, const char* kernel, T a, T b, uint64_t seed) {
  const int n = 1000;  // partial last block
  Rng rng(seed);
  auto x = rng.vec<T>(n, [&] { return static_cast<T>(rng.real(-100, 100)); });
  auto y = rng.vec<T>(n, [&] { return static_cast<T>(rng.real(-100, 100)); });
  uint64_t dx = t.upload(x), dy = t.upload(y), dout = t.zeros<T>(n);
  ASSERT_LAUNCH(t.launch(kernel, {blocks_for(n, 128)}, {128}, {dx, dy, dout, a, b, n}));
  std::vector<T> want(n);
  for (int i = 0; i < n; ++i) {
    if constexpr (std::is_integral_v<T>)
      want[i] = a * x[i] + b * y[i];
    else
      want[i] = t.contracted() ? std::fma(a, x[i], b * y[i]) : a * x[i] + b * y[i];
  }
  EXPECT_TRUE(exact(t.download<T>(dout, n), want));
}

TEST_P(TemplatesExec, AxpbyFloat) {
  check_axpby<float>(*this, "_Z5axpbyIfEvPKT_S2_PS0_S0_S0_i", 1.25f, -0.7f, 70);
}
TEST_P(TemplatesExec, AxpbyDouble) {
  check_axpby<double>(*this, "_Z5axpbyIdEvPKT_S2_PS0_S0_S0_i", 0.3, 2.75, 71);
}
TEST_P(TemplatesExec, AxpbyInt) {
  check_axpby<int>(*this, "_Z5axpbyIiEvPKT_S2_PS0_S0_S0_i", 3, -7, 72);
}

// block_sum<T, BLOCK>: the kernel's tree s[t] += s[t + st], st = BLOCK/2 .. 1.
template <typename T, int BLOCK>
void check_block_sum(CorpusExec& t, const char* kernel, uint64_t seed) {
  const int blocks = 3;
  Rng rng(seed);
  auto in = rng.vec<T>(blocks * BLOCK, [&] {
    if constexpr (std::is_integral_v<T>)
      return static_cast<T>(rng.i32(-100000, 100000));
    else
      return static_cast<T>(rng.real(-1, 1));
  });
  uint64_t din = t.upload(in), dout = t.zeros<T>(blocks);
  ASSERT_LAUNCH(t.launch(kernel, {blocks}, {BLOCK}, {din, dout}));
  std::vector<T> want(blocks);
  for (int b = 0; b < blocks; ++b) {
    std::vector<T> s(in.begin() + b * BLOCK, in.begin() + (b + 1) * BLOCK);
    for (int st = BLOCK / 2; st > 0; st /= 2)
      for (int i = 0; i < st; ++i) s[i] = s[i] + s[i + st];
    want[b] = s[0];
  }
  EXPECT_TRUE(exact(t.download<T>(dout, blocks), want));
}

TEST_P(TemplatesExec, BlockSumFloat128) {
  check_block_sum<float, 128>(*this, "_Z9block_sumIfLi128EEvPKT_PS0_", 73);
}
TEST_P(TemplatesExec, BlockSumInt256) {
  check_block_sum<int, 256>(*this, "_Z9block_sumIiLi256EEvPKT_PS0_", 74);
}
TEST_P(TemplatesExec, BlockSumDouble64) {
  check_block_sum<double, 64>(*this, "_Z9block_sumIdLi64EEvPKT_PS0_", 75);
}

TEST_P(TemplatesExec, ScaleFunctorSquare) {
  const int n = 555;
  Rng rng(76);
  auto data = rng.vec<float>(n, [&] { return rng.f32(-1e3f, 1e3f); });
  uint64_t d = upload(data);
  ASSERT_LAUNCH(launch("_ZN12warpsim_test13scale_functorINS_6SquareEfEEvPT0_i", {blocks_for(n, 64)},
                       {64}, {d, n}));
  std::vector<float> want(n);
  for (int i = 0; i < n; ++i) want[i] = data[i] * data[i];
  EXPECT_TRUE(exact(download<float>(d, n), want));
}

TEST_P(TemplatesExec, ScaleFunctorNegate) {
  const int n = 555;
  Rng rng(77);
  auto data = rng.vec<int>(n, [&] { return rng.i32(-1000000, 1000000); });
  uint64_t d = upload(data);
  ASSERT_LAUNCH(launch("_ZN12warpsim_test13scale_functorINS_6NegateEiEEvPT0_i", {blocks_for(n, 64)},
                       {64}, {d, n}));
  std::vector<int> want(n);
  for (int i = 0; i < n; ++i) want[i] = -data[i];
  EXPECT_TRUE(exact(download<int>(d, n), want));
}

}  // namespace
}  // namespace warpsim::functional::corpus
