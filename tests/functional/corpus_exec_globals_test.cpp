// Corpus execution: tests/ptx/src/globals.cu (module-scope variables with initialisers).
#include "tests/functional/corpus_exec_util.h"

namespace warpsim::functional::corpus {
namespace {

CORPUS_EXEC_SUITE(GlobalsExec, "globals");

const std::vector<float> kCoeffs = {0.5f,  -1.25f,   3.0f,        1e-3f,
                                    -0.0f, 65504.0f, 1.0f / 3.0f, 2.5e10f};

// The initial contents of the module's variables, as loading wrote them.
TEST_P(GlobalsExec, Initialisers) {
  EXPECT_TRUE(exact(download<float>(global("c_coeffs"), 8), kCoeffs));
  std::vector<int> lut(16);
  for (int k = 0; k < 16; ++k) lut[k] = k * k;
  EXPECT_TRUE(exact(download<int>(global("c_lut"), 16), lut));
  EXPECT_TRUE(exact(download<double>(global("c_pi"), 1), {3.141592653589793}));
  EXPECT_TRUE(exact(download<int>(global("d_counter"), 1), {7}));
  EXPECT_TRUE(exact(download<uint64_t>(global("d_big"), 1), {0x0123456789abcdefull}));
  std::vector<float> table(12);
  for (int k = 0; k < 12; ++k) table[k] = static_cast<float>(k + 1);
  EXPECT_TRUE(exact(download<float>(global("d_table"), 12), table));
  EXPECT_TRUE(exact(download<uint8_t>(global("d_bytes"), 5), {1, 2, 0xff, 0x80, 0}));
  EXPECT_TRUE(exact(download<int>(global("d_zero"), 32), std::vector<int>(32)));
  // clang folds the constant string into read_globals and drops d_msg, and
  // cannot emit the pointer-valued globals at all.
  if (is_clang()) return;
  auto msg = download<char>(global("d_msg"), 8);
  EXPECT_EQ(std::string(msg.data()), "warpsim");
  // Pointers hold the generic addresses of other globals (global addresses
  // are generic addresses in warpsim as on hardware).
  const uint64_t counter = global("d_counter"), tab = global("d_table");
  EXPECT_TRUE(exact(download<uint64_t>(global("d_ptr"), 1), {counter}));
  EXPECT_TRUE(exact(download<uint64_t>(global("d_row_ptr"), 1), {tab + 24}));
  EXPECT_TRUE(exact(download<uint64_t>(global("d_ptrs"), 3), {tab, tab + 16, tab + 44}));
  auto rec = download<uint64_t>(global("d_ptrrec"), 3);
  EXPECT_EQ(rec[0] & 0xffffffffu, 5u);
  EXPECT_EQ(rec[1], counter);
  EXPECT_EQ(static_cast<int16_t>(rec[2] & 0xffff), -2);
}

TEST_P(GlobalsExec, EvalPoly) {
  const int n = 500;
  Rng rng(130);
  auto x = rng.vec<float>(n, [&] { return rng.f32(-2, 2); });
  uint64_t dx = upload(x), dout = zeros<float>(n);
  ASSERT_LAUNCH(launch("eval_poly", {blocks_for(n, 128)}, {128}, {dx, dout, n}));
  // Horner, acc = acc * v + c[k]: one fma per step when contracted.
  std::vector<float> want(n);
  for (int i = 0; i < n; ++i) {
    float acc = 0.0f;
    for (int k = 7; k >= 0; --k)
      acc = contracted() ? std::fma(acc, x[i], kCoeffs[k]) : acc * x[i] + kCoeffs[k];
    want[i] = acc;
  }
  EXPECT_TRUE(exact(download<float>(dout, n), want));
}

TEST_P(GlobalsExec, ReadGlobals) {
  uint64_t out = zeros<double>(16);
  ASSERT_LAUNCH(launch("read_globals", {2}, {32}, {out}));
  const std::vector<double> want = {7,      8,    3.141592653589793, 0xcdef, 9,  'p', -3, 'q',
                                    100000, -2.5, 1 + 2 + 255 + 128, 0,      12, -2,  17, 0};
  EXPECT_TRUE(exact(download<double>(out, 16), want));
  EXPECT_TRUE(exact(download<int>(global("d_counter"), 1), {8}));  // one atomic increment
  // A second launch sees the incremented counter: module state persists.
  ASSERT_LAUNCH(launch("read_globals", {1}, {1}, {out}));
  EXPECT_EQ(download<double>(out, 1)[0], 8.0);
  EXPECT_TRUE(exact(download<int>(global("d_counter"), 1), {9}));
}

TEST_P(GlobalsExec, WriteGlobals) {
  const int v = -40;
  ASSERT_LAUNCH(launch("write_globals", {2}, {48}, {v}));
  std::vector<int> zero(32);
  for (int k = 0; k < 32; ++k) zero[k] = v + k;
  EXPECT_TRUE(exact(download<int>(global("d_zero"), 32), zero));
  std::vector<float> table(12);
  for (int k = 0; k < 12; ++k)
    table[k] = k % 3 == 0 ? static_cast<float>(v) : static_cast<float>(k + 1);
  EXPECT_TRUE(exact(download<float>(global("d_table"), 12), table));
}

}  // namespace
}  // namespace warpsim::functional::corpus
