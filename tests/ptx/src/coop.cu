// coop.cu -- cooperative groups.
//
// tile_reduce(in, out, n): int in[n]; int out[gridDim.x * blockDim.x / 16] receives,
//     for each 16-thread tile (tiled_partition<16>), the sum of its 16 inputs
//     (elements >= n count 0), computed with tile.shfl_down; written by tile rank 0
//     at index (global thread index / 16).  blockDim.x a multiple of 32.
// tile_shfl(in, out): int in[T]; int out[T]: out[t] = tile16.shfl(in[t], 15 -
//     tile.thread_rank()) -- reverses values within every 16-lane tile.
//     Plus a dynamic tiled_partition(block, 8): out[t] += 1000 * tile8.thread_rank()
//     (= 1000 * (threadIdx.x % 8)).
// block_group(out): thread_block g = this_thread_block(); out[t] =
//     g.thread_rank() + 10000 * g.group_index().x; g.sync() between phases; 1-D.
// coalesced(in, out): int in[T], out[T]: inside `if (in[t] > 0)`, a
//     coalesced_group g; out[t] = g.size() * 100 + g.thread_rank(); others
//     write -1.
// grid_sync_sum(in, partial, out, n): cooperative launch required
//     (cudaLaunchCooperativeKernel); float in[n], float partial[gridDim.x],
//     float out[1]. Phase 1: each block sums its grid-stride elements into
//     partial[block]; grid.sync(); phase 2: block 0 thread 0 writes
//     out[0] = sum(partial).  blockDim.x <= 1024, power of two.
// (grid.sync() does not require -rdc=true with CUDA 12/13.)

#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;

extern "C" __global__ void tile_reduce(const int* in, int* out, int n) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<16> tile = cg::tiled_partition<16>(block);
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  int v = t < n ? in[t] : 0;
  for (int off = tile.size() / 2; off > 0; off /= 2) v += tile.shfl_down(v, off);
  if (tile.thread_rank() == 0) out[t / 16] = v;
}

extern "C" __global__ void tile_shfl(const int* in, int* out) {
  cg::thread_block block = cg::this_thread_block();
  auto tile16 = cg::tiled_partition<16>(block);
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  int r = tile16.shfl(in[t], 15 - tile16.thread_rank());
  cg::thread_group tile8 = cg::tiled_partition(block, 8);
  r += 1000 * (int)tile8.thread_rank();
  out[t] = r;
}

extern "C" __global__ void block_group(int* out) {
  cg::thread_block g = cg::this_thread_block();
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  out[t] = 0;
  g.sync();
  out[t] = (int)g.thread_rank() + 10000 * (int)g.group_index().x;
}

extern "C" __global__ void coalesced(const int* in, int* out) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (in[t] > 0) {
    cg::coalesced_group g = cg::coalesced_threads();
    out[t] = (int)g.size() * 100 + (int)g.thread_rank();
  } else {
    out[t] = -1;
  }
}

extern "C" __global__ void grid_sync_sum(const float* in, float* partial, float* out, int n) {
  cg::grid_group grid = cg::this_grid();
  cg::thread_block block = cg::this_thread_block();
  extern __shared__ float s[];
  float v = 0.0f;
  for (int i = grid.thread_rank(); i < n; i += grid.size()) v += in[i];
  s[threadIdx.x] = v;
  block.sync();
  for (unsigned st = blockDim.x / 2; st > 0; st >>= 1) {
    if (threadIdx.x < st) s[threadIdx.x] += s[threadIdx.x + st];
    block.sync();
  }
  if (threadIdx.x == 0) partial[blockIdx.x] = s[0];
  grid.sync();
  if (grid.thread_rank() == 0) {
    float total = 0.0f;
    for (unsigned b = 0; b < gridDim.x; ++b) total += partial[b];
    out[0] = total;
  }
}

// cg_reduce(in, out): int in[T]; int out[T/32]: warp-tile cg::reduce with
// cg::plus<int>; lane 0 of every warp writes the warp's sum at t/32.
extern "C" __global__ void cg_reduce(const int* in, int* out) {
  auto warp = cg::tiled_partition<32>(cg::this_thread_block());
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  int s = cg::reduce(warp, in[t], cg::plus<int>());
  if (warp.thread_rank() == 0) out[t / 32] = s;
}
