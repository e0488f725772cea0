// tile_partition.cu - cooperative groups tiles larger than a warp (sm_80 and later).
//
// Covers: cg::tiled_partition<64> and <128> of a 256-thread block: thread_rank,
// meta_group_rank/size, cg::reduce over the tile and tile.sync(). On sm_80+ the library
// keeps its multi-warp scratch in the system-reserved shared memory it finds through
// %reserved_smem_offset_1, so the kernels also check that this region is apart from the
// program's own (static and dynamic) shared memory, whose contents must survive the tile
// collectives, and read %reserved_smem_offset_begin/_end/_cap/_0/_1: the region lies inside
// the CTA's shared window, with at least the 288 bytes the library counts on from _1.
//
// Build: nvcc -cudart shared -arch=sm_80 -o tile_partition tile_partition.cu
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

#define TEST_NAME "tile_partition"
#include "cuda_check.h"

namespace cg = cooperative_groups;

static const int kThreads = 256;
static const int kBlocks = 3;

// Per thread: sum over its tile of (block*1000 + thread), meta_group_rank, thread_rank,
// then whether its shared memory pattern survived.
template <unsigned kTile>
__global__ void tile_sums(int* sums, int* meta, int* rank, int* intact) {
  __shared__ int fixed[kThreads];
  extern __shared__ int dynamic[];
  const int t = threadIdx.x;
  fixed[t] = 7 * t + 1;
  dynamic[t] = -3 * t;
  __syncthreads();
  auto tile = cg::tiled_partition<kTile>(cg::this_thread_block());
  const int v = blockIdx.x * 1000 + t;
  const int s = cg::reduce(tile, v, cg::plus<int>());
  tile.sync();
  const int m = cg::reduce(tile, v, cg::greater<int>());
  const int g = blockIdx.x * kThreads + t;
  sums[g] = s + (m << 20);
  meta[g] = tile.meta_group_rank() * 100 + tile.meta_group_size();
  rank[g] = tile.thread_rank();
  __syncthreads();
  intact[g] = fixed[t] == 7 * t + 1 && dynamic[t] == -3 * t;
}

__global__ void reserved_layout(unsigned* out) {
  unsigned begin, end, cap, first, second, dyn, total;
  asm("mov.u32 %0, %%reserved_smem_offset_begin;" : "=r"(begin));
  asm("mov.u32 %0, %%reserved_smem_offset_end;" : "=r"(end));
  asm("mov.u32 %0, %%reserved_smem_offset_cap;" : "=r"(cap));
  asm("mov.u32 %0, %%reserved_smem_offset_0;" : "=r"(first));
  asm("mov.u32 %0, %%reserved_smem_offset_1;" : "=r"(second));
  asm("mov.u32 %0, %%dynamic_smem_size;" : "=r"(dyn));
  asm("mov.u32 %0, %%total_smem_size;" : "=r"(total));
  if (threadIdx.x == 0) {
    out[0] = begin, out[1] = end, out[2] = cap, out[3] = first, out[4] = second;
    out[5] = dyn, out[6] = total;
  }
}

template <unsigned kTile>
static void check_tiles() {
  const int n = kBlocks * kThreads;
  int *sums, *meta, *rank, *intact;
  CHECK(cudaMalloc(&sums, n * sizeof(int)));
  CHECK(cudaMalloc(&meta, n * sizeof(int)));
  CHECK(cudaMalloc(&rank, n * sizeof(int)));
  CHECK(cudaMalloc(&intact, n * sizeof(int)));
  tile_sums<kTile><<<kBlocks, kThreads, kThreads * sizeof(int)>>>(sums, meta, rank, intact);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  int got[4][kBlocks * kThreads], want[4][kBlocks * kThreads];
  CHECK(cudaMemcpy(got[0], sums, sizeof got[0], cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(got[1], meta, sizeof got[1], cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(got[2], rank, sizeof got[2], cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(got[3], intact, sizeof got[3], cudaMemcpyDeviceToHost));
  for (int b = 0; b < kBlocks; ++b)
    for (int t = 0; t < kThreads; ++t) {
      const int first = t / kTile * kTile, g = b * kThreads + t;
      int sum = 0;
      for (int i = first; i < first + (int)kTile; ++i) sum += b * 1000 + i;
      const int max = b * 1000 + first + kTile - 1;
      want[0][g] = sum + (max << 20);
      want[1][g] = t / kTile * 100 + kThreads / kTile;
      want[2][g] = t % kTile;
      want[3][g] = 1;
    }
  char what[64];
  const char* names[4] = {"sum", "meta_group", "thread_rank", "shared memory intact"};
  for (int k = 0; k < 4; ++k) {
    snprintf(what, sizeof what, "tile %u %s", kTile, names[k]);
    check_ints(what, got[k], want[k], n);
  }
  CHECK(cudaFree(sums));
  CHECK(cudaFree(meta));
  CHECK(cudaFree(rank));
  CHECK(cudaFree(intact));
}

int main() {
  check_tiles<64>();
  check_tiles<128>();

  unsigned* out;
  const unsigned dyn_bytes = 100;
  CHECK(cudaMalloc(&out, 7 * sizeof(unsigned)));
  reserved_layout<<<1, 32, dyn_bytes>>>(out);
  CHECK(cudaGetLastError());
  unsigned r[7];
  CHECK(cudaMemcpy(r, out, sizeof r, cudaMemcpyDeviceToHost));
  const unsigned begin = r[0], end = r[1], cap = r[2], first = r[3], second = r[4];
  EXPECT(r[5] == dyn_bytes, "%%dynamic_smem_size %u", r[5]);
  EXPECT(begin < end && end - begin == cap, "reserved region [%u, %u), cap %u", begin, end, cap);
  EXPECT(first >= begin && first < end, "%%reserved_smem_offset_0 %u outside [%u, %u)", first,
         begin, end);
  EXPECT(second >= begin && second + 288 <= end,
         "%%reserved_smem_offset_1 %u leaves less than 288 bytes before %u", second, end);
  CHECK(cudaFree(out));
  return report_pass();
}
