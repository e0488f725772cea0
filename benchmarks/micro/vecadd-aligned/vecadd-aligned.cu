// micro/vecadd-aligned - c[i] = a[i] + b[i] with a[i], b[i] and c[i] in the same L2/memory
// partition (Pattnaik et al. ISCA 2019, Table 3, VECADD-ALIGNED; offload pattern 1:
// ld a; ld b; add; st c). The three arrays sit in one device buffer at offsets that are multiples
// of interleave x partitions, so under a modulo interleave every element's operands share a
// partition and the whole chain can be computed at that LLC.
// Kernel: vecadd, one element per thread, blocks of 256 threads, grid = n / 256.
#include <cstdint>
#include <cstring>
#include <vector>

#include "partition_placement.h"
#include "workload.h"

// Deliberately no __restrict__: plain ld.global (through L1), the load-load-add-store chain the
// offload pass matches, as the paper's GPGPU-Sim era code had.
__global__ void vecadd(const float* a, const float* b, float* c, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

int main(int argc, char** argv) {
  workload::Run run("vecadd-aligned", argc, argv, {"--interleave", "--partitions"});
  const size_t n = run.pick<size_t>(1 << 18, 1 << 22, 1 << 24);
  const int block = 256;
  const unsigned grid = workload::ceil_div(n, block);
  run.info("%zu elements, grid %u x block %d, aligned placement", n, grid, block);

  workload::Rng rng(run.seed());
  std::vector<float> a(n), b(n), c(n);
  for (size_t i = 0; i < n; ++i) {
    a[i] = rng.uniform(-1.0f, 1.0f);
    b[i] = rng.uniform(-1.0f, 1.0f);
  }

  const Placement<float> p = place<float>(run, n, "abc", /*shift=*/0);
  float *da = p.operand[0], *db = p.operand[1], *dc = p.operand[2];
  CUDA_CHECK(cudaMemcpy(da, a.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(db, b.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  vecadd<<<grid, block>>>(da, db, dc, static_cast<int>(n));
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaMemcpy(c.data(), dc, n * sizeof(float), cudaMemcpyDeviceToHost));

  std::vector<float> want(n);
  for (size_t i = 0; i < n; ++i) want[i] = a[i] + b[i];
  // One correctly rounded addition on both sides: exact.
  run.check_close("c", c.data(), want.data(), n, 0.0, 0.0);

  CUDA_CHECK(cudaFree(p.alloc));
  return run.pass();
}
