// Corpus execution: tests/ptx/src/atomics.cu.
#include <climits>

#include "tests/functional/corpus_exec_util.h"

namespace warpsim::functional::corpus {
namespace {

CORPUS_EXEC_SUITE(AtomicsExec, "atomics");

TEST_P(AtomicsExec, AtomicAddAll) {
  const uint32_t blocks = 5, block = 96, T = blocks * block;
  uint64_t i32 = zeros<int>(1), u32 = zeros<unsigned>(1), u64 = zeros<uint64_t>(1),
           f32 = zeros<float>(1), f64 = zeros<double>(1);
  ASSERT_LAUNCH(launch("atomic_add_all", {blocks}, {block}, {i32, u32, u64, f32, f64}));
  EXPECT_TRUE(exact(download<int>(i32, 1), {static_cast<int>(T)}));
  EXPECT_TRUE(exact(download<unsigned>(u32, 1), {2 * T}));
  EXPECT_TRUE(exact(download<uint64_t>(u64, 1), {(uint64_t{T} << 33) + uint64_t{T} * (T - 1) / 2}));
  EXPECT_TRUE(exact(download<float>(f32, 1), {0.5f * T}));  // exact in any order
  EXPECT_TRUE(exact(download<double>(f64, 1), {0.25 * T}));
}

TEST_P(AtomicsExec, AtomicCasMul) {
  const uint32_t blocks = 3, block = 64, T = blocks * block;
  uint64_t p = upload(std::vector<unsigned>{1});
  ASSERT_LAUNCH(launch("atomic_cas_mul", {blocks}, {block}, {p}));
  unsigned want = 1;
  for (uint32_t t = 0; t < T; ++t) want *= 3u;
  EXPECT_TRUE(exact(download<unsigned>(p, 1), {want}));
}

TEST_P(AtomicsExec, AtomicCasFmax) {
  const int n = 700;
  Rng rng(20);
  auto in = rng.vec<float>(n, [&] { return rng.f32(-1e6f, 1e6f); });
  uint64_t p = upload(std::vector<float>{-INFINITY}), din = upload(in);
  ASSERT_LAUNCH(launch("atomic_cas_fmax", {blocks_for(n, 128)}, {128}, {p, din, n}));
  EXPECT_TRUE(exact(download<float>(p, 1), {*std::max_element(in.begin(), in.end())}));
}

TEST_P(AtomicsExec, AtomicMisc) {
  const uint32_t blocks = 4, block = 128;
  const int T = blocks * block, n = T - 37;  // requires T >= n
  Rng rng(21);
  auto in = rng.vec<int>(n, [&] { return rng.i32(INT_MIN + 1, INT_MAX - 1); });
  uint64_t out = upload(std::vector<int>{0, INT_MIN, INT_MAX, 0, 0, 0, -1, 0}), din = upload(in);
  ASSERT_LAUNCH(launch("atomic_misc", {blocks}, {block}, {out, din, n}));
  auto got = download<int>(out, 8);
  // out[0]: the last atomicExch wins; which thread that is depends on the
  // schedule, so only its range is defined.
  EXPECT_GE(got[0], 0);
  EXPECT_LT(got[0], T);
  got[0] = 0;
  int bits = 0, x = 0;
  for (int t = 0; t < T; ++t) {
    bits |= 1 << (t & 31);
    x ^= t;
  }
  std::vector<int> want = {0,
                           *std::max_element(in.begin(), in.end()),
                           *std::min_element(in.begin(), in.end()),
                           T % 10,
                           (10 - T % 10) % 10,
                           bits,
                           -1 & ~bits,
                           x};
  EXPECT_TRUE(exact(got, want));
}

TEST_P(AtomicsExec, AtomicIncDecWrap) {
  // T not a multiple of 10: atomicInc/atomicDec wrap at their limit.
  const uint32_t blocks = 3, block = 33, T = blocks * block;
  uint64_t out = upload(std::vector<int>{0, INT_MIN, INT_MAX, 0, 0, 0, -1, 0});
  uint64_t din = zeros<int>(1);
  ASSERT_LAUNCH(launch("atomic_misc", {blocks}, {block}, {out, din, 0}));
  auto got = download<int>(out, 8);
  EXPECT_EQ(got[3], static_cast<int>(T % 10));
  EXPECT_EQ(got[4], static_cast<int>((10 - T % 10) % 10));
  EXPECT_EQ(got[1], INT_MIN);  // n == 0: max/min untouched
  EXPECT_EQ(got[2], INT_MAX);
}

TEST_P(AtomicsExec, SharedHistogram) {
  const int n = 4000;
  Rng rng(22);
  // Skewed bytes, so some bins see many updates from one warp.
  auto in = rng.vec<uint8_t>(n, [&] { return rng.chance(0.3) ? 7 : rng.range(0, 255); });
  uint64_t din = upload(in), hist = zeros<unsigned>(256);
  ASSERT_LAUNCH(launch("shared_histogram", {3}, {160}, {din, n, hist}));
  std::vector<unsigned> want(256);
  for (uint8_t v : in) ++want[v];
  EXPECT_TRUE(exact(download<unsigned>(hist, 256), want));
}

TEST_P(AtomicsExec, SharedAtomicMisc) {
  const unsigned block = 200;  // not a multiple of 32: a partial last warp
  uint64_t out = zeros<unsigned>(4);
  ASSERT_LAUNCH(launch("shared_atomic_misc", {1}, {block}, {out}));
  unsigned sum = 0, bits = 0;
  for (unsigned t = 0; t < block; ++t) {
    sum += t;
    bits |= 1u << (t & 31);
  }
  EXPECT_TRUE(exact(download<unsigned>(out, 4), {sum, block - 1, 0u, bits}));
}

TEST_P(AtomicsExec, SharedCas64) {
  const unsigned block = 160;
  uint64_t out = zeros<uint64_t>(2);
  ASSERT_LAUNCH(launch("shared_cas64", {1}, {block}, {out}));
  auto got = download<uint64_t>(out, 2);
  EXPECT_EQ(got[0], uint64_t{block} * (block - 1) / 2);
  EXPECT_LT(got[1], block);  // some thread's index: the last exchange wins
}

}  // namespace
}  // namespace warpsim::functional::corpus
