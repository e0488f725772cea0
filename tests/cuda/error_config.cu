// error_config.cu - launch configuration errors are reported at launch and are not sticky.
//
// Covers: launches that can never run are rejected with cudaErrorInvalidConfiguration up to
// CUDA 12 ("a kernel launch is requesting resources that can never be satisfied by the current
// device ... requesting too many threads or blocks") and cudaErrorInvalidValue with CUDA 13
// (measured on an H100; EXPECTED_BAD_LAUNCH_SHAPE in cuda_check.h): blockDim.x = 2048, blockDim 32x32x2 (2048
// threads), blockDim.z = 65 (limit 64), gridDim.y = 70000 (limit 65535), a grid of 0 blocks,
// a block of 0 threads; the error is returned by cudaGetLastError once and then cleared
// (cudaGetLastError "resets it to cudaSuccess"), cudaPeekAtLastError returns it without
// clearing; the same errors through cudaLaunchKernel are returned directly. The rejected
// launches do not run (their output stays untouched), cudaDeviceSynchronize still succeeds,
// and ordinary kernels keep working afterwards.
//
// Build: nvcc -cudart shared -o error_config error_config.cu        [also builds with CUDA 11.8]
#include <cstdio>
#include <cstdlib>

#include <cuda_runtime.h>

#define TEST_NAME "error_config"
#include "cuda_check.h"

__global__ void mark(int* flag, int value) {
  if (threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0 && blockIdx.x == 0 &&
      blockIdx.y == 0 && blockIdx.z == 0)
    *flag = value;
}

__global__ void iota(int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = i * 2 + 1;
}

static int* g_flag = nullptr;

// Launches `mark` with the given shape; it must be rejected with
// EXPECTED_BAD_LAUNCH_SHAPE and must not run.
static void expect_invalid_launch(const char* what, dim3 grid, dim3 block) {
  CHECK(cudaMemset(g_flag, 0, sizeof(int)));
  mark<<<grid, block>>>(g_flag, 1);
  cudaError_t first = cudaGetLastError();
  cudaError_t second = cudaGetLastError();
  EXPECT(first == EXPECTED_BAD_LAUNCH_SHAPE,
         "%s: cudaGetLastError after launch = %s (%d), expected %s", what,
         cudaGetErrorName(first), (int)first, cudaGetErrorName(EXPECTED_BAD_LAUNCH_SHAPE));
  EXPECT(second == cudaSuccess, "%s: second cudaGetLastError = %s (%d), expected cudaSuccess",
         what, cudaGetErrorName(second), (int)second);
  CHECK(cudaDeviceSynchronize());
  int flag = -1;
  CHECK(cudaMemcpy(&flag, g_flag, sizeof flag, cudaMemcpyDeviceToHost));
  EXPECT(flag == 0, "%s: the rejected kernel ran (flag %d)", what, flag);
}

int main() {
  CHECK(cudaSetDevice(0));
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  EXPECT(prop.maxThreadsPerBlock < 2048 && prop.maxThreadsDim[2] < 65 &&
             prop.maxGridSize[1] < 70000,
         "device limits unexpectedly large: %d threads/block, z %d, grid y %d",
         prop.maxThreadsPerBlock, prop.maxThreadsDim[2], prop.maxGridSize[1]);
  CHECK(cudaMalloc(&g_flag, sizeof(int)));

  // Nothing pending at start.
  CHECK(cudaGetLastError());
  CHECK(cudaPeekAtLastError());

  expect_invalid_launch("blockDim 2048", dim3(1), dim3(2048));
  expect_invalid_launch("blockDim 32x32x2", dim3(1), dim3(32, 32, 2));
  expect_invalid_launch("blockDim.z 65", dim3(1), dim3(1, 1, 65));
  expect_invalid_launch("gridDim.y 70000", dim3(1, 70000), dim3(32));
  expect_invalid_launch("0 blocks", dim3(0), dim3(32));
  expect_invalid_launch("0 threads", dim3(4), dim3(0));

  // cudaPeekAtLastError does not clear; cudaGetLastError does.
  mark<<<1, 2048>>>(g_flag, 1);
  CHECK_RET(cudaPeekAtLastError(), EXPECTED_BAD_LAUNCH_SHAPE);
  CHECK_RET(cudaPeekAtLastError(), EXPECTED_BAD_LAUNCH_SHAPE);
  CHECK_RET(cudaGetLastError(), EXPECTED_BAD_LAUNCH_SHAPE);
  CHECK_RET(cudaPeekAtLastError(), cudaSuccess);
  CHECK_RET(cudaGetLastError(), cudaSuccess);

  // A successful call in between does not clear the pending error.
  mark<<<dim3(1, 70000), 1>>>(g_flag, 1);
  int dev = -1;
  CHECK(cudaGetDevice(&dev));
  CHECK_RET(cudaGetLastError(), EXPECTED_BAD_LAUNCH_SHAPE);
  CHECK_RET(cudaGetLastError(), cudaSuccess);

  // cudaLaunchKernel returns the error itself (and records it like any failing call).
  {
    int* flag = g_flag;
    int value = 1;
    void* args[] = {&flag, &value};
    CHECK_RET(cudaLaunchKernel((const void*)mark, dim3(1), dim3(4096), args, 0, 0),
              EXPECTED_BAD_LAUNCH_SHAPE);
    CHECK_RET(cudaGetLastError(), EXPECTED_BAD_LAUNCH_SHAPE);
    CHECK_RET(cudaGetLastError(), cudaSuccess);
    CHECK_RET(cudaLaunchKernel((const void*)mark, dim3(0, 1, 1), dim3(1), args, 0, 0),
              EXPECTED_BAD_LAUNCH_SHAPE);
    CHECK_RET(cudaGetLastError(), EXPECTED_BAD_LAUNCH_SHAPE);
    CHECK_RET(cudaGetLastError(), cudaSuccess);
  }

  // The context is intact: normal launches (including the largest legal block) work.
  const int n = 5000;
  int* d = nullptr;
  CHECK(cudaMalloc(&d, n * sizeof(int)));
  iota<<<(n + prop.maxThreadsPerBlock - 1) / prop.maxThreadsPerBlock, prop.maxThreadsPerBlock>>>(
      d, n);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  static int h[n];
  CHECK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i)
    EXPECT(h[i] == i * 2 + 1, "iota after errors: index %d: got %d", i, h[i]);
  // Largest legal grid.y and block.z (one thread per block / one block: cheap to simulate).
  mark<<<dim3(1, 65535), dim3(1)>>>(g_flag, 5);
  CHECK(cudaGetLastError());
  int flag = 0;
  CHECK(cudaMemcpy(&flag, g_flag, sizeof flag, cudaMemcpyDeviceToHost));
  EXPECT(flag == 5, "mark with grid.y 65535: flag %d", flag);
  mark<<<dim3(1), dim3(1, 1, 64)>>>(g_flag, 6);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(&flag, g_flag, sizeof flag, cudaMemcpyDeviceToHost));
  EXPECT(flag == 6, "mark with block.z 64: flag %d", flag);

  CHECK(cudaFree(d));
  CHECK(cudaFree(g_flag));
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaGetLastError());
  return report_pass();
}
