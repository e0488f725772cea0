// polybench/2mm - PolyBench/GPU 2MM: two chained matrix products, C = A * B and then E = C * D,
// with A NI x NK, B NK x NJ, D NJ x NL (row-major float, the GPU port's DATA_TYPE).
// Kernels: mm2_kernel1 (C = A * B) then mm2_kernel2 (E = C * D), each one thread per output
// element in 32 x 8 thread blocks over an (N_cols / 32) x (N_rows / 8) grid. Like the GPU port,
// plain global-memory code without shared-memory tiling whose running sum lives in the output
// array: each k step reads a broadcast element of the left matrix, a coalesced row segment of
// the right one, and rewrites the output element (the pointers may alias, so the store stays
// inside the loop, as in the original).
#include <vector>

#include "workload.h"

// out[rows x cols] = left[rows x inner] * right[inner x cols]
__global__ void mm2_kernel1(int ni, int nj, int nk, const float* a, const float* b, float* c) {
  const int j = blockIdx.x * blockDim.x + threadIdx.x;
  const int i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i >= ni || j >= nj) return;
  c[i * nj + j] = 0.0f;
  for (int k = 0; k < nk; ++k) c[i * nj + j] += a[i * nk + k] * b[k * nj + j];
}

__global__ void mm2_kernel2(int ni, int nl, int nj, const float* c, const float* d, float* e) {
  const int j = blockIdx.x * blockDim.x + threadIdx.x;
  const int i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i >= ni || j >= nl) return;
  e[i * nl + j] = 0.0f;
  for (int k = 0; k < nj; ++k) e[i * nl + j] += c[i * nj + k] * d[k * nl + j];
}

// CPU reference in double: out = left * right (i-k-j order, rows walked contiguously).
static std::vector<double> matmul(const std::vector<double>& left, const std::vector<double>& right,
                                  int rows, int inner, int cols) {
  std::vector<double> out(size_t(rows) * cols, 0.0);
  for (int i = 0; i < rows; ++i)
    for (int k = 0; k < inner; ++k) {
      const double l = left[size_t(i) * inner + k];
      for (int j = 0; j < cols; ++j) out[size_t(i) * cols + j] += l * right[size_t(k) * cols + j];
    }
  return out;
}

int main(int argc, char** argv) {
  workload::Run run("2mm", argc, argv);
  // large is PolyBench/GPU's standard dataset (NI = NJ = NK = NL = 2048).
  const int ni = run.pick(128, 192, 2048), nj = run.pick(64, 192, 2048);
  const int nk = run.pick(64, 192, 2048), nl = run.pick(128, 192, 2048);
  const dim3 block(32, 8);
  const dim3 grid1(workload::ceil_div(nj, block.x), workload::ceil_div(ni, block.y));
  const dim3 grid2(workload::ceil_div(nl, block.x), workload::ceil_div(ni, block.y));
  run.info("C[%d x %d] = A[%d x %d] * B[%d x %d]; E[%d x %d] = C * D[%d x %d]", ni, nj, ni, nk, nk,
           nj, ni, nl, nj, nl);
  run.info("kernel mm2_kernel1: grid %u x %u, block %u x %u", grid1.x, grid1.y, block.x, block.y);
  run.info("kernel mm2_kernel2: grid %u x %u, block %u x %u", grid2.x, grid2.y, block.x, block.y);

  // Entries uniform in [0, 1), non-negative like PolyBench's initial values: no cancellation,
  // so a relative tolerance is meaningful.
  workload::Rng rng(run.seed());
  std::vector<float> a(size_t(ni) * nk), b(size_t(nk) * nj), d(size_t(nj) * nl);
  for (auto& v : a) v = rng.uniform();
  for (auto& v : b) v = rng.uniform();
  for (auto& v : d) v = rng.uniform();

  float *da, *db, *dc, *dd, *de;
  CUDA_CHECK(cudaMalloc(&da, a.size() * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&db, b.size() * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&dc, size_t(ni) * nj * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&dd, d.size() * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&de, size_t(ni) * nl * sizeof(float)));
  CUDA_CHECK(cudaMemcpy(da, a.data(), a.size() * sizeof(float), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(db, b.data(), b.size() * sizeof(float), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(dd, d.data(), d.size() * sizeof(float), cudaMemcpyHostToDevice));

  mm2_kernel1<<<grid1, block>>>(ni, nj, nk, da, db, dc);
  CUDA_CHECK(cudaGetLastError());
  mm2_kernel2<<<grid2, block>>>(ni, nl, nj, dc, dd, de);
  CUDA_CHECK(cudaGetLastError());
  std::vector<float> gotc(size_t(ni) * nj), gote(size_t(ni) * nl);
  CUDA_CHECK(cudaMemcpy(gotc.data(), dc, gotc.size() * sizeof(float), cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaMemcpy(gote.data(), de, gote.size() * sizeof(float), cudaMemcpyDeviceToHost));

  const std::vector<double> want_c = matmul({a.begin(), a.end()}, {b.begin(), b.end()}, ni, nk, nj);
  const std::vector<double> want_e = matmul(want_c, {d.begin(), d.end()}, ni, nj, nl);
  // Float FMA chains of non-negative terms, summed in order (k up to 2048 per product): the
  // rounding error stays far below 1e-4 relative (observed ~1e-6), and E inherits C's error
  // without amplification (no cancellation); one wrong term (~1/k of a sum) is still caught.
  const std::vector<double> c_d(gotc.begin(), gotc.end()), e_d(gote.begin(), gote.end());
  run.check_close("C", c_d.data(), want_c.data(), want_c.size(), 1e-4, 1e-6);
  run.check_close("E", e_d.data(), want_e.data(), want_e.size(), 1e-4, 1e-6);

  for (float* p : {da, db, dc, dd, de}) CUDA_CHECK(cudaFree(p));
  return run.pass();
}
