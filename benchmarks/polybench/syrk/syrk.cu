// polybench/syrk - PolyBench/GPU SYRK: symmetric rank-k update C = alpha * A * A^T + beta * C,
// with A N x M and C N x N row-major float matrices. Like the GPU port, the whole of C is
// computed (both triangles), one thread per element.
// Kernel: syrk_kernel, 32 x 8 thread blocks over an (N / 32) x (N / 8) grid. Thread (i, j) walks
// row i of A (one address per warp: a broadcast) and row j of A (the warp's 32 threads read 32
// different rows, M floats apart: uncoalesced), and the running sum lives in C[i][j] itself (the
// pointers may alias, so the store stays inside the loop), as in the original.
#include <vector>

#include "workload.h"

__global__ void syrk_kernel(int n, int m, float alpha, float beta, const float* a, float* c) {
  const int j = blockIdx.x * blockDim.x + threadIdx.x;
  const int i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i >= n || j >= n) return;
  c[i * n + j] *= beta;
  for (int k = 0; k < m; ++k) c[i * n + j] += alpha * a[i * m + k] * a[j * m + k];
}

int main(int argc, char** argv) {
  workload::Run run("syrk", argc, argv);
  // large is PolyBench/GPU's standard dataset (N = M = 1024).
  const int n = run.pick(128, 256, 1024), m = run.pick(64, 256, 1024);
  const float alpha = 1.5f, beta = 1.2f;
  const dim3 block(32, 8);
  const dim3 grid(workload::ceil_div(n, block.x), workload::ceil_div(n, block.y));
  run.info("C[%d x %d] = %g * A A^T + %g * C, A %d x %d", n, n, alpha, beta, n, m);
  run.info("kernel syrk_kernel: grid %u x %u, block %u x %u", grid.x, grid.y, block.x, block.y);

  // Entries uniform in [0, 1), non-negative like PolyBench's initial values: no cancellation,
  // so a relative tolerance is meaningful.
  workload::Rng rng(run.seed());
  std::vector<float> a(size_t(n) * m), c(size_t(n) * n);
  for (auto& v : a) v = rng.uniform();
  for (auto& v : c) v = rng.uniform();

  float *da, *dc;
  CUDA_CHECK(cudaMalloc(&da, a.size() * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&dc, c.size() * sizeof(float)));
  CUDA_CHECK(cudaMemcpy(da, a.data(), a.size() * sizeof(float), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(dc, c.data(), c.size() * sizeof(float), cudaMemcpyHostToDevice));

  syrk_kernel<<<grid, block>>>(n, m, alpha, beta, da, dc);
  CUDA_CHECK(cudaGetLastError());
  std::vector<float> got(c.size());
  CUDA_CHECK(cudaMemcpy(got.data(), dc, got.size() * sizeof(float), cudaMemcpyDeviceToHost));

  // CPU reference in double: each element a dot product of two rows of A.
  std::vector<double> want(c.size());
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      double s = 0.0;
      for (int k = 0; k < m; ++k) s += double(a[size_t(i) * m + k]) * a[size_t(j) * m + k];
      want[size_t(i) * n + j] = double(beta) * c[size_t(i) * n + j] + double(alpha) * s;
    }
  // m float multiply-adds (contracted to FMA) of non-negative terms, summed in order: the
  // rounding error stays far below 1e-4 relative (observed ~1e-6), while one missing or wrong
  // term (~1/m of the sum) is still caught.
  const std::vector<double> got_d(got.begin(), got.end());
  run.check_close("C", got_d.data(), want.data(), want.size(), 1e-4, 1e-6);

  CUDA_CHECK(cudaFree(da));
  CUDA_CHECK(cudaFree(dc));
  return run.pass();
}
