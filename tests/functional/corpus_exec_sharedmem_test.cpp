// Corpus execution: tests/ptx/src/sharedmem.cu (static and dynamic shared memory).
#include "tests/functional/corpus_exec_util.h"

namespace warpsim::functional::corpus {
namespace {

CORPUS_EXEC_SUITE(SharedmemExec, "sharedmem");

TEST_P(SharedmemExec, MatmulTiled) {
  const int M = 40, N = 50, K = 37;  // none a multiple of the 16x16 tile
  Rng rng(110);
  auto A = rng.vec<float>(M * K, [&] { return rng.f32(-1, 1); });
  auto B = rng.vec<float>(K * N, [&] { return rng.f32(-1, 1); });
  uint64_t dA = upload(A), dB = upload(B), dC = zeros<float>(M * N);
  ASSERT_LAUNCH(launch("matmul_tiled", {blocks_for(N, 16), blocks_for(M, 16)}, {16, 16},
                       {dA, dB, dC, M, N, K}));
  // acc += As[ty][k] * Bs[k][tx] over every tile column in order, the
  // zero padding of the last tile included (one fma per term when contracted).
  const int Kp = static_cast<int>(blocks_for(K, 16)) * 16;
  std::vector<float> want(M * N);
  for (int r = 0; r < M; ++r)
    for (int c = 0; c < N; ++c) {
      float acc = 0.0f;
      for (int k = 0; k < Kp; ++k) {
        const float a = k < K ? A[r * K + k] : 0.0f, b = k < K ? B[k * N + c] : 0.0f;
        acc = contracted() ? std::fma(a, b, acc) : acc + a * b;
      }
      want[r * N + c] = acc;
    }
  EXPECT_TRUE(exact(download<float>(dC, M * N), want));
}

TEST_P(SharedmemExec, TransposePadded) {
  const int rows = 70, cols = 45;
  Rng rng(111);
  auto in = rng.vec<float>(rows * cols, [&] { return rng.f32(-1e3f, 1e3f); });
  uint64_t din = upload(in), dout = zeros<float>(rows * cols);
  ASSERT_LAUNCH(launch("transpose_padded", {blocks_for(cols, 32), blocks_for(rows, 32)}, {32, 8},
                       {din, dout, rows, cols}));
  std::vector<float> want(rows * cols);
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) want[c * rows + r] = in[r * cols + c];
  EXPECT_TRUE(exact(download<float>(dout, rows * cols), want));
}

TEST_P(SharedmemExec, DynSharedMixed) {
  const int n = 100;
  Rng rng(112);
  auto in = rng.vec<int>(n, [&] { return static_cast<int>(rng.u32()); });
  uint64_t din = upload(in), dout = zeros<float>(n);
  // A block larger than n: the extra threads only pass the barriers.
  ASSERT_LAUNCH(launch("dyn_shared_mixed", {1}, {128}, {din, dout, n}, n * 8));
  std::vector<float> want(n);
  for (int t = 0; t < n; ++t)  // 0.5f * t is exact: fused or not, one rounding
    want[t] = static_cast<float>(in[n - 1 - t]) + 0.5f * static_cast<float>(t);
  EXPECT_TRUE(exact(download<float>(dout, n), want));
}

TEST_P(SharedmemExec, SharedStencil) {
  const int n = 1000;  // 8 blocks of 128 (the kernel's fixed block size), the last partial
  Rng rng(113);
  auto in = rng.vec<float>(n, [&] { return rng.f32(-10, 10); });
  uint64_t din = upload(in), dout = zeros<float>(n);
  ASSERT_LAUNCH(launch("shared_stencil", {blocks_for(n, 128)}, {128}, {din, dout, n}));
  std::vector<float> want(n);
  for (int i = 0; i < n; ++i) {
    const float l = i > 0 ? in[i - 1] : 0.0f, r = i + 1 < n ? in[i + 1] : 0.0f;
    want[i] = (l + 2.0f * in[i]) + r;  // 2 * x is exact: fused or not, the same
  }
  EXPECT_TRUE(exact(download<float>(dout, n), want));
}

}  // namespace
}  // namespace warpsim::functional::corpus
