// sdk/convolutionSeparable - 2-D convolution of a float image with a separable 17-tap filter
// (radius 8), as a row pass then a column pass (the CUDA SDK "convolutionSeparable" sample). The
// filter taps live in constant memory; pixels outside the image are zero.
// convolution_rows: a 16 x 4 CTA stages 4 rows of 8 * 16 output pixels plus a 16-pixel halo on
//   each side in shared memory (every thread loads 10 pixels, coalesced along the row), then
//   each thread computes 8 outputs 16 pixels apart.
// convolution_columns: a 16 x 8 CTA stages 16 columns of 8 * 8 output pixels plus an 8-row halo
//   above and below (shared array padded by one word per column), each thread computing 8
//   outputs 8 rows apart.
// Shapes: rows grid (W / 128, H / 4), block 16 x 4; columns grid (W / 16, H / 64), block 16 x 8.
#include <vector>

#include "workload.h"

constexpr int RADIUS = 8;
constexpr int TAPS = 2 * RADIUS + 1;

constexpr int ROWS_BX = 16, ROWS_BY = 4, ROWS_STEPS = 8, ROWS_HALO = 1;
constexpr int COLS_BX = 16, COLS_BY = 8, COLS_STEPS = 8, COLS_HALO = 1;
static_assert(ROWS_HALO * ROWS_BX >= RADIUS && COLS_HALO * COLS_BY >= RADIUS,
              "the halo must cover the filter radius");

__constant__ float c_taps[TAPS];

// width is a multiple of ROWS_STEPS * ROWS_BX, height of ROWS_BY.
__global__ void __launch_bounds__(ROWS_BX * ROWS_BY)
convolution_rows(float* __restrict__ dst, const float* __restrict__ src, int width) {
  __shared__ float s[ROWS_BY][(ROWS_STEPS + 2 * ROWS_HALO) * ROWS_BX];
  const int tx = threadIdx.x, ty = threadIdx.y;
  // x of this thread's first (left-halo) pixel; may be negative in the first column of CTAs.
  const int x0 = (blockIdx.x * ROWS_STEPS - ROWS_HALO) * ROWS_BX + tx;
  const int y = blockIdx.y * ROWS_BY + ty;
  const float* in = src + size_t(y) * width;
  float* out = dst + size_t(y) * width;

#pragma unroll
  for (int i = 0; i < ROWS_STEPS + 2 * ROWS_HALO; ++i) {
    const int x = x0 + i * ROWS_BX;
    // Only the halo steps can leave the image.
    const bool inside = (i >= ROWS_HALO && i < ROWS_HALO + ROWS_STEPS) || (x >= 0 && x < width);
    s[ty][tx + i * ROWS_BX] = inside ? in[x] : 0.0f;
  }
  __syncthreads();
#pragma unroll
  for (int i = ROWS_HALO; i < ROWS_HALO + ROWS_STEPS; ++i) {
    float sum = 0.0f;
#pragma unroll
    for (int j = -RADIUS; j <= RADIUS; ++j) sum += c_taps[RADIUS - j] * s[ty][tx + i * ROWS_BX + j];
    out[x0 + i * ROWS_BX] = sum;
  }
}

// width is a multiple of COLS_BX, height of COLS_STEPS * COLS_BY.
__global__ void __launch_bounds__(COLS_BX * COLS_BY)
convolution_columns(float* __restrict__ dst, const float* __restrict__ src, int width,
                    int height) {
  // +1: consecutive columns start in different banks, so the column-wise accesses of a warp
  // (16 columns x 2 rows) do not pile up in a few banks.
  __shared__ float s[COLS_BX][(COLS_STEPS + 2 * COLS_HALO) * COLS_BY + 1];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int x = blockIdx.x * COLS_BX + tx;
  const int y0 = (blockIdx.y * COLS_STEPS - COLS_HALO) * COLS_BY + ty;

#pragma unroll
  for (int i = 0; i < COLS_STEPS + 2 * COLS_HALO; ++i) {
    const int y = y0 + i * COLS_BY;
    const bool inside = (i >= COLS_HALO && i < COLS_HALO + COLS_STEPS) || (y >= 0 && y < height);
    s[tx][ty + i * COLS_BY] = inside ? src[size_t(y) * width + x] : 0.0f;
  }
  __syncthreads();
#pragma unroll
  for (int i = COLS_HALO; i < COLS_HALO + COLS_STEPS; ++i) {
    float sum = 0.0f;
#pragma unroll
    for (int j = -RADIUS; j <= RADIUS; ++j) sum += c_taps[RADIUS - j] * s[tx][ty + i * COLS_BY + j];
    dst[size_t(y0 + i * COLS_BY) * width + x] = sum;
  }
}

int main(int argc, char** argv) {
  workload::Run run("convolutionSeparable", argc, argv);
  // The SDK's default is a 3072 x 3072 image (large).
  const int width = run.pick(384, 1024, 3072);
  const int height = run.pick(192, 1024, 3072);
  const size_t n = size_t(width) * height;
  const dim3 rows_block(ROWS_BX, ROWS_BY);
  const dim3 rows_grid(width / (ROWS_STEPS * ROWS_BX), height / ROWS_BY);
  const dim3 cols_block(COLS_BX, COLS_BY);
  const dim3 cols_grid(width / COLS_BX, height / (COLS_STEPS * COLS_BY));
  run.info("%d x %d image, %d-tap separable filter", width, height, TAPS);
  run.info("convolution_rows: grid %ux%u, block %ux%u", rows_grid.x, rows_grid.y, rows_block.x,
           rows_block.y);
  run.info("convolution_columns: grid %ux%u, block %ux%u", cols_grid.x, cols_grid.y,
           cols_block.x, cols_block.y);

  workload::Rng rng(run.seed());
  // A positive, normalised smoothing filter and a positive image (smooth shading plus noise).
  float taps[TAPS];
  double tap_sum = 0;
  for (float& t : taps) tap_sum += (t = rng.uniform(0.1f, 1.0f));
  for (float& t : taps) t = static_cast<float>(t / tap_sum);
  std::vector<float> h_img(n), got(n);
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x)
      h_img[size_t(y) * width + x] = static_cast<float>(
          0.5 + 0.3 * std::sin(x * 0.05) * std::cos(y * 0.03) + rng.uniform(0.0f, 0.2f));

  float *d_img, *d_tmp, *d_out;
  CUDA_CHECK(cudaMalloc(&d_img, n * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_tmp, n * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_out, n * sizeof(float)));
  CUDA_CHECK(cudaMemcpy(d_img, h_img.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpyToSymbol(c_taps, taps, sizeof(taps)));

  convolution_rows<<<rows_grid, rows_block>>>(d_tmp, d_img, width);
  CUDA_CHECK(cudaGetLastError());
  convolution_columns<<<cols_grid, cols_block>>>(d_out, d_tmp, width, height);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaMemcpy(got.data(), d_out, n * sizeof(float), cudaMemcpyDeviceToHost));

  // Reference in double, same passes, zero outside the image.
  std::vector<double> tmp(n);
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) {
      double sum = 0;
      for (int j = -RADIUS; j <= RADIUS; ++j)
        if (x + j >= 0 && x + j < width)
          sum += double(taps[RADIUS - j]) * h_img[size_t(y) * width + x + j];
      tmp[size_t(y) * width + x] = sum;
    }
  std::vector<float> want(n);
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) {
      double sum = 0;
      for (int j = -RADIUS; j <= RADIUS; ++j)
        if (y + j >= 0 && y + j < height)
          sum += double(taps[RADIUS - j]) * tmp[size_t(y + j) * width + x];
      want[size_t(y) * width + x] = static_cast<float>(sum);
    }
  // Taps and pixels are positive, so the relative error is bounded by the rounding depth: 17
  // sequential (fused) adds per pass, the intermediate image stored as float, and rounding the
  // reference: (2 * 17 + 2) * 2^-24.
  run.check_close("output", got.data(), want.data(), n, (2 * TAPS + 2) * 0x1p-24, 0.0);

  CUDA_CHECK(cudaFree(d_img));
  CUDA_CHECK(cudaFree(d_tmp));
  CUDA_CHECK(cudaFree(d_out));
  return run.pass();
}
