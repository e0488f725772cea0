// polybench/covariance - PolyBench/GPU COVAR: the M x M sample covariance matrix of N
// observations of M variables (float data).
// Layout, as in the GPU port: 1-based arrays, data (N+1) x (M+1) with row 0 and column 0 unused,
// so a row is M+1 floats and a warp's accesses to a row straddle cache-line boundaries.
// Kernels, in order:
//   mean_kernel   (1-D, 256 threads, grid M / 256): mean[j] = sum_i data[i][j] / N
//   reduce_kernel (2-D, 32 x 8 threads, grid M / 32 x N / 8): data[i][j] -= mean[j]
//   covar_kernel  (1-D, 256 threads, grid M / 256): thread j1 computes row j1 of the upper
//                 triangle, symmat[j1][j2] = sum_i data[i][j1] * data[i][j2] / (N - 1) for
//                 j2 >= j1, and mirrors it to symmat[j2][j1]. The sum accumulates in symmat in
//                 global memory (the pointers may alias, so the store stays in the loop), and
//                 threads of a warp have different trip counts (M - j1 + 1), as in the original.
#include <vector>

#include "workload.h"

__global__ void mean_kernel(int m, int n, const float* data, float* mean) {
  const int j = blockIdx.x * blockDim.x + threadIdx.x + 1;
  if (j > m) return;
  mean[j] = 0.0f;
  for (int i = 1; i <= n; ++i) mean[j] += data[i * (m + 1) + j];
  mean[j] /= float(n);
}

__global__ void reduce_kernel(int m, int n, float* data, const float* mean) {
  const int j = blockIdx.x * blockDim.x + threadIdx.x + 1;
  const int i = blockIdx.y * blockDim.y + threadIdx.y + 1;
  if (i > n || j > m) return;
  data[i * (m + 1) + j] -= mean[j];
}

__global__ void covar_kernel(int m, int n, const float* data, float* symmat) {
  const int j1 = blockIdx.x * blockDim.x + threadIdx.x + 1;
  if (j1 > m) return;
  for (int j2 = j1; j2 <= m; ++j2) {
    symmat[j1 * (m + 1) + j2] = 0.0f;
    for (int i = 1; i <= n; ++i)
      symmat[j1 * (m + 1) + j2] += data[i * (m + 1) + j1] * data[i * (m + 1) + j2];
    symmat[j1 * (m + 1) + j2] /= float(n - 1);
    symmat[j2 * (m + 1) + j1] = symmat[j1 * (m + 1) + j2];
  }
}

int main(int argc, char** argv) {
  workload::Run run("covariance", argc, argv);
  // large is PolyBench/GPU's standard dataset (M = N = 2048).
  const int m = run.pick(320, 512, 2048);  // variables
  const int n = run.pick(24, 128, 2048);   // observations
  const int block1 = 256;
  const dim3 block2(32, 8);
  const unsigned grid1 = workload::ceil_div(m, block1);
  const dim3 grid2(workload::ceil_div(m, block2.x), workload::ceil_div(n, block2.y));
  run.info("covariance of %d variables over %d observations", m, n);
  run.info("kernels mean_kernel, covar_kernel: grid %u, block %d", grid1, block1);
  run.info("kernel reduce_kernel: grid %u x %u, block %u x %u", grid2.x, grid2.y, block2.x,
           block2.y);

  // Correlated variables: each is an offset and scale of a mix of 8 latent factors plus its own
  // noise, so the covariance matrix has real structure.
  workload::Rng rng(run.seed());
  const int factors = 8;
  std::vector<float> load(size_t(m) * factors), mu(m), sigma(m);
  for (auto& v : load) v = rng.normal();
  for (int j = 0; j < m; ++j) mu[j] = rng.uniform(-2.0f, 2.0f), sigma[j] = rng.uniform(0.5f, 2.0f);
  std::vector<float> data(size_t(n + 1) * (m + 1), 0.0f);
  std::vector<float> z(factors);
  for (int i = 1; i <= n; ++i) {
    for (auto& v : z) v = rng.normal();
    for (int j = 1; j <= m; ++j) {
      float x = rng.normal();
      for (int f = 0; f < factors; ++f) x += load[size_t(j - 1) * factors + f] * z[f];
      data[size_t(i) * (m + 1) + j] = mu[j - 1] + sigma[j - 1] * x;
    }
  }

  const size_t data_bytes = data.size() * sizeof(float);
  const size_t sym_bytes = size_t(m + 1) * (m + 1) * sizeof(float);
  float *ddata, *dmean, *dsym;
  CUDA_CHECK(cudaMalloc(&ddata, data_bytes));
  CUDA_CHECK(cudaMalloc(&dmean, (m + 1) * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&dsym, sym_bytes));
  CUDA_CHECK(cudaMemcpy(ddata, data.data(), data_bytes, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemset(dmean, 0, (m + 1) * sizeof(float)));
  CUDA_CHECK(cudaMemset(dsym, 0, sym_bytes));  // row and column 0 stay unused

  mean_kernel<<<grid1, block1>>>(m, n, ddata, dmean);
  CUDA_CHECK(cudaGetLastError());
  reduce_kernel<<<grid2, block2>>>(m, n, ddata, dmean);
  CUDA_CHECK(cudaGetLastError());
  covar_kernel<<<grid1, block1>>>(m, n, ddata, dsym);
  CUDA_CHECK(cudaGetLastError());
  std::vector<float> got_mean(m + 1), got_sym(size_t(m + 1) * (m + 1));
  CUDA_CHECK(cudaMemcpy(got_mean.data(), dmean, (m + 1) * sizeof(float), cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaMemcpy(got_sym.data(), dsym, sym_bytes, cudaMemcpyDeviceToHost));

  // CPU reference in double, same definitions.
  std::vector<double> mean(m + 1, 0.0), sym(size_t(m + 1) * (m + 1), 0.0);
  std::vector<double> x(data.size(), 0.0);  // the centred data
  for (int j = 1; j <= m; ++j) {
    for (int i = 1; i <= n; ++i) mean[j] += data[size_t(i) * (m + 1) + j];
    mean[j] /= n;
    for (int i = 1; i <= n; ++i)
      x[size_t(i) * (m + 1) + j] = data[size_t(i) * (m + 1) + j] - mean[j];
  }
  // Dot products of columns, from a transposed copy so they walk memory contiguously.
  std::vector<double> xt(size_t(m + 1) * n);
  for (int i = 1; i <= n; ++i)
    for (int j = 1; j <= m; ++j) xt[size_t(j) * n + (i - 1)] = x[size_t(i) * (m + 1) + j];
  double max_var = 0.0;
  for (int j1 = 1; j1 <= m; ++j1)
    for (int j2 = j1; j2 <= m; ++j2) {
      double s = 0.0;
      for (int i = 0; i < n; ++i) s += xt[size_t(j1) * n + i] * xt[size_t(j2) * n + i];
      sym[size_t(j1) * (m + 1) + j2] = sym[size_t(j2) * (m + 1) + j1] = s / (n - 1);
      if (j1 == j2 && s / (n - 1) > max_var) max_var = s / (n - 1);
    }
  // mean: float sums of n terms of order 1-10, relative error far below 1e-5.
  // symmat: sums of n products whose partial sums are bounded by ~n * max variance: the float
  // error is ~sqrt(n) * 2^-24 of that typically and n * 2^-24 = 1.2e-4 of it at worst
  // (n = 2048); covariances near 0 have no relative accuracy, so the bound is absolute, 1e-4
  // of the largest variance.
  const std::vector<double> mean_d(got_mean.begin(), got_mean.end()),
      sym_d(got_sym.begin(), got_sym.end());
  run.check_close("mean", mean_d.data(), mean.data(), m + 1, 1e-5, 1e-6);
  run.check_close("symmat", sym_d.data(), sym.data(), sym.size(), 0.0, 1e-4 * max_var);

  for (float* p : {ddata, dmean, dsym}) CUDA_CHECK(cudaFree(p));
  return run.pass();
}
