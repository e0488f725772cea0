// launch_bounds_regs.cu - launching more threads than a kernel's __launch_bounds__ allows.
//
// Covers: a __launch_bounds__(256) kernel reports cudaFuncAttributes::maxThreadsPerBlock <= 256
// and runs with 256 threads (and with 16x16 and 8x8x4 blocks); launched with 512 threads
// (512x1x1 or 16x32x1) it is rejected (EXPECTED_BEYOND_KERNEL_LIMIT), reported once by
// cudaGetLastError (not sticky), it does not run, and cudaLaunchKernel returns the same error
// directly. Afterwards the context works normally.
//
// Which error: a block of 512 threads is valid for the device (maxThreadsPerBlock 1024), so
// this is not cudaErrorInvalidConfiguration ("resources that can never be satisfied by the
// current device"). The function's own limit (CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, which
// the driver derives from .maxntid and from the register count) is what is exceeded, and the
// driver reports that as CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES -> cudaErrorLaunchOutOfResources,
// whose documentation reads "the kernel launch specifies too many threads for the kernel's
// register count" ("too many resources requested for launch"). This is the behaviour reported
// for launches above a kernel's per-function thread limit up to CUDA 12. CUDA 13's runtime
// returns cudaErrorInvalidValue instead (measured on an H100; see tests/cuda/README.md).
//
// Build: nvcc -cudart shared -o launch_bounds_regs launch_bounds_regs.cu
#include <cstdio>
#include <cstdlib>

#include <cuda_runtime.h>

#define TEST_NAME "launch_bounds_regs"
#include "cuda_check.h"

__global__ void __launch_bounds__(256) bounded(int* out) {
  int t = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  int nt = blockDim.x * blockDim.y * blockDim.z;
  out[blockIdx.x * nt + t] = blockIdx.x * 10000 + t;
}

__global__ void unbounded(int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = -i;
}

static int h[4096];

static void check_bounded(int* d, int blocks, int threads) {
  CHECK(cudaMemcpy(h, d, blocks * threads * sizeof(int), cudaMemcpyDeviceToHost));
  for (int i = 0; i < blocks * threads; ++i)
    EXPECT(h[i] == (i / threads) * 10000 + i % threads,
           "bounded with %d threads: index %d: got %d", threads, i, h[i]);
}

static void expect_rejected(const char* what, int* d, dim3 block) {
  CHECK(cudaMemset(d, 0, 4096 * sizeof(int)));
  bounded<<<2, block>>>(d);
  cudaError_t first = cudaGetLastError();
  cudaError_t second = cudaGetLastError();
  EXPECT(first == EXPECTED_BEYOND_KERNEL_LIMIT, "%s: cudaGetLastError = %s (%d), expected %s",
         what, cudaGetErrorName(first), (int)first,
         cudaGetErrorName(EXPECTED_BEYOND_KERNEL_LIMIT));
  EXPECT(second == cudaSuccess, "%s: second cudaGetLastError = %s, expected cudaSuccess", what,
         cudaGetErrorName(second));
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaMemcpy(h, d, 1024 * sizeof(int), cudaMemcpyDeviceToHost));
  for (int i = 0; i < 1024; ++i) EXPECT(h[i] == 0, "%s: the rejected kernel ran", what);
}

int main() {
  CHECK(cudaSetDevice(0));
  cudaFuncAttributes fa;
  CHECK(cudaFuncGetAttributes(&fa, bounded));
  printf("bounded: maxThreadsPerBlock %d, numRegs %d\n", fa.maxThreadsPerBlock, fa.numRegs);
  EXPECT(fa.maxThreadsPerBlock > 0 && fa.maxThreadsPerBlock <= 256,
         "__launch_bounds__(256) kernel reports maxThreadsPerBlock %d", fa.maxThreadsPerBlock);

  int* d = nullptr;
  CHECK(cudaMalloc(&d, 4096 * sizeof(int)));

  // Within the bound.
  bounded<<<2, 256>>>(d);
  CHECK(cudaGetLastError());
  check_bounded(d, 2, 256);
  bounded<<<2, dim3(16, 16)>>>(d);
  CHECK(cudaGetLastError());
  check_bounded(d, 2, 256);
  bounded<<<3, dim3(8, 8, 4)>>>(d);
  CHECK(cudaGetLastError());
  check_bounded(d, 3, 256);

  // Above the bound.
  expect_rejected("512x1x1", d, dim3(512));
  expect_rejected("16x32x1", d, dim3(16, 32));
  {
    int* p = d;
    void* args[] = {&p};
    CHECK_RET(cudaLaunchKernel((const void*)bounded, dim3(1), dim3(512), args, 0, 0),
              EXPECTED_BEYOND_KERNEL_LIMIT);
    CHECK_RET(cudaGetLastError(), EXPECTED_BEYOND_KERNEL_LIMIT);
    CHECK_RET(cudaGetLastError(), cudaSuccess);
  }

  // The context is intact; a kernel without bounds takes 1024 threads.
  unbounded<<<4, 1024>>>(d, 4096);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
  for (int i = 0; i < 4096; ++i) EXPECT(h[i] == -i, "unbounded: index %d: got %d", i, h[i]);
  bounded<<<1, 128>>>(d);
  CHECK(cudaGetLastError());
  check_bounded(d, 1, 128);

  CHECK(cudaFree(d));
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaGetLastError());
  return report_pass();
}
