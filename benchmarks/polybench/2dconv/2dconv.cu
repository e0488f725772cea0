// polybench/2dconv - PolyBench/GPU 2DCONV: a 3 x 3 fixed-coefficient convolution of an NI x NJ
// row-major float image, B[i][j] = sum of c[di][dj] * A[i + di][j + dj] over the 3 x 3
// neighbourhood, for every interior point (the one-point border of B is left untouched).
// Kernel: convolution2D_kernel, one thread per output point, 32 x 8 thread blocks over an
// (NJ / 32) x (NI / 8) grid. Plain global-memory loads as in the GPU port (no shared-memory
// tile): each warp reads three rows of 34 consecutive floats, and neighbouring threads, warps
// and CTAs re-read the same lines - the reuse that cache and coalescing studies measure.
#include <vector>

#include "workload.h"

// The GPU port's weights: c<x><y> multiplies A[i + y - 2][j + x - 2] (x: column, y: row).
// Scalar constants, so they become immediates in the kernel, as the original's #defines do.
constexpr float c11 = 0.2f, c21 = 0.5f, c31 = -0.8f, c12 = -0.3f, c22 = 0.6f, c32 = -0.9f,
                c13 = 0.4f, c23 = 0.7f, c33 = 0.1f;

__global__ void convolution2D_kernel(int ni, int nj, const float* a, float* b) {
  const int j = blockIdx.x * blockDim.x + threadIdx.x;
  const int i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i < 1 || i >= ni - 1 || j < 1 || j >= nj - 1) return;
  // Pointers to A[i-1][j], A[i][j], A[i+1][j]: every load is then a base plus a constant
  // offset, as with the original's compile-time sizes.
  const float* up = a + (i - 1) * nj + j;
  const float* mid = up + nj;
  const float* down = mid + nj;
  // Column by column, in the original's order.
  b[i * nj + j] = c11 * up[-1] + c12 * mid[-1] + c13 * down[-1] + c21 * up[0] + c22 * mid[0] +
                  c23 * down[0] + c31 * up[1] + c32 * mid[1] + c33 * down[1];
}

int main(int argc, char** argv) {
  workload::Run run("2dconv", argc, argv);
  // large is PolyBench/GPU's standard dataset (4096 x 4096).
  const int ni = run.pick(384, 1536, 4096), nj = ni;
  const dim3 block(32, 8);
  const dim3 grid(workload::ceil_div(nj, block.x), workload::ceil_div(ni, block.y));
  run.info("3 x 3 convolution of a %d x %d image", ni, nj);
  run.info("kernel convolution2D_kernel: grid %u x %u, block %u x %u", grid.x, grid.y, block.x,
           block.y);

  workload::Rng rng(run.seed());
  std::vector<float> a(size_t(ni) * nj);
  for (auto& v : a) v = rng.uniform();

  float *da, *db;
  const size_t bytes = a.size() * sizeof(float);
  CUDA_CHECK(cudaMalloc(&da, bytes));
  CUDA_CHECK(cudaMalloc(&db, bytes));
  CUDA_CHECK(cudaMemcpy(da, a.data(), bytes, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemset(db, 0, bytes));  // the border the kernel leaves alone

  convolution2D_kernel<<<grid, block>>>(ni, nj, da, db);
  CUDA_CHECK(cudaGetLastError());
  std::vector<float> got(a.size());
  CUDA_CHECK(cudaMemcpy(got.data(), db, bytes, cudaMemcpyDeviceToHost));

  // CPU reference in double with the same (float) weights, written as a table indexed
  // [di + 1][dj + 1] so it checks the kernel's explicit terms independently; the border stays 0.
  const float w[3][3] = {{c11, c21, c31}, {c12, c22, c32}, {c13, c23, c33}};
  std::vector<double> want(a.size(), 0.0);
  for (int i = 1; i < ni - 1; ++i)
    for (int j = 1; j < nj - 1; ++j) {
      double s = 0.0;
      for (int di = -1; di <= 1; ++di)
        for (int dj = -1; dj <= 1; ++dj)
          s += double(w[di + 1][dj + 1]) * a[size_t(i + di) * nj + (j + dj)];
      want[size_t(i) * nj + j] = s;
    }
  // Nine float roundings (products contracted to FMA) of partial sums bounded by
  // sum |c| * max |A| = 4.5: at most 9 * 4.5 * 2^-24 = 2.4e-6 absolute.
  const std::vector<double> got_d(got.begin(), got.end());
  run.check_close("B", got_d.data(), want.data(), want.size(), 0.0, 3e-6);

  CUDA_CHECK(cudaFree(da));
  CUDA_CHECK(cudaFree(db));
  return run.pass();
}
