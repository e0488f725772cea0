// ispass/aes - AES-128 encryption in ECB mode with T-tables, the GPGPU-Sim ISPASS'09 "AES"
// benchmark (after Manavski, ICSPC 2007). Four threads encrypt one 16-byte block, each computing
// one 32-bit column of the state per round, so a CTA of 256 threads encrypts 64 blocks.
// Kernel: aes128_encrypt, grid = words / 256 (257 CTAs at the paper's 256.25 KiB), block 256.
//   - the four T-tables and the S-box are staged from global memory into shared memory,
//   - the expanded key (44 round-key words) lives in constant memory (4 words read per round),
//   - the plaintext is read through a 1-D texture object over linear memory,
//   - the state is exchanged between the block's four threads through shared memory, with one
//     barrier per round (double-buffered so a round never overwrites what a neighbour still reads).
// Checked against a byte-oriented CPU AES (SubBytes/ShiftRows/MixColumns, no tables) and the
// FIPS-197 appendix C.1 known-answer vector, on the CPU and on the GPU.
#include <cstdint>
#include <vector>

#include "workload.h"

namespace {

constexpr int kThreads = 256;  // 64 AES blocks per CTA
constexpr int kRoundKeyWords = 44;

__constant__ uint32_t c_round_keys[kRoundKeyWords];

// Words are little-endian: byte r of a state column (row r) sits in bits 8r..8r+7, which is how
// the plaintext's bytes load from memory, so no byte swapping is needed anywhere.
__global__ void __launch_bounds__(kThreads)
    aes128_encrypt(cudaTextureObject_t plaintext, const uint32_t* __restrict__ tables,
                   uint32_t* __restrict__ ciphertext, unsigned nwords) {
  __shared__ uint32_t t0[256], t1[256], t2[256], t3[256], sbox[256];
  __shared__ uint32_t state[2][kThreads];
  const int tid = threadIdx.x;
  // Stage the tables: one entry of each per thread (blockDim.x == 256).
  t0[tid] = tables[tid];
  t1[tid] = tables[256 + tid];
  t2[tid] = tables[512 + tid];
  t3[tid] = tables[768 + tid];
  sbox[tid] = tables[1024 + tid];

  const unsigned word = blockIdx.x * kThreads + tid;
  const bool live = word < nwords;  // the last CTA may be partial; all threads reach the barriers
  const int col = tid & 3;          // this thread's column of its block
  const int base = tid & ~3;        // the block's first word in `state`
  const uint32_t in = live ? tex1Dfetch<unsigned>(plaintext, static_cast<int>(word)) : 0u;
  state[0][tid] = in ^ c_round_keys[col];
  __syncthreads();

  // Rounds 1..9: SubBytes + ShiftRows + MixColumns folded into four table lookups. Column c of
  // the new state takes row r from column c + r of the old one (ShiftRows).
  int cur = 0;
  for (int round = 1; round < 10; ++round) {
    const uint32_t* s = state[cur];
    const uint32_t v = t0[s[base + col] & 0xff] ^ t1[(s[base + ((col + 1) & 3)] >> 8) & 0xff] ^
                       t2[(s[base + ((col + 2) & 3)] >> 16) & 0xff] ^
                       t3[s[base + ((col + 3) & 3)] >> 24] ^ c_round_keys[4 * round + col];
    state[cur ^ 1][tid] = v;
    cur ^= 1;
    __syncthreads();  // the round's writes are visible, and nobody still reads the other buffer
  }
  // Round 10: SubBytes + ShiftRows, no MixColumns.
  const uint32_t* s = state[cur];
  const uint32_t out =
      (sbox[s[base + col] & 0xff] | sbox[(s[base + ((col + 1) & 3)] >> 8) & 0xff] << 8 |
       sbox[(s[base + ((col + 2) & 3)] >> 16) & 0xff] << 16 |
       sbox[s[base + ((col + 3) & 3)] >> 24] << 24) ^
      c_round_keys[40 + col];
  if (live) ciphertext[word] = out;
}

// ---- Host side: tables, key expansion, a reference AES written byte by byte (FIPS-197 §5.1).

uint8_t xtime(uint8_t a) { return static_cast<uint8_t>((a << 1) ^ ((a & 0x80) ? 0x1b : 0)); }

uint8_t gf_mul(uint8_t a, uint8_t b) {
  uint8_t p = 0;
  for (; b; b >>= 1, a = xtime(a))
    if (b & 1) p ^= a;
  return p;
}

// The S-box from its definition: the multiplicative inverse in GF(2^8) then the affine map.
std::vector<uint8_t> make_sbox() {
  std::vector<uint8_t> s(256);
  for (int x = 0; x < 256; ++x) {
    uint8_t inv = 0;
    for (int y = 1; y < 256 && x; ++y)
      if (gf_mul(static_cast<uint8_t>(x), static_cast<uint8_t>(y)) == 1)
        inv = static_cast<uint8_t>(y);
    uint8_t r = 0x63;
    for (int i = 0; i < 5; ++i) r ^= static_cast<uint8_t>((inv << i) | (inv >> (8 - i)));
    s[x] = r;
  }
  return s;
}

uint32_t rotl(uint32_t x, int n) { return (x << n) | (x >> (32 - n)); }

// 44 round-key words (little-endian), FIPS-197 §5.2.
std::vector<uint32_t> expand_key(const uint8_t key[16], const std::vector<uint8_t>& sbox) {
  uint8_t w[kRoundKeyWords][4];
  std::memcpy(w, key, 16);
  uint8_t rcon = 1;
  for (int i = 4; i < kRoundKeyWords; ++i) {
    uint8_t t[4] = {w[i - 1][0], w[i - 1][1], w[i - 1][2], w[i - 1][3]};
    if (i % 4 == 0) {  // RotWord, SubWord, Rcon
      const uint8_t t0 = t[0];
      t[0] = static_cast<uint8_t>(sbox[t[1]] ^ rcon);
      t[1] = sbox[t[2]];
      t[2] = sbox[t[3]];
      t[3] = sbox[t0];
      rcon = xtime(rcon);
    }
    for (int j = 0; j < 4; ++j) w[i][j] = static_cast<uint8_t>(w[i - 4][j] ^ t[j]);
  }
  std::vector<uint32_t> rk(kRoundKeyWords);
  for (int i = 0; i < kRoundKeyWords; ++i)
    rk[i] = w[i][0] | w[i][1] << 8 | w[i][2] << 16 | static_cast<uint32_t>(w[i][3]) << 24;
  return rk;
}

// One block, the textbook way; state[r + 4c] is row r of column c (the input byte order).
void encrypt_block_ref(const uint8_t in[16], uint8_t out[16], const std::vector<uint32_t>& rk,
                       const std::vector<uint8_t>& sbox) {
  uint8_t s[16];
  auto add_round_key = [&](int round) {
    for (int c = 0; c < 4; ++c)
      for (int r = 0; r < 4; ++r)
        s[r + 4 * c] ^= static_cast<uint8_t>(rk[4 * round + c] >> (8 * r));
  };
  std::memcpy(s, in, 16);
  add_round_key(0);
  for (int round = 1; round <= 10; ++round) {
    uint8_t t[16];
    for (int c = 0; c < 4; ++c)  // SubBytes and ShiftRows
      for (int r = 0; r < 4; ++r) t[r + 4 * c] = sbox[s[r + 4 * ((c + r) % 4)]];
    if (round < 10) {
      for (int c = 0; c < 4; ++c) {  // MixColumns
        const uint8_t* a = t + 4 * c;
        s[4 * c + 0] = static_cast<uint8_t>(gf_mul(a[0], 2) ^ gf_mul(a[1], 3) ^ a[2] ^ a[3]);
        s[4 * c + 1] = static_cast<uint8_t>(a[0] ^ gf_mul(a[1], 2) ^ gf_mul(a[2], 3) ^ a[3]);
        s[4 * c + 2] = static_cast<uint8_t>(a[0] ^ a[1] ^ gf_mul(a[2], 2) ^ gf_mul(a[3], 3));
        s[4 * c + 3] = static_cast<uint8_t>(gf_mul(a[0], 3) ^ a[1] ^ a[2] ^ gf_mul(a[3], 2));
      }
    } else {
      std::memcpy(s, t, 16);
    }
    add_round_key(round);
  }
  std::memcpy(out, s, 16);
}

// T0[x] holds column (2S, S, S, 3S)[x]; T1..T3 are its byte rotations (rows shifted down).
std::vector<uint32_t> make_tables(const std::vector<uint8_t>& sbox) {
  std::vector<uint32_t> t(5 * 256);
  for (int x = 0; x < 256; ++x) {
    const uint8_t s = sbox[x];
    const uint32_t t0 = gf_mul(s, 2) | s << 8 | s << 16 | static_cast<uint32_t>(gf_mul(s, 3)) << 24;
    t[x] = t0;
    t[256 + x] = rotl(t0, 8);
    t[512 + x] = rotl(t0, 16);
    t[768 + x] = rotl(t0, 24);
    t[1024 + x] = s;
  }
  return t;
}

// Encrypts `words` (a multiple of 4) on the GPU with the round keys `rk`.
std::vector<uint32_t> encrypt_on_gpu(const workload::Run& run, const std::vector<uint32_t>& plain,
                                     const std::vector<uint32_t>& rk, const uint32_t* d_tables) {
  const unsigned nwords = static_cast<unsigned>(plain.size());
  uint32_t *d_in, *d_out;
  CUDA_CHECK(cudaMalloc(&d_in, nwords * sizeof(uint32_t)));
  CUDA_CHECK(cudaMalloc(&d_out, nwords * sizeof(uint32_t)));
  CUDA_CHECK(cudaMemcpy(d_in, plain.data(), nwords * sizeof(uint32_t), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpyToSymbol(c_round_keys, rk.data(), kRoundKeyWords * sizeof(uint32_t)));

  cudaResourceDesc res{};
  res.resType = cudaResourceTypeLinear;
  res.res.linear.devPtr = d_in;
  res.res.linear.desc = cudaCreateChannelDesc<unsigned>();
  res.res.linear.sizeInBytes = nwords * sizeof(uint32_t);
  cudaTextureDesc tex{};
  tex.readMode = cudaReadModeElementType;
  cudaTextureObject_t tex_in = 0;
  CUDA_CHECK(cudaCreateTextureObject(&tex_in, &res, &tex, nullptr));

  const unsigned grid = workload::ceil_div(nwords, kThreads);
  run.info("aes128_encrypt: %u words (%u AES blocks), grid %u, block %d", nwords, nwords / 4, grid,
           kThreads);
  aes128_encrypt<<<grid, kThreads>>>(tex_in, d_tables, d_out, nwords);
  CUDA_CHECK(cudaGetLastError());
  std::vector<uint32_t> out(nwords);
  CUDA_CHECK(cudaMemcpy(out.data(), d_out, nwords * sizeof(uint32_t), cudaMemcpyDeviceToHost));

  CUDA_CHECK(cudaDestroyTextureObject(tex_in));
  CUDA_CHECK(cudaFree(d_in));
  CUDA_CHECK(cudaFree(d_out));
  return out;
}

std::vector<uint32_t> bytes_to_words(const uint8_t* b, size_t n) {
  std::vector<uint32_t> w(n / 4);
  std::memcpy(w.data(), b, n);
  return w;
}

}  // namespace

int main(int argc, char** argv) {
  workload::Run run("aes", argc, argv);
  // AES blocks to encrypt; 16400 blocks = 256.25 KiB gives the paper's 257 CTAs (the last partial).
  const unsigned blocks = run.pick(4000u, 14500u, 16400u);
  run.info("AES-128 ECB over %u bytes", blocks * 16);

  const std::vector<uint8_t> sbox = make_sbox();
  const std::vector<uint32_t> tables = make_tables(sbox);
  uint32_t* d_tables;
  CUDA_CHECK(cudaMalloc(&d_tables, tables.size() * sizeof(uint32_t)));
  CUDA_CHECK(cudaMemcpy(d_tables, tables.data(), tables.size() * sizeof(uint32_t),
                        cudaMemcpyHostToDevice));

  // FIPS-197 appendix C.1: key 00 01 .. 0f, plaintext 00 11 22 .. ff.
  uint8_t kat_key[16], kat_plain[16], kat_cipher[16];
  for (int i = 0; i < 16; ++i) {
    kat_key[i] = static_cast<uint8_t>(i);
    kat_plain[i] = static_cast<uint8_t>(0x11 * i);
  }
  const uint8_t kat_want[16] = {0x69, 0xc4, 0xe0, 0xd8, 0x6a, 0x7b, 0x04, 0x30,
                                0xd8, 0xcd, 0xb7, 0x80, 0x70, 0xb4, 0xc5, 0x5a};
  const std::vector<uint32_t> kat_rk = expand_key(kat_key, sbox);
  encrypt_block_ref(kat_plain, kat_cipher, kat_rk, sbox);
  run.check_equal("FIPS-197 C.1 on the CPU", kat_cipher, kat_want, 16);
  const std::vector<uint32_t> kat_gpu =
      encrypt_on_gpu(run, bytes_to_words(kat_plain, 16), kat_rk, d_tables);
  const std::vector<uint32_t> kat_want_words = bytes_to_words(kat_want, 16);
  run.check_equal("FIPS-197 C.1 on the GPU", kat_gpu.data(), kat_want_words.data(), 4);

  // The workload: random key, random plaintext.
  workload::Rng rng(run.seed());
  uint8_t key[16];
  for (auto& k : key) k = static_cast<uint8_t>(rng.next());
  std::vector<uint8_t> plain(size_t{blocks} * 16);
  for (auto& b : plain) b = static_cast<uint8_t>(rng.next() >> 56);
  const std::vector<uint32_t> rk = expand_key(key, sbox);
  const std::vector<uint32_t> got =
      encrypt_on_gpu(run, bytes_to_words(plain.data(), plain.size()), rk, d_tables);

  std::vector<uint8_t> want(plain.size());
  for (size_t b = 0; b < blocks; ++b) encrypt_block_ref(&plain[16 * b], &want[16 * b], rk, sbox);
  const std::vector<uint32_t> want_words = bytes_to_words(want.data(), want.size());
  run.check_equal("ciphertext words", got.data(), want_words.data(), want_words.size());

  CUDA_CHECK(cudaFree(d_tables));
  return run.pass();
}
