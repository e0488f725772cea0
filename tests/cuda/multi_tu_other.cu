// multi_tu_other.cu - second translation unit of the multi_tu test (see multi_tu_main.cu).
// Compiled WITHOUT -rdc: its device code is a separate fatbinary, registered separately.
//
// Build (together with multi_tu_main.cu):
//   nvcc -cudart shared -o multi_tu multi_tu_main.cu multi_tu_other.cu
#include <cuda_runtime.h>

#define TEST_NAME "multi_tu"
#include "cuda_check.h"

// Same name as the variable in multi_tu_main.cu; internal linkage, so they are distinct.
static __device__ int tu_value = 2000;

namespace {
// Same (internal-linkage) kernel name as in multi_tu_main.cu, different body.
__global__ void tu_kernel(int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = tu_value + i;
}
}  // namespace

__global__ void other_bump(int by) { tu_value += by; }

// Host API used by multi_tu_main.cu.
void other_launch(int* d_out, int n) {
  tu_kernel<<<(n + 63) / 64, 64>>>(d_out, n);
  CHECK(cudaGetLastError());
}

void other_bump_value(int by) {
  other_bump<<<1, 1>>>(by);
  CHECK(cudaGetLastError());
}

int other_get_value() {
  int v = -1;
  CHECK(cudaMemcpyFromSymbol(&v, tu_value, sizeof v));
  return v;
}

void other_set_value(int v) { CHECK(cudaMemcpyToSymbol(tu_value, &v, sizeof v)); }
