// async.cu -- asynchronous global->shared copies (cp.async on sm_80+; the same
// APIs fall back to ordinary loads/stores on sm_75).
//
// pipeline_scale(in, out, n): float in[n], out[n]; blockDim.x == 256.  Each block
//     stages 256-float chunks through two shared buffers with
//     __pipeline_memcpy_async / __pipeline_commit / __pipeline_wait_prior
//     (double buffering, grid-stride over chunks).  out[i] = 2 * in[i] + 1.
//     n must be a multiple of 256.
// pipeline_vec4(in, out, n4): float4 in[n4], out[n4]; 16-byte async copies;
//     out[i] = in[i] * (x:1, y:2, z:3, w:4) componentwise.  blockDim.x == 128,
//     n4 a multiple of 128.
// memcpy_async_barrier(in, out, n): int in[n], out[n]; blockDim.x == 128, n a
//     multiple of 128; cuda::memcpy_async of each block's 128-int slice into shared
//     memory completed through a block-scope cuda::barrier; out[i] = in[i] ^ 0x5a5a.
// cg_memcpy_async(in, out, n): float in[n], out[n]; blockDim.x == 128,
//     cooperative_groups::memcpy_async + cg::wait; out[i] = in[i] * in[i].
//     n must be a multiple of 512 (each block stages 512 floats per iteration).

#include <cooperative_groups.h>
#include <cooperative_groups/memcpy_async.h>
#include <cuda/barrier>
#include <cuda_pipeline.h>
namespace cg = cooperative_groups;

extern "C" __global__ void pipeline_scale(const float* in, float* out, int n) {
  __shared__ float buf[2][256];
  int nchunks = n / 256;
  int chunk = blockIdx.x;
  if (chunk >= nchunks) return;
  int stage = 0;
  __pipeline_memcpy_async(&buf[0][threadIdx.x], &in[chunk * 256 + threadIdx.x], sizeof(float));
  __pipeline_commit();
  for (; chunk < nchunks; chunk += gridDim.x) {
    int next = chunk + gridDim.x;
    if (next < nchunks)
      __pipeline_memcpy_async(&buf[stage ^ 1][threadIdx.x], &in[next * 256 + threadIdx.x],
                              sizeof(float));
    __pipeline_commit();
    __pipeline_wait_prior(1);
    __syncthreads();
    out[chunk * 256 + threadIdx.x] = 2.0f * buf[stage][threadIdx.x] + 1.0f;
    __syncthreads();
    stage ^= 1;
  }
}

extern "C" __global__ void pipeline_vec4(const float4* in, float4* out, int n4) {
  __shared__ float4 s[128];
  int i = blockIdx.x * 128 + threadIdx.x;
  if (i >= n4) return;
  __pipeline_memcpy_async(&s[threadIdx.x], &in[i], sizeof(float4));
  __pipeline_commit();
  __pipeline_wait_prior(0);
  float4 v = s[threadIdx.x];
  out[i] = make_float4(v.x, v.y * 2.0f, v.z * 3.0f, v.w * 4.0f);
}

extern "C" __global__ void memcpy_async_barrier(const int* in, int* out, int n) {
  __shared__ int s[128];
#pragma nv_diag_suppress static_var_with_dynamic_init
  __shared__ cuda::barrier<cuda::thread_scope_block> bar;
  auto block = cg::this_thread_block();
  if (block.thread_rank() == 0) init(&bar, block.size());
  block.sync();
  int base = blockIdx.x * 128;
  if (base >= n) return;
  cuda::memcpy_async(block, s, in + base, sizeof(int) * 128, bar);
  bar.arrive_and_wait();
  out[base + threadIdx.x] = s[threadIdx.x] ^ 0x5a5a;
}

extern "C" __global__ void cg_memcpy_async(const float* in, float* out, int n) {
  __shared__ float s[512];
  auto block = cg::this_thread_block();
  for (int base = blockIdx.x * 512; base < n; base += gridDim.x * 512) {
    cg::memcpy_async(block, s, in + base, sizeof(float) * 512);
    cg::wait(block);
    for (int k = threadIdx.x; k < 512; k += blockDim.x) out[base + k] = s[k] * s[k];
    block.sync();
  }
}
