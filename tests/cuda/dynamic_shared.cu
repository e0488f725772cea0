// dynamic_shared.cu - dynamic (extern __shared__) shared memory.
//
// Covers:
//  - a block reduction whose shared buffer size is chosen at launch (several block sizes);
//  - a kernel with both a static __shared__ array and a dynamic one (they must not overlap);
//  - a launch asking for more dynamic shared memory (64 KiB) than the default per-block limit
//    (sharedMemPerBlock, 48 KiB on every GPU so far) without opting in: it must fail with
//    cudaErrorInvalidValue, reported by cudaGetLastError once;
//  - cudaFuncSetAttribute(cudaFuncAttributeMaxDynamicSharedMemorySize, 64 KiB) then makes the
//    same launch work (when sharedMemPerBlockOptin allows it, otherwise that part is skipped),
//    cudaFuncGetAttributes reports the new maximum, a value above the opt-in limit is rejected,
//    and a launch above the new maximum still fails.
//
// Why cudaErrorInvalidValue: the driver rejects cuLaunchKernel with sharedMemBytes above the
// function's CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES with CUDA_ERROR_INVALID_VALUE
// ("invalid argument"), which the runtime maps to cudaErrorInvalidValue. Observed and reported
// e.g. in github.com/NVIDIA/numba-cuda-mlir/issues/143 (launch at exactly 48 KiB with static
// shared memory fails with CUDA_ERROR_INVALID_VALUE), github.com/cupy/cupy/issues/2118 (96 KiB
// without the attribute: CUDA_ERROR_INVALID_VALUE) and github.com/pytorch/pytorch/pull/162328.
// (The enum comment of cudaErrorInvalidConfiguration mentions "more shared memory per block
// than the device supports" - that is a request beyond what the device can ever provide, not
// a request beyond the function's current limit.)
//
// Build: nvcc -cudart shared -o dynamic_shared dynamic_shared.cu
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <cuda_runtime.h>

#define TEST_NAME "dynamic_shared"
#include "cuda_check.h"

// Tree reduction over blockDim.x (a power of two) elements held in dynamic shared memory.
__global__ void block_sum(const int* in, int* out, int n) {
  extern __shared__ int sdata[];
  int tid = threadIdx.x;
  int i = blockIdx.x * blockDim.x + tid;
  sdata[tid] = i < n ? in[i] : 0;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s) sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = sdata[0];
}

// A static array and a dynamic array in the same block; each is filled, then read back
// reversed (so every thread reads values written by other threads).
__global__ void static_and_dynamic(int* out, int ndyn) {
  __shared__ int s_static[64];
  extern __shared__ int s_dyn[];
  int t = threadIdx.x;
  if (t < 64) s_static[t] = 1000 + t;
  for (int i = t; i < ndyn; i += blockDim.x) s_dyn[i] = -i;
  __syncthreads();
  if (t < 64) out[t] = s_static[63 - t];
  for (int i = t; i < ndyn; i += blockDim.x) out[64 + i] = s_dyn[ndyn - 1 - i];
}

// Uses nwords ints of dynamic shared memory (no static shared memory).
__global__ void big_dynamic(int* out, int nwords) {
  extern __shared__ int s[];
  for (int i = threadIdx.x; i < nwords; i += blockDim.x) s[i] = i * 7 + 1;
  __syncthreads();
  for (int i = threadIdx.x; i < nwords; i += blockDim.x) out[i] = s[nwords - 1 - i];
}

int main() {
  CHECK(cudaSetDevice(0));
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  printf("sharedMemPerBlock %zu, sharedMemPerBlockOptin %zu\n", prop.sharedMemPerBlock,
         prop.sharedMemPerBlockOptin);

  // ---- reduction with the shared buffer sized at launch ----
  const int n = 10000;
  std::vector<int> h(n);
  for (int i = 0; i < n; ++i) h[i] = (i * 37) % 101 - 50;
  int *d_in = nullptr, *d_out = nullptr;
  CHECK(cudaMalloc(&d_in, n * sizeof(int)));
  CHECK(cudaMalloc(&d_out, 20000 * sizeof(int)));
  CHECK(cudaMemcpy(d_in, h.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  const int block_sizes[] = {32, 128, 512, 1024};
  for (int bs : block_sizes) {
    int blocks = (n + bs - 1) / bs;
    block_sum<<<blocks, bs, bs * sizeof(int)>>>(d_in, d_out, n);
    CHECK(cudaGetLastError());
    std::vector<int> got(blocks), want(blocks, 0);
    CHECK(cudaMemcpy(got.data(), d_out, blocks * sizeof(int), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; ++i) want[i / bs] += h[i];
    char what[64];
    snprintf(what, sizeof what, "block_sum with %d threads / %zu bytes", bs, bs * sizeof(int));
    check_ints(what, got.data(), want.data(), blocks);
  }

  // ---- static + dynamic shared memory in one kernel ----
  {
    cudaFuncAttributes fa;
    CHECK(cudaFuncGetAttributes(&fa, static_and_dynamic));
    EXPECT(fa.sharedSizeBytes == 64 * sizeof(int), "static_and_dynamic sharedSizeBytes = %zu",
           fa.sharedSizeBytes);
    const int ndyn = 3000;  // 12000 bytes of dynamic shared memory
    static_and_dynamic<<<1, 256, ndyn * sizeof(int)>>>(d_out, ndyn);
    CHECK(cudaGetLastError());
    std::vector<int> got(64 + ndyn), want(64 + ndyn);
    CHECK(cudaMemcpy(got.data(), d_out, got.size() * sizeof(int), cudaMemcpyDeviceToHost));
    for (int t = 0; t < 64; ++t) want[t] = 1000 + 63 - t;
    for (int i = 0; i < ndyn; ++i) want[64 + i] = -(ndyn - 1 - i);
    check_ints("static_and_dynamic", got.data(), want.data(), want.size());
  }

  // ---- more than the default limit without opting in ----
  const int big_bytes = 64 * 1024;
  const int big_words = big_bytes / (int)sizeof(int);
  cudaFuncAttributes fa;
  CHECK(cudaFuncGetAttributes(&fa, big_dynamic));
  printf("big_dynamic: sharedSizeBytes %zu, maxDynamicSharedSizeBytes %d (default)\n",
         fa.sharedSizeBytes, fa.maxDynamicSharedSizeBytes);
  EXPECT(fa.sharedSizeBytes == 0, "big_dynamic has %zu bytes of static shared memory",
         fa.sharedSizeBytes);
  if ((size_t)big_bytes <= prop.sharedMemPerBlock) {
    printf("note: sharedMemPerBlock >= 64 KiB, over-limit launch check skipped\n");
  } else {
    EXPECT(fa.maxDynamicSharedSizeBytes < big_bytes,
           "default maxDynamicSharedSizeBytes %d already >= 64 KiB", fa.maxDynamicSharedSizeBytes);
    big_dynamic<<<1, 256, big_bytes>>>(d_out, big_words);
    CHECK_RET(cudaGetLastError(), cudaErrorInvalidValue);  // see the header comment
    CHECK(cudaGetLastError());                               // not sticky
    CHECK(cudaDeviceSynchronize());                          // the context is unaffected
  }

  // ---- opting in ----
  if (prop.sharedMemPerBlockOptin < (size_t)big_bytes + fa.sharedSizeBytes) {
    printf("note: sharedMemPerBlockOptin %zu < 64 KiB, opt-in part skipped\n",
           prop.sharedMemPerBlockOptin);
  } else {
    // Documented: "cudaErrorInvalidValue if ... the value is incorrect" (the sum of this value
    // and the static shared size cannot exceed sharedMemPerBlockOptin).
    CHECK_FAILS(cudaFuncSetAttribute(big_dynamic, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                     (int)prop.sharedMemPerBlockOptin + 1),
                cudaErrorInvalidValue);
    CHECK(cudaFuncSetAttribute(big_dynamic, cudaFuncAttributeMaxDynamicSharedMemorySize,
                               big_bytes));
    CHECK(cudaFuncGetAttributes(&fa, big_dynamic));
    EXPECT(fa.maxDynamicSharedSizeBytes == big_bytes,
           "maxDynamicSharedSizeBytes = %d after cudaFuncSetAttribute(%d)",
           fa.maxDynamicSharedSizeBytes, big_bytes);
    CHECK(cudaMemset(d_out, 0, big_bytes));
    big_dynamic<<<1, 256, big_bytes>>>(d_out, big_words);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    std::vector<int> got(big_words), want(big_words);
    CHECK(cudaMemcpy(got.data(), d_out, big_bytes, cudaMemcpyDeviceToHost));
    for (int i = 0; i < big_words; ++i) want[i] = (big_words - 1 - i) * 7 + 1;
    check_ints("big_dynamic with 64 KiB after opt-in", got.data(), want.data(), big_words);

    // Still limited to the value that was set.
    big_dynamic<<<1, 256, big_bytes + 16>>>(d_out, big_words);
    CHECK_RET(cudaGetLastError(), cudaErrorInvalidValue);
    CHECK(cudaGetLastError());
  }

  CHECK(cudaFree(d_in));
  CHECK(cudaFree(d_out));
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaGetLastError());
  return report_pass();
}
