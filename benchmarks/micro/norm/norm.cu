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

#include "partition_placement.h"
#include "workload.h"

// Deliberately no __restrict__: plain ld.global (through L1), the division by the kernel
// argument and st.global, the chain the offload pass matches. Without fast-math nvcc emits the
// correctly rounded div.rn.f32.
__global__ void norm(const float* a, float* c, float v, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] / v;
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
