// Corpus execution: tests/ptx/src/divergence.cu (control flow diverging within a warp).
#include "tests/functional/corpus_exec_util.h"

namespace warpsim::functional::corpus {
namespace {

CORPUS_EXEC_SUITE(DivergenceExec, "divergence");

// Runs `kernel(in, out, n)` over n elements in blocks of `block` threads and
// compares out with f(in[i], out[i]) applied to out_init (default zeros).
template <typename T, typename F>
void check_elementwise(CorpusExec& t, const char* kernel, const std::vector<T>& in, uint32_t block,
                       std::vector<T> out_init, F&& f) {
  const int n = static_cast<int>(in.size());
  if (out_init.empty()) out_init.assign(n, T{});
  uint64_t din = t.upload(in), dout = t.upload(out_init);
  ASSERT_LAUNCH(t.launch(kernel, {blocks_for(n, block)}, {block}, {din, dout, n}));
  std::vector<T> want = out_init;
  for (int i = 0; i < n; ++i) f(in[i], want[i]);
  EXPECT_TRUE(exact(t.download<T>(dout, n), want));
}

TEST_P(DivergenceExec, NestedBranches) {
  Rng rng(120);
  auto in = rng.vec<int>(700, [&] { return rng.i32(-100000, 100000); });
  check_elementwise(*this, "nested_branches", in, 128, {}, [](int v, int& out) {
    int acc = 0;
    for (int k = 0; k < (v & 15); ++k) {
      if (k & 1)
        acc += k % 3 == 0 ? 5 * k : -k;
      else if (v < 0)
        acc ^= k;
      else
        acc += k * k;
    }
    out = acc;
  });
}

TEST_P(DivergenceExec, BreakContinue) {
  Rng rng(121);
  auto in = rng.vec<int>(600, [&] { return rng.i32(-1000000, 1000000); });
  check_elementwise(*this, "break_continue", in, 96, {}, [](int v, int& out) {
    int acc = 0, k;
    for (k = 0; k < 64; ++k) {
      if ((k * v) % 5 == 0) continue;
      if (acc > 200 || k == (v & 63)) break;
      acc += k;
    }
    out = acc * 1000 + k;
  });
}

TEST_P(DivergenceExec, EarlyReturn) {
  Rng rng(122);
  auto in = rng.vec<int>(500, [&] { return rng.chance(0.2) ? 0 : rng.i32(-300, 300); });
  check_elementwise(*this, "early_return", in, 64, std::vector<int>(in.size(), -1),
                    [](int v, int& out) {
                      if (v < 0) return;  // keeps the host's -1
                      out = v == 0 ? 0 : v > 100 ? v - 100 : v * 2;
                    });
}

TEST_P(DivergenceExec, SwitchDense) {
  Rng rng(123);
  // |v| < 46341 keeps v * v in range.
  auto in = rng.vec<int>(800, [&] { return rng.i32(-46340, 46340); });
  check_elementwise(*this, "switch_dense", in, 128, {}, [](int v, int& out) {
    switch (v & 15) {
      case 0: out = v + 1; break;
      case 1: out = v * 7; break;
      case 2: out = v - 19; break;
      case 3: out = v ^ 0x55; break;
      case 4: out = v << 3; break;
      case 5: out = v >> 2; break;
      case 6: out = v | 0x100; break;
      case 7: out = ~v; break;
      case 8: out = v * v; break;
      case 9: out = 42; break;
      case 10: out = v / 3; break;
      case 11: out = v % 7; break;
      case 12: out = -v; break;
      case 13: out = v & 0xf0; break;
      case 14: out = v + 1000; break;
      default: out = v * 13 - 5; break;
    }
  });
}

TEST_P(DivergenceExec, WhileLoop) {
  Rng rng(124);
  auto in = rng.vec<unsigned>(400, [&] { return static_cast<unsigned>(rng.range(1, 100000)); });
  in[0] = 1;
  in[1] = 27;           // 111 steps
  in[2] = 0xfffffffdu;  // 3x + 1 wraps around 2^32
  check_elementwise(*this, "while_loop", in, 128, {}, [](unsigned x, unsigned& out) {
    unsigned steps = 0;
    while (x != 1 && steps < 1000) {
      x = (x & 1) ? 3 * x + 1 : x / 2;
      ++steps;
    }
    out = steps;
  });
}

TEST_P(DivergenceExec, GotoLoop) {
  const int n = 300;
  uint64_t out = zeros<int>(n);
  ASSERT_LAUNCH(launch("goto_loop", {blocks_for(n, 64)}, {64}, {out, n}));
  std::vector<int> want(n);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < i % 37; ++j)
      if (j % 4 != 3) want[i] += j;
  EXPECT_TRUE(exact(download<int>(out, n), want));
}

}  // namespace
}  // namespace warpsim::functional::corpus
