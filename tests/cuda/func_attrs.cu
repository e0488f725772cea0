// func_attrs.cu - function attributes and the occupancy API.
//
// Covers:
//  - cudaFuncGetAttributes on several kernels: 0 < numRegs <= 255, 0 < maxThreadsPerBlock <=
//    1024 and <= 128 for a __launch_bounds__(128) kernel, sharedSizeBytes equal to the static
//    __shared__ array of a kernel, ptxVersion*10 among the virtual architectures the program
//    was built for (__CUDA_ARCH_LIST__), binaryVersion >= ptxVersion;
//  - cudaFuncSetCacheConfig; cudaFuncSetAttribute(cudaFuncAttributePreferredSharedMemoryCarveout)
//    read back through cudaFuncGetAttributes, and an out-of-range carveout (cudaErrorInvalidValue);
//  - cudaOccupancyMaxActiveBlocksPerMultiprocessor for block sizes 32..1024 (at least one block,
//    blocks*threads <= maxThreadsPerMultiProcessor, blocks <= maxBlocksPerMultiProcessor,
//    non-increasing in the block size), ...WithFlags (cudaOccupancyDefault gives the same
//    numbers), dynamic shared memory limiting the count;
//  - cudaOccupancyMaxPotentialBlockSize (a multiple of 32, <= 1024, <= the launch bound, minimum
//    grid size > 0); cudaOccupancyAvailableDynamicSMemPerBlock;
//  - cudaFuncGetAttributes on a host function -> cudaErrorInvalidDeviceFunction (the only error
//    documented for it) up to CUDA 12; cudaErrorInvalidResourceHandle with CUDA 13 (measured on
//    an H100: the runtime takes an unknown function for a cudaKernel_t handle).
//
// Build: nvcc -cudart shared -o func_attrs func_attrs.cu
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <cuda_runtime.h>

#define TEST_NAME "func_attrs"
#include "cuda_check.h"

#ifndef __CUDA_ARCH_LIST__
#error "__CUDA_ARCH_LIST__ is not defined (needs nvcc >= 11.5)"
#endif
static const int kArchList[] = {__CUDA_ARCH_LIST__};

__global__ void k_simple(float* out, const float* in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float x = in[i];
    out[i] = x * x * 0.5f + sinf(x) - (float)i;
  }
}

__global__ void __launch_bounds__(128) k_bounded(int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = i * 3 + (int)blockDim.x;
}

__global__ void k_static_smem(float* out) {
  __shared__ float tile[300];  // 1200 bytes
  for (int i = threadIdx.x; i < 300; i += blockDim.x) tile[i] = (float)i * 2.0f;
  __syncthreads();
  for (int i = threadIdx.x; i < 300; i += blockDim.x) out[i] = tile[299 - i];
}

void not_a_kernel(int* p) {
  if (p) *p = 1;
}

static cudaFuncAttributes get_attrs(const char* name, const void* fn, const cudaDeviceProp& prop) {
  cudaFuncAttributes a;
  memset(&a, 0, sizeof a);
  CHECK(cudaFuncGetAttributes(&a, fn));
  printf("%s: numRegs %d maxThreadsPerBlock %d sharedSizeBytes %zu localSizeBytes %zu "
         "constSizeBytes %zu maxDynamicSharedSizeBytes %d ptxVersion %d binaryVersion %d\n",
         name, a.numRegs, a.maxThreadsPerBlock, a.sharedSizeBytes, a.localSizeBytes,
         a.constSizeBytes, a.maxDynamicSharedSizeBytes, a.ptxVersion, a.binaryVersion);
  EXPECT(a.numRegs > 0 && a.numRegs <= 255, "%s: numRegs %d", name, a.numRegs);
  EXPECT(a.maxThreadsPerBlock > 0 && a.maxThreadsPerBlock <= prop.maxThreadsPerBlock,
         "%s: maxThreadsPerBlock %d", name, a.maxThreadsPerBlock);
  bool listed = false;
  for (int arch : kArchList) listed = listed || arch == a.ptxVersion * 10;
  EXPECT(listed, "%s: ptxVersion %d (x10) is not in __CUDA_ARCH_LIST__ (first entry %d)", name,
         a.ptxVersion, kArchList[0]);
  EXPECT(a.binaryVersion >= a.ptxVersion, "%s: binaryVersion %d < ptxVersion %d", name,
         a.binaryVersion, a.ptxVersion);
  EXPECT(a.binaryVersion <= prop.major * 10 + prop.minor,
         "%s: binaryVersion %d above the device's compute capability %d.%d", name,
         a.binaryVersion, prop.major, prop.minor);
  EXPECT(a.maxDynamicSharedSizeBytes >= 0 &&
             (size_t)a.maxDynamicSharedSizeBytes + a.sharedSizeBytes <= prop.sharedMemPerBlockOptin,
         "%s: maxDynamicSharedSizeBytes %d", name, a.maxDynamicSharedSizeBytes);
  return a;
}

int main() {
  CHECK(cudaSetDevice(0));
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  printf("__CUDA_ARCH_LIST__ has %d entries, first %d\n",
         (int)(sizeof kArchList / sizeof kArchList[0]), kArchList[0]);

  // ---- cudaFuncGetAttributes ----
  cudaFuncAttributes simple = get_attrs("k_simple", (const void*)k_simple, prop);
  cudaFuncAttributes bounded = get_attrs("k_bounded", (const void*)k_bounded, prop);
  cudaFuncAttributes smem = get_attrs("k_static_smem", (const void*)k_static_smem, prop);
  EXPECT(bounded.maxThreadsPerBlock <= 128 && bounded.maxThreadsPerBlock >= 32,
         "__launch_bounds__(128) kernel: maxThreadsPerBlock %d", bounded.maxThreadsPerBlock);
  EXPECT(smem.sharedSizeBytes == 300 * sizeof(float), "k_static_smem: sharedSizeBytes %zu",
         smem.sharedSizeBytes);
  EXPECT(simple.sharedSizeBytes == 0, "k_simple: sharedSizeBytes %zu", simple.sharedSizeBytes);
  printf("ptxVersion %d\n", simple.ptxVersion);

  // The kernels run (and the bounded one with its bound).
  {
    int* d = nullptr;
    CHECK(cudaMalloc(&d, 1024 * sizeof(int)));
    k_bounded<<<8, 128>>>(d, 1024);
    CHECK(cudaGetLastError());
    int h[1024];
    CHECK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
    for (int i = 0; i < 1024; ++i)
      EXPECT(h[i] == i * 3 + 128, "k_bounded: index %d: got %d", i, h[i]);
    float* f = nullptr;
    CHECK(cudaMalloc(&f, 300 * sizeof(float)));
    k_static_smem<<<1, 64>>>(f);
    CHECK(cudaGetLastError());
    float hf[300];
    CHECK(cudaMemcpy(hf, f, sizeof hf, cudaMemcpyDeviceToHost));
    for (int i = 0; i < 300; ++i)
      EXPECT(hf[i] == (float)(299 - i) * 2.0f, "k_static_smem: index %d: got %g", i,
             (double)hf[i]);
    CHECK(cudaFree(d));
    CHECK(cudaFree(f));
  }

  // ---- cache config and carveout ----
  CHECK(cudaFuncSetCacheConfig(k_simple, cudaFuncCachePreferShared));
  CHECK(cudaFuncSetCacheConfig(k_bounded, cudaFuncCachePreferL1));
  CHECK(cudaFuncSetCacheConfig(k_static_smem, cudaFuncCachePreferNone));
  CHECK(cudaFuncSetAttribute(k_simple, cudaFuncAttributePreferredSharedMemoryCarveout, 50));
  CHECK(cudaFuncGetAttributes(&simple, k_simple));
  EXPECT(simple.preferredShmemCarveout == 50, "preferredShmemCarveout %d after setting 50",
         simple.preferredShmemCarveout);
  CHECK(cudaFuncSetAttribute(k_simple, cudaFuncAttributePreferredSharedMemoryCarveout,
                             cudaSharedmemCarveoutMaxShared));
  CHECK(cudaFuncGetAttributes(&simple, k_simple));
  EXPECT(simple.preferredShmemCarveout == cudaSharedmemCarveoutMaxShared,
         "preferredShmemCarveout %d after setting %d", simple.preferredShmemCarveout,
         (int)cudaSharedmemCarveoutMaxShared);
  // A carveout is a percentage (or -1 for the default): 101 is not a valid value.
  CHECK_FAILS(cudaFuncSetAttribute(k_simple, cudaFuncAttributePreferredSharedMemoryCarveout, 101),
              cudaErrorInvalidValue);

  // ---- occupancy per block size ----
  int prev = 1 << 30;
  for (int bs = 32; bs <= 1024; bs += 32) {
    int blocks = -1, blocks_flags = -1, blocks_nocache = -1;
    CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, k_simple, bs, 0));
    CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(&blocks_flags, k_simple, bs, 0,
                                                                 cudaOccupancyDefault));
    CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
        &blocks_nocache, k_simple, bs, 0, cudaOccupancyDisableCachingOverride));
    EXPECT(blocks >= 1, "block size %d: %d blocks/SM", bs, blocks);
    EXPECT(blocks * bs <= prop.maxThreadsPerMultiProcessor,
           "block size %d: %d blocks/SM exceed %d threads/SM", bs, blocks,
           prop.maxThreadsPerMultiProcessor);
    EXPECT(blocks <= prop.maxBlocksPerMultiProcessor, "block size %d: %d blocks/SM > %d", bs,
           blocks, prop.maxBlocksPerMultiProcessor);
    EXPECT(blocks <= prev, "block size %d: %d blocks/SM, more than %d at the previous size", bs,
           blocks, prev);
    EXPECT(blocks_flags == blocks, "block size %d: WithFlags(default) %d != %d", bs, blocks_flags,
           blocks);
    EXPECT(blocks_nocache >= 1 && blocks_nocache * bs <= prop.maxThreadsPerMultiProcessor,
           "block size %d: WithFlags(DisableCachingOverride) %d", bs, blocks_nocache);
    if (bs == 32 || bs == 256 || bs == 1024)
      printf("occupancy k_simple bs %d: %d blocks/SM\n", bs, blocks);
    prev = blocks;
  }
  // Dynamic shared memory limits the count.
  {
    const size_t dyn = 32 * 1024;
    int blocks = -1;
    CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, k_simple, 128, dyn));
    EXPECT(blocks >= 1 && blocks * dyn <= prop.sharedMemPerMultiprocessor,
           "128 threads + 32 KiB dynamic smem: %d blocks/SM (smem/SM %zu)", blocks,
           prop.sharedMemPerMultiprocessor);
  }

  // ---- suggested block size ----
  {
    int min_grid = -1, bs = -1;
    CHECK(cudaOccupancyMaxPotentialBlockSize(&min_grid, &bs, k_simple, 0, 0));
    printf("cudaOccupancyMaxPotentialBlockSize(k_simple): block %d, min grid %d\n", bs, min_grid);
    EXPECT(bs > 0 && bs <= 1024 && bs % 32 == 0, "k_simple: suggested block size %d", bs);
    EXPECT(min_grid > 0, "k_simple: minimum grid size %d", min_grid);
    CHECK(cudaOccupancyMaxPotentialBlockSize(&min_grid, &bs, k_bounded, 0, 0));
    EXPECT(bs > 0 && bs <= 128 && bs % 32 == 0, "k_bounded: suggested block size %d", bs);
    EXPECT(min_grid > 0, "k_bounded: minimum grid size %d", min_grid);
  }

  // ---- available dynamic shared memory ----
  {
    size_t one = 0, two = 0;
    CHECK(cudaOccupancyAvailableDynamicSMemPerBlock(&one, k_simple, 1, 128));
    CHECK(cudaOccupancyAvailableDynamicSMemPerBlock(&two, k_simple, 2, 128));
    printf("available dynamic smem per block: %zu (1 block/SM), %zu (2 blocks/SM)\n", one, two);
    EXPECT(one > 0 && one <= prop.sharedMemPerBlockOptin, "1 block/SM: %zu bytes", one);
    EXPECT(two <= one, "2 blocks/SM: %zu bytes > %zu for 1 block", two, one);
  }

  // ---- not a kernel ----
  {
    cudaFuncAttributes a;
#if CUDART_VERSION >= 13000
    // CUDA 13 takes an unknown function for a cudaKernel_t handle (measured on an H100).
    CHECK_FAILS(cudaFuncGetAttributes(&a, (const void*)not_a_kernel),
                cudaErrorInvalidResourceHandle);
#else
    CHECK_FAILS(cudaFuncGetAttributes(&a, (const void*)not_a_kernel),
                cudaErrorInvalidDeviceFunction);
#endif
  }

  CHECK(cudaDeviceSynchronize());
  CHECK(cudaGetLastError());
  return report_pass();
}
