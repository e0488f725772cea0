// Corpus execution: tests/ptx/src/vecadd.cu.
#include "tests/functional/corpus_exec_util.h"

namespace warpsim::functional::corpus {
namespace {

CORPUS_EXEC_SUITE(VecaddExec, "vecadd");

TEST_P(VecaddExec, Vecadd) {
  const int n = 1000;  // 8 blocks of 128, the last one partial
  Rng rng(1);
  auto a = rng.vec<float>(n, [&] { return rng.f32(-100, 100); });
  auto b = rng.vec<float>(n, [&] { return rng.f32(-100, 100); });
  uint64_t da = upload(a), db = upload(b), dc = zeros<float>(n);
  ASSERT_LAUNCH(launch("vecadd", {blocks_for(n, 128)}, {128}, {da, db, dc, n}));
  std::vector<float> want(n);
  for (int i = 0; i < n; ++i) want[i] = a[i] + b[i];
  EXPECT_TRUE(exact(download<float>(dc, n), want));
}

TEST_P(VecaddExec, VecaddGridStride) {
  const int n = 3000;  // 4 x 96 threads: every thread loops
  Rng rng(2);
  auto a = rng.vec<float>(n, [&] { return rng.f32(-1e3f, 1e3f); });
  auto b = rng.vec<float>(n, [&] { return rng.f32(-1e3f, 1e3f); });
  uint64_t da = upload(a), db = upload(b), dc = zeros<float>(n);
  ASSERT_LAUNCH(launch("vecadd_grid_stride", {4}, {96}, {da, db, dc, n}));
  std::vector<float> want(n);
  for (int i = 0; i < n; ++i) want[i] = a[i] + b[i];
  EXPECT_TRUE(exact(download<float>(dc, n), want));
}

TEST_P(VecaddExec, Saxpy) {
  const int n = 777;
  const float alpha = 1.7f;
  Rng rng(3);
  auto x = rng.vec<float>(n, [&] { return rng.f32(-10, 10); });
  auto y = rng.vec<float>(n, [&] { return rng.f32(-10, 10); });
  uint64_t dx = upload(x), dy = upload(y);
  ASSERT_LAUNCH(launch("saxpy", {blocks_for(n, 64)}, {64}, {n, alpha, dx, dy}));
  // nvcc and clang contract alpha * x + y into one fma; -G (unoptimised
  // device code) keeps mul and add.
  std::vector<float> want(n);
  for (int i = 0; i < n; ++i)
    want[i] = variant() == "G" ? alpha * x[i] + y[i] : std::fma(alpha, x[i], y[i]);
  EXPECT_TRUE(exact(download<float>(dy, n), want));
}

TEST_P(VecaddExec, VecaddI64) {
  const long long n = 600;
  Rng rng(4);
  auto a = rng.vec<long long>(n, [&] { return static_cast<long long>(rng.next()); });
  auto b = rng.vec<long long>(n, [&] { return static_cast<long long>(rng.next()); });
  uint64_t da = upload(a), db = upload(b), dc = zeros<long long>(n);
  ASSERT_LAUNCH(launch("vecadd_i64", {blocks_for(n, 256)}, {256}, {da, db, dc, n}));
  std::vector<long long> want(n);
  for (int i = 0; i < n; ++i)  // wraps modulo 2^64, as the device add does
    want[i] = static_cast<long long>(static_cast<uint64_t>(a[i]) + static_cast<uint64_t>(b[i]));
  EXPECT_TRUE(exact(download<long long>(dc, n), want));
}

}  // namespace
}  // namespace warpsim::functional::corpus
