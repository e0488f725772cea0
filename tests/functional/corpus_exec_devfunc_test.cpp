// Corpus execution: tests/ptx/src/devfunc.cu (calls, recursion, function pointers).
#include "tests/functional/corpus_exec_util.h"

namespace warpsim::functional::corpus {
namespace {

CORPUS_EXEC_SUITE(DevfuncExec, "devfunc");

TEST_P(DevfuncExec, CallChain) {
  const int n = 500;
  Rng rng(90);
  auto in = rng.vec<int>(n, [&] { return static_cast<int>(rng.u32()); });
  uint64_t din = upload(in), dout = zeros<int>(n);
  ASSERT_LAUNCH(launch("call_chain", {blocks_for(n, 128)}, {128}, {din, dout, n}));
  std::vector<int> want(n);
  for (int i = 0; i < n; ++i)  // 3x + 7, wrapping
    want[i] = static_cast<int>(3u * static_cast<unsigned>(in[i]) + 7u);
  EXPECT_TRUE(exact(download<int>(dout, n), want));
}

TEST_P(DevfuncExec, Recursive) {
  // Every lane of a warp walks the call tree of the warp's largest input
  // (masked), so fib's exponential tree is kept small: one 18, the rest <= 14.
  const int n = 45;
  Rng rng(91);
  auto in = rng.vec<int>(n, [&] { return rng.i32(0, 14); });
  in[3] = 18;
  in[40] = 0;
  in[41] = 1;
  uint64_t din = upload(in), dout = zeros<long long>(2 * n);
  ASSERT_LAUNCH(launch("recursive", {2}, {32}, {din, dout, n}));
  std::vector<long long> want(2 * n);
  for (int i = 0; i < n; ++i) {
    long long f = 1, a = 0, b = 1;
    for (int k = 2; k <= in[i]; ++k) f *= k;
    for (int k = 0; k < in[i]; ++k) {
      const long long t = a + b;
      a = b;
      b = t;
    }
    want[2 * i] = f;
    want[2 * i + 1] = a;
  }
  EXPECT_TRUE(exact(download<long long>(dout, 2 * n), want));
}

TEST_P(DevfuncExec, FnptrTable) {
  const int n = 400;
  Rng rng(92);
  auto op = rng.vec<int>(n, [&] { return rng.i32(-8, 8); });  // the kernel uses op & 3
  auto a = rng.vec<float>(n, [&] { return rng.f32(-50, 50); });
  auto b = rng.vec<float>(n, [&] { return rng.f32(-50, 50); });
  uint64_t dop = upload(op), da = upload(a), db = upload(b), dout = zeros<float>(n);
  ASSERT_LAUNCH(launch("fnptr_table", {blocks_for(n, 96)}, {96}, {dop, da, db, dout, n}));
  std::vector<float> want(n);
  for (int i = 0; i < n; ++i) {
    switch (op[i] & 3) {
      case 0: want[i] = a[i] + b[i]; break;
      case 1: want[i] = a[i] - b[i]; break;
      case 2: want[i] = a[i] * b[i]; break;
      default: want[i] = std::fmax(a[i], b[i]); break;
    }
  }
  EXPECT_TRUE(exact(download<float>(dout, n), want));
}

TEST_P(DevfuncExec, FnptrParam) {
  for (int sel : {0, 5}) {
    uint64_t out = zeros<float>(32);
    ASSERT_LAUNCH(launch("fnptr_param", {2}, {64}, {sel, out}));
    std::vector<float> want(32);
    for (int l = 0; l < 32; ++l) want[l] = sel ? static_cast<float>(l * l) : l * 0.5f;
    EXPECT_TRUE(exact(download<float>(out, 32), want)) << "sel=" << sel;
  }
}

TEST_P(DevfuncExec, VoidFunc) {
  const int n = 700;
  uint64_t out = zeros<int>(n);
  ASSERT_LAUNCH(launch("void_func", {blocks_for(n, 256)}, {256}, {out, n}));
  std::vector<int> want(n);
  for (int i = 0; i < n; ++i) want[i] = i * i;
  EXPECT_TRUE(exact(download<int>(out, n), want));
}

TEST_P(DevfuncExec, Mutual) {
  const int n = 100;
  Rng rng(93);
  auto in = rng.vec<int>(n, [&] { return rng.i32(0, 40); });
  uint64_t din = upload(in), dout = zeros<int>(n);
  ASSERT_LAUNCH(launch("mutual", {blocks_for(n, 64)}, {64}, {din, dout, n}));
  std::vector<int> want(n);
  for (int i = 0; i < n; ++i) want[i] = in[i] % 2 == 0;
  EXPECT_TRUE(exact(download<int>(dout, n), want));
}

}  // namespace
}  // namespace warpsim::functional::corpus
