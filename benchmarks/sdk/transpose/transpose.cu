// sdk/transpose - the CUDA SDK "transpose" sample: out = in^T for a W x H matrix of floats.
// Two kernels, both checked:
//   transpose_naive     - reads rows coalesced, writes columns (each warp's stores hit 32
//                         different rows: the uncoalesced baseline);
//   transpose_coalesced - stages a 32 x 32 tile in shared memory, padded to 33 columns so the
//                         column-wise reads of the tile are free of bank conflicts; both global
//                         reads and writes are coalesced.
// Both: TILE_DIM 32, BLOCK_ROWS 8 (each 32 x 8 CTA moves a 32 x 32 tile, four elements per
// thread), grid (W / 32, H / 32).
#include <vector>

#include "workload.h"

constexpr int TILE_DIM = 32;
constexpr int BLOCK_ROWS = 8;

// in is height x width (row-major), out is width x height; both dimensions are multiples of
// TILE_DIM, so every thread's elements are in range.
__global__ void transpose_naive(float* __restrict__ out, const float* __restrict__ in, int width,
                                int height) {
  const int x = blockIdx.x * TILE_DIM + threadIdx.x;
  const int y = blockIdx.y * TILE_DIM + threadIdx.y;
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
    out[x * height + (y + j)] = in[(y + j) * width + x];
}

__global__ void transpose_coalesced(float* __restrict__ out, const float* __restrict__ in,
                                    int width, int height) {
  __shared__ float tile[TILE_DIM][TILE_DIM + 1];  // +1: column reads spread over all banks
  int x = blockIdx.x * TILE_DIM + threadIdx.x;
  int y = blockIdx.y * TILE_DIM + threadIdx.y;
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
    tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * width + x];
  __syncthreads();
  // The output tile is the transposed block: swap the block indices, keep threadIdx.x fastest.
  x = blockIdx.y * TILE_DIM + threadIdx.x;
  y = blockIdx.x * TILE_DIM + threadIdx.y;
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
    out[(y + j) * height + x] = tile[threadIdx.x][threadIdx.y + j];
}

int main(int argc, char** argv) {
  workload::Run run("transpose", argc, argv);
  // The SDK's default is 1024 x 1024 (small); large is a 4096 x 4096 matrix.
  const int width = run.pick(384, 1024, 4096);
  const int height = run.pick(256, 1024, 4096);
  const size_t n = size_t(width) * height;
  const dim3 block(TILE_DIM, BLOCK_ROWS), grid(width / TILE_DIM, height / TILE_DIM);
  run.info("%d x %d matrix (width x height)", width, height);
  run.info("transpose_naive, transpose_coalesced: grid %ux%u, block %ux%u", grid.x, grid.y,
           block.x, block.y);

  workload::Rng rng(run.seed());
  std::vector<float> h_in(n), h_out(n), want(n);
  for (auto& v : h_in) v = rng.uniform(-1000.0f, 1000.0f);
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) want[size_t(x) * height + y] = h_in[size_t(y) * width + x];

  float *d_in, *d_out;
  CUDA_CHECK(cudaMalloc(&d_in, n * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_out, n * sizeof(float)));
  CUDA_CHECK(cudaMemcpy(d_in, h_in.data(), n * sizeof(float), cudaMemcpyHostToDevice));

  // Moving floats is exact: compare bit for bit (as integers, so a NaN pattern cannot hide).
  auto check = [&](const char* what) {
    CUDA_CHECK(cudaMemcpy(h_out.data(), d_out, n * sizeof(float), cudaMemcpyDeviceToHost));
    std::vector<uint32_t> got(n), exp(n);
    std::memcpy(got.data(), h_out.data(), n * sizeof(float));
    std::memcpy(exp.data(), want.data(), n * sizeof(float));
    run.check_equal(what, got.data(), exp.data(), n);
  };

  CUDA_CHECK(cudaMemset(d_out, 0, n * sizeof(float)));
  transpose_naive<<<grid, block>>>(d_out, d_in, width, height);
  CUDA_CHECK(cudaGetLastError());
  check("transpose_naive");

  CUDA_CHECK(cudaMemset(d_out, 0, n * sizeof(float)));
  transpose_coalesced<<<grid, block>>>(d_out, d_in, width, height);
  CUDA_CHECK(cudaGetLastError());
  check("transpose_coalesced");

  CUDA_CHECK(cudaFree(d_in));
  CUDA_CHECK(cudaFree(d_out));
  return run.pass();
}
