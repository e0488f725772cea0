// polybench/bicg - PolyBench/GPU BiCG: the two matrix-vector products of a BiCGStab step,
// s = A^T r and q = A p, for an NX x NY row-major float matrix A.
// Kernels, one thread per vector element in 1-D blocks of 256 threads:
//   bicg_kernel1 (grid NY / 256): s[j] = sum_i r[i] * A[i][j]  - each thread walks a column, so a
//                                 warp reads consecutive floats of one row (coalesced);
//   bicg_kernel2 (grid NX / 256): q[i] = sum_j A[i][j] * p[j]  - each thread walks a row, so a
//                                 warp's loads are NY floats apart (uncoalesced).
// As in the GPU port each thread zeroes its output element and accumulates into it in global
// memory (the pointers may alias, so the store stays inside the loop).
#include <vector>

#include "workload.h"

__global__ void bicg_kernel1(int nx, int ny, const float* a, const float* r, float* s) {
  const int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= ny) return;
  s[j] = 0.0f;
  for (int i = 0; i < nx; ++i) s[j] += r[i] * a[i * ny + j];
}

__global__ void bicg_kernel2(int nx, int ny, const float* a, const float* p, float* q) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= nx) return;
  q[i] = 0.0f;
  for (int j = 0; j < ny; ++j) q[i] += a[i * ny + j] * p[j];
}

int main(int argc, char** argv) {
  workload::Run run("bicg", argc, argv);
  // large is PolyBench/GPU's standard dataset (NX = NY = 4096).
  const int nx = run.pick(1024, 2048, 4096), ny = nx;
  const int block = 256;
  const unsigned grid1 = workload::ceil_div(ny, block), grid2 = workload::ceil_div(nx, block);
  run.info("s = A^T r, q = A p, A %d x %d", nx, ny);
  run.info("kernel bicg_kernel1: grid %u, block %d", grid1, block);
  run.info("kernel bicg_kernel2: grid %u, block %d", grid2, block);

  // Entries uniform in [0, 1), non-negative like PolyBench's initial values: no cancellation,
  // so a relative tolerance is meaningful.
  workload::Rng rng(run.seed());
  std::vector<float> a(size_t(nx) * ny), r(nx), p(ny);
  for (auto& v : a) v = rng.uniform();
  for (auto& v : r) v = rng.uniform();
  for (auto& v : p) v = rng.uniform();

  float *da, *dr, *dp, *ds, *dq;
  CUDA_CHECK(cudaMalloc(&da, a.size() * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&dr, nx * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&dp, ny * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&ds, ny * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&dq, nx * sizeof(float)));
  CUDA_CHECK(cudaMemcpy(da, a.data(), a.size() * sizeof(float), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(dr, r.data(), nx * sizeof(float), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(dp, p.data(), ny * sizeof(float), cudaMemcpyHostToDevice));

  bicg_kernel1<<<grid1, block>>>(nx, ny, da, dr, ds);
  CUDA_CHECK(cudaGetLastError());
  bicg_kernel2<<<grid2, block>>>(nx, ny, da, dp, dq);
  CUDA_CHECK(cudaGetLastError());
  std::vector<float> got_s(ny), got_q(nx);
  CUDA_CHECK(cudaMemcpy(got_s.data(), ds, ny * sizeof(float), cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaMemcpy(got_q.data(), dq, nx * sizeof(float), cudaMemcpyDeviceToHost));

  // CPU reference in double.
  std::vector<double> want_s(ny, 0.0), want_q(nx, 0.0);
  for (int i = 0; i < nx; ++i)
    for (int j = 0; j < ny; ++j) {
      const double aij = a[size_t(i) * ny + j];
      want_s[j] += double(r[i]) * aij;
      want_q[i] += aij * p[j];
    }
  // Float FMA chains of up to 4096 non-negative terms summed in order: the rounding error stays
  // far below 1e-4 relative (observed ~1e-6), while one missing term (~1/4096 = 2.4e-4 of a
  // sum) is still caught.
  const std::vector<double> s_d(got_s.begin(), got_s.end()), q_d(got_q.begin(), got_q.end());
  run.check_close("s", s_d.data(), want_s.data(), ny, 1e-4, 1e-6);
  run.check_close("q", q_d.data(), want_q.data(), nx, 1e-4, 1e-6);

  for (float* ptr : {da, dr, dp, ds, dq}) CUDA_CHECK(cudaFree(ptr));
  return run.pass();
}
