// rdc_main.cu - relocatable device code across translation units (-rdc=true).
//
// Covers, with the definitions in rdc_lib.cu (interface rdc_lib.cuh):
//  - kernels in this file calling a __device__ function defined in rdc_lib.cu;
//  - an `extern __device__ int` counter defined (initialised to 5) in rdc_lib.cu, updated with
//    atomicAdd from kernels of both files, read with cudaMemcpyFromSymbol from both files;
//  - a kernel defined in rdc_lib.cu launched from here;
//  - an `extern __constant__` table defined with an initialiser in rdc_lib.cu, read by a kernel
//    here and overwritten from here with cudaMemcpyToSymbol (the library's kernel sees it).
// The program name in messages is "rdc".
//
// Build: nvcc -rdc=true -cudart shared -o rdc rdc_main.cu rdc_lib.cu
#include <cstdio>
#include <cstdlib>

#include <cuda_runtime.h>

#include "rdc_lib.cuh"

#define TEST_NAME "rdc"
#include "cuda_check.h"

static const int kInitialTable[RDC_TABLE_SIZE] = {3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7, 9, 3};

__global__ void main_kernel(int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    out[i] = lib_transform(i) * 2 + lib_table[(i + 3) % RDC_TABLE_SIZE];
    atomicAdd(&lib_counter, 10);
  }
}

int main() {
  CHECK(cudaSetDevice(0));
  const int n = 300;
  int* d = nullptr;
  CHECK(cudaMalloc(&d, n * sizeof(int)));
  static int h[n], want[n];
  int table[RDC_TABLE_SIZE];

  // Initial values of the library's globals, read from this translation unit.
  int counter = -1;
  CHECK(cudaMemcpyFromSymbol(&counter, lib_counter, sizeof counter));
  EXPECT(counter == 5, "initial lib_counter %d, expected 5", counter);
  CHECK(cudaMemcpyFromSymbol(table, lib_table, sizeof table));
  check_ints("initial lib_table", table, kInitialTable, RDC_TABLE_SIZE);

  // The library's kernel, launched from here.
  lib_kernel<<<(n + 63) / 64, 64>>>(d, n);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i) want[i] = i * kInitialTable[i % RDC_TABLE_SIZE] + 1;
  check_ints("lib_kernel", h, want, n);

  // A kernel of this file using the library's device function, table and counter.
  main_kernel<<<(n + 127) / 128, 128>>>(d, n);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i)
    want[i] = (i * kInitialTable[i % RDC_TABLE_SIZE] + 1) * 2 +
              kInitialTable[(i + 3) % RDC_TABLE_SIZE];
  check_ints("main_kernel", h, want, n);

  // Both kernels updated the one counter: 5 + n*1 + n*10, seen from both files.
  CHECK(cudaMemcpyFromSymbol(&counter, lib_counter, sizeof counter));
  EXPECT(counter == 5 + 11 * n, "lib_counter %d (read here), expected %d", counter, 5 + 11 * n);
  int counter_lib = lib_read_counter();
  EXPECT(counter_lib == counter, "lib_counter %d (read in rdc_lib.cu), %d here", counter_lib,
         counter);

  // Overwrite the constant table from this file; the library's kernel sees the new values.
  for (int i = 0; i < RDC_TABLE_SIZE; ++i) table[i] = 100 + i;
  CHECK(cudaMemcpyToSymbol(lib_table, table, sizeof table));
  lib_kernel<<<(n + 63) / 64, 64>>>(d, n);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i) want[i] = i * (100 + i % RDC_TABLE_SIZE) + 1;
  check_ints("lib_kernel after cudaMemcpyToSymbol(lib_table)", h, want, n);

  // The counter can be written from here too.
  const int zero = 0;
  CHECK(cudaMemcpyToSymbol(lib_counter, &zero, sizeof zero));
  main_kernel<<<1, 32>>>(d, 32);
  CHECK(cudaGetLastError());
  EXPECT(lib_read_counter() == 320, "lib_counter after reset and 32 increments of 10: %d",
         lib_read_counter());

  CHECK(cudaFree(d));
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaGetLastError());
  return report_pass();
}
