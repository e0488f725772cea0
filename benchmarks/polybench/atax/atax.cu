// polybench/atax - PolyBench/GPU ATAX: y = A^T (A x) for an NX x NY row-major float matrix A.
// Kernels, one thread per vector element in 1-D blocks of 256 threads:
//   atax_kernel1 (grid NX / 256): tmp[i] = sum_j A[i][j] * x[j]  - each thread walks a row, so a
//                                 warp's loads are NY floats apart (uncoalesced);
//   atax_kernel2 (grid NY / 256): y[j] = sum_i A[i][j] * tmp[i]  - each thread walks a column, so
//                                 a warp reads consecutive floats of one row (coalesced).
// As in the GPU port the sums accumulate in the output vectors in global memory (zeroed before
// the launches; the pointers may alias, so the store stays inside the loop).
#include <vector>

#include "workload.h"

__global__ void atax_kernel1(int nx, int ny, const float* a, const float* x, float* tmp) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= nx) return;
  for (int j = 0; j < ny; ++j) tmp[i] += a[i * ny + j] * x[j];
}

__global__ void atax_kernel2(int nx, int ny, const float* a, const float* tmp, float* y) {
  const int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= ny) return;
  for (int i = 0; i < nx; ++i) y[j] += a[i * ny + j] * tmp[i];
}

int main(int argc, char** argv) {
  workload::Run run("atax", argc, argv);
  // large is PolyBench/GPU's standard dataset (NX = NY = 4096).
  const int nx = run.pick(1024, 2048, 4096), ny = nx;
  const int block = 256;
  const unsigned grid1 = workload::ceil_div(nx, block), grid2 = workload::ceil_div(ny, block);
  run.info("y = A^T (A x), A %d x %d", nx, ny);
  run.info("kernel atax_kernel1: grid %u, block %d", grid1, block);
  run.info("kernel atax_kernel2: grid %u, block %d", grid2, block);

  // Entries uniform in [0, 1), non-negative like PolyBench's initial values: no cancellation,
  // so a relative tolerance is meaningful.
  workload::Rng rng(run.seed());
  std::vector<float> a(size_t(nx) * ny), x(ny);
  for (auto& v : a) v = rng.uniform();
  for (auto& v : x) v = rng.uniform();

  float *da, *dx, *dtmp, *dy;
  CUDA_CHECK(cudaMalloc(&da, a.size() * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&dx, x.size() * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&dtmp, nx * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&dy, ny * sizeof(float)));
  CUDA_CHECK(cudaMemcpy(da, a.data(), a.size() * sizeof(float), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(dx, x.data(), x.size() * sizeof(float), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemset(dtmp, 0, nx * sizeof(float)));
  CUDA_CHECK(cudaMemset(dy, 0, ny * sizeof(float)));

  atax_kernel1<<<grid1, block>>>(nx, ny, da, dx, dtmp);
  CUDA_CHECK(cudaGetLastError());
  atax_kernel2<<<grid2, block>>>(nx, ny, da, dtmp, dy);
  CUDA_CHECK(cudaGetLastError());
  std::vector<float> got_tmp(nx), got_y(ny);
  CUDA_CHECK(cudaMemcpy(got_tmp.data(), dtmp, nx * sizeof(float), cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaMemcpy(got_y.data(), dy, ny * sizeof(float), cudaMemcpyDeviceToHost));

  // CPU reference in double.
  std::vector<double> want_tmp(nx, 0.0), want_y(ny, 0.0);
  for (int i = 0; i < nx; ++i)
    for (int j = 0; j < ny; ++j) want_tmp[i] += double(a[size_t(i) * ny + j]) * x[j];
  for (int i = 0; i < nx; ++i)
    for (int j = 0; j < ny; ++j) want_y[j] += double(a[size_t(i) * ny + j]) * want_tmp[i];
  // Float FMA chains of up to 4096 non-negative terms summed in order: the rounding error stays
  // far below 1e-4 relative (observed ~1e-6), and y inherits tmp's error without amplification;
  // one missing term (~1/4096 = 2.4e-4 of a sum) is still caught.
  const std::vector<double> tmp_d(got_tmp.begin(), got_tmp.end()), y_d(got_y.begin(), got_y.end());
  run.check_close("tmp", tmp_d.data(), want_tmp.data(), nx, 1e-4, 1e-6);
  run.check_close("y", y_d.data(), want_y.data(), ny, 1e-4, 1e-6);

  for (float* p : {da, dx, dtmp, dy}) CUDA_CHECK(cudaFree(p));
  return run.pass();
}
