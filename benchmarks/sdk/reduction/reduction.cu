// sdk/reduction - sum of a large uint32 array with the CUDA SDK "reduction" sample's most
// optimised kernel (reduce6): every thread first adds many elements with a grid-stride loop (two
// per iteration, blockSize apart, so each load is coalesced), then the CTA combines its partial
// sums with a shared-memory tree down to 64 values, and the first warp finishes with register
// shuffles. Each pass leaves one partial sum per CTA; passes repeat on the partial sums until one
// value is left (the SDK's GPU final reduction).
// Kernel: reduce6<blockSize, nIsPow2>; pass 1: 64 CTAs of 256 threads (the SDK's maxBlocks and
// maxThreads), pass 2: 1 CTA of 32 threads on the 64 partial sums.
#include <algorithm>
#include <vector>

#include "workload.h"

constexpr int MAX_THREADS = 256;
constexpr int MAX_BLOCKS = 64;

// Unsigned sums wrap modulo 2^32 identically on CPU and GPU, so the check is exact.
template <unsigned BS, bool POW2>
__global__ void reduce6(const uint32_t* __restrict__ in, uint32_t* __restrict__ out,
                        unsigned n) {
  static_assert(BS >= 32 && BS <= 512, "the warp-level tail needs at least one full warp");
  __shared__ uint32_t sdata[BS];
  const unsigned tid = threadIdx.x;
  const unsigned grid_size = BS * 2 * gridDim.x;
  unsigned i = blockIdx.x * BS * 2 + tid;

  uint32_t sum = 0;
  while (i < n) {
    sum += in[i];
    // With POW2 (n a power of two, >= 2 * BS) the partner element is always in range.
    if (POW2 || i + BS < n) sum += in[i + BS];
    i += grid_size;
  }
  sdata[tid] = sum;
  __syncthreads();

  // Shared-memory tree, unrolled by the template: halve the active threads each step.
  if (BS >= 512) {
    if (tid < 256) sdata[tid] = sum = sum + sdata[tid + 256];
    __syncthreads();
  }
  if (BS >= 256) {
    if (tid < 128) sdata[tid] = sum = sum + sdata[tid + 128];
    __syncthreads();
  }
  if (BS >= 128) {
    if (tid < 64) sdata[tid] = sum = sum + sdata[tid + 64];
    __syncthreads();
  }
  // Last 64 values: the first warp adds the upper half, then folds its 32 lanes with shuffles
  // (no shared memory, so no reliance on implicit warp synchrony).
  if (tid < 32) {
    if (BS >= 64) sum += sdata[tid + 32];
    for (int offset = 16; offset > 0; offset >>= 1)
      sum += __shfl_down_sync(0xffffffffu, sum, offset);
    if (tid == 0) out[blockIdx.x] = sum;
  }
}

static unsigned next_pow2(unsigned x) {
  unsigned p = 1;
  while (p < x) p <<= 1;
  return p;
}

// The SDK's choice of launch shape: up to 256 threads each covering two elements per step, at
// most 64 CTAs (the grid-stride loop covers the rest). At least one warp (see reduce6).
static void shape(unsigned n, unsigned& threads, unsigned& blocks) {
  threads = n < 2u * MAX_THREADS ? std::max(32u, next_pow2((n + 1) / 2)) : MAX_THREADS;
  blocks = std::min<unsigned>(MAX_BLOCKS, (n + threads * 2 - 1) / (threads * 2));
}

template <bool POW2>
static void launch(unsigned threads, unsigned blocks, const uint32_t* in, uint32_t* out,
                   unsigned n) {
  switch (threads) {
    case 256: reduce6<256, POW2><<<blocks, 256>>>(in, out, n); break;
    case 128: reduce6<128, POW2><<<blocks, 128>>>(in, out, n); break;
    case 64: reduce6<64, POW2><<<blocks, 64>>>(in, out, n); break;
    case 32: reduce6<32, POW2><<<blocks, 32>>>(in, out, n); break;
    default: workload::fail("no kernel for %u threads", threads);
  }
  CUDA_CHECK(cudaGetLastError());
}

int main(int argc, char** argv) {
  workload::Run run("reduction", argc, argv);
  // The SDK's default is 2^24 elements (large).
  const unsigned n = run.pick(1u << 20, 1u << 23, 1u << 24);
  run.info("sum of %u uint32 elements", n);

  workload::Rng rng(run.seed());
  std::vector<uint32_t> h_in(n);
  for (auto& v : h_in) v = rng.below(256);  // bytes, like the SDK's rand() & 0xFF
  uint32_t want = 0;
  for (uint32_t v : h_in) want += v;

  uint32_t *d_in, *d_partial;
  CUDA_CHECK(cudaMalloc(&d_in, n * sizeof(uint32_t)));
  CUDA_CHECK(cudaMalloc(&d_partial, MAX_BLOCKS * sizeof(uint32_t)));
  CUDA_CHECK(cudaMemcpy(d_in, h_in.data(), n * sizeof(uint32_t), cudaMemcpyHostToDevice));

  // Pass after pass until one CTA produced one value; later passes reduce d_partial in place
  // (a single CTA reads all its inputs before thread 0 writes element 0).
  const uint32_t* src = d_in;
  for (unsigned len = n, pass = 1;; ++pass) {
    unsigned threads, blocks;
    shape(len, threads, blocks);
    run.info("pass %u: %u elements, reduce6 grid %u, block %u", pass, len, blocks, threads);
    // A power of two of at least 2 * threads is a multiple of every CTA's 2 * blockSize span.
    if ((len & (len - 1)) == 0 && len >= 2 * threads)
      launch<true>(threads, blocks, src, d_partial, len);
    else
      launch<false>(threads, blocks, src, d_partial, len);
    src = d_partial;
    len = blocks;
    if (len == 1) break;
  }
  uint32_t got = 0;
  CUDA_CHECK(cudaMemcpy(&got, d_partial, sizeof(uint32_t), cudaMemcpyDeviceToHost));
  run.check_equal("sum", &got, &want, 1);

  CUDA_CHECK(cudaFree(d_in));
  CUDA_CHECK(cudaFree(d_partial));
  return run.pass();
}
