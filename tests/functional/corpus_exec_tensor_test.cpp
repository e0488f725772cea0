// Corpus execution: tests/ptx/src/tensor.cu (nvcuda::wmma; one warp, one tile).
//
// The order in which a tensor core accumulates its products is unspecified,
// so the inputs are small integers (and, for tf32, values whose rounding to
// tf32 matters) whose products and sums are all exact: every order gives the
// plain triple loop's result, compared bit for bit.
#include "tests/functional/corpus_exec_util.h"

namespace warpsim::functional::corpus {
namespace {

CORPUS_EXEC_SUITE(TensorExec, "tensor");
// wmma_bf16 / wmma_tf32 / wmma_f64 do real work only on sm_80+; below that
// their bodies are empty.
CORPUS_EXEC_SUITE_WHERE(TensorSm80Exec, "tensor", arch_at_least(800));
CORPUS_EXEC_SUITE_WHERE(TensorFallbackExec, "tensor", arch_below(800));

// A row-major M x N matrix product of a (M x K, a(i, k)) and b (K x N, b(k, j)).
std::vector<double> matmul(int M, int N, int K, const std::function<double(int, int)>& a,
                           const std::function<double(int, int)>& b) {
  std::vector<double> d(M * N);
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j)
      for (int k = 0; k < K; ++k) d[i * N + j] += a(i, k) * b(k, j);
  return d;
}

std::vector<int> small_ints(size_t n, uint64_t seed, int lim = 3) {
  Rng rng(seed);
  return rng.vec<int>(n, [&] { return rng.i32(-lim, lim); });
}

template <typename T, typename F>
std::vector<T> convert(const std::vector<int>& v, F&& f) {
  std::vector<T> out;
  for (int x : v) out.push_back(f(x));
  return out;
}

template <typename T>
std::vector<T> cast(const std::vector<double>& v) {
  std::vector<T> out;
  for (double x : v) out.push_back(static_cast<T>(x));
  return out;
}

TEST_P(TensorExec, WmmaF16F32) {
  // D = A (row-major) * B (column-major) + C, f16 inputs, f32 accumulate.
  const auto a = small_ints(256, 220), b = small_ints(256, 221), c = small_ints(256, 222, 100);
  auto h = [](int x) { return half_from_double(x); };
  const uint64_t dA = upload(convert<uint16_t>(a, h)), dB = upload(convert<uint16_t>(b, h));
  const uint64_t dC = upload(convert<float>(c, [](int x) { return static_cast<float>(x); }));
  const uint64_t dD = zeros<float>(256);
  ASSERT_LAUNCH(launch("wmma_f16_f32", {1}, {32}, {dA, dB, dC, dD}));
  auto want = matmul(
      16, 16, 16, [&](int i, int k) { return a[i * 16 + k]; },
      [&](int k, int j) { return b[k + j * 16]; });
  for (int i = 0; i < 256; ++i) want[i] += c[i];
  EXPECT_TRUE(exact(download<float>(dD, 256), cast<float>(want)));
}

TEST_P(TensorExec, WmmaF16F16) {
  // D = A (row-major) * B (row-major), f16 accumulate: |sums| <= 144, exact.
  const auto a = small_ints(256, 223), b = small_ints(256, 224);
  auto h = [](int x) { return half_from_double(x); };
  const uint64_t dA = upload(convert<uint16_t>(a, h)), dB = upload(convert<uint16_t>(b, h));
  const uint64_t dD = filled<uint16_t>(256, 0x7e00);
  ASSERT_LAUNCH(launch("wmma_f16_f16", {1}, {32}, {dA, dB, dD}));
  const auto want = matmul(
      16, 16, 16, [&](int i, int k) { return a[i * 16 + k]; },
      [&](int k, int j) { return b[k * 16 + j]; });
  std::vector<uint16_t> wh;
  for (double v : want) wh.push_back(half_from_double(v));
  EXPECT_TRUE(exact_f16(download<uint16_t>(dD, 256), wh));
}

TEST_P(TensorExec, WmmaS8) {
  // s8 x s8 -> s32 over the whole signed range.
  const auto a = small_ints(256, 225, 128), b = small_ints(256, 226, 127);
  auto s8 = [](int x) { return static_cast<int8_t>(std::clamp(x, -128, 127)); };
  const auto a8 = convert<int8_t>(a, s8), b8 = convert<int8_t>(b, s8);
  const uint64_t dA = upload(a8), dB = upload(b8), dD = zeros<int>(256);
  ASSERT_LAUNCH(launch("wmma_s8", {1}, {32}, {dA, dB, dD}));
  const auto want = matmul(
      16, 16, 16, [&](int i, int k) { return a8[i * 16 + k]; },
      [&](int k, int j) { return b8[k + j * 16]; });
  EXPECT_TRUE(exact(download<int>(dD, 256), cast<int>(want)));
}

TEST_P(TensorSm80Exec, WmmaBf16) {
  const auto a = small_ints(256, 227), b = small_ints(256, 228);
  auto bf = [](int x) { return bf16_from_double(x); };
  const uint64_t dA = upload(convert<uint16_t>(a, bf)), dB = upload(convert<uint16_t>(b, bf));
  const uint64_t dD = zeros<float>(256);
  ASSERT_LAUNCH(launch("wmma_bf16", {1}, {32}, {dA, dB, dD}));
  const auto want = matmul(
      16, 16, 16, [&](int i, int k) { return a[i * 16 + k]; },
      [&](int k, int j) { return b[k + j * 16]; });
  EXPECT_TRUE(exact(download<float>(dD, 256), cast<float>(want)));
}

// wmma::__float_to_tf32: round to nearest, ties away from zero, at 10
// mantissa bits (cvt.rna.tf32.f32); the low 13 bits become zero.
float to_tf32(float f) {
  return f_of((fbits(f) + 0x1000u) & ~0x1fffu);  // finite inputs only
}

TEST_P(TensorSm80Exec, WmmaTf32) {
  // m16n16k8: A 16 x 8 row-major, B 8 x 16 column-major (leading dimension
  // 8). A's entries are k + e with e below tf32's precision: rounded away for
  // |k| >= 2, a tie for |k| == 1 (ties go away from zero: rna, not rne), so
  // the kernel's conversion shows; all sums stay exact.
  Rng rng(229);
  const auto A = rng.vec<float>(128, [&] {
    const int k = rng.i32(-3, 3);
    const float e = std::abs(k) >= 2 ? (rng.chance(0.5) ? 0x1p-12f : -0x1p-12f) : k * 0x1p-11f;
    return static_cast<float>(k) + e;
  });
  const auto b = small_ints(128, 231);
  const auto B = convert<float>(b, [](int x) { return static_cast<float>(x); });
  const uint64_t dA = upload(A), dB = upload(B), dD = zeros<float>(256);
  ASSERT_LAUNCH(launch("wmma_tf32", {1}, {32}, {dA, dB, dD}));
  const auto want = matmul(
      16, 16, 8, [&](int i, int k) { return to_tf32(A[i * 8 + k]); },
      [&](int k, int j) { return B[k + j * 8]; });
  EXPECT_TRUE(exact(download<float>(dD, 256), cast<float>(want)));
}

TEST_P(TensorSm80Exec, WmmaF64) {
  // m8n8k4: A 8 x 4 row-major, B 4 x 8 column-major, D 8 x 8. Multiples of
  // 1/8 keep every sum exact.
  Rng rng(230);
  auto gen = [&] { return rng.i32(-80, 80) / 8.0; };
  const auto A = rng.vec<double>(32, gen), B = rng.vec<double>(32, gen);
  const uint64_t dA = upload(A), dB = upload(B), dD = zeros<double>(64);
  ASSERT_LAUNCH(launch("wmma_f64", {1}, {32}, {dA, dB, dD}));
  const auto want = matmul(
      8, 8, 4, [&](int i, int k) { return A[i * 4 + k]; },
      [&](int k, int j) { return B[k + j * 4]; });
  EXPECT_TRUE(exact(download<double>(dD, 64), want));
}

// Below sm_80 the kernels exist with empty bodies: they run and write nothing.
TEST_P(TensorFallbackExec, EmptyKernelsWriteNothing) {
  const std::pair<const char*, size_t> kernels[] = {
      {"wmma_bf16", 1024}, {"wmma_tf32", 1024}, {"wmma_f64", 512}};
  for (auto [kernel, out_bytes] : kernels) {
    const uint64_t a = zeros<uint8_t>(512), b = zeros<uint8_t>(512);
    const uint64_t d = filled<uint8_t>(out_bytes, 0xee, "D");
    ASSERT_LAUNCH(launch(kernel, {1}, {32}, {a, b, d}));
    EXPECT_TRUE(exact(download<uint8_t>(d, out_bytes), std::vector<uint8_t>(out_bytes, 0xee)))
        << kernel;
  }
}

}  // namespace
}  // namespace warpsim::functional::corpus
