// micro/norm - normalise a 1-D array by a value, c[i] = a[i] / v (Pattnaik et al. ISCA 2019,
// Table 3, NORM; offload pattern 7: ld a; ld i; alu c, a, i; st c, the scalar v being a kernel
// argument that travels in the ComputePacket's immediate field). Here v is the array's largest
// magnitude, so c lies in [-1, 1].
// a and c sit in one device buffer, by default at offsets that are multiples of interleave x
// partitions so that a[i] and c[i] share an L2/memory partition (the paper's NORM gains fully from
// LLC-Compute, i.e. its chains complete at one LLC); --shift 1 puts them one chunk apart.
// Kernel: norm, one element per thread, blocks of 256 threads, grid = n / 256.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "workload.h"

// Deliberately no __restrict__: plain ld.global (through L1), the division by the kernel
// argument and st.global, the chain the offload pass matches. Without fast-math nvcc emits the
// correctly rounded div.rn.f32.
__global__ void norm(const float* a, float* c, float v, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] / v;
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
  workload::Run run("norm", argc, argv, {"--interleave", "--partitions", "--shift"});
  const size_t n = run.pick<size_t>(1 << 18, 1 << 22, 1 << 24);
  const long long shift = run.option("--shift", 0);
  if (shift < 0 || shift > 1) workload::fail("--shift must be 0 (aligned) or 1 (strided)");
  const int block = 256;
  const unsigned grid = workload::ceil_div(n, block);

  // Samples of a signal with a slowly varying amplitude, normalised by their peak magnitude.
  workload::Rng rng(run.seed());
  std::vector<float> a(n), c(n);
  float v = 0.0f;
  for (size_t i = 0; i < n; ++i) {
    const float envelope = 50.0f + 40.0f * static_cast<float>(std::sin(i * 1e-4));
    a[i] = envelope * rng.normal();
    v = std::fmax(v, std::fabs(a[i]));
  }
  run.info("%zu elements, grid %u x block %d, divided by %.6g", n, grid, block, v);

  const Placement<float> p = place<float>(run, n, "ac", static_cast<size_t>(shift));
  float *da = p.operand[0], *dc = p.operand[1];
  CUDA_CHECK(cudaMemcpy(da, a.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  norm<<<grid, block>>>(da, dc, v, static_cast<int>(n));
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaMemcpy(c.data(), dc, n * sizeof(float), cudaMemcpyDeviceToHost));

  std::vector<float> want(n);
  for (size_t i = 0; i < n; ++i) want[i] = a[i] / v;
  // IEEE division is correctly rounded on both sides (div.rn.f32): exact.
  run.check_close("c", c.data(), want.data(), n, 0.0, 0.0);

  CUDA_CHECK(cudaFree(p.alloc));
  return run.pass();
}
