// sdk/scalarProd - many independent dot products C[v] = A[v] . B[v] of vector pairs (the CUDA
// SDK "scalarProd" sample). One CTA per pair at a time (grid-stride over pairs): the CTA's
// threads fill ACCUM_N = 1024 shared-memory accumulators, accumulator j adding the products at
// positions j, j + 1024, j + 2048, ... (consecutive threads read consecutive elements, so loads
// are coalesced), then a shared-memory tree folds the 1024 accumulators into one.
// Kernel: scalar_prod, grid 128, block 256 (the SDK's launch).
#include <vector>

#include "workload.h"

constexpr int ACCUM_N = 1024;
constexpr int GRID = 128;
constexpr int BLOCK = 256;

__global__ void scalar_prod(float* __restrict__ c, const float* __restrict__ a,
                            const float* __restrict__ b, int vectors, int elements) {
  __shared__ float accum[ACCUM_N];
  for (int v = blockIdx.x; v < vectors; v += gridDim.x) {
    const int base = v * elements, end = base + elements;
    // Each thread owns ACCUM_N / blockDim.x accumulators; every accumulator strides by ACCUM_N.
    for (int j = threadIdx.x; j < ACCUM_N; j += blockDim.x) {
      float sum = 0.0f;
      for (int pos = base + j; pos < end; pos += ACCUM_N) sum += a[pos] * b[pos];
      accum[j] = sum;
    }
    // Tree over the accumulators; the barrier at the top of each step orders it after the
    // previous step's (or the fill's) writes.
    for (int stride = ACCUM_N / 2; stride > 0; stride >>= 1) {
      __syncthreads();
      for (int j = threadIdx.x; j < stride; j += blockDim.x) accum[j] += accum[stride + j];
    }
    if (threadIdx.x == 0) c[v] = accum[0];
    __syncthreads();  // thread 0 has read accum[0] before the next pair overwrites it
  }
}

int main(int argc, char** argv) {
  workload::Run run("scalarProd", argc, argv);
  // tiny is the SDK's default, 256 pairs of 4096 elements (about 16 M thread instructions);
  // small and large scale it up.
  const int vectors = run.pick(256, 1024, 2048);
  const int elements = run.pick(4096, 8192, 16384);
  const size_t n = size_t(vectors) * elements;
  run.info("%d vector pairs of %d floats", vectors, elements);
  run.info("scalar_prod: grid %d, block %d, %d shared accumulators", GRID, BLOCK, ACCUM_N);

  workload::Rng rng(run.seed());
  std::vector<float> ha(n), hb(n), hc(vectors), want(vectors);
  for (auto& v : ha) v = rng.uniform(0.1f, 1.0f);  // positive, like the SDK's inputs
  for (auto& v : hb) v = rng.uniform(0.1f, 1.0f);
  for (int v = 0; v < vectors; ++v) {
    double sum = 0.0;
    for (size_t i = size_t(v) * elements; i < size_t(v + 1) * elements; ++i)
      sum += double(ha[i]) * hb[i];
    want[v] = static_cast<float>(sum);
  }

  float *da, *db, *dc;
  CUDA_CHECK(cudaMalloc(&da, n * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&db, n * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&dc, vectors * sizeof(float)));
  CUDA_CHECK(cudaMemcpy(da, ha.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(db, hb.data(), n * sizeof(float), cudaMemcpyHostToDevice));

  scalar_prod<<<GRID, BLOCK>>>(dc, da, db, vectors, elements);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaMemcpy(hc.data(), dc, vectors * sizeof(float), cudaMemcpyDeviceToHost));

  // All products are positive, so the float result's relative error is bounded by the depth of
  // its summation tree times 2^-24: elements / ACCUM_N sequential adds per accumulator,
  // log2(ACCUM_N) = 10 tree levels, one product rounding (if not fused), and rounding the
  // double reference to float.
  const int depth = elements / ACCUM_N + 10 + 2;
  run.check_close("C", hc.data(), want.data(), vectors, depth * 0x1p-24, 0.0);

  CUDA_CHECK(cudaFree(da));
  CUDA_CHECK(cudaFree(db));
  CUDA_CHECK(cudaFree(dc));
  return run.pass();
}
