// micro/compare - point-wise comparison of two strings, counting the positions where they differ
// (Pattnaik et al. ISCA 2019, Table 3, COMPARE; offload pattern 5: ld a; ld b; setp a, b, whose
// result is a per-thread predicate: the compute node answers with a 32-bit bitmap). The strings
// are sequences of 32-bit symbols (the offload unit works on 32-bit operands), the second a mutated
// copy of the first. Each thread compares one position; the block counts its differing positions
// with one barrier population count and adds them to the total with one atomic per block.
// The two strings sit in one device buffer, by default one interleave chunk apart so that a[i] and
// b[i] lie in neighbouring L2/memory partitions (the paper's COMPARE gains little from LLC-Compute
// and much from Omni-Compute, i.e. its operands meet at no single LLC); --shift 0 co-locates them.
// Kernel: compare, one position per thread, blocks of 256 threads, grid = n / 256.
#include <cstdint>
#include <cstring>
#include <vector>

#include "partition_placement.h"
#include "workload.h"

// Deliberately no __restrict__: plain ld.global (through L1) feeding the comparison, the chain the
// offload pass matches. Threads past the end take part in the barrier count with "no difference".
__global__ void compare(const uint32_t* a, const uint32_t* b, unsigned* differing, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  bool differ = false;
  if (i < n) differ = a[i] != b[i];
  // bar.red.popc: the number of threads of the block whose predicate is true.
  const int block_count = __syncthreads_count(differ);
  if (threadIdx.x == 0) atomicAdd(differing, static_cast<unsigned>(block_count));
}

int main(int argc, char** argv) {
  workload::Run run("compare", argc, argv, {"--interleave", "--partitions", "--shift"});
  const size_t n = run.pick<size_t>(1 << 18, 1 << 22, 1 << 24);
  const long long shift = run.option("--shift", 1);
  if (shift < 0 || shift > 1) workload::fail("--shift must be 0 (aligned) or 1 (strided)");
  const int block = 256;
  const unsigned grid = workload::ceil_div(n, block);
  run.info("%zu symbols, grid %u x block %d, one atomic per block", n, grid, block);

  // A text over a 26-letter alphabet and a copy with about one position in eight substituted by
  // a different letter (the substitutions are what the kernel counts).
  workload::Rng rng(run.seed());
  std::vector<uint32_t> a(n), b(n);
  for (size_t i = 0; i < n; ++i) {
    a[i] = 'a' + rng.below(26);
    b[i] = rng.below(8) ? a[i] : 'a' + (a[i] - 'a' + 1 + rng.below(25)) % 26;
  }

  const Placement<uint32_t> p = place<uint32_t>(run, n, "ab", static_cast<size_t>(shift));
  uint32_t *da = p.operand[0], *db = p.operand[1];
  unsigned* dcount;
  CUDA_CHECK(cudaMalloc(&dcount, sizeof(unsigned)));
  CUDA_CHECK(cudaMemcpy(da, a.data(), n * sizeof(uint32_t), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(db, b.data(), n * sizeof(uint32_t), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemset(dcount, 0, sizeof(unsigned)));
  compare<<<grid, block>>>(da, db, dcount, static_cast<int>(n));
  CUDA_CHECK(cudaGetLastError());
  unsigned got = 0;
  CUDA_CHECK(cudaMemcpy(&got, dcount, sizeof(unsigned), cudaMemcpyDeviceToHost));

  unsigned want = 0;
  for (size_t i = 0; i < n; ++i) want += a[i] != b[i];
  run.info("%u of %zu positions differ", want, n);
  run.check_equal("differing positions", &got, &want, 1);

  CUDA_CHECK(cudaFree(dcount));
  CUDA_CHECK(cudaFree(p.alloc));
  return run.pass();
}
