// cub_test.cu - CUB device-wide primitives and block/warp collectives.
//
// Covers: cub::DeviceReduce::Sum, cub::DeviceScan::ExclusiveSum and InclusiveSum,
// cub::DeviceRadixSort::SortPairs (full 32-bit keys and a 16-bit key range), cub::DeviceSelect::If,
// each with the two-call pattern (temporary storage size query, then the run); a custom kernel
// using cub::BlockReduce and cub::WarpReduce. Results are compared with host references
// (radix sort is stable, so pairs are compared with std::stable_sort).
//
// Build: nvcc -cudart shared -o cub_test cub_test.cu
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cub/cub.cuh>
#include <cuda_runtime.h>

#define TEST_NAME "cub_test"
#include "cuda_check.h"

struct IsOdd {
  __host__ __device__ bool operator()(const int& x) const { return (x & 1) != 0; }
};

template <int BLOCK>
__global__ void block_and_warp_sums(const int* in, int* block_out, int* warp_out, int n) {
  using BlockReduce = cub::BlockReduce<int, BLOCK>;
  using WarpReduce = cub::WarpReduce<int>;
  __shared__ typename BlockReduce::TempStorage block_temp;
  __shared__ typename WarpReduce::TempStorage warp_temp[BLOCK / 32];
  int i = blockIdx.x * BLOCK + threadIdx.x;
  int v = i < n ? in[i] : 0;
  int block_sum = BlockReduce(block_temp).Sum(v);
  if (threadIdx.x == 0) block_out[blockIdx.x] = block_sum;
  int warp = threadIdx.x / 32;
  int warp_sum = WarpReduce(warp_temp[warp]).Sum(v);
  if (threadIdx.x % 32 == 0) warp_out[blockIdx.x * (BLOCK / 32) + warp] = warp_sum;
}

struct Lcg {
  unsigned state;
  explicit Lcg(unsigned seed) : state(seed) {}
  unsigned next() {
    state = state * 1664525u + 1013904223u;
    return state;
  }
};

int main() {
  CHECK(cudaSetDevice(0));
  const int n = 10000;
  Lcg rng(2024);
  std::vector<int> h(n);
  for (int i = 0; i < n; ++i) h[i] = (int)(rng.next() >> 16) % 2001 - 1000;

  int *d_in = nullptr, *d_out = nullptr, *d_count = nullptr;
  CHECK(cudaMalloc(&d_in, n * sizeof(int)));
  CHECK(cudaMalloc(&d_out, n * sizeof(int)));
  CHECK(cudaMalloc(&d_count, sizeof(int)));
  CHECK(cudaMemcpy(d_in, h.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  std::vector<int> got(n), want(n);

  // ---- DeviceReduce::Sum ----
  {
    void* temp = nullptr;
    size_t temp_bytes = 0;
    CHECK(cub::DeviceReduce::Sum(temp, temp_bytes, d_in, d_count, n));
    EXPECT(temp_bytes > 0, "DeviceReduce::Sum needs %zu bytes of temporary storage", temp_bytes);
    CHECK(cudaMalloc(&temp, temp_bytes));
    CHECK(cub::DeviceReduce::Sum(temp, temp_bytes, d_in, d_count, n));
    int sum = 0;
    CHECK(cudaMemcpy(&sum, d_count, sizeof sum, cudaMemcpyDeviceToHost));
    int want_sum = 0;
    for (int v : h) want_sum += v;
    EXPECT(sum == want_sum, "DeviceReduce::Sum = %d, expected %d", sum, want_sum);
    CHECK(cudaFree(temp));
  }

  // ---- DeviceScan::ExclusiveSum / InclusiveSum ----
  {
    void* temp = nullptr;
    size_t temp_bytes = 0, temp_bytes2 = 0;
    CHECK(cub::DeviceScan::ExclusiveSum(temp, temp_bytes, d_in, d_out, n));
    CHECK(cub::DeviceScan::InclusiveSum(temp, temp_bytes2, d_in, d_out, n));
    temp_bytes = std::max(temp_bytes, temp_bytes2);
    CHECK(cudaMalloc(&temp, temp_bytes));

    CHECK(cub::DeviceScan::ExclusiveSum(temp, temp_bytes, d_in, d_out, n));
    CHECK(cudaMemcpy(got.data(), d_out, n * sizeof(int), cudaMemcpyDeviceToHost));
    int acc = 0;
    for (int i = 0; i < n; ++i) {
      want[i] = acc;
      acc += h[i];
    }
    check_ints("DeviceScan::ExclusiveSum", got.data(), want.data(), n);

    CHECK(cub::DeviceScan::InclusiveSum(temp, temp_bytes, d_in, d_out, n));
    CHECK(cudaMemcpy(got.data(), d_out, n * sizeof(int), cudaMemcpyDeviceToHost));
    acc = 0;
    for (int i = 0; i < n; ++i) {
      acc += h[i];
      want[i] = acc;
    }
    check_ints("DeviceScan::InclusiveSum", got.data(), want.data(), n);
    CHECK(cudaFree(temp));
  }

  // ---- DeviceRadixSort::SortPairs ----
  {
    const int m = 6000;
    std::vector<unsigned> keys(m);
    std::vector<int> vals(m);
    for (int i = 0; i < m; ++i) {
      keys[i] = rng.next();
      if (i % 5 == 0 && i > 0) keys[i] = keys[i - 1];  // some equal keys: checks stability
      vals[i] = i;
    }
    unsigned *dk_in = nullptr, *dk_out = nullptr;
    int *dv_in = nullptr, *dv_out = nullptr;
    CHECK(cudaMalloc(&dk_in, m * sizeof(unsigned)));
    CHECK(cudaMalloc(&dk_out, m * sizeof(unsigned)));
    CHECK(cudaMalloc(&dv_in, m * sizeof(int)));
    CHECK(cudaMalloc(&dv_out, m * sizeof(int)));
    CHECK(cudaMemcpy(dk_in, keys.data(), m * sizeof(unsigned), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dv_in, vals.data(), m * sizeof(int), cudaMemcpyHostToDevice));

    for (int pass = 0; pass < 2; ++pass) {
      // pass 0: all 32 key bits; pass 1: only bits [0, 16) take part in the ordering.
      const int end_bit = pass == 0 ? 32 : 16;
      const unsigned mask = pass == 0 ? 0xffffffffu : 0xffffu;
      void* temp = nullptr;
      size_t temp_bytes = 0;
      CHECK(cub::DeviceRadixSort::SortPairs(temp, temp_bytes, dk_in, dk_out, dv_in, dv_out, m, 0,
                                            end_bit));
      CHECK(cudaMalloc(&temp, temp_bytes));
      CHECK(cub::DeviceRadixSort::SortPairs(temp, temp_bytes, dk_in, dk_out, dv_in, dv_out, m, 0,
                                            end_bit));
      std::vector<unsigned> got_k(m);
      std::vector<int> got_v(m);
      CHECK(cudaMemcpy(got_k.data(), dk_out, m * sizeof(unsigned), cudaMemcpyDeviceToHost));
      CHECK(cudaMemcpy(got_v.data(), dv_out, m * sizeof(int), cudaMemcpyDeviceToHost));
      std::vector<int> order(m);
      for (int i = 0; i < m; ++i) order[i] = i;
      std::stable_sort(order.begin(), order.end(),
                       [&](int a, int b) { return (keys[a] & mask) < (keys[b] & mask); });
      for (int i = 0; i < m; ++i) {
        EXPECT(got_k[i] == keys[order[i]] && got_v[i] == vals[order[i]],
               "SortPairs(end_bit %d): position %d: got (%#x, %d), expected (%#x, %d)", end_bit,
               i, got_k[i], got_v[i], keys[order[i]], vals[order[i]]);
      }
      CHECK(cudaFree(temp));
    }
    CHECK(cudaFree(dk_in));
    CHECK(cudaFree(dk_out));
    CHECK(cudaFree(dv_in));
    CHECK(cudaFree(dv_out));
  }

  // ---- DeviceSelect::If ----
  {
    void* temp = nullptr;
    size_t temp_bytes = 0;
    CHECK(cub::DeviceSelect::If(temp, temp_bytes, d_in, d_out, d_count, n, IsOdd()));
    CHECK(cudaMalloc(&temp, temp_bytes));
    CHECK(cudaMemset(d_count, 0xff, sizeof(int)));
    CHECK(cub::DeviceSelect::If(temp, temp_bytes, d_in, d_out, d_count, n, IsOdd()));
    int count = -1;
    CHECK(cudaMemcpy(&count, d_count, sizeof count, cudaMemcpyDeviceToHost));
    std::vector<int> sel;
    for (int v : h)
      if (IsOdd()(v)) sel.push_back(v);
    EXPECT(count == (int)sel.size(), "DeviceSelect::If selected %d, expected %zu", count,
           sel.size());
    CHECK(cudaMemcpy(got.data(), d_out, sel.size() * sizeof(int), cudaMemcpyDeviceToHost));
    check_ints("DeviceSelect::If (order preserved)", got.data(), sel.data(), sel.size());
    CHECK(cudaFree(temp));
  }

  // ---- BlockReduce / WarpReduce ----
  {
    const int block = 128, blocks = (n + block - 1) / block, warps = blocks * (block / 32);
    int *d_block = nullptr, *d_warp = nullptr;
    CHECK(cudaMalloc(&d_block, blocks * sizeof(int)));
    CHECK(cudaMalloc(&d_warp, warps * sizeof(int)));
    block_and_warp_sums<block><<<blocks, block>>>(d_in, d_block, d_warp, n);
    CHECK(cudaGetLastError());
    std::vector<int> gb(blocks), gw(warps), wb(blocks, 0), ww(warps, 0);
    CHECK(cudaMemcpy(gb.data(), d_block, blocks * sizeof(int), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(gw.data(), d_warp, warps * sizeof(int), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; ++i) {
      wb[i / block] += h[i];
      ww[i / 32] += h[i];
    }
    check_ints("cub::BlockReduce::Sum", gb.data(), wb.data(), blocks);
    check_ints("cub::WarpReduce::Sum", gw.data(), ww.data(), warps);
    CHECK(cudaFree(d_block));
    CHECK(cudaFree(d_warp));
  }

  CHECK(cudaFree(d_in));
  CHECK(cudaFree(d_out));
  CHECK(cudaFree(d_count));
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaGetLastError());
  return report_pass();
}
