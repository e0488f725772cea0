// Kernels for the cubin metadata fixtures of cubin_test.cpp (README.md,
// "Cubin fixtures"): each one makes ptxas record a different resource.
// -DCUBIN_LARGE_PARAMS builds only the large-parameter kernel at the end.
#include <cooperative_groups.h>

namespace cg = cooperative_groups;

// __maxnreg__ exists from CUDA 12.4; the CUDA 11.8 fixture is built with
// -maxrregcount=24 instead.
#if defined(__CUDACC_VER_MAJOR__) && \
    (__CUDACC_VER_MAJOR__ > 12 || (__CUDACC_VER_MAJOR__ == 12 && __CUDACC_VER_MINOR__ >= 4))
#define REGISTER_CAP __maxnreg__(24)
#else
#define REGISTER_CAP
#endif

struct Triple {
  float x, y, z;
};

#ifndef CUBIN_LARGE_PARAMS

// Parameter layout: 8-byte pointer, double, char, 12-byte struct, int.
extern "C" __global__ void params(float* out, double scale, char tag, Triple t, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = static_cast<float>(scale) * (t.x + t.y * i + t.z) + tag;
}

// Static shared memory, one barrier, __launch_bounds__(maxThreads, minBlocks).
__global__ void __launch_bounds__(256, 4) tile_sum(const float* in, float* out) {
  __shared__ float tile[256];
  tile[threadIdx.x] = in[blockIdx.x * 256 + threadIdx.x];
  __syncthreads();
  for (int s = 128; s > 0; s >>= 1) {
    if (threadIdx.x < s) tile[threadIdx.x] += tile[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0) out[blockIdx.x] = tile[0];
}

// Dynamic shared memory only.
__global__ void dyn_shared(float* out) {
  extern __shared__ float buf[];
  buf[threadIdx.x] = out[threadIdx.x];
  __syncthreads();
  out[threadIdx.x] = buf[blockDim.x - 1 - threadIdx.x];
}

// A call chain of non-inlined device functions with local arrays: stack frame.
__device__ __noinline__ float leaf(const float* a, int i) { return a[i & 15] * 2.0f; }
__device__ __noinline__ float middle(const float* a, int i) {
  float b[16];
  for (int j = 0; j < 16; ++j) b[j] = a[(j * 7 + i) & 15] + j;
  return leaf(a, i) + leaf(b, i + 1);
}
__global__ void call_chain(float* out, int k) {
  float a[16];
  for (int j = 0; j < 16; ++j) a[j] = out[j] * k;
  out[threadIdx.x] = middle(a, k + threadIdx.x);
}

// More live values than the register cap allows: spills.
__global__ void REGISTER_CAP pressure(const float* in, float* out) {
  float v[24];
#pragma unroll
  for (int j = 0; j < 24; ++j) v[j] = in[threadIdx.x * 24 + j];
#pragma unroll
  for (int r = 0; r < 4; ++r)
#pragma unroll
    for (int j = 0; j < 24; ++j) v[j] = v[j] * v[(j + 5) % 24] + v[(j + 11) % 24];
  float s = 0;
#pragma unroll
  for (int j = 0; j < 24; ++j) s += v[j] * j;
  out[threadIdx.x] = s;
}

// Cooperative groups grid synchronisation.
__global__ void grid_sync(int* data, int n) {
  cg::grid_group g = cg::this_grid();
  unsigned i = g.thread_rank();
  if (i < n) atomicAdd(data, 1);
  g.sync();
  if (i < n) data[i + 1] = data[0];
}

// Named barriers 2 and 5: ptxas counts 6.
__global__ void named_barriers(float* out) {
  out[threadIdx.x] = 1;
  asm volatile("bar.sync 5, 64;");
  out[threadIdx.x + 1] = 2;
  asm volatile("bar.sync 2, 64;");
  out[threadIdx.x + 2] = 3;
}

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
// Thread block clusters (sm_90+).
__global__ void __cluster_dims__(2, 1, 1) clustered(float* out) { out[blockIdx.x] = 1.0f; }
__global__ void __launch_bounds__(128, 1, 4) cluster_rank(float* out) { out[blockIdx.x] = 2.0f; }
// Required block size (.reqntid), CUDA 13 on sm_90+.
#if __CUDACC_VER_MAJOR__ >= 13
__global__ void __block_size__((128, 2, 1)) fixed_block(float* out) { out[threadIdx.y * 128 + threadIdx.x] = 0; }
#endif
#endif

#else  // CUBIN_LARGE_PARAMS: built alone for the large-parameter fixture
// A 20000-byte parameter: ptxas switches to EIATTR_KPARAM_INFO_V2.
struct Large {
  int v[5000];
};
__global__ void large_params(Large big, const float* p, char c, Triple t, int* out) {
  out[threadIdx.x] = big.v[threadIdx.x] + big.v[4999] + p[0] + c + t.y;
}
#endif
