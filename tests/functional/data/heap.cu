// Device-side malloc/free and assert for tests/functional/heap_test.cpp.
// Regenerate the PTX with: nvcc -arch=sm_80 -ptx heap.cu -o heap.ptx
#include <cassert>
#include <cstdio>

// Each thread allocates n ints, fills them, sums them back, frees them:
// out[i] = n * (n - 1) / 2 + i * n, or -1 when malloc returned NULL.
extern "C" __global__ void heap_roundtrip(int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int* p = static_cast<int*>(malloc(n * sizeof(int)));
  if (!p) {
    out[i] = -1;
    return;
  }
  for (int k = 0; k < n; ++k) p[k] = k + i;
  int s = 0;
  for (int k = 0; k < n; ++k) s += p[k];
  free(p);
  out[i] = s;
}

// Keeps what it allocates: out[i] = 1 when malloc succeeded.
extern "C" __global__ void heap_hoard(int* out, int bytes) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = malloc(bytes) != nullptr;
}

// Frees a pointer malloc never returned.
extern "C" __global__ void heap_bad_free(int* out) { free(out + threadIdx.x); }

// Asserts that every element is below `limit`.
extern "C" __global__ void check_below(const int* v, int limit) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  assert(v[i] < limit);
}

// One thread prints n lines: rets[k] = what printf returned.
extern "C" __global__ void print_lines(int* rets, int n) {
  for (int k = 0; k < n; ++k) rets[k] = printf("line %d\n", k);
}

// Frees what heap_hoard-like kernels keep: p[i] from an earlier launch.
extern "C" __global__ void heap_free_all(void** p) { free(p[blockIdx.x * blockDim.x + threadIdx.x]); }

// Keeps one block per thread: p[i] = malloc(bytes).
extern "C" __global__ void heap_keep(void** p, int bytes) {
  p[blockIdx.x * blockDim.x + threadIdx.x] = malloc(bytes);
}
