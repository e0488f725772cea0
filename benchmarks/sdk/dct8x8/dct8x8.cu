// sdk/dct8x8 - forward then inverse 8 x 8 block DCT (orthonormal DCT-II / DCT-III, as in JPEG)
// of a float image (the CUDA SDK "dct8x8" sample, its shared-memory float kernels "CUDA2").
// A CTA of 8 x 4 x 2 threads owns a 32 x 16 pixel tile, i.e. 8 blocks of 8 x 8 pixels, eight
// threads per block: the tile is loaded into shared memory (one row stride of 33 words, so the
// row pass is free of bank conflicts), each thread transforms one row of its block in place
// with a fast even/odd-decomposed 8-point DCT, then one column, and the tile is written back.
// Kernels: dct8x8_forward, dct8x8_inverse; grid (W / 32, H / 16), block 8 x 4 x 2.
// (The SDK's quantisation step between the two is left out so the round trip can be checked.)
#include <algorithm>
#include <vector>

#include "workload.h"

constexpr int B = 8;                   // DCT block size
constexpr int TILE_W = 32, TILE_H = 16;  // pixels per CTA
constexpr int STRIDE = TILE_W + 1;     // shared row stride

// cos(k * pi / 16) for k = 1..7, and sqrt(1/8).
#define C1 0.98078528040323044913f
#define C2 0.92387953251128675613f
#define C3 0.83146961230254523708f
#define C5 0.55557023301960222474f
#define C6 0.38268343236508977173f
#define C7 0.19509032201612826785f
#define RSQRT8 0.35355339059327376220f

// In-place orthonormal 8-point DCT-II of v[0], v[s], ..., v[7s].
__device__ void dct8(float* v, int s) {
  const float x0 = v[0], x1 = v[s], x2 = v[2 * s], x3 = v[3 * s];
  const float x4 = v[4 * s], x5 = v[5 * s], x6 = v[6 * s], x7 = v[7 * s];
  // Even part: sums of mirrored pairs; odd part: their differences.
  const float s07 = x0 + x7, s16 = x1 + x6, s25 = x2 + x5, s34 = x3 + x4;
  const float d07 = x0 - x7, d16 = x1 - x6, d25 = x2 - x5, d34 = x3 - x4;
  const float t0 = s07 + s34, t1 = s16 + s25, t2 = s07 - s34, t3 = s16 - s25;
  v[0] = RSQRT8 * (t0 + t1);
  v[4 * s] = RSQRT8 * (t0 - t1);
  v[2 * s] = 0.5f * (C2 * t2 + C6 * t3);
  v[6 * s] = 0.5f * (C6 * t2 - C2 * t3);
  v[1 * s] = 0.5f * (C1 * d07 + C3 * d16 + C5 * d25 + C7 * d34);
  v[3 * s] = 0.5f * (C3 * d07 - C7 * d16 - C1 * d25 - C5 * d34);
  v[5 * s] = 0.5f * (C5 * d07 - C1 * d16 + C7 * d25 + C3 * d34);
  v[7 * s] = 0.5f * (C7 * d07 - C5 * d16 + C3 * d25 - C1 * d34);
}

// In-place inverse (the transpose: DCT-III) of dct8.
__device__ void idct8(float* v, int s) {
  const float y0 = v[0], y1 = v[s], y2 = v[2 * s], y3 = v[3 * s];
  const float y4 = v[4 * s], y5 = v[5 * s], y6 = v[6 * s], y7 = v[7 * s];
  const float p = RSQRT8 * (y0 + y4), q = RSQRT8 * (y0 - y4);
  const float r = 0.5f * (C2 * y2 + C6 * y6), t = 0.5f * (C6 * y2 - C2 * y6);
  const float e0 = p + r, e3 = p - r, e1 = q + t, e2 = q - t;
  const float o0 = 0.5f * (C1 * y1 + C3 * y3 + C5 * y5 + C7 * y7);
  const float o1 = 0.5f * (C3 * y1 - C7 * y3 - C1 * y5 - C5 * y7);
  const float o2 = 0.5f * (C5 * y1 - C1 * y3 + C7 * y5 + C3 * y7);
  const float o3 = 0.5f * (C7 * y1 - C5 * y3 + C3 * y5 - C1 * y7);
  v[0] = e0 + o0;
  v[7 * s] = e0 - o0;
  v[1 * s] = e1 + o1;
  v[6 * s] = e1 - o1;
  v[2 * s] = e2 + o2;
  v[5 * s] = e2 - o2;
  v[3 * s] = e3 + o3;
  v[4 * s] = e3 - o3;
}

// The body of both kernels; width is a multiple of TILE_W, height of TILE_H.
template <bool INVERSE>
__device__ __forceinline__ void transform_tile(float* __restrict__ dst,
                                               const float* __restrict__ src, int width) {
  __shared__ float tile[TILE_H * STRIDE];
  // threadIdx.x: column (then row) within the 8 x 8 block; threadIdx.y: block within the tile
  // row; threadIdx.z: band of 8 pixel rows.
  const int col = threadIdx.y * B + threadIdx.x;  // this thread's pixel column in the tile
  const int row0 = threadIdx.z * B;               // first pixel row of its block
  const size_t offset = size_t(blockIdx.y * TILE_H + row0) * width + blockIdx.x * TILE_W + col;
  float* column = tile + row0 * STRIDE + col;

  // A warp (one band) reads 32 consecutive pixels of each row.
  for (int i = 0; i < B; ++i) column[i * STRIDE] = src[offset + size_t(i) * width];
  __syncthreads();
  float* row = tile + (row0 + threadIdx.x) * STRIDE + threadIdx.y * B;
  INVERSE ? idct8(row, 1) : dct8(row, 1);
  __syncthreads();
  INVERSE ? idct8(column, STRIDE) : dct8(column, STRIDE);
  __syncthreads();
  for (int i = 0; i < B; ++i) dst[offset + size_t(i) * width] = column[i * STRIDE];
}

__global__ void __launch_bounds__(TILE_W * TILE_H / B)
dct8x8_forward(float* __restrict__ dst, const float* __restrict__ src, int width) {
  transform_tile<false>(dst, src, width);
}

__global__ void __launch_bounds__(TILE_W * TILE_H / B)
dct8x8_inverse(float* __restrict__ dst, const float* __restrict__ src, int width) {
  transform_tile<true>(dst, src, width);
}

// A synthetic 8-bit grey image: shading, hard-edged shapes, fine stripes and noise, so blocks
// have energy in both low and high frequencies.
static void make_image(std::vector<float>& img, int width, int height, workload::Rng& rng) {
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) {
      double v = 90.0 + 60.0 * std::sin(x * 0.011 + y * 0.007);
      if ((x / 45 + y / 37) % 5 == 0) v += 70.0;                   // blocks with sharp edges
      if ((y / 90) % 3 == 1) v += 25.0 * std::sin(x * 1.3);        // fine texture
      v += rng.uniform(-8.0f, 8.0f);
      img[size_t(y) * width + x] = static_cast<float>(std::lround(v < 0 ? 0 : v > 255 ? 255 : v));
    }
}

int main(int argc, char** argv) {
  workload::Run run("dct8x8", argc, argv);
  // The SDK's sample image is 512 x 512 (between tiny and small).
  const int width = run.pick(320, 1024, 4096);
  const int height = run.pick(192, 1024, 4096);
  const size_t n = size_t(width) * height;
  const dim3 block(B, TILE_W / B, TILE_H / B), grid(width / TILE_W, height / TILE_H);
  run.info("%d x %d image, %zu blocks of 8 x 8", width, height, n / (B * B));
  run.info("dct8x8_forward, dct8x8_inverse: grid %ux%u, block %ux%ux%u", grid.x, grid.y, block.x,
           block.y, block.z);

  workload::Rng rng(run.seed());
  std::vector<float> h_img(n), h_coef(n), h_back(n);
  make_image(h_img, width, height, rng);

  float *d_img, *d_coef, *d_back;
  CUDA_CHECK(cudaMalloc(&d_img, n * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_coef, n * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_back, n * sizeof(float)));
  CUDA_CHECK(cudaMemcpy(d_img, h_img.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  dct8x8_forward<<<grid, block>>>(d_coef, d_img, width);
  CUDA_CHECK(cudaGetLastError());
  dct8x8_inverse<<<grid, block>>>(d_back, d_coef, width);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaMemcpy(h_coef.data(), d_coef, n * sizeof(float), cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaMemcpy(h_back.data(), d_back, n * sizeof(float), cudaMemcpyDeviceToHost));

  // Reference: the DCT-II by its definition, in double, separably (rows, then columns).
  double basis[B][B];  // basis[k][i] = a(k) cos((2i + 1) k pi / 16)
  for (int k = 0; k < B; ++k)
    for (int i = 0; i < B; ++i)
      basis[k][i] = (k ? 0.5 : std::sqrt(0.125)) * std::cos((2 * i + 1) * k * M_PI / 16);
  std::vector<float> want(n);
  double max_coef_err = 0, max_back_err = 0;
  for (int by = 0; by < height; by += B)
    for (int bx = 0; bx < width; bx += B) {
      double tmp[B][B];
      for (int y = 0; y < B; ++y)
        for (int u = 0; u < B; ++u) {
          double sum = 0;
          for (int x = 0; x < B; ++x) sum += basis[u][x] * h_img[size_t(by + y) * width + bx + x];
          tmp[y][u] = sum;
        }
      for (int v = 0; v < B; ++v)
        for (int u = 0; u < B; ++u) {
          double sum = 0;
          for (int y = 0; y < B; ++y) sum += basis[v][y] * tmp[y][u];
          const size_t i = size_t(by + v) * width + bx + u;
          want[i] = static_cast<float>(sum);
          max_coef_err = std::max(max_coef_err, std::fabs(h_coef[i] - sum));
        }
    }
  for (size_t i = 0; i < n; ++i)
    max_back_err = std::max(max_back_err, double(std::fabs(h_back[i] - h_img[i])));
  run.info("max abs error: coefficients %.3g, round trip %.3g", max_coef_err, max_back_err);
  // Every value in a block transform is at most 8 * 255 in magnitude (the DC term of a white
  // block), and each output goes through two 1-D passes of about four dependent roundings at
  // that scale: the error stays within 8 units of 2^-24 * 8 * 255 (2 are observed). The round
  // trip's two transforms partly cancel and stay within the same bound.
  const double tol = 8 * 0x1p-24 * 8 * 255;
  run.check_close("coefficients", h_coef.data(), want.data(), n, 0.0, tol);
  run.check_close("round trip", h_back.data(), h_img.data(), n, 0.0, tol);

  CUDA_CHECK(cudaFree(d_img));
  CUDA_CHECK(cudaFree(d_coef));
  CUDA_CHECK(cudaFree(d_back));
  return run.pass();
}
