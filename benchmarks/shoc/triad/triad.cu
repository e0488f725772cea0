// shoc/triad - the SHOC "Triad" (STREAM triad with PCIe overlap): c = a + s * b over a vector
// cut into chunks; each chunk is copied in, computed and copied back on one of two streams, so
// copies of one chunk overlap the kernel of the other (SHOC level 1, Triad).
// Kernel: triad, one element per thread, blocks of 128 threads, grid = chunk / 128.
#include <vector>

#include "workload.h"

__global__ void triad(const float* __restrict__ a, const float* __restrict__ b,
                      float* __restrict__ c, float s, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + s * b[i];
}

int main(int argc, char** argv) {
  workload::Run run("triad", argc, argv);
  // Total elements, and the chunk each stream works on.
  const size_t n = run.pick<size_t>(1 << 16, 1 << 22, 1 << 26);
  const size_t chunk = run.pick<size_t>(1 << 14, 1 << 18, 1 << 20);
  const int block = 128;
  const float s = 1.75f;
  run.info("%zu elements in chunks of %zu on 2 streams, block %d", n, chunk, block);

  workload::Rng rng(run.seed());
  float *ha, *hb, *hc;  // pinned, as SHOC uses, so async copies really are async
  CUDA_CHECK(cudaMallocHost(&ha, n * sizeof(float)));
  CUDA_CHECK(cudaMallocHost(&hb, n * sizeof(float)));
  CUDA_CHECK(cudaMallocHost(&hc, n * sizeof(float)));
  for (size_t i = 0; i < n; ++i) {
    ha[i] = rng.uniform(-1.0f, 1.0f);
    hb[i] = rng.uniform(-1.0f, 1.0f);
  }

  float *da, *db, *dc;
  CUDA_CHECK(cudaMalloc(&da, n * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&db, n * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&dc, n * sizeof(float)));
  cudaStream_t streams[2];
  for (auto& st : streams) CUDA_CHECK(cudaStreamCreate(&st));

  for (size_t off = 0, k = 0; off < n; off += chunk, ++k) {
    const size_t len = off + chunk <= n ? chunk : n - off;
    cudaStream_t st = streams[k % 2];
    const size_t bytes = len * sizeof(float);
    CUDA_CHECK(cudaMemcpyAsync(da + off, ha + off, bytes, cudaMemcpyHostToDevice, st));
    CUDA_CHECK(cudaMemcpyAsync(db + off, hb + off, bytes, cudaMemcpyHostToDevice, st));
    triad<<<workload::ceil_div(len, block), block, 0, st>>>(da + off, db + off, dc + off, s,
                                                            static_cast<int>(len));
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpyAsync(hc + off, dc + off, bytes, cudaMemcpyDeviceToHost, st));
  }
  CUDA_CHECK(cudaDeviceSynchronize());

  std::vector<float> want(n);
  for (size_t i = 0; i < n; ++i) want[i] = ha[i] + s * hb[i];
  // One fused or unfused multiply-add apart at most.
  run.check_close("c", hc, want.data(), n, 1e-6, 1e-6);

  for (auto& st : streams) CUDA_CHECK(cudaStreamDestroy(st));
  CUDA_CHECK(cudaFree(da));
  CUDA_CHECK(cudaFree(db));
  CUDA_CHECK(cudaFree(dc));
  CUDA_CHECK(cudaFreeHost(ha));
  CUDA_CHECK(cudaFreeHost(hb));
  CUDA_CHECK(cudaFreeHost(hc));
  return run.pass();
}
