// polybench/gemm - PolyBench/GPU GEMM: C = alpha * A * B + beta * C, with A NI x NK, B NK x NJ and
// C NI x NJ row-major float matrices (the GPU port's DATA_TYPE).
// Kernel: gemm, one thread per element of C, 32 x 8 thread blocks over a (NJ / 32) x (NI / 8)
// grid. Like the GPU port it is plain global-memory code without shared-memory tiling, and the
// running sum lives in C itself: each k step reads A[i][k] (one address per warp, a broadcast),
// a coalesced row segment of B, and rewrites C[i][j] (the pointers may alias, so the compiler
// keeps that store inside the loop, as in the original).
#include <vector>

#include "workload.h"

__global__ void gemm(int ni, int nj, int nk, float alpha, float beta, const float* a,
                     const float* b, float* c) {
  const int j = blockIdx.x * blockDim.x + threadIdx.x;
  const int i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i >= ni || j >= nj) return;
  c[i * nj + j] *= beta;
  for (int k = 0; k < nk; ++k) c[i * nj + j] += alpha * a[i * nk + k] * b[k * nj + j];
}

int main(int argc, char** argv) {
  workload::Run run("gemm", argc, argv);
  // large is PolyBench/GPU's standard dataset (512 x 512 x 512); tiny uses a shorter k loop.
  const int ni = run.pick(128, 256, 512), nj = ni, nk = run.pick(64, 256, 512);
  const float alpha = 1.5f, beta = 1.2f;
  const dim3 block(32, 8);
  const dim3 grid(workload::ceil_div(nj, block.x), workload::ceil_div(ni, block.y));
  run.info("C[%d x %d] = %g * A[%d x %d] * B[%d x %d] + %g * C", ni, nj, alpha, ni, nk, nk, nj,
           beta);
  run.info("kernel gemm: grid %u x %u, block %u x %u", grid.x, grid.y, block.x, block.y);

  // Entries uniform in [0, 1), non-negative like PolyBench's initial values: the sums have no
  // cancellation, so a relative tolerance is meaningful.
  workload::Rng rng(run.seed());
  std::vector<float> a(size_t(ni) * nk), b(size_t(nk) * nj), c(size_t(ni) * nj);
  for (auto& v : a) v = rng.uniform();
  for (auto& v : b) v = rng.uniform();
  for (auto& v : c) v = rng.uniform();

  float *da, *db, *dc;
  CUDA_CHECK(cudaMalloc(&da, a.size() * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&db, b.size() * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&dc, c.size() * sizeof(float)));
  CUDA_CHECK(cudaMemcpy(da, a.data(), a.size() * sizeof(float), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(db, b.data(), b.size() * sizeof(float), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(dc, c.data(), c.size() * sizeof(float), cudaMemcpyHostToDevice));

  gemm<<<grid, block>>>(ni, nj, nk, alpha, beta, da, db, dc);
  CUDA_CHECK(cudaGetLastError());
  std::vector<float> got(c.size());
  CUDA_CHECK(cudaMemcpy(got.data(), dc, got.size() * sizeof(float), cudaMemcpyDeviceToHost));

  // CPU reference in double (i-k-j order, so B and C are walked along rows).
  std::vector<double> want(c.size());
  for (size_t e = 0; e < c.size(); ++e) want[e] = double(beta) * c[e];
  for (int i = 0; i < ni; ++i)
    for (int k = 0; k < nk; ++k) {
      const double aik = double(alpha) * a[size_t(i) * nk + k];
      for (int j = 0; j < nj; ++j) want[size_t(i) * nj + j] += aik * b[size_t(k) * nj + j];
    }
  // nk float multiply-adds (contracted to FMA) of non-negative terms, summed in order: the
  // rounding error stays far below 1e-4 relative (observed ~1e-6), while one missing or wrong
  // term (~1/nk of the sum) is still caught.
  const std::vector<double> gotd(got.begin(), got.end());
  run.check_close("C", gotd.data(), want.data(), want.size(), 1e-4, 1e-6);

  CUDA_CHECK(cudaFree(da));
  CUDA_CHECK(cudaFree(db));
  CUDA_CHECK(cudaFree(dc));
  return run.pass();
}
