// Corpus execution: tests/ptx/src/localarr.cu (dynamically indexed local arrays).
#include "tests/functional/corpus_exec_util.h"

namespace warpsim::functional::corpus {
namespace {

CORPUS_EXEC_SUITE(LocalarrExec, "localarr");

TEST_P(LocalarrExec, LocalPerm) {
  const int n = 300;
  Rng rng(100);
  auto idx = rng.vec<int>(16 * n, [&] { return static_cast<int>(rng.u32()); });  // used & 15
  uint64_t didx = upload(idx), dout = zeros<int>(n);
  ASSERT_LAUNCH(launch("local_perm", {blocks_for(n, 128)}, {128}, {didx, dout, n}));
  std::vector<int> want(n);
  for (int i = 0; i < n; ++i) {
    int s = 0;
    for (int k = 0; k < 16; ++k) {
      const int j = idx[16 * i + k] & 15;
      s += j * j + i;
    }
    want[i] = s;
  }
  EXPECT_TRUE(exact(download<int>(dout, n), want));
}

TEST_P(LocalarrExec, LocalSort) {
  const int n = 150;
  Rng rng(101);
  auto data = rng.vec<float>(8 * n, [&] { return rng.f32(-100, 100); });
  for (int k = 0; k < 8; ++k) data[8 * 3 + k] = static_cast<float>(8 - k);  // reversed
  for (int k = 0; k < 8; ++k) data[8 * 4 + k] = 1.0f;                       // all equal
  uint64_t d = upload(data);
  ASSERT_LAUNCH(launch("local_sort", {blocks_for(n, 64)}, {64}, {d, n}));
  auto want = data;
  for (int i = 0; i < n; ++i) std::sort(want.begin() + 8 * i, want.begin() + 8 * i + 8);
  EXPECT_TRUE(exact(download<float>(d, 8 * n), want));
}

TEST_P(LocalarrExec, LocalHistogram) {
  const int n = 100;
  Rng rng(102);
  auto in = rng.vec<uint8_t>(64 * n, [&] { return rng.range(0, 255); });
  uint64_t din = upload(in), dout = zeros<unsigned>(32 * n);
  ASSERT_LAUNCH(launch("local_histogram", {blocks_for(n, 32)}, {32}, {din, dout, n}));
  std::vector<unsigned> want(32 * n);
  for (int i = 0; i < n; ++i)
    for (int k = 0; k < 64; ++k) ++want[32 * i + (in[64 * i + k] & 31)];
  EXPECT_TRUE(exact(download<unsigned>(dout, 32 * n), want));
}

TEST_P(LocalarrExec, LocalStruct) {
  const int n = 333;
  Rng rng(103);
  auto in = rng.vec<int>(n, [&] { return rng.i32(-1000000, 1000000); });
  uint64_t din = upload(in), dout = zeros<int>(n);
  ASSERT_LAUNCH(launch("local_struct", {blocks_for(n, 128)}, {128}, {din, dout, n}));
  std::vector<int> want(n);
  for (int i = 0; i < n; ++i) {
    int best = 0;
    double best_w = (in[i] * 3) % 11;
    for (int k = 1; k < 10; ++k) {
      const double w = (in[i] * (k + 3)) % 11;
      if (w > best_w) {
        best = k;
        best_w = w;
      }
    }
    want[i] = best;
  }
  EXPECT_TRUE(exact(download<int>(dout, n), want));
}

}  // namespace
}  // namespace warpsim::functional::corpus
