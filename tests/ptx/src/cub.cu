// cub.cu -- CUB block-wide collectives (heavily templated, inlined library code).
//
// cub_block_reduce(in, out): int in[gridDim.x * 128]; int out[gridDim.x].
//     blockDim.x == 128.  out[b] = sum of block b's 128 elements (BlockReduce).
// cub_block_reduce_max(in, out): float in[gridDim.x * 256]; float out[gridDim.x];
//     blockDim.x == 256; out[b] = max of the block's elements
//     (BLOCK_REDUCE_WARP_REDUCTIONS algorithm).
// cub_block_scan(in, out): int in[gridDim.x * 128 * 4]; int out[same].  blockDim.x ==
//     128, 4 items per thread (blocked arrangement: thread t owns elements
//     [4t, 4t+4) of its block's 512).  out = exclusive prefix sum within each
//     block (BlockScan::ExclusiveSum).
// cub_block_scan_inclusive(in, out): float in[gridDim.x*64], out[same];
//     blockDim.x == 64; inclusive prefix max within each block
//     (BLOCK_SCAN_WARP_SCANS).

#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>

extern "C" __global__ void cub_block_reduce(const int* in, int* out) {
  using BR = cub::BlockReduce<int, 128>;
  __shared__ typename BR::TempStorage tmp;
  int v = in[blockIdx.x * 128 + threadIdx.x];
  int s = BR(tmp).Sum(v);
  if (threadIdx.x == 0) out[blockIdx.x] = s;
}

struct MaxOp {
  __device__ float operator()(float a, float b) const { return a > b ? a : b; }
};

extern "C" __global__ void cub_block_reduce_max(const float* in, float* out) {
  using BR = cub::BlockReduce<float, 256, cub::BLOCK_REDUCE_WARP_REDUCTIONS>;
  __shared__ typename BR::TempStorage tmp;
  float v = in[blockIdx.x * 256 + threadIdx.x];
  float m = BR(tmp).Reduce(v, MaxOp());
  if (threadIdx.x == 0) out[blockIdx.x] = m;
}

extern "C" __global__ void cub_block_scan(const int* in, int* out) {
  using BS = cub::BlockScan<int, 128>;
  __shared__ typename BS::TempStorage tmp;
  int items[4];
  const int* base = in + blockIdx.x * 512 + threadIdx.x * 4;
  for (int k = 0; k < 4; ++k) items[k] = base[k];
  BS(tmp).ExclusiveSum(items, items);
  int* obase = out + blockIdx.x * 512 + threadIdx.x * 4;
  for (int k = 0; k < 4; ++k) obase[k] = items[k];
}

extern "C" __global__ void cub_block_scan_inclusive(const float* in, float* out) {
  using BS = cub::BlockScan<float, 64, cub::BLOCK_SCAN_WARP_SCANS>;
  __shared__ typename BS::TempStorage tmp;
  float v = in[blockIdx.x * 64 + threadIdx.x];
  float r;
  BS(tmp).InclusiveScan(v, r, MaxOp());
  out[blockIdx.x * 64 + threadIdx.x] = r;
}
