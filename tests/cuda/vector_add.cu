// vector_add.cu - the most basic CUDA runtime path.
//
// Covers: cudaMalloc / cudaMemcpy (H2D, D2H) / cudaMemset / cudaFree, three kernel launches
// with different grid shapes (1D grid with a partial last block, 2D grid of 1D blocks, a small
// grid running a grid-stride loop), cudaGetLastError after each launch, cudaDeviceSynchronize.
// All inputs are small dyadic fractions, so every result is exact in float (even if the device
// contracts a*b+c into an FMA) and is compared exactly with a host reference.
//
// Build: nvcc -cudart shared -o vector_add vector_add.cu        [also builds with CUDA 11.8]
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define TEST_NAME "vector_add"
#include "cuda_check.h"

// 1D grid, one element per thread, partial last block.
__global__ void add_1d(const float* a, const float* b, float* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

// 2D grid of 1D blocks: block (bx, by) covers elements [(by * gridDim.x + bx) * blockDim.x, ...).
__global__ void sub_2d(const float* a, const float* b, float* c, int n) {
  int block = blockIdx.y * gridDim.x + blockIdx.x;
  int i = block * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] - b[i];
}

// Grid-stride loop: far fewer threads than elements.
__global__ void fma_stride(const float* a, const float* b, float* c, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    c[i] = a[i] * b[i] + 1.0f;
}

int main() {
  const int n = 50000;  // not a multiple of any block size used below
  const size_t bytes = n * sizeof(float);
  // Plain malloc (no C++ library): the CUDA 11.8 build links with clang-14, not clang++.
  float* a = (float*)malloc(bytes);
  float* b = (float*)malloc(bytes);
  float* c = (float*)malloc(bytes);
  float* want = (float*)malloc(bytes);
  for (int i = 0; i < n; ++i) {
    a[i] = (float)(i % 1000) * 0.5f;   // 0 .. 499.5
    b[i] = (float)(i % 37) * 0.25f;    // 0 .. 9
  }

  float *da = nullptr, *db = nullptr, *dc = nullptr;
  CHECK(cudaMalloc(&da, bytes));
  CHECK(cudaMalloc(&db, bytes));
  CHECK(cudaMalloc(&dc, bytes));
  CHECK(cudaMemcpy(da, a, bytes, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(db, b, bytes, cudaMemcpyHostToDevice));

  // Launch 1: 1D grid.
  CHECK(cudaMemset(dc, 0, bytes));
  add_1d<<<(n + 255) / 256, 256>>>(da, db, dc, n);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaMemcpy(c, dc, bytes, cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i) want[i] = a[i] + b[i];
  check_floats("add_1d<<<196,256>>>", c, want, n);

  // Launch 2: 2D grid (16 x ceil) of 128-thread blocks; some trailing blocks have no work.
  CHECK(cudaMemset(dc, 0, bytes));
  dim3 grid2(16, (n + 16 * 128 - 1) / (16 * 128));
  sub_2d<<<grid2, 128>>>(da, db, dc, n);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaMemcpy(c, dc, bytes, cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i) want[i] = a[i] - b[i];
  check_floats("sub_2d<<<(16,25),128>>>", c, want, n);

  // Launch 3: grid-stride loop with 7 blocks of 96 threads (672 threads for 50000 elements).
  CHECK(cudaMemset(dc, 0, bytes));
  fma_stride<<<7, 96>>>(da, db, dc, n);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaMemcpy(c, dc, bytes, cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i) want[i] = a[i] * b[i] + 1.0f;  // exact: products need < 24 bits
  check_floats("fma_stride<<<7,96>>>", c, want, n);

  CHECK(cudaFree(da));
  CHECK(cudaFree(db));
  CHECK(cudaFree(dc));
  CHECK(cudaGetLastError());
  free(a);
  free(b);
  free(c);
  free(want);
  return report_pass();
}
