// shoc/reduction - the SHOC level-1 "Reduction": the sum of a large array, in single precision
// (or double with --double 1), repeated for several passes.
// Kernel: reduce, blocks of 256 threads, launched twice per pass: over the input with 64 blocks
// (SHOC's grid; --blocks N changes it), each thread first summing a grid-stride slice of element
// pairs one block apart and the block then folding its 256 partial sums in an 8-level tree, one
// partial sum per block; then by one block over those partial sums.
// --levels-in-global N selects the variants of Pattnaik et al. ISCA 2019 (§6.2, Fig. 17): the
// first N tree levels are done in a per-block slice of global memory (x[t] = x[t] + x[t + s]:
// loads and a store an offload engine can take), the rest in shared memory. 0 is SHOC's
// unmodified kernel (RED), 1..3 are RED-Hybrid1..3 (4..7 further hybrids), -1 or 8 does every
// level in global memory (RED-Global).
#include <vector>

#include "workload.h"

constexpr int kBlock = 256;  // threads per block: the tree has log2(256) = 8 levels
constexpr int kLevels = 8;

// Order one tree level's writes before the next level's reads: a block barrier while the writers
// span several warps, a warp barrier once they all lie in warp 0 (the tail SHOC unrolls by hand).
__device__ __forceinline__ void level_barrier(int writers) {
  if (writers > 32)
    __syncthreads();
  else
    __syncwarp();
}

// kGlobal: how many tree levels work on global memory (0..kLevels). Instantiated per variant so
// every variant is straight-line code without run-time memory-space choices, like the originals.
template <class T, int kGlobal>
__global__ void __launch_bounds__(kBlock) reduce(const T* in, T* out, T* scratch, int n) {
  __shared__ T partial[kBlock];
  const int tid = threadIdx.x;

  // This thread's grid-stride slice, pairs of elements one block apart (two independent loads per
  // iteration; the pair sum is added to the running sum). A lone last element is added on its own.
  T sum = 0;
  const int stride = 2 * kBlock * gridDim.x;
  int i = 2 * kBlock * blockIdx.x + tid;
  for (; i + kBlock < n; i += stride) sum += in[i] + in[i + kBlock];
  if (i < n) sum += in[i];

  // The tree: level l (1..8) adds element t + s into element t for t < s = 256 >> l. Levels
  // 1..kGlobal run on this block's 256-element slice of `scratch`, the rest on shared memory.
  T* const g = kGlobal > 0 ? scratch + static_cast<size_t>(blockIdx.x) * kBlock : nullptr;
  if (kGlobal > 0)
    g[tid] = sum;
  else
    partial[tid] = sum;
  __syncthreads();
#pragma unroll
  for (int l = 1, s = kBlock / 2; s >= 1; ++l, s >>= 1) {
    if (s < 32 && tid >= 32) break;  // the last levels involve warp 0 only
    if (kGlobal > 0 && l == kGlobal + 1) {  // move the surviving 2s values to shared memory
      if (tid < 2 * s) partial[tid] = g[tid];
      level_barrier(2 * s);
    }
    T* const x = l <= kGlobal ? g : partial;
    if (tid < s) x[tid] += x[tid + s];
    level_barrier(s);
  }
  if (tid == 0) out[blockIdx.x] = kGlobal >= kLevels ? g[0] : partial[0];
}

// One pass: the grid over the input, then one block over the grid's partial sums.
template <class T, int kGlobal>
void pass(const T* in, T* partials, T* result, T* scratch, int n, int blocks) {
  reduce<T, kGlobal><<<blocks, kBlock>>>(in, partials, scratch, n);
  CUDA_CHECK(cudaGetLastError());
  reduce<T, kGlobal><<<1, kBlock>>>(partials, result, scratch, blocks);
  CUDA_CHECK(cudaGetLastError());
}

// One launch of `reduce` replayed on the CPU in the GPU's order (the same slices and tree; all
// variants add in this order), so its result must match the GPU's bit for bit.
template <class T>
std::vector<T> reduce_cpu(const std::vector<T>& in, int blocks) {
  const int n = static_cast<int>(in.size()), stride = 2 * kBlock * blocks;
  std::vector<T> out(blocks);
  T part[kBlock];
  for (int b = 0; b < blocks; ++b) {
    for (int t = 0; t < kBlock; ++t) {
      T sum = 0;
      int i = 2 * kBlock * b + t;
      for (; i + kBlock < n; i += stride) sum += in[i] + in[i + kBlock];
      if (i < n) sum += in[i];
      part[t] = sum;
    }
    for (int s = kBlock / 2; s >= 1; s >>= 1)
      for (int t = 0; t < s; ++t) part[t] += part[t + s];
    out[b] = part[0];
  }
  return out;
}

template <class T>
void run_reduction(const workload::Run& run, size_t n, int blocks, int passes, int global) {
  using Pass = void (*)(const T*, T*, T*, T*, int, int);
  static constexpr Pass kPasses[kLevels + 1] = {pass<T, 0>, pass<T, 1>, pass<T, 2>,
                                                pass<T, 3>, pass<T, 4>, pass<T, 5>,
                                                pass<T, 6>, pass<T, 7>, pass<T, 8>};
  // Positive values (measurements), so sum |x| = sum x and the error bound below is relative.
  workload::Rng rng(run.seed());
  std::vector<T> h(n);
  long double exact = 0;  // 64-bit mantissa: the true sum, to far better than T's rounding
  for (auto& x : h) {
    x = static_cast<T>(rng.uniform_double(0.0, 2.0));
    exact += x;
  }

  T *in, *partials, *result, *scratch = nullptr;
  CUDA_CHECK(cudaMalloc(&in, n * sizeof(T)));
  CUDA_CHECK(cudaMalloc(&partials, blocks * sizeof(T)));
  CUDA_CHECK(cudaMalloc(&result, sizeof(T)));
  if (global > 0)  // the global-memory tree levels: one 256-element slice per block
    CUDA_CHECK(cudaMalloc(&scratch, static_cast<size_t>(blocks) * kBlock * sizeof(T)));
  CUDA_CHECK(cudaMemcpy(in, h.data(), n * sizeof(T), cudaMemcpyHostToDevice));

  // Two references. (1) The GPU's summation order replayed on the CPU: plain IEEE additions in
  // the same order, so the GPU must match it exactly. (2) The true sum: the result of that order
  // lies within its worst-case rounding bound, every input passing through at most d additions in
  // T (one pair add plus one per later slice iteration, 8 tree levels, then one add and 8 levels
  // in the second launch): |sum - exact| <= d * u * sum|x|, u the unit roundoff. (2) guards
  // against a slip shared by kernel and replay (a skipped element).
  const T want = reduce_cpu(reduce_cpu(h, blocks), 1)[0];
  const size_t per_thread = (n + 2 * kBlock * static_cast<size_t>(blocks) - 1) /
                            (2 * kBlock * static_cast<size_t>(blocks));
  const double d = static_cast<double>(per_thread + 1 + kLevels + 1 + kLevels);
  const double u = sizeof(T) == 4 ? 0x1p-24 : 0x1p-53;
  const double bound = d * u * static_cast<double>(exact), true_sum = static_cast<double>(exact);

  for (int p = 0; p < passes; ++p) {
    kPasses[global](in, partials, result, scratch, static_cast<int>(n), blocks);
    T got;
    CUDA_CHECK(cudaMemcpy(&got, result, sizeof(T), cudaMemcpyDeviceToHost));
    run.check_close("sum (GPU order replayed on the CPU)", &got, &want, 1, 0.0, 0.0);
    const double g = static_cast<double>(got);
    run.check_close("sum (true sum, rounding bound)", &g, &true_sum, 1, 0.0, bound);
  }
  run.info("sum %.17g, true sum %.17g, rounding bound %.3g", static_cast<double>(want), true_sum,
           bound);

  CUDA_CHECK(cudaFree(in));
  CUDA_CHECK(cudaFree(partials));
  CUDA_CHECK(cudaFree(result));
  if (scratch) CUDA_CHECK(cudaFree(scratch));
}

int main(int argc, char** argv) {
  workload::Run run("reduction", argc, argv, {"--levels-in-global", "--double", "--blocks"});
  // SHOC's problem sizes are 1, 8, 32 and 64 MiB of input; tiny, small and large take the 1, 8
  // and 64 MiB ones (in single precision: 2^18, 2^21, 2^24 elements).
  const size_t bytes = run.pick<size_t>(1 << 20, 8 << 20, 64 << 20);
  const int passes = run.pick(3, 8, 10);
  const bool dbl = run.option("--double", 0) != 0;
  const long long blocks = run.option("--blocks", 64);
  long long global = run.option("--levels-in-global", 0);
  if (global == -1) global = kLevels;
  if (global < 0 || global > kLevels)
    workload::fail("--levels-in-global must be -1 (all) or 0..%d", kLevels);
  if (blocks < 1 || blocks > 65535) workload::fail("--blocks must be 1..65535");
  const size_t n = bytes / (dbl ? sizeof(double) : sizeof(float));

  static const char* const kVariant[] = {"RED (shared memory)", "RED-Hybrid1", "RED-Hybrid2",
                                         "RED-Hybrid3", "RED-Hybrid4", "RED-Hybrid5",
                                         "RED-Hybrid6", "RED-Hybrid7", "RED-Global"};
  run.info("%zu %s elements, %d passes of: grid %lld x block %d, then grid 1 x block %d", n,
           dbl ? "double" : "float", passes, blocks, kBlock, kBlock);
  run.info("variant %s: %lld of %d tree levels in global memory", kVariant[global], global,
           kLevels);
  if (dbl)
    run_reduction<double>(run, n, static_cast<int>(blocks), passes, static_cast<int>(global));
  else
    run_reduction<float>(run, n, static_cast<int>(blocks), passes, static_cast<int>(global));
  return run.pass();
}
