// shared_lib_kernels.cu - device code inside a shared library (built with
// nvcc -shared -cudart shared). The program that uses it (shared_lib_main.cpp)
// is plain C++ and does not link libcudart itself: `warpsim run` must find the
// CUDA runtime among the libraries the dynamic loader would load.
#define TEST_NAME "shared_lib"
#include "cuda_check.h"

__global__ void saxpy(float a, const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

// Runs saxpy on n elements; returns the number of wrong results (or exits
// through FAIL on a CUDA error).
extern "C" int shared_lib_saxpy(int n) {
  float* hx = static_cast<float*>(malloc(n * sizeof(float)));
  float* hy = static_cast<float*>(malloc(n * sizeof(float)));
  for (int i = 0; i < n; ++i) {
    hx[i] = static_cast<float>(i);
    hy[i] = 1.0f;
  }
  float *x = nullptr, *y = nullptr;
  CHECK(cudaMalloc(&x, n * sizeof(float)));
  CHECK(cudaMalloc(&y, n * sizeof(float)));
  CHECK(cudaMemcpy(x, hx, n * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(y, hy, n * sizeof(float), cudaMemcpyHostToDevice));
  saxpy<<<(n + 127) / 128, 128>>>(2.0f, x, y, n);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(hy, y, n * sizeof(float), cudaMemcpyDeviceToHost));
  int wrong = 0;
  for (int i = 0; i < n; ++i)
    if (hy[i] != 2.0f * static_cast<float>(i) + 1.0f) ++wrong;
  CHECK(cudaFree(x));
  CHECK(cudaFree(y));
  free(hx);
  free(hy);
  return wrong;
}
