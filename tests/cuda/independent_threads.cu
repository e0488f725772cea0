// independent_threads.cu - the warp-level examples that need independent thread scheduling
// (compute capability 7.0 and later), each checked against what a GPU gives.
//
// Covers:
// - producer/consumer within a warp through shared memory: the two halves of a divergent
//   branch each write their slot, meet at __syncwarp() and read the other half's slot;
// - a flag handoff: lanes 1..31 spin on a flag that lane 0 sets after writing the data;
// - a lock taken by the lanes of a divergent warp: every thread of the grid takes one global
//   spin lock in turn (atomicCAS in a loop) and increments a plain counter;
// - a tree reduction in shared memory with __syncwarp() between the steps.
//
// Build: nvcc -cudart shared -o independent_threads independent_threads.cu
#define TEST_NAME "independent_threads"
#include "cuda_check.h"

static const int kWarps = 4;

// Even and odd lanes take different sides of a branch; each side writes, syncs the full warp
// and reads its neighbour's value, which the other side wrote.
__global__ void exchange(int* out) {
  __shared__ int buf[kWarps * 32];
  const int t = threadIdx.x, lane = t % 32;
  volatile int* slot = buf;
  slot[t] = 0;
  __syncwarp();
  int v;
  if (lane % 2 == 0) {
    slot[t] = lane * 10 + 3;
    __syncwarp();
    v = slot[t + 1];
  } else {
    slot[t] = lane * 7 + 1;
    __syncwarp();
    v = slot[t - 1] * 2;
  }
  out[blockIdx.x * blockDim.x + t] = v;
}

// Lane 0 produces, the others wait for its flag.
__global__ void handoff(const int* in, int* out) {
  __shared__ int data[32];
  __shared__ volatile int flag;
  const int lane = threadIdx.x;
  if (lane == 0) flag = 0;
  __syncwarp();
  if (lane != 0) {
    while (flag == 0) {
    }
  } else {
    for (int i = 0; i < 32; ++i) data[i] = in[i] * 3;
    __threadfence_block();
    flag = 1;
  }
  __syncwarp();
  out[lane] = data[lane];
}

__device__ void lock(int* mutex) {
  while (atomicCAS(mutex, 0, 1) != 0) {
  }
  __threadfence();
}

__device__ void unlock(int* mutex) {
  __threadfence();
  atomicExch(mutex, 0);
}

// Every thread takes the lock; inside it, a plain read-modify-write of the counter and a record
// of the order.
__global__ void locked_count(int* mutex, volatile int* count, int* order) {
  lock(mutex);
  const int seen = *count;
  *count = seen + 1;
  order[seen] = blockIdx.x * blockDim.x + threadIdx.x;
  unlock(mutex);
}

// Sum of a warp's 32 values by halving strides, __syncwarp() between the steps.
__global__ void tree_reduce(const int* in, int* out) {
  __shared__ int buf[kWarps * 32];
  const int t = threadIdx.x, lane = t % 32, base = t - lane;
  buf[t] = in[blockIdx.x * blockDim.x + t];
  __syncwarp();
  for (int stride = 16; stride > 0; stride /= 2) {
    int v = 0;
    if (lane < stride) v = buf[t] + buf[t + stride];
    __syncwarp();
    if (lane < stride) buf[t] = v;
    __syncwarp();
  }
  out[blockIdx.x * blockDim.x + t] = buf[base];
}

int main() {
  const int blocks = 2, threads = kWarps * 32, n = blocks * threads;
  int *d_out, *d_in;
  CHECK(cudaMalloc(&d_out, n * sizeof(int)));
  CHECK(cudaMalloc(&d_in, n * sizeof(int)));
  int host_in[blocks * threads], got[blocks * threads], want[blocks * threads];

  exchange<<<blocks, threads>>>(d_out);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(got, d_out, sizeof got, cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i) {
    const int lane = i % 32;
    want[i] = lane % 2 == 0 ? (lane + 1) * 7 + 1 : ((lane - 1) * 10 + 3) * 2;
  }
  check_ints("exchange across a divergent branch", got, want, n);

  for (int i = 0; i < 32; ++i) host_in[i] = 100 + i * i;
  CHECK(cudaMemcpy(d_in, host_in, 32 * sizeof(int), cudaMemcpyHostToDevice));
  handoff<<<1, 32>>>(d_in, d_out);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(got, d_out, 32 * sizeof(int), cudaMemcpyDeviceToHost));
  for (int i = 0; i < 32; ++i) want[i] = host_in[i] * 3;
  check_ints("flag handoff within a warp", got, want, 32);

  int *d_mutex, *d_count;
  CHECK(cudaMalloc(&d_mutex, sizeof(int)));
  CHECK(cudaMalloc(&d_count, sizeof(int)));
  CHECK(cudaMemset(d_mutex, 0, sizeof(int)));
  CHECK(cudaMemset(d_count, 0, sizeof(int)));
  CHECK(cudaMemset(d_out, 0xff, n * sizeof(int)));
  locked_count<<<blocks, threads>>>(d_mutex, d_count, d_out);
  CHECK(cudaGetLastError());
  int count = 0;
  CHECK(cudaMemcpy(&count, d_count, sizeof count, cudaMemcpyDeviceToHost));
  EXPECT(count == n, "locked counter %d, expected %d", count, n);
  CHECK(cudaMemcpy(got, d_out, sizeof got, cudaMemcpyDeviceToHost));
  int seen[blocks * threads] = {};
  for (int i = 0; i < n; ++i) {
    EXPECT(got[i] >= 0 && got[i] < n, "lock order entry %d is %d", i, got[i]);
    ++seen[got[i]];
  }
  for (int i = 0; i < n; ++i) EXPECT(seen[i] == 1, "thread %d took the lock %d times", i, seen[i]);

  for (int i = 0; i < n; ++i) host_in[i] = (i * 37) % 101 - 50;
  CHECK(cudaMemcpy(d_in, host_in, sizeof host_in, cudaMemcpyHostToDevice));
  tree_reduce<<<blocks, threads>>>(d_in, d_out);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(got, d_out, sizeof got, cudaMemcpyDeviceToHost));
  for (int w = 0; w < n / 32; ++w) {
    int sum = 0;
    for (int i = 0; i < 32; ++i) sum += host_in[w * 32 + i];
    for (int i = 0; i < 32; ++i) want[w * 32 + i] = sum;
  }
  check_ints("tree reduction with __syncwarp", got, want, n);

  CHECK(cudaFree(d_out));
  CHECK(cudaFree(d_in));
  CHECK(cudaFree(d_mutex));
  CHECK(cudaFree(d_count));
  return report_pass();
}
