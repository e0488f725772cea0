// sdk/matrixMul - the CUDA SDK "matrixMul" sample: C = A * B with shared-memory tiling.
// Each CTA computes one BS x BS tile of C, one output element per thread; it walks the shared
// dimension tile by tile, each thread loading one element of the A tile and one of the B tile
// into shared memory (__syncthreads before and after the inner product over the tile).
// Kernel: matrix_mul<BS>, block BS x BS (16 at tiny, 32 otherwise; 16 on a device whose registers
// cannot hold a 32 x 32 block of it; --block 16|32 chooses), grid (wB / BS, hA / BS).
#include <vector>

#include "workload.h"

// A is hA x wA, B is wA x wB, C is hA x wB, all row-major; every dimension is a multiple of BS.
template <int BS>
__global__ void matrix_mul(const float* __restrict__ a, const float* __restrict__ b,
                           float* __restrict__ c, int wA, int wB) {
  __shared__ float as[BS][BS];
  __shared__ float bs[BS][BS];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.y * BS + ty;
  const int col = blockIdx.x * BS + tx;

  float sum = 0.0f;
  for (int k0 = 0; k0 < wA; k0 += BS) {
    // Consecutive threads (tx) read consecutive addresses of one row of each tile: coalesced.
    as[ty][tx] = a[row * wA + k0 + tx];
    bs[ty][tx] = b[(k0 + ty) * wB + col];
    __syncthreads();
#pragma unroll
    for (int k = 0; k < BS; ++k) sum += as[ty][k] * bs[k][tx];
    __syncthreads();  // the tile is overwritten by the next iteration
  }
  c[row * wB + col] = sum;
}

int main(int argc, char** argv) {
  workload::Run run("matrixMul", argc, argv, {"--block"});
  // The SDK's default is hA = wA = 320, wB = 640 with 32 x 32 blocks (large).
  // A device whose registers cannot hold a 32 x 32 block of this kernel (a
  // Fermi-class register file of 32768 per block, as GPGPU-Sim's GTX480)
  // gets 16 x 16 blocks, the tile of the SDKs of that generation; --block
  // 16|32 chooses.
  int bs = run.pick(16, 32, 32);
  cudaFuncAttributes attr{};
  CUDA_CHECK(cudaFuncGetAttributes(&attr, matrix_mul<32>));
  if (bs == 32 && attr.maxThreadsPerBlock < 32 * 32) {
    run.info("matrix_mul<32> needs %d registers per thread; this device runs at most %d threads of it per block",
             attr.numRegs, attr.maxThreadsPerBlock);
    bs = 16;
  }
  bs = static_cast<int>(run.option("--block", bs));
  if (bs != 16 && bs != 32) {
    std::fprintf(stderr, "matrixMul: --block must be 16 or 32\n");
    return 2;
  }
  const int hA = run.pick(128, 384, 320);
  const int wA = run.pick(64, 256, 320);
  const int wB = run.pick(128, 384, 640);
  const dim3 block(bs, bs), grid(wB / bs, hA / bs);
  run.info("A %dx%d * B %dx%d = C %dx%d", hA, wA, wA, wB, hA, wB);
  run.info("matrix_mul<%d>: grid %ux%u, block %ux%u", bs, grid.x, grid.y, block.x, block.y);

  workload::Rng rng(run.seed());
  // Positive entries (the SDK fills with constants): the CPU bound below is then relative.
  std::vector<float> ha(size_t(hA) * wA), hb(size_t(wA) * wB), hc(size_t(hA) * wB);
  for (auto& v : ha) v = rng.uniform(0.0f, 1.0f);
  for (auto& v : hb) v = rng.uniform(0.0f, 1.0f);

  float *da, *db, *dc;
  CUDA_CHECK(cudaMalloc(&da, ha.size() * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&db, hb.size() * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&dc, hc.size() * sizeof(float)));
  CUDA_CHECK(cudaMemcpy(da, ha.data(), ha.size() * sizeof(float), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(db, hb.data(), hb.size() * sizeof(float), cudaMemcpyHostToDevice));

  if (bs == 16)
    matrix_mul<16><<<grid, block>>>(da, db, dc, wA, wB);
  else
    matrix_mul<32><<<grid, block>>>(da, db, dc, wA, wB);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaMemcpy(hc.data(), dc, hc.size() * sizeof(float), cudaMemcpyDeviceToHost));

  // Reference in double. The GPU sums wA non-negative products in float (with FMA), so its
  // relative error is at most about wA * 2^-24 (the recursive-summation bound gamma_wA), plus
  // half an ulp each for rounding the reference to float and the bound itself.
  std::vector<float> want(hc.size());
  std::vector<double> row(wB);
  for (int i = 0; i < hA; ++i) {
    std::fill(row.begin(), row.end(), 0.0);
    for (int k = 0; k < wA; ++k) {
      const double aik = ha[size_t(i) * wA + k];
      const float* brow = &hb[size_t(k) * wB];
      for (int j = 0; j < wB; ++j) row[j] += aik * brow[j];
    }
    for (int j = 0; j < wB; ++j) want[size_t(i) * wB + j] = static_cast<float>(row[j]);
  }
  run.check_close("C", hc.data(), want.data(), hc.size(), (wA + 2) * 0x1p-24, 0.0);

  CUDA_CHECK(cudaFree(da));
  CUDA_CHECK(cudaFree(db));
  CUDA_CHECK(cudaFree(dc));
  return run.pass();
}
