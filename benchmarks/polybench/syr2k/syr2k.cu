// polybench/syr2k - PolyBench/GPU SYR2K: symmetric rank-2k update
// C = alpha * A * B^T + alpha * B * A^T + beta * C, with A and B N x M and C N x N row-major float
// matrices. Like the GPU port, the whole of C is computed (both triangles), one thread per
// element.
// Kernel: syr2k_kernel, 32 x 8 thread blocks over an (N / 32) x (N / 8) grid. Thread (i, j) walks
// rows i of A and B (one address per warp: broadcasts) and rows j of A and B (the warp's 32
// threads read 32 different rows, M floats apart: uncoalesced); the running sum lives in C[i][j]
// itself (the pointers may alias, so the store stays inside the loop), as in the original.
#include <vector>

#include "workload.h"

__global__ void syr2k_kernel(int n, int m, float alpha, float beta, const float* a, const float* b,
                             float* c) {
  const int j = blockIdx.x * blockDim.x + threadIdx.x;
  const int i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i >= n || j >= n) return;
  c[i * n + j] *= beta;
  for (int k = 0; k < m; ++k)
    c[i * n + j] += alpha * a[i * m + k] * b[j * m + k] + alpha * b[i * m + k] * a[j * m + k];
}

int main(int argc, char** argv) {
  workload::Run run("syr2k", argc, argv);
  // large is PolyBench/GPU's standard dataset (N = M = 2048).
  const int n = run.pick(128, 256, 2048), m = run.pick(64, 192, 2048);
  const float alpha = 1.5f, beta = 1.2f;
  const dim3 block(32, 8);
  const dim3 grid(workload::ceil_div(n, block.x), workload::ceil_div(n, block.y));
  run.info("C[%d x %d] = %g * (A B^T + B A^T) + %g * C, A and B %d x %d", n, n, alpha, beta, n, m);
  run.info("kernel syr2k_kernel: grid %u x %u, block %u x %u", grid.x, grid.y, block.x, block.y);

  // Entries uniform in [0, 1), non-negative like PolyBench's initial values: no cancellation,
  // so a relative tolerance is meaningful.
  workload::Rng rng(run.seed());
  std::vector<float> a(size_t(n) * m), b(size_t(n) * m), c(size_t(n) * n);
  for (auto* v : {&a, &b, &c})
    for (auto& e : *v) e = rng.uniform();

  float *da, *db, *dc;
  CUDA_CHECK(cudaMalloc(&da, a.size() * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&db, b.size() * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&dc, c.size() * sizeof(float)));
  CUDA_CHECK(cudaMemcpy(da, a.data(), a.size() * sizeof(float), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(db, b.data(), b.size() * sizeof(float), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(dc, c.data(), c.size() * sizeof(float), cudaMemcpyHostToDevice));

  syr2k_kernel<<<grid, block>>>(n, m, alpha, beta, da, db, dc);
  CUDA_CHECK(cudaGetLastError());
  std::vector<float> got(c.size());
  CUDA_CHECK(cudaMemcpy(got.data(), dc, got.size() * sizeof(float), cudaMemcpyDeviceToHost));

  // CPU reference in double.
  std::vector<double> want(c.size());
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      double s = 0.0;
      for (int k = 0; k < m; ++k)
        s += double(a[size_t(i) * m + k]) * b[size_t(j) * m + k] +
             double(b[size_t(i) * m + k]) * a[size_t(j) * m + k];
      want[size_t(i) * n + j] = double(beta) * c[size_t(i) * n + j] + double(alpha) * s;
    }
  // 2m float multiply-adds of non-negative terms, summed in order: the rounding error stays
  // far below 1e-4 relative (observed ~1e-6), while one missing or wrong term (~1/(2m) of the
  // sum) is still caught.
  const std::vector<double> got_d(got.begin(), got.end());
  run.check_close("C", got_d.data(), want.data(), want.size(), 1e-4, 1e-6);

  for (float* p : {da, db, dc}) CUDA_CHECK(cudaFree(p));
  return run.pass();
}
