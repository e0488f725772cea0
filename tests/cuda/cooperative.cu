// cooperative.cu - cooperative launches and grid-wide synchronisation.
//
// Covers: cudaDeviceGetAttribute(cudaDevAttrCooperativeLaunch) == 1;
// cudaOccupancyMaxActiveBlocksPerMultiprocessor x multiProcessorCount as the co-residency
// limit; cudaLaunchCooperativeKernel of a kernel using cooperative_groups::this_grid().sync()
// between several phases (each block writes, grid.sync(), each thread reads another block's
// data; block partial sums, grid.sync(), one thread combines them, grid.sync(), every thread
// reads the combined result) with min(limit, 64) blocks of 128 threads; grid_group size and
// thread_rank; a cooperative launch with one block more than can be co-resident ->
// cudaErrorCooperativeLaunchTooLarge (documented: "The total number of blocks launched cannot
// exceed the maximum number of blocks per multiprocessor as returned by
// cudaOccupancyMaxActiveBlocksPerMultiprocessor ... times the number of multiprocessors").
//
// Build: nvcc -cudart shared -o cooperative cooperative.cu
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cooperative_groups.h>
#include <cuda_runtime.h>

namespace cg = cooperative_groups;

#define TEST_NAME "cooperative"
#include "cuda_check.h"

static const int kThreads = 128;

// out layout per thread t: seen[t] = data of another block, final[t] = total - t.
__global__ void coop_phases(int* data, int* partial, long long* total, int* seen,
                            long long* final_vals, unsigned* geometry) {
  cg::grid_group grid = cg::this_grid();
  const unsigned t = (unsigned)grid.thread_rank();
  const unsigned n = (unsigned)grid.size();
  if (t == 0) {
    geometry[0] = n;
    geometry[1] = gridDim.x * blockDim.x;
  }
  // Phase 1: every thread writes its own element.
  data[t] = (int)(t * 3u + 1u);
  grid.sync();
  // Phase 2: read an element written by a thread of another block (half a grid away).
  unsigned other = (t + blockDim.x * (gridDim.x / 2 + 1)) % n;
  seen[t] = data[other];
  // Block partial sums.
  __shared__ int block_sum;
  if (threadIdx.x == 0) block_sum = 0;
  __syncthreads();
  atomicAdd(&block_sum, data[t]);
  __syncthreads();
  if (threadIdx.x == 0) partial[blockIdx.x] = block_sum;
  grid.sync();
  // Phase 3: one thread combines all block sums.
  if (t == 0) {
    long long s = 0;
    for (unsigned b = 0; b < gridDim.x; ++b) s += partial[b];
    *total = s;
  }
  grid.sync();
  // Phase 4: everybody sees the combined value.
  final_vals[t] = *total - (long long)t;
}

int main() {
  CHECK(cudaSetDevice(0));
  int coop = 0, sms = 0;
  CHECK(cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, 0));
  EXPECT(coop == 1, "cudaDevAttrCooperativeLaunch = %d", coop);
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));

  int per_sm = 0;
  CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, coop_phases, kThreads, 0));
  EXPECT(per_sm >= 1, "occupancy of coop_phases with %d threads: %d blocks/SM", kThreads,
         per_sm);
  const int limit = per_sm * sms;
  const int blocks = limit < 64 ? limit : 64;
  const int n = blocks * kThreads;
  printf("co-resident limit %d blocks (%d/SM x %d SMs); launching %d blocks of %d\n", limit,
         per_sm, sms, blocks, kThreads);

  int *d_data = nullptr, *d_partial = nullptr, *d_seen = nullptr;
  long long *d_total = nullptr, *d_final = nullptr;
  unsigned* d_geom = nullptr;
  CHECK(cudaMalloc(&d_data, n * sizeof(int)));
  CHECK(cudaMalloc(&d_partial, blocks * sizeof(int)));
  CHECK(cudaMalloc(&d_seen, n * sizeof(int)));
  CHECK(cudaMalloc(&d_total, sizeof(long long)));
  CHECK(cudaMalloc(&d_final, n * sizeof(long long)));
  CHECK(cudaMalloc(&d_geom, 2 * sizeof(unsigned)));
  CHECK(cudaMemset(d_seen, 0xff, n * sizeof(int)));

  void* args[] = {&d_data, &d_partial, &d_total, &d_seen, &d_final, &d_geom};
  CHECK(cudaLaunchCooperativeKernel((const void*)coop_phases, dim3(blocks), dim3(kThreads), args,
                                    0, 0));
  CHECK(cudaDeviceSynchronize());

  std::vector<int> seen(n);
  std::vector<long long> final_vals(n);
  unsigned geom[2];
  long long total = 0;
  CHECK(cudaMemcpy(seen.data(), d_seen, n * sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(final_vals.data(), d_final, n * sizeof(long long), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(geom, d_geom, sizeof geom, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(&total, d_total, sizeof total, cudaMemcpyDeviceToHost));

  EXPECT(geom[0] == (unsigned)n && geom[1] == (unsigned)n, "grid.size() %u, gridDim*blockDim %u",
         geom[0], geom[1]);
  long long want_total = 0;
  for (int t = 0; t < n; ++t) want_total += 3LL * t + 1;
  EXPECT(total == want_total, "combined sum %lld, expected %lld", total, want_total);
  for (int t = 0; t < n; ++t) {
    unsigned other = ((unsigned)t + kThreads * (blocks / 2 + 1)) % (unsigned)n;
    int want = (int)(other * 3u + 1u);
    EXPECT(seen[t] == want, "phase 2: thread %d read %d, expected %d (written by thread %u)", t,
           seen[t], want, other);
    EXPECT(final_vals[t] == want_total - t, "phase 4: thread %d saw %lld, expected %lld", t,
           final_vals[t], want_total - t);
  }

  // Second launch, on a stream, through the C++ template overload.
  cudaStream_t s;
  CHECK(cudaStreamCreate(&s));
  CHECK(cudaMemset(d_total, 0, sizeof(long long)));
  CHECK(cudaLaunchCooperativeKernel(coop_phases, dim3(blocks), dim3(kThreads), args, 0, s));
  CHECK(cudaStreamSynchronize(s));
  CHECK(cudaMemcpy(&total, d_total, sizeof total, cudaMemcpyDeviceToHost));
  EXPECT(total == want_total, "second launch: combined sum %lld, expected %lld", total,
         want_total);
  CHECK(cudaStreamDestroy(s));

  // One block more than can be co-resident.
  CHECK_FAILS(cudaLaunchCooperativeKernel((const void*)coop_phases, dim3(limit + 1),
                                          dim3(kThreads), args, 0, 0),
              cudaErrorCooperativeLaunchTooLarge);
  CHECK(cudaDeviceSynchronize());  // the context is unaffected

  CHECK(cudaFree(d_data));
  CHECK(cudaFree(d_partial));
  CHECK(cudaFree(d_seen));
  CHECK(cudaFree(d_total));
  CHECK(cudaFree(d_final));
  CHECK(cudaFree(d_geom));
  CHECK(cudaGetLastError());
  return report_pass();
}
