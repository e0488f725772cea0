// polybench/3dconv - PolyBench/GPU 3DCONV: a fixed-coefficient stencil over the 3 x 3 x 3
// neighbourhood of every interior point of an NI x NJ x NK float volume (k fastest in memory).
// The taps are the well-known version's: 15 weighted terms at 11 distinct points of the
// 3 x 3 x 3 neighbourhood - in plane i the points (j-1, k), (j, k), (j+1, k); in planes i-1 and
// i+1 the points (j-1, k-1), (j-1, k+1), (j, k+1), (j+1, k+1) - with three terms on
// (i-1, j-1, k-1) and three on (i+1, j-1, k-1). The one-point border of B is left untouched.
// Kernel: convolution3D_kernel, launched once per interior plane i = 1 .. NI-2 (as the GPU port
// does), one thread per (j, k) point of the plane, 32 x 8 thread blocks over an
// (NK / 32) x (NJ / 8) grid; plain global-memory loads, no shared-memory tile.
#include <vector>

#include "workload.h"

// The GPU port's weights c11..c33 (scalar constants, so they become immediates in the kernel,
// as the original's #defines do).
constexpr float c11 = 2, c12 = -3, c13 = 4, c21 = 5, c22 = 6, c23 = 7, c31 = -8, c32 = -9, c33 = 10;

__global__ void convolution3D_kernel(int ni, int nj, int nk, int i, const float* a, float* b) {
  const int k = blockIdx.x * blockDim.x + threadIdx.x;
  const int j = blockIdx.y * blockDim.y + threadIdx.y;
  if (i < 1 || i >= ni - 1 || j < 1 || j >= nj - 1 || k < 1 || k >= nk - 1) return;
  // A[i + di][j + dj][k + dk] as an offset from A[i][j][k].
  const float* p = a + (i * nj + j) * nk + k;
  const int plane = nj * nk;
  auto at = [=](int di, int dj, int dk) { return p[di * plane + dj * nk + dk]; };
  // The well-known version's 15 terms, in its order (three of them read (i-1, j-1, k-1) and
  // three (i+1, j-1, k-1); the compiler loads each point once).
  b[(i * nj + j) * nk + k] = c11 * at(-1, -1, -1) + c13 * at(+1, -1, -1) + c21 * at(-1, -1, -1) +
                             c23 * at(+1, -1, -1) + c31 * at(-1, -1, -1) + c33 * at(+1, -1, -1) +
                             c12 * at(0, -1, 0) + c22 * at(0, 0, 0) + c32 * at(0, +1, 0) +
                             c11 * at(-1, -1, +1) + c13 * at(+1, -1, +1) + c21 * at(-1, 0, +1) +
                             c23 * at(+1, 0, +1) + c31 * at(-1, +1, +1) + c33 * at(+1, +1, +1);
}

int main(int argc, char** argv) {
  workload::Run run("3dconv", argc, argv);
  // large is PolyBench/GPU's standard dataset (256 x 256 x 256).
  const int ni = run.pick(18, 128, 256), nj = run.pick(64, 128, 256);
  const int nk = run.pick(128, 128, 256);
  const dim3 block(32, 8);
  const dim3 grid(workload::ceil_div(nk, block.x), workload::ceil_div(nj, block.y));
  run.info("3-D stencil over a %d x %d x %d volume", ni, nj, nk);
  run.info(
      "kernel convolution3D_kernel: %d launches (one per interior plane), grid %u x %u, "
      "block %u x %u",
      ni - 2, grid.x, grid.y, block.x, block.y);

  workload::Rng rng(run.seed());
  const size_t n = size_t(ni) * nj * nk;
  std::vector<float> a(n);
  for (auto& v : a) v = rng.uniform();

  float *da, *db;
  CUDA_CHECK(cudaMalloc(&da, n * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&db, n * sizeof(float)));
  CUDA_CHECK(cudaMemcpy(da, a.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemset(db, 0, n * sizeof(float)));  // the border the kernel leaves alone

  for (int i = 1; i < ni - 1; ++i) {
    convolution3D_kernel<<<grid, block>>>(ni, nj, nk, i, da, db);
    CUDA_CHECK(cudaGetLastError());
  }
  std::vector<float> got(n);
  CUDA_CHECK(cudaMemcpy(got.data(), db, n * sizeof(float), cudaMemcpyDeviceToHost));

  // CPU reference in double with the same (float) weights, from a table of (weight, di, dj, dk)
  // taps so it checks the kernel's explicit terms independently; the border stays 0.
  struct Tap {
    float w;
    int di, dj, dk;
  };
  const Tap taps[15] = {{c11, -1, -1, -1}, {c13, +1, -1, -1}, {c21, -1, -1, -1}, {c23, +1, -1, -1},
                        {c31, -1, -1, -1}, {c33, +1, -1, -1}, {c12, 0, -1, 0},   {c22, 0, 0, 0},
                        {c32, 0, +1, 0},   {c11, -1, -1, +1}, {c13, +1, -1, +1}, {c21, -1, 0, +1},
                        {c23, +1, 0, +1},  {c31, -1, +1, +1}, {c33, +1, +1, +1}};
  std::vector<double> want(n, 0.0);
  for (int i = 1; i < ni - 1; ++i)
    for (int j = 1; j < nj - 1; ++j)
      for (int k = 1; k < nk - 1; ++k) {
        double s = 0.0;
        for (const Tap& t : taps)
          s += double(t.w) * a[(size_t(i + t.di) * nj + (j + t.dj)) * nk + (k + t.dk)];
        want[(size_t(i) * nj + j) * nk + k] = s;
      }
  // Fifteen float roundings (products contracted to FMA) of partial sums bounded by
  // sum |w| * max |A| = 90: at most 15 * 90 * 2^-24 = 8.0e-5 absolute.
  const std::vector<double> got_d(got.begin(), got.end());
  run.check_close("B", got_d.data(), want.data(), n, 0.0, 8.1e-5);

  CUDA_CHECK(cudaFree(da));
  CUDA_CHECK(cudaFree(db));
  return run.pass();
}
