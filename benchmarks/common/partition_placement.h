// partition_placement.h - where the microbenchmarks of Pattnaik et al. (ISCA 2019) put their
// operand arrays: in the same L2/memory partition ("ALIGNED") or in different ones ("STRIDED"),
// given the partition interleave (options --interleave BYTES and --partitions N).
#pragma once

#include <cstdint>
#include <cstring>
#include <vector>

#include "workload.h"

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
