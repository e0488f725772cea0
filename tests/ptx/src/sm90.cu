// sm90.cu -- Hopper (sm_90) features.  Every feature is guarded by
// __CUDA_ARCH__ >= 900; on older arches the kernels exist but their bodies are
// reduced to a trivial fallback described below, so every variant compiles.
//
// cluster_exchange(out): __cluster_dims__(2,1,1) (sm_90 only; attribute omitted on
//     older arches), blockDim.x == 64, gridDim.x even.  Each block fills
//     shared int s[64] with s[k] = blockIdx.x * 1000 + k, cluster.sync(), then reads
//     its *peer* block's array through distributed shared memory
//     (cluster.map_shared_rank(s, rank ^ 1)); out[blockIdx.x*64 + k] =
//     (blockIdx.x ^ 1) * 1000 + k.  Also out[gridDim.x*64 + blockIdx.x] =
//     cluster.block_rank() + 10 * cluster.num_blocks() = (blockIdx.x & 1) + 20.
//     int out[gridDim.x * 65].  Fallback (< sm_90): out[b*64+k] = (b^1)*1000+k computed
//     directly, same values.
// mbarrier_phases(in, out, n): int in[n], out[n]; blockDim.x == 128, 1 block, n <= 128.
//     Two phases synchronised with a block-scope cuda::barrier (mbarrier):
//     phase 1 writes s[t] = in[t] * 3; arrive_and_wait; phase 2 out[t] =
//     s[(t + 1) % n] + s[t]; fallback uses __syncthreads().
// bulk_copy(in, out, n): float in[n], out[n], n a multiple of 256 and 16-byte aligned;
//     blockDim.x == 256.  Each block copies a 256-float slice to shared memory with
//     cuda::memcpy_async(..., cuda::aligned_size_t<16>, barrier) (TMA bulk copy
//     with mbarrier expect_tx on sm_90); out[i] = in[i] + 0.5f.
// elect_leader(counter, out): unsigned counter[1] (zeroed); out[T/32] per warp.
//     One lane per warp is elected with cg::invoke_one (elect.sync on sm_90) and
//     does atomicAdd(counter, 1); invoke_one_broadcast then broadcasts the constant
//     1 from an elected lane and lane 0 stores it: out[warp] = 1.  Final
//     *counter == number of warps.
// pdl_consumer(in, out, n): programmatic dependent launch: waits with
//     cudaGridDependencySynchronize() (griddepcontrol.wait), computes out[i] =
//     in[i] * 2 for i < n, then cudaTriggerProgrammaticLaunchCompletion()
//     (griddepcontrol.launch_dependents).  Fallback: just the computation.

#include <cooperative_groups.h>
#include <cuda/barrier>
namespace cg = cooperative_groups;

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define SM90 1
#define CLUSTER2 __cluster_dims__(2, 1, 1)
#else
#define SM90 0
#define CLUSTER2
#endif

extern "C" __global__ void CLUSTER2 cluster_exchange(int* out) {
  __shared__ int s[64];
  int k = threadIdx.x;
#if SM90
  cg::cluster_group cluster = cg::this_cluster();
  s[k] = blockIdx.x * 1000 + k;
  cluster.sync();
  unsigned rank = cluster.block_rank();
  int* peer = cluster.map_shared_rank(s, rank ^ 1u);
  out[blockIdx.x * 64 + k] = peer[k];
  if (k == 0) out[gridDim.x * 64 + blockIdx.x] = (int)rank + 10 * (int)cluster.num_blocks();
  cluster.sync();  // keep shared memory alive until the peer has read it
#else
  s[k] = (blockIdx.x ^ 1) * 1000 + k;
  __syncthreads();
  out[blockIdx.x * 64 + k] = s[k];
  if (k == 0) out[gridDim.x * 64 + blockIdx.x] = (int)(blockIdx.x & 1) + 20;
#endif
}

extern "C" __global__ void mbarrier_phases(const int* in, int* out, int n) {
  __shared__ int s[128];
  int t = threadIdx.x;
#if SM90
#pragma nv_diag_suppress static_var_with_dynamic_init
  __shared__ cuda::barrier<cuda::thread_scope_block> bar;
  if (t == 0) init(&bar, blockDim.x);
  __syncthreads();
  if (t < n) s[t] = in[t] * 3;
  bar.arrive_and_wait();
  if (t < n) out[t] = s[(t + 1) % n] + s[t];
  bar.arrive_and_wait();
#else
  if (t < n) s[t] = in[t] * 3;
  __syncthreads();
  if (t < n) out[t] = s[(t + 1) % n] + s[t];
#endif
}

extern "C" __global__ void bulk_copy(const float* in, float* out, int n) {
  __shared__ alignas(128) float s[256];
  int base = blockIdx.x * 256;
  if (base >= n) return;
#if SM90
#pragma nv_diag_suppress static_var_with_dynamic_init
  __shared__ cuda::barrier<cuda::thread_scope_block> bar;
  auto block = cg::this_thread_block();
  if (block.thread_rank() == 0) init(&bar, block.size());
  block.sync();
  cuda::memcpy_async(block, s, in + base, cuda::aligned_size_t<16>(sizeof(float) * 256), bar);
  bar.arrive_and_wait();
#else
  s[threadIdx.x] = in[base + threadIdx.x];
  __syncthreads();
#endif
  out[base + threadIdx.x] = s[threadIdx.x] + 0.5f;
}

extern "C" __global__ void elect_leader(unsigned* counter, int* out) {
  auto warp = cg::tiled_partition<32>(cg::this_thread_block());
  int wid = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
#if SM90
  cg::invoke_one(warp, [&] { atomicAdd(counter, 1u); });
  int one = cg::invoke_one_broadcast(warp, [] { return 1; });
#else
  if (warp.thread_rank() == 0) atomicAdd(counter, 1u);
  int one = 1;
#endif
  if (warp.thread_rank() == 0) out[wid] = one;
}

extern "C" __global__ void pdl_consumer(const float* in, float* out, int n) {
#if SM90
  cudaGridDependencySynchronize();
#endif
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] * 2.0f;
#if SM90
  cudaTriggerProgrammaticLaunchCompletion();
#endif
}
