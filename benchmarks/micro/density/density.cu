// micro/density - count the zeros of an array, i.e. the (non-zero) density of a sparse vector
// (Pattnaik et al. ISCA 2019, Table 3, DENSITY; offload pattern 6: ld a; cmp a, immediate 0,
// whose result is a per-thread predicate: the compute node answers with a 32-bit bitmap). With a
// single load the chain always has one home partition, so no aligned/strided variants exist.
// Each thread tests one element; the block counts its zeros with one barrier population count and
// adds them to the total with one atomic per block.
// Kernel: density, one element per thread, blocks of 256 threads, grid = n / 256.
#include <vector>

#include "workload.h"

// Deliberately no __restrict__: a plain ld.global (through L1) compared against the immediate 0,
// the chain the offload pass matches. Threads past the end count as "not zero".
__global__ void density(const float* a, unsigned* zeros, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  bool zero = false;
  if (i < n) zero = a[i] == 0.0f;
  // bar.red.popc: the number of threads of the block whose predicate is true.
  const int block_zeros = __syncthreads_count(zero);
  if (threadIdx.x == 0) atomicAdd(zeros, static_cast<unsigned>(block_zeros));
}

int main(int argc, char** argv) {
  workload::Run run("density", argc, argv);
  const size_t n = run.pick<size_t>(1 << 18, 1 << 22, 1 << 24);
  const int block = 256;
  const unsigned grid = workload::ceil_div(n, block);
  run.info("%zu elements, grid %u x block %d, one atomic per block", n, grid, block);

  // A sparse vector: runs of zeros and non-zeros (as in a sparse matrix row block), about 70%
  // zeros overall; the non-zeros are never 0.0f.
  workload::Rng rng(run.seed());
  std::vector<float> a(n);
  for (size_t i = 0; i < n;) {
    const bool zero_run = rng.below(10) < 7;
    const size_t len = 1 + rng.below(64);
    for (size_t k = 0; k < len && i < n; ++k, ++i)
      a[i] = zero_run ? 0.0f : rng.uniform(0.5f, 2.0f) * (rng.below(2) ? 1.0f : -1.0f);
  }

  float* da;
  unsigned* dzeros;
  CUDA_CHECK(cudaMalloc(&da, n * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&dzeros, sizeof(unsigned)));
  CUDA_CHECK(cudaMemcpy(da, a.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemset(dzeros, 0, sizeof(unsigned)));
  density<<<grid, block>>>(da, dzeros, static_cast<int>(n));
  CUDA_CHECK(cudaGetLastError());
  unsigned got = 0;
  CUDA_CHECK(cudaMemcpy(&got, dzeros, sizeof(unsigned), cudaMemcpyDeviceToHost));

  unsigned want = 0;
  for (size_t i = 0; i < n; ++i) want += a[i] == 0.0f;
  run.info("%u of %zu elements are zero (density %.3f)", want, n,
           1.0 - static_cast<double>(want) / static_cast<double>(n));
  run.check_equal("zeros", &got, &want, 1);

  CUDA_CHECK(cudaFree(da));
  CUDA_CHECK(cudaFree(dzeros));
  return run.pass();
}
