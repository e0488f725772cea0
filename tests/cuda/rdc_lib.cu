// rdc_lib.cu - the "library" half of the relocatable-device-code test (see rdc_main.cu).
//
// Build (together with rdc_main.cu):
//   nvcc -rdc=true -cudart shared -o rdc rdc_main.cu rdc_lib.cu
#include <cuda_runtime.h>

#define TEST_NAME "rdc"
#include "cuda_check.h"
#include "rdc_lib.cuh"

__device__ int lib_counter = 5;
__constant__ int lib_table[RDC_TABLE_SIZE] = {3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7, 9, 3};

__device__ int lib_transform(int x) { return x * lib_table[x % RDC_TABLE_SIZE] + 1; }

__global__ void lib_kernel(int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    out[i] = lib_transform(i);
    atomicAdd(&lib_counter, 1);
  }
}

int lib_read_counter() {
  int v = -1;
  CHECK(cudaMemcpyFromSymbol(&v, lib_counter, sizeof v));
  return v;
}
