// ispass/sto - StoreGPU sliding-window hashing, the GPGPU-Sim ISPASS'09 "STO" benchmark (after
// Al-Kiswany et al., HPDC 2008): the MD5 digest of every window of `window` bytes that starts at a
// multiple of `step` bytes of a data buffer, as content-addressable storage uses to find chunk
// boundaries and duplicate data. One thread hashes one window.
// Kernel: md5_windows, grid = windows / 128 (384 CTAs at the paper scale), block 128. Each CTA
// first copies the bytes its 128 windows cover (128 * step + window - step) from global into
// shared memory with coalesced word loads, then every thread runs MD5 over its window straight
// from shared memory (StoreGPU's shared-memory optimisation) and writes its 16-byte digest.
// Checked against a CPU MD5 on every window, and the RFC 1321 test vector "abc" on the CPU and
// through the same kernel on the GPU.
#include <cstdint>
#include <vector>

#include "workload.h"

namespace {

constexpr int kThreads = 128;

// MD5 (RFC 1321 §3.4): per-round shift amounts and the sine-derived constants.
__constant__ uint32_t c_k[64];

// The rotation of step i: each round of 16 steps cycles through 4 amounts.
__host__ __device__ constexpr int md5_shift(int i) {
  const int table[16] = {7, 12, 17, 22, 5, 9, 14, 20, 4, 11, 16, 23, 6, 10, 15, 21};
  return table[(i >> 4) * 4 + (i & 3)];
}

__host__ __device__ inline uint32_t rotl(uint32_t x, int n) { return (x << n) | (x >> (32 - n)); }

// The 64 steps of one MD5 compression of the 16 message words m into the chaining state h
// (fully unrolled, so m stays in registers and k is read at constant offsets).
__host__ __device__ inline void md5_compress(uint32_t h[4], const uint32_t m[16],
                                             const uint32_t* k) {
  uint32_t a = h[0], b = h[1], c = h[2], d = h[3];
#pragma unroll
  for (int i = 0; i < 64; ++i) {
    uint32_t f;
    int g;
    if (i < 16) {
      f = (b & c) | (~b & d);
      g = i;
    } else if (i < 32) {
      f = (d & b) | (~d & c);
      g = (5 * i + 1) & 15;
    } else if (i < 48) {
      f = b ^ c ^ d;
      g = (3 * i + 5) & 15;
    } else {
      f = c ^ (b | ~d);
      g = (7 * i) & 15;
    }
    const uint32_t t = d;
    d = c;
    c = b;
    b = b + rotl(a + f + k[i] + m[g], md5_shift(i));
    a = t;
  }
  h[0] += a;
  h[1] += b;
  h[2] += c;
  h[3] += d;
}

// Word j of the padded message: the window's bytes, then 0x80, zeros, and the length in bits in
// the last two words of the last 64-byte block. `w` reads word j of the window's bytes (which may
// run past the window: the bytes beyond are masked off).
template <class ReadWord>
__host__ __device__ inline uint32_t padded_word(int j, unsigned len, int nblocks,
                                                const ReadWord& w) {
  const unsigned byte = 4u * j;
  if (j == 16 * nblocks - 2) return len << 3;
  if (j == 16 * nblocks - 1) return len >> 29;
  if (byte + 4 <= len) return w(j);
  if (byte >= len + 1) return 0;
  const unsigned keep = len - byte;  // 0..3 message bytes in this word, then the 0x80 marker
  const uint32_t data = keep ? w(j) & (0xffffffffu >> (32 - 8 * keep)) : 0u;
  return data | 0x80u << (8 * keep);
}

__host__ __device__ inline int md5_blocks(unsigned len) {
  return static_cast<int>((len + 8) / 64 + 1);
}

// MD5 of a message of `len` bytes whose word j `w(j)` returns.
template <class ReadWord>
__host__ __device__ inline void md5(unsigned len, const ReadWord& w, const uint32_t* k,
                                    uint32_t h[4]) {
  h[0] = 0x67452301u, h[1] = 0xefcdab89u, h[2] = 0x98badcfeu, h[3] = 0x10325476u;
  const int nblocks = md5_blocks(len);
  for (int blk = 0; blk < nblocks; ++blk) {
    uint32_t m[16];
#pragma unroll
    for (int g = 0; g < 16; ++g) m[g] = padded_word(16 * blk + g, len, nblocks, w);
    md5_compress(h, m, k);
  }
}

// Message words read straight from memory: the GPU's window in shared memory (the window starts
// on a word boundary; bytes past it are masked off by padded_word).
struct AlignedWords {
  const uint32_t* p;
  __host__ __device__ uint32_t operator()(int j) const { return p[j]; }
};

// Message words assembled byte by byte from the window alone (the CPU reference).
struct ByteWords {
  const uint8_t* bytes;
  unsigned len;
  __host__ __device__ uint32_t operator()(int j) const {
    uint32_t w = 0;
    for (int b = 0; b < 4; ++b)
      if (4u * j + b < len) w |= static_cast<uint32_t>(bytes[4 * j + b]) << (8 * b);
    return w;
  }
};

// data: the buffer as 32-bit words (step is a multiple of 4, so every window starts on a word).
__global__ void __launch_bounds__(kThreads)
    md5_windows(const uint32_t* __restrict__ data, unsigned data_words, unsigned nwindows,
                unsigned step, unsigned window, uint4* __restrict__ digests) {
  extern __shared__ uint32_t chunk[];            // this CTA's bytes: (kThreads - 1) * step + window
  const unsigned first = blockIdx.x * kThreads;  // the CTA's first window
  const unsigned start_word = first * (step / 4);
  const unsigned chunk_words = ((kThreads - 1) * step + window + 3) / 4;
  for (unsigned i = threadIdx.x; i < chunk_words; i += kThreads)
    chunk[i] = start_word + i < data_words ? data[start_word + i] : 0u;
  __syncthreads();

  const unsigned id = first + threadIdx.x;
  if (id >= nwindows) return;
  uint32_t h[4];
  md5(window, AlignedWords{chunk + threadIdx.x * (step / 4)}, c_k, h);
  digests[id] = make_uint4(h[0], h[1], h[2], h[3]);
}

void md5_ref(const uint8_t* bytes, unsigned len, const uint32_t* k, uint32_t h[4]) {
  md5(len, ByteWords{bytes, len}, k, h);
}

struct Job {
  std::vector<uint8_t> data;  // a multiple of 4 bytes
  unsigned step, window, nwindows;
};

std::vector<uint32_t> hash_on_gpu(const workload::Run& run, const Job& job) {
  const unsigned data_words = static_cast<unsigned>(job.data.size() / 4);
  uint32_t* d_data;
  uint4* d_digests;
  CUDA_CHECK(cudaMalloc(&d_data, job.data.size()));
  CUDA_CHECK(cudaMalloc(&d_digests, job.nwindows * sizeof(uint4)));
  CUDA_CHECK(cudaMemcpy(d_data, job.data.data(), job.data.size(), cudaMemcpyHostToDevice));
  const unsigned grid = workload::ceil_div(job.nwindows, kThreads);
  const size_t shared = ((kThreads - 1) * job.step + job.window + 3) / 4 * sizeof(uint32_t);
  run.info("md5_windows: %u windows of %u bytes every %u bytes, grid %u, block %d, %zu B shared",
           job.nwindows, job.window, job.step, grid, kThreads, shared);
  md5_windows<<<grid, kThreads, shared>>>(d_data, data_words, job.nwindows, job.step, job.window,
                                          d_digests);
  CUDA_CHECK(cudaGetLastError());
  std::vector<uint32_t> got(4 * size_t{job.nwindows});
  CUDA_CHECK(
      cudaMemcpy(got.data(), d_digests, got.size() * sizeof(uint32_t), cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaFree(d_data));
  CUDA_CHECK(cudaFree(d_digests));
  return got;
}

}  // namespace

int main(int argc, char** argv) {
  workload::Run run("sto", argc, argv);
  // 64-byte windows every 4 bytes (two MD5 blocks each: the data, then the padding);
  // 384 CTAs of 128 windows hash 192 KiB at the paper scale.
  const unsigned ctas = run.pick(24u, 256u, 384u);
  const unsigned step = 4, window = 64;

  uint32_t k[64];
  for (int i = 0; i < 64; ++i)
    k[i] = static_cast<uint32_t>(std::floor(std::fabs(std::sin(i + 1.0)) * 4294967296.0));
  CUDA_CHECK(cudaMemcpyToSymbol(c_k, k, sizeof(k)));

  // RFC 1321 appendix A.5: MD5("abc") = 900150983cd24fb0d6963f7d28e17f72.
  const uint8_t abc_digest[16] = {0x90, 0x01, 0x50, 0x98, 0x3c, 0xd2, 0x4f, 0xb0,
                                  0xd6, 0x96, 0x3f, 0x7d, 0x28, 0xe1, 0x7f, 0x72};
  uint32_t want_abc[4];
  std::memcpy(want_abc, abc_digest, 16);  // MD5 digests are the state words, little-endian
  Job abc{{'a', 'b', 'c', 0}, 4, 3, 1};
  uint32_t h[4];
  md5_ref(abc.data.data(), 3, k, h);
  run.check_equal("MD5(\"abc\") on the CPU", h, want_abc, 4);
  const std::vector<uint32_t> gpu_abc = hash_on_gpu(run, abc);
  run.check_equal("MD5(\"abc\") on the GPU", gpu_abc.data(), want_abc, 4);

  // The workload: text-like data (bytes drawn from a skewed alphabet, with repeated runs, as the
  // files a storage system deduplicates), every window hashed.
  Job job;
  job.step = step;
  job.window = window;
  job.nwindows = ctas * kThreads;
  job.data.resize(size_t{job.nwindows - 1} * step + window);
  workload::Rng rng(run.seed());
  size_t i = 0;
  while (i < job.data.size()) {
    if (i >= 256 && rng.below(64) == 0) {  // repeat an earlier run of bytes: duplicate content
      const size_t from = i - 1 - rng.below(256), len = 8 + rng.below(120);
      for (size_t j = 0; j < len && i < job.data.size(); ++j) job.data[i++] = job.data[from + j];
    } else {  // mostly lower-case letters, some of all printable characters
      job.data[i++] =
          static_cast<uint8_t>(rng.below(2) ? 'a' + rng.below(26) : ' ' + rng.below(95));
    }
  }
  const std::vector<uint32_t> got = hash_on_gpu(run, job);

  std::vector<uint32_t> want(4 * size_t{job.nwindows});
  for (unsigned w = 0; w < job.nwindows; ++w)
    md5_ref(&job.data[size_t{w} * step], window, k, &want[4 * size_t{w}]);
  run.check_equal("digest words", got.data(), want.data(), want.size());
  return run.pass();
}
