// sdk/histogram64 - 64-bin histogram of a byte stream (the CUDA SDK "histogram" sample's 64-bin
// path, Podlozhnyuk, "Histogram calculation in CUDA"). The bin of a byte is its top six bits.
// histogram64: every thread owns a private 64-bin sub-histogram of 8-bit counters in shared
//   memory. Counter (bin, thread) lives at byte bin * 64 + pos(thread), where pos() spreads the
//   16 threads of a half-warp over 16 different 32-bit words (4 threads share a word, one byte
//   each), so the per-byte increments of a half-warp never conflict on a 16-bank shared memory
//   whatever bins they hit. Each thread reads 16 bytes (one uint4) per step, at most 15 steps, so
//   no 8-bit counter can overflow (15 * 16 = 240 < 256). Then each thread sums one bin across the
//   64 sub-histograms (reading whole words, rotated per thread to avoid conflicts) and writes the
//   CTA's partial histogram.
// merge_histogram64: one CTA per bin adds that bin over all partial histograms (strided loop,
//   then a shared-memory tree).
// Shapes: histogram64 grid = bytes / (64 * 240), block 64; merge grid 64, block 256.
#include <vector>

#include "workload.h"

constexpr int BINS = 64;
constexpr int BANKS = 16;                       // the banking the packing was designed for
constexpr int THREADS = 4 * BANKS;              // 64: one byte column per thread in each word
constexpr int MAX_STEPS = 255 / 16;             // uint4 reads per thread before a byte could wrap
constexpr int MERGE_THREADS = 256;

__device__ __forceinline__ void add_byte(unsigned char* s_thread, uint32_t byte) {
  ++s_thread[(byte >> 2) * THREADS];  // row = bin, column = this thread's byte
}
__device__ __forceinline__ void add_word(unsigned char* s_thread, uint32_t w) {
  add_byte(s_thread, w & 0xFFu);
  add_byte(s_thread, (w >> 8) & 0xFFu);
  add_byte(s_thread, (w >> 16) & 0xFFu);
  add_byte(s_thread, w >> 24);
}

__global__ void __launch_bounds__(THREADS)
histogram64(uint32_t* __restrict__ partial, const uint4* __restrict__ data, int count) {
  __shared__ uint32_t s_words[BINS * THREADS / 4];  // BINS rows of THREADS byte counters
  unsigned char* s_hist = reinterpret_cast<unsigned char*>(s_words);
  const int tid = threadIdx.x;
  // Thread t's byte column: word (t % 16), byte (t / 16) of each 16-word row.
  const int pos = ((tid & (BANKS - 1)) << 2) | (tid >> 4);
  unsigned char* s_thread = s_hist + pos;

  for (int i = tid; i < BINS * THREADS / 4; i += THREADS) s_words[i] = 0;
  __syncthreads();

  for (int i = blockIdx.x * THREADS + tid; i < count; i += THREADS * gridDim.x) {
    const uint4 v = data[i];
    add_word(s_thread, v.x);
    add_word(s_thread, v.y);
    add_word(s_thread, v.z);
    add_word(s_thread, v.w);
  }
  __syncthreads();

  // Thread t sums bin t over the 64 sub-histograms: 16 words of 4 byte counters. The start
  // word is rotated by the thread index so a half-warp reads 16 different banks.
  const uint32_t* row = s_words + tid * (THREADS / 4);
  uint32_t sum = 0;
  for (int j = 0; j < THREADS / 4; ++j) {
    const uint32_t w = row[(j + tid) & (THREADS / 4 - 1)];
    sum += (w & 0xFFu) + ((w >> 8) & 0xFFu) + ((w >> 16) & 0xFFu) + (w >> 24);
  }
  partial[blockIdx.x * BINS + tid] = sum;
}

__global__ void merge_histogram64(uint32_t* __restrict__ hist,
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
// realistic, skewed byte distribution rather than uniform noise.
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
  workload::Run run("histogram64", argc, argv);
  // The SDK's default is 64 MiB (large).
  const size_t bytes = run.pick<size_t>(1, 16, 64) << 20;
  const int width = 2048;
  const int count = static_cast<int>(bytes / sizeof(uint4));
  const int partials = static_cast<int>(workload::ceil_div(count, THREADS * MAX_STEPS));
  run.info("%zu bytes (a %d x %zu 8-bit image), %d bins", bytes, width, bytes / width, BINS);
  run.info("histogram64: grid %d, block %d; merge_histogram64: grid %d, block %d", partials,
           THREADS, BINS, MERGE_THREADS);

  workload::Rng rng(run.seed());
  std::vector<unsigned char> h_data(bytes);
  make_image(h_data, width, rng);
  std::vector<uint32_t> want(BINS, 0), got(BINS);
  for (unsigned char b : h_data) ++want[b >> 2];

  unsigned char* d_data;
  uint32_t *d_partial, *d_hist;
  CUDA_CHECK(cudaMalloc(&d_data, bytes));
  CUDA_CHECK(cudaMalloc(&d_partial, size_t(partials) * BINS * sizeof(uint32_t)));
  CUDA_CHECK(cudaMalloc(&d_hist, BINS * sizeof(uint32_t)));
  CUDA_CHECK(cudaMemcpy(d_data, h_data.data(), bytes, cudaMemcpyHostToDevice));

  histogram64<<<partials, THREADS>>>(d_partial, reinterpret_cast<const uint4*>(d_data), count);
  CUDA_CHECK(cudaGetLastError());
  merge_histogram64<<<BINS, MERGE_THREADS>>>(d_hist, d_partial, partials);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaMemcpy(got.data(), d_hist, BINS * sizeof(uint32_t), cudaMemcpyDeviceToHost));
  run.check_equal("histogram", got.data(), want.data(), BINS);

  CUDA_CHECK(cudaFree(d_data));
  CUDA_CHECK(cudaFree(d_partial));
  CUDA_CHECK(cudaFree(d_hist));
  return run.pass();
}
