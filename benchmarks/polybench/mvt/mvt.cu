// polybench/mvt - PolyBench/GPU MVT: two matrix-vector products with the same N x N row-major
// float matrix A, x1 += A y1 and x2 += A^T y2.
// Kernels, one thread per vector element in 1-D blocks of 256 threads, grid N / 256:
//   mvt_kernel1: x1[i] += sum_j A[i][j] * y1[j]  - each thread walks a row, so a warp's loads are
//                N floats apart (uncoalesced);
//   mvt_kernel2: x2[i] += sum_j A[j][i] * y2[j]  - each thread walks a column, so a warp reads
//                consecutive floats of one row (coalesced).
// As in the GPU port the sums accumulate into x1 and x2 in global memory (the pointers may
// alias, so the store stays inside the loop).
#include <vector>

#include "workload.h"

__global__ void mvt_kernel1(int n, const float* a, const float* y1, float* x1) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  for (int j = 0; j < n; ++j) x1[i] += a[i * n + j] * y1[j];
}

__global__ void mvt_kernel2(int n, const float* a, const float* y2, float* x2) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  for (int j = 0; j < n; ++j) x2[i] += a[j * n + i] * y2[j];
}

int main(int argc, char** argv) {
  workload::Run run("mvt", argc, argv);
  // large is PolyBench/GPU's standard dataset (N = 4096).
  const int n = run.pick(1024, 2048, 4096);
  const int block = 256;
  const unsigned grid = workload::ceil_div(n, block);
  run.info("x1 += A y1, x2 += A^T y2, A %d x %d", n, n);
  run.info("kernels mvt_kernel1, mvt_kernel2: grid %u, block %d", grid, block);

  // Entries uniform in [0, 1), non-negative like PolyBench's initial values: no cancellation,
  // so a relative tolerance is meaningful.
  workload::Rng rng(run.seed());
  std::vector<float> a(size_t(n) * n), x1(n), x2(n), y1(n), y2(n);
  for (auto* v : {&a, &x1, &x2, &y1, &y2})
    for (auto& e : *v) e = rng.uniform();

  float *da, *dx1, *dx2, *dy1, *dy2;
  CUDA_CHECK(cudaMalloc(&da, a.size() * sizeof(float)));
  for (float** p : {&dx1, &dx2, &dy1, &dy2}) CUDA_CHECK(cudaMalloc(p, n * sizeof(float)));
  CUDA_CHECK(cudaMemcpy(da, a.data(), a.size() * sizeof(float), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(dx1, x1.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(dx2, x2.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(dy1, y1.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(dy2, y2.data(), n * sizeof(float), cudaMemcpyHostToDevice));

  mvt_kernel1<<<grid, block>>>(n, da, dy1, dx1);
  CUDA_CHECK(cudaGetLastError());
  mvt_kernel2<<<grid, block>>>(n, da, dy2, dx2);
  CUDA_CHECK(cudaGetLastError());
  std::vector<float> got_x1(n), got_x2(n);
  CUDA_CHECK(cudaMemcpy(got_x1.data(), dx1, n * sizeof(float), cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaMemcpy(got_x2.data(), dx2, n * sizeof(float), cudaMemcpyDeviceToHost));

  // CPU reference in double.
  std::vector<double> want_x1(x1.begin(), x1.end()), want_x2(x2.begin(), x2.end());
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      const double aij = a[size_t(i) * n + j];
      want_x1[i] += aij * y1[j];
      want_x2[j] += aij * y2[i];
    }
  // Float FMA chains of up to 4096 non-negative terms summed in order: the rounding error stays
  // far below 1e-4 relative (observed ~1e-6), while one missing term (~1/4096 = 2.4e-4 of a
  // sum) is still caught.
  const std::vector<double> x1_d(got_x1.begin(), got_x1.end()), x2_d(got_x2.begin(), got_x2.end());
  run.check_close("x1", x1_d.data(), want_x1.data(), n, 1e-4, 1e-6);
  run.check_close("x2", x2_d.data(), want_x2.data(), n, 1e-4, 1e-6);

  for (float* p : {da, dx1, dx2, dy1, dy2}) CUDA_CHECK(cudaFree(p));
  return run.pass();
}
