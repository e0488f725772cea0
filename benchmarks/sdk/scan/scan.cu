// sdk/scan - exclusive prefix sum of a large uint32 array (the SDK "scanLargeArray" sample,
// Harris, Sengupta and Owens, GPU Gems 3 ch. 39). Each CTA of 256 threads scans 512 elements in
// shared memory with the work-efficient (Blelloch) up-sweep / down-sweep, padding the shared
// array by one word per 32 so the tree's strided accesses avoid bank conflicts, and writes its
// total to a block-sums array; the block sums are scanned recursively by the same scheme, then
// uniform_add adds each block's scanned sum to its 512 outputs.
// Kernels per level: prescan over the full blocks, prescan<NP2> for a partial last block,
// (recursion on the block sums), uniform_add over the full blocks and the partial block.
#include <vector>

#include "workload.h"

constexpr int BLOCK = 256;               // threads per CTA
constexpr int ELEMS = 2 * BLOCK;         // elements per CTA
constexpr int LOG_BANKS = 5;             // 32 shared-memory banks
// Padding: one extra word every 32, so addresses that differ by a multiple of 32 land in
// different banks.
__host__ __device__ constexpr int pad(int i) { return i + (i >> LOG_BANKS); }

// Scans ELEMS elements starting at base = base_index + blockIdx.x * ELEMS. With NP2 the block
// is the partial last one and only `n` elements are valid (the rest are scanned as zeros).
// With STORE_SUM the block total goes to sums[block_index + blockIdx.x].
template <bool STORE_SUM, bool NP2>
__global__ void prescan(uint32_t* out, const uint32_t* in, uint32_t* sums, int n,
                        int block_index, int base_index) {
  __shared__ uint32_t s[pad(ELEMS - 1) + 1];
  const int tid = threadIdx.x;
  const int base = base_index + blockIdx.x * ELEMS;
  // Two elements per thread, BLOCK apart: both loads are coalesced.
  const int ai = tid, bi = tid + BLOCK;
  s[pad(ai)] = (!NP2 || ai < n) ? in[base + ai] : 0u;
  s[pad(bi)] = (!NP2 || bi < n) ? in[base + bi] : 0u;

  // Up-sweep: build partial sums in place up the tree.
  int offset = 1;
  for (int d = BLOCK; d > 0; d >>= 1) {
    __syncthreads();
    if (tid < d) {
      const int a = offset * (2 * tid + 1) - 1, b = offset * (2 * tid + 2) - 1;
      s[pad(b)] += s[pad(a)];
    }
    offset <<= 1;
  }
  if (tid == 0) {
    if (STORE_SUM) sums[block_index + blockIdx.x] = s[pad(ELEMS - 1)];
    s[pad(ELEMS - 1)] = 0;  // the exclusive scan's identity enters at the root
  }
  // Down-sweep: push prefixes back down the tree.
  for (int d = 1; d < ELEMS; d <<= 1) {
    offset >>= 1;
    __syncthreads();
    if (tid < d) {
      const int a = offset * (2 * tid + 1) - 1, b = offset * (2 * tid + 2) - 1;
      const uint32_t t = s[pad(a)];
      s[pad(a)] = s[pad(b)];
      s[pad(b)] += t;
    }
  }
  __syncthreads();
  if (!NP2 || ai < n) out[base + ai] = s[pad(ai)];
  if (!NP2 || bi < n) out[base + bi] = s[pad(bi)];
}

// Adds the scanned block sum to every element of the block; n elements are valid from base.
__global__ void uniform_add(uint32_t* data, const uint32_t* incr, int n, int block_offset,
                            int base_index) {
  __shared__ uint32_t add;
  if (threadIdx.x == 0) add = incr[block_offset + blockIdx.x];
  __syncthreads();
  const int i = blockIdx.x * ELEMS + threadIdx.x;
  if (i < n) data[base_index + i] += add;
  if (i + BLOCK < n) data[base_index + i + BLOCK] += add;
}

struct Scanner {
  const workload::Run& run;
  std::vector<uint32_t*> sums;  // one block-sums array per recursion level
  int launches = 0;

  Scanner(const workload::Run& r, size_t n) : run(r) {
    for (size_t len = n; len > ELEMS;) {
      len = workload::ceil_div(len, ELEMS);
      uint32_t* d;
      CUDA_CHECK(cudaMalloc(&d, len * sizeof(uint32_t)));
      sums.push_back(d);
    }
  }
  ~Scanner() {
    for (uint32_t* d : sums) CUDA_CHECK(cudaFree(d));
  }

  // out may equal in (every CTA reads its elements into shared memory before writing). Levels
  // with more than one CTA are followed by uniform_add over the same grid.
  void scan(uint32_t* out, const uint32_t* in, int n, size_t level) {
    const int blocks = static_cast<int>(workload::ceil_div(n, ELEMS));
    const int full = n / ELEMS, rest = n % ELEMS;
    if (blocks == 1)
      run.info("level %zu: %d elements: prescan grid 1, block %d", level, n, BLOCK);
    else
      run.info("level %zu: %d elements: prescan and uniform_add grid %d%s, block %d", level, n,
               full, rest ? " + 1 partial CTA" : "", BLOCK);
    if (blocks == 1) {  // a single CTA: no block sums
      if (rest)
        prescan<false, true><<<1, BLOCK>>>(out, in, nullptr, rest, 0, 0);
      else
        prescan<false, false><<<1, BLOCK>>>(out, in, nullptr, n, 0, 0);
      CUDA_CHECK(cudaGetLastError());
      ++launches;
      return;
    }
    uint32_t* sum = sums[level];
    if (full) {
      prescan<true, false><<<full, BLOCK>>>(out, in, sum, n, 0, 0);
      CUDA_CHECK(cudaGetLastError());
      ++launches;
    }
    if (rest) {
      prescan<true, true><<<1, BLOCK>>>(out, in, sum, rest, full, full * ELEMS);
      CUDA_CHECK(cudaGetLastError());
      ++launches;
    }
    scan(sum, sum, blocks, level + 1);
    if (full) {
      uniform_add<<<full, BLOCK>>>(out, sum, full * ELEMS, 0, 0);
      CUDA_CHECK(cudaGetLastError());
      ++launches;
    }
    if (rest) {
      uniform_add<<<1, BLOCK>>>(out, sum, rest, full, full * ELEMS);
      CUDA_CHECK(cudaGetLastError());
      ++launches;
    }
  }
};

int main(int argc, char** argv) {
  workload::Run run("scan", argc, argv);
  // tiny and small are not multiples of 512, so their first level has a partial last CTA too.
  const int n = run.pick(100000, 1500000, 16000000);
  run.info("exclusive scan of %d uint32 elements, %d elements per CTA", n, ELEMS);

  workload::Rng rng(run.seed());
  std::vector<uint32_t> h_in(n), h_out(n), want(n);
  for (auto& v : h_in) v = rng.below(1u << 16);
  uint32_t acc = 0;  // wraps modulo 2^32 exactly like the GPU
  for (int i = 0; i < n; ++i) want[i] = acc, acc += h_in[i];

  uint32_t *d_in, *d_out;
  CUDA_CHECK(cudaMalloc(&d_in, n * sizeof(uint32_t)));
  CUDA_CHECK(cudaMalloc(&d_out, n * sizeof(uint32_t)));
  CUDA_CHECK(cudaMemcpy(d_in, h_in.data(), n * sizeof(uint32_t), cudaMemcpyHostToDevice));
  {
    Scanner scanner(run, n);
    scanner.scan(d_out, d_in, n, 0);
    CUDA_CHECK(cudaMemcpy(h_out.data(), d_out, n * sizeof(uint32_t), cudaMemcpyDeviceToHost));
    run.info("%d kernel launches", scanner.launches);
  }
  run.check_equal("scan", h_out.data(), want.data(), n);

  CUDA_CHECK(cudaFree(d_in));
  CUDA_CHECK(cudaFree(d_out));
  return run.pass();
}
