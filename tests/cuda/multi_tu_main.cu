// multi_tu_main.cu - two translation units without -rdc, each with its own device code.
//
// Covers: this file and multi_tu_other.cu each define `static __device__ int tu_value` (same
// name, internal linkage, different initialisers 1000 / 2000) and a kernel `tu_kernel` in an
// anonymous namespace (same name, different bodies), plus one uniquely named kernel each. Each
// translation unit's device code is its own fatbinary; the runtime must keep the two modules
// apart: launches run the right body, each kernel sees its own tu_value, and the symbol API
// called from each file addresses that file's variable.
// The program name in messages is "multi_tu".
//
// Build: nvcc -cudart shared -o multi_tu multi_tu_main.cu multi_tu_other.cu
#include <cstdio>
#include <cstdlib>

#include <cuda_runtime.h>

#define TEST_NAME "multi_tu"
#include "cuda_check.h"

// Defined in multi_tu_other.cu.
void other_launch(int* d_out, int n);
void other_bump_value(int by);
int other_get_value();
void other_set_value(int v);

static __device__ int tu_value = 1000;

namespace {
__global__ void tu_kernel(int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = tu_value * 2 - i;
}
}  // namespace

__global__ void main_bump(int by) { tu_value += by; }

static int get_value() {
  int v = -1;
  CHECK(cudaMemcpyFromSymbol(&v, tu_value, sizeof v));
  return v;
}

static void check_launches(int* d, int n, int main_value, int other_value) {
  static int h[256];
  tu_kernel<<<(n + 63) / 64, 64>>>(d, n);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(h, d, n * sizeof(int), cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i)
    EXPECT(h[i] == main_value * 2 - i, "main tu_kernel: index %d: got %d, expected %d", i, h[i],
           main_value * 2 - i);
  other_launch(d, n);
  CHECK(cudaMemcpy(h, d, n * sizeof(int), cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i)
    EXPECT(h[i] == other_value + i, "other tu_kernel: index %d: got %d, expected %d", i, h[i],
           other_value + i);
}

int main() {
  CHECK(cudaSetDevice(0));
  const int n = 256;
  int* d = nullptr;
  CHECK(cudaMalloc(&d, n * sizeof(int)));

  // Initial values: each file sees its own variable.
  EXPECT(get_value() == 1000, "main tu_value %d, expected 1000", get_value());
  EXPECT(other_get_value() == 2000, "other tu_value %d, expected 2000", other_get_value());
  check_launches(d, n, 1000, 2000);

  // Kernels of each file update only their own variable.
  main_bump<<<1, 1>>>(5);
  CHECK(cudaGetLastError());
  other_bump_value(70);
  EXPECT(get_value() == 1005, "main tu_value %d after main_bump(5)", get_value());
  EXPECT(other_get_value() == 2070, "other tu_value %d after other_bump(70)", other_get_value());
  check_launches(d, n, 1005, 2070);

  // The symbol API writes the caller's variable.
  const int v = -40;
  CHECK(cudaMemcpyToSymbol(tu_value, &v, sizeof v));
  other_set_value(9);
  EXPECT(get_value() == -40, "main tu_value %d after cudaMemcpyToSymbol", get_value());
  EXPECT(other_get_value() == 9, "other tu_value %d after its cudaMemcpyToSymbol",
         other_get_value());
  check_launches(d, n, -40, 9);

  // Distinct device addresses.
  int *addr_main = nullptr;
  CHECK(cudaGetSymbolAddress((void**)&addr_main, tu_value));
  int r = 0;
  CHECK(cudaMemcpy(&r, addr_main, sizeof r, cudaMemcpyDeviceToHost));
  EXPECT(r == -40, "read through main tu_value's address: %d", r);

  CHECK(cudaFree(d));
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaGetLastError());
  return report_pass();
}
