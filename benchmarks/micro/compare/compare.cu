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

// The operand arrays of the kernel inside one device buffer. The memory system is assumed to
// interleave addresses across `partitions` L2/memory partitions in `interleave`-byte chunks
// (partition = address / interleave mod partitions, the paper's baseline: 128 B over 8). Every
// operand starts a whole number of stripes (interleave x partitions) past a stripe-aligned base,
// plus `shift` chunks per operand (operands named by the letters of `names`): shift 0 puts
// element i of every operand in the same partition, shift 1 puts it in partitions p, p+1, p+2.
template <class T>
struct Placement {
  void* alloc = nullptr;
  std::vector<T*> operand;
};

template <class T>
Placement<T> place(const workload::Run& run, size_t n, const char* names, size_t shift) {
  const int operands = static_cast<int>(std::strlen(names));
  const long long interleave = run.option("--interleave", 128);
  const long long partitions = run.option("--partitions", 8);
  if (interleave < 1 || interleave > (1 << 20) || interleave % sizeof(T) || partitions < 1 ||
      partitions > 4096)
    workload::fail("--interleave must be a multiple of %zu up to 1 MiB, --partitions 1..4096",
                   sizeof(T));
  if (shift && partitions < operands)
    workload::fail("a strided placement of %d operands needs at least %d partitions", operands,
                   operands);
  const size_t chunk = static_cast<size_t>(interleave), stripe = chunk * partitions;
  // Each operand's region: its bytes plus the shift of the last operand, in whole stripes.
  const size_t need = n * sizeof(T) + shift * (operands - 1) * chunk;
  const size_t region = (need + stripe - 1) / stripe * stripe;
  Placement<T> p;
  CUDA_CHECK(cudaMalloc(&p.alloc, region * operands + stripe));  // + slack to align the base
  const uintptr_t start = reinterpret_cast<uintptr_t>(p.alloc);
  const uintptr_t base = (start + stripe - 1) / stripe * stripe;
  run.info("placement: %zu B chunks over %lld partitions, operands %zu chunk(s) apart", chunk,
           partitions, shift);
  for (int k = 0; k < operands; ++k) {
    const uintptr_t addr = base + k * region + k * shift * chunk;
    p.operand.push_back(reinterpret_cast<T*>(addr));
    run.info("  operand %c at buffer offset %zu, element 0 in partition %zu", names[k],
             static_cast<size_t>(addr - start), static_cast<size_t>(addr / chunk % partitions));
  }
  return p;
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
