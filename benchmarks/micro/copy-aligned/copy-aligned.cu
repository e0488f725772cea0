// micro/copy-aligned - c[i] = a[i] with a[i] and c[i] in the same L2/memory partition (Pattnaik et
// al. ISCA 2019, Table 3, COPY-ALIGNED; offload pattern 3: ld a; st c). The two arrays sit in one
// device buffer at offsets that are multiples of interleave x partitions, so under a modulo
// interleave the load and the store of element i go to the same partition and the copy can be done
// entirely at that LLC.
// Kernel: copy, one element per thread, blocks of 256 threads, grid = n / 256.
#include <cstdint>
#include <cstring>
#include <vector>

#include "partition_placement.h"
#include "workload.h"

// Deliberately no __restrict__: plain ld.global (through L1) followed by st.global, the chain the
// offload pass matches, as the paper's GPGPU-Sim era code had.
__global__ void copy(const float* a, float* c, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i];
}

int main(int argc, char** argv) {
  workload::Run run("copy-aligned", argc, argv, {"--interleave", "--partitions"});
  const size_t n = run.pick<size_t>(1 << 18, 1 << 22, 1 << 24);
  const int block = 256;
  const unsigned grid = workload::ceil_div(n, block);
  run.info("%zu elements, grid %u x block %d, aligned placement", n, grid, block);

  workload::Rng rng(run.seed());
  std::vector<float> a(n), c(n);
  for (auto& x : a) x = rng.uniform(-1.0f, 1.0f);

  const Placement<float> p = place<float>(run, n, "ac", /*shift=*/0);
  float *da = p.operand[0], *dc = p.operand[1];
  CUDA_CHECK(cudaMemcpy(da, a.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  copy<<<grid, block>>>(da, dc, static_cast<int>(n));
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaMemcpy(c.data(), dc, n * sizeof(float), cudaMemcpyDeviceToHost));

  // A copy is exact.
  run.check_close("c", c.data(), a.data(), n, 0.0, 0.0);

  CUDA_CHECK(cudaFree(p.alloc));
  return run.pass();
}
