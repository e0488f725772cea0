// polybench/3mm - PolyBench/GPU 3MM: three matrix products, E = A * B, F = C * D and G = E * F,
// with A NI x NK, B NK x NJ, C NJ x NM, D NM x NL (row-major float, the GPU port's DATA_TYPE).
// Kernels: mm3_kernel1 (E), mm3_kernel2 (F), mm3_kernel3 (G), in that order, each one thread per
// output element in 32 x 8 thread blocks over an (N_cols / 32) x (N_rows / 8) grid. Like the GPU
// port, plain global-memory code without shared-memory tiling whose running sum lives in the
// output array: each k step reads a broadcast element of the left matrix, a coalesced row
// segment of the right one, and rewrites the output element (the pointers may alias, so the
// store stays inside the loop, as in the original).
#include <vector>

#include "workload.h"

// E[ni x nj] = A[ni x nk] * B[nk x nj]
__global__ void mm3_kernel1(int ni, int nj, int nk, const float* a, const float* b, float* e) {
  const int j = blockIdx.x * blockDim.x + threadIdx.x;
  const int i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i >= ni || j >= nj) return;
  e[i * nj + j] = 0.0f;
  for (int k = 0; k < nk; ++k) e[i * nj + j] += a[i * nk + k] * b[k * nj + j];
}

// F[nj x nl] = C[nj x nm] * D[nm x nl]
__global__ void mm3_kernel2(int nj, int nl, int nm, const float* c, const float* d, float* f) {
  const int j = blockIdx.x * blockDim.x + threadIdx.x;
  const int i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i >= nj || j >= nl) return;
  f[i * nl + j] = 0.0f;
  for (int k = 0; k < nm; ++k) f[i * nl + j] += c[i * nm + k] * d[k * nl + j];
}

// G[ni x nl] = E[ni x nj] * F[nj x nl]
__global__ void mm3_kernel3(int ni, int nl, int nj, const float* e, const float* f, float* g) {
  const int j = blockIdx.x * blockDim.x + threadIdx.x;
  const int i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i >= ni || j >= nl) return;
  g[i * nl + j] = 0.0f;
  for (int k = 0; k < nj; ++k) g[i * nl + j] += e[i * nj + k] * f[k * nl + j];
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
  workload::Run run("3mm", argc, argv);
  // large is PolyBench/GPU's standard dataset (NI = NJ = NK = NL = NM = 512).
  const int ni = run.pick(128, 192, 512), nj = run.pick(64, 192, 512);
  const int nk = run.pick(64, 192, 512), nl = run.pick(128, 192, 512);
  const int nm = run.pick(64, 192, 512);
  const dim3 block(32, 8);
  const dim3 grid1(workload::ceil_div(nj, block.x), workload::ceil_div(ni, block.y));
  const dim3 grid2(workload::ceil_div(nl, block.x), workload::ceil_div(nj, block.y));
  const dim3 grid3(workload::ceil_div(nl, block.x), workload::ceil_div(ni, block.y));
  run.info("E[%d x %d] = A * B (inner %d); F[%d x %d] = C * D (inner %d); G[%d x %d] = E * F", ni,
           nj, nk, nj, nl, nm, ni, nl);
  run.info("kernel mm3_kernel1: grid %u x %u, block %u x %u", grid1.x, grid1.y, block.x, block.y);
  run.info("kernel mm3_kernel2: grid %u x %u, block %u x %u", grid2.x, grid2.y, block.x, block.y);
  run.info("kernel mm3_kernel3: grid %u x %u, block %u x %u", grid3.x, grid3.y, block.x, block.y);

  // Entries uniform in [0, 1), non-negative like PolyBench's initial values: no cancellation,
  // so a relative tolerance is meaningful.
  workload::Rng rng(run.seed());
  std::vector<float> a(size_t(ni) * nk), b(size_t(nk) * nj), c(size_t(nj) * nm), d(size_t(nm) * nl);
  for (auto* m : {&a, &b, &c, &d})
    for (auto& v : *m) v = rng.uniform();

  float *da, *db, *dc, *dd, *de, *df, *dg;
  CUDA_CHECK(cudaMalloc(&da, a.size() * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&db, b.size() * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&dc, c.size() * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&dd, d.size() * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&de, size_t(ni) * nj * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&df, size_t(nj) * nl * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&dg, size_t(ni) * nl * sizeof(float)));
  CUDA_CHECK(cudaMemcpy(da, a.data(), a.size() * sizeof(float), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(db, b.data(), b.size() * sizeof(float), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(dc, c.data(), c.size() * sizeof(float), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(dd, d.data(), d.size() * sizeof(float), cudaMemcpyHostToDevice));

  mm3_kernel1<<<grid1, block>>>(ni, nj, nk, da, db, de);
  CUDA_CHECK(cudaGetLastError());
  mm3_kernel2<<<grid2, block>>>(nj, nl, nm, dc, dd, df);
  CUDA_CHECK(cudaGetLastError());
  mm3_kernel3<<<grid3, block>>>(ni, nl, nj, de, df, dg);
  CUDA_CHECK(cudaGetLastError());
  std::vector<float> gote(size_t(ni) * nj), gotf(size_t(nj) * nl), gotg(size_t(ni) * nl);
  CUDA_CHECK(cudaMemcpy(gote.data(), de, gote.size() * sizeof(float), cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaMemcpy(gotf.data(), df, gotf.size() * sizeof(float), cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaMemcpy(gotg.data(), dg, gotg.size() * sizeof(float), cudaMemcpyDeviceToHost));

  const std::vector<double> want_e = matmul({a.begin(), a.end()}, {b.begin(), b.end()}, ni, nk, nj);
  const std::vector<double> want_f = matmul({c.begin(), c.end()}, {d.begin(), d.end()}, nj, nm, nl);
  const std::vector<double> want_g = matmul(want_e, want_f, ni, nj, nl);
  // Float FMA chains of non-negative terms, summed in order (inner sizes up to 512): the
  // rounding error stays far below 1e-4 relative (observed ~1e-6), and G inherits E's and F's
  // errors without amplification (no cancellation); one wrong term is still caught.
  const std::vector<double> e_d(gote.begin(), gote.end()), f_d(gotf.begin(), gotf.end()),
      g_d(gotg.begin(), gotg.end());
  run.check_close("E", e_d.data(), want_e.data(), want_e.size(), 1e-4, 1e-6);
  run.check_close("F", f_d.data(), want_f.data(), want_f.size(), 1e-4, 1e-6);
  run.check_close("G", g_d.data(), want_g.data(), want_g.size(), 1e-4, 1e-6);

  for (float* p : {da, db, dc, dd, de, df, dg}) CUDA_CHECK(cudaFree(p));
  return run.pass();
}
