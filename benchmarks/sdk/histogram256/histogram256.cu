// sdk/histogram256 - 256-bin histogram of a byte stream (the CUDA SDK "histogram" sample's
// 256-bin path). 256 bins of 8-bit per-thread counters would not fit in shared memory, so the
// counters are shared per warp instead:
// histogram256: each of the CTA's 6 warps owns a 256-bin sub-histogram of 32-bit counters in
//   shared memory, updated with shared-memory atomics (collisions only within a warp). Threads
//   read one 32-bit word (four bytes) per step with a grid-stride loop. Then each thread sums
//   bins across the 6 warp histograms and the CTA writes its partial histogram.
// merge_histogram256: one CTA per bin adds that bin over all partial histograms (strided loop,
//   then a shared-memory tree).
// Shapes: histogram256 grid 240 (the SDK's partial-histogram count), block 192 (6 warps);
// merge grid 256, block 256.
#include <vector>

#include "workload.h"

constexpr int BINS = 256;
constexpr int WARPS = 6;
constexpr int THREADS = WARPS * 32;
constexpr int PARTIALS = 240;
constexpr int MERGE_THREADS = 256;

__device__ __forceinline__ void add_word(uint32_t* s_warp, uint32_t w) {
  atomicAdd(s_warp + (w & 0xFFu), 1u);
  atomicAdd(s_warp + ((w >> 8) & 0xFFu), 1u);
  atomicAdd(s_warp + ((w >> 16) & 0xFFu), 1u);
  atomicAdd(s_warp + (w >> 24), 1u);
}

__global__ void __launch_bounds__(THREADS)
histogram256(uint32_t* __restrict__ partial, const uint32_t* __restrict__ data, int count) {
  __shared__ uint32_t s_hist[WARPS * BINS];
  uint32_t* s_warp = s_hist + (threadIdx.x / 32) * BINS;

  for (int i = threadIdx.x; i < WARPS * BINS; i += THREADS) s_hist[i] = 0;
  __syncthreads();

  for (int i = blockIdx.x * THREADS + threadIdx.x; i < count; i += THREADS * gridDim.x)
    add_word(s_warp, data[i]);
  __syncthreads();

  for (int bin = threadIdx.x; bin < BINS; bin += THREADS) {
    uint32_t sum = 0;
    for (int w = 0; w < WARPS; ++w) sum += s_hist[w * BINS + bin];
    partial[blockIdx.x * BINS + bin] = sum;
  }
}

__global__ void merge_histogram256(uint32_t* __restrict__ hist,
                                   const uint32_t* __restrict__ partial, int partials) {
  __shared__ uint32_t s_sum[MERGE_THREADS];
  const int bin = blockIdx.x;
  uint32_t sum = 0;
  for (int i = threadIdx.x; i < partials; i += MERGE_THREADS) sum += partial[i * BINS + bin];
  s_sum[threadIdx.x] = sum;
  for (int stride = MERGE_THREADS / 2; stride > 0; stride >>= 1) {
    __syncthreads();
    if (threadIdx.x < stride) s_sum[threadIdx.x] += s_sum[threadIdx.x + stride];
  }
  if (threadIdx.x == 0) hist[bin] = s_sum[0];
}

// A synthetic 8-bit image (smooth shading, saturated patches, sensor noise), row-major: a
// realistic, skewed byte distribution (the saturated value makes atomics collide) rather than
// uniform noise.
static void make_image(std::vector<unsigned char>& img, int width, workload::Rng& rng) {
  const int height = static_cast<int>(img.size() / width);
  std::vector<double> shade_x(width);
  for (int x = 0; x < width; ++x) shade_x[x] = 70.0 * std::sin(x * 0.021);
  for (int y = 0; y < height; ++y) {
    const double shade_y = std::cos(y * 0.013);
    for (int x = 0; x < width; ++x) {
      double v = 110.0 + shade_x[x] * shade_y + 0.03 * (x - y);
      if ((x / 97 + y / 61) % 7 == 0) v = 235.0;
      const uint64_t r = rng.next();  // triangular noise in [-31, 31]
      v += static_cast<int>(r & 31) + static_cast<int>((r >> 5) & 31) - 31;
      img[size_t(y) * width + x] = static_cast<unsigned char>(v < 0 ? 0 : v > 255 ? 255 : v);
    }
  }
}

int main(int argc, char** argv) {
  workload::Run run("histogram256", argc, argv);
  // The SDK's default is 64 MiB (large).
  const size_t bytes = run.pick<size_t>(1, 16, 64) << 20;
  const int width = 2048;
  const int count = static_cast<int>(bytes / sizeof(uint32_t));
  run.info("%zu bytes (a %d x %zu 8-bit image), %d bins", bytes, width, bytes / width, BINS);
  run.info("histogram256: grid %d, block %d; merge_histogram256: grid %d, block %d", PARTIALS,
           THREADS, BINS, MERGE_THREADS);

  workload::Rng rng(run.seed());
  std::vector<unsigned char> h_data(bytes);
  make_image(h_data, width, rng);
  std::vector<uint32_t> want(BINS, 0), got(BINS);
  for (unsigned char b : h_data) ++want[b];

  unsigned char* d_data;
  uint32_t *d_partial, *d_hist;
  CUDA_CHECK(cudaMalloc(&d_data, bytes));
  CUDA_CHECK(cudaMalloc(&d_partial, size_t(PARTIALS) * BINS * sizeof(uint32_t)));
  CUDA_CHECK(cudaMalloc(&d_hist, BINS * sizeof(uint32_t)));
  CUDA_CHECK(cudaMemcpy(d_data, h_data.data(), bytes, cudaMemcpyHostToDevice));

  histogram256<<<PARTIALS, THREADS>>>(d_partial, reinterpret_cast<const uint32_t*>(d_data),
                                      count);
  CUDA_CHECK(cudaGetLastError());
  merge_histogram256<<<BINS, MERGE_THREADS>>>(d_hist, d_partial, PARTIALS);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaMemcpy(got.data(), d_hist, BINS * sizeof(uint32_t), cudaMemcpyDeviceToHost));
  run.check_equal("histogram", got.data(), want.data(), BINS);

  CUDA_CHECK(cudaFree(d_data));
  CUDA_CHECK(cudaFree(d_partial));
  CUDA_CHECK(cudaFree(d_hist));
  return run.pass();
}
