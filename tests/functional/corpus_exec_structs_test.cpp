// Corpus execution: tests/ptx/src/structs.cu (structs passed by value).
#include <cstddef>

#include "tests/functional/corpus_exec_util.h"

namespace warpsim::functional::corpus {
namespace {

CORPUS_EXEC_SUITE(StructsExec, "structs");

// Host mirrors of the CUDA structs, with the same layout (checked below).
struct Mixed {
  int8_t c;  // char is signed for nvcc (x86-64 host ABI) and clang's NVPTX target
  int16_t s;
  int32_t i;
  double d;
  alignas(16) float v[4];  // float4
  int32_t arr[5];
  float f;
};
static_assert(sizeof(Mixed) == 64 && alignof(Mixed) == 16);
static_assert(offsetof(Mixed, v) == 16 && offsetof(Mixed, arr) == 32 && offsetof(Mixed, f) == 52);

struct Small {
  int8_t a, b;
  int16_t c;
};
static_assert(sizeof(Small) == 4);

struct Big {
  double vals[20];
  int32_t count;
};
static_assert(sizeof(Big) == 168);

struct Pair {
  float x;
  int32_t y;
};

TEST_P(StructsExec, UnpackMixed) {
  Mixed m{};
  m.c = -5;
  m.s = -1234;
  m.i = 123456789;  // not exact in float: (float) rounds
  m.d = 2.7182818284590452;
  m.v[0] = 1.5f, m.v[1] = -2.25f, m.v[2] = 1e-3f, m.v[3] = 4e20f;
  for (int k = 0; k < 5; ++k) m.arr[k] = (k - 2) * 1000003;
  m.f = -0.125f;
  uint64_t out = zeros<float>(16);
  ASSERT_LAUNCH(launch("unpack_mixed", {2}, {64}, {m, out}));
  std::vector<float> want = {static_cast<float>(m.c),
                             static_cast<float>(m.s),
                             static_cast<float>(m.i),
                             static_cast<float>(m.d),
                             m.v[0],
                             m.v[1],
                             m.v[2],
                             m.v[3]};
  for (int k = 0; k < 5; ++k) want.push_back(static_cast<float>(m.arr[k]));
  want.push_back(m.f);
  want.push_back(64.0f);
  want.push_back(16.0f);
  EXPECT_TRUE(exact(download<float>(out, 16), want));
}

TEST_P(StructsExec, SmallAndScalar) {
  Small sm{-3, 7, -300};
  Big bg{};
  Rng rng(80);
  for (double& v : bg.vals) v = rng.real(-10, 10);
  bg.count = 17;  // the last three values must not count
  const int k = -99;
  uint64_t out = zeros<double>(4);
  ASSERT_LAUNCH(launch("small_and_scalar", {1}, {32}, {sm, k, bg, out}));
  double s = 0;
  for (int j = 0; j < bg.count; ++j) s += bg.vals[j];
  std::vector<double> want = {sm.a + sm.b * 256.0 + sm.c * 65536.0, static_cast<double>(k), s,
                              static_cast<double>(bg.count)};
  EXPECT_TRUE(exact(download<double>(out, 4), want));
}

TEST_P(StructsExec, PairSum) {
  const int n = 300;
  const Pair p{0.37f, -12};
  uint64_t out = zeros<float>(n);
  ASSERT_LAUNCH(launch("pair_sum", {blocks_for(n, 128)}, {128}, {p, out, n}));
  std::vector<float> want(n);
  for (int i = 0; i < n; ++i) {
    const float fi = static_cast<float>(i), fy = static_cast<float>(p.y);
    want[i] = contracted() ? std::fma(p.x, fi, fy) : p.x * fi + fy;
  }
  EXPECT_TRUE(exact(download<float>(out, n), want));
}

TEST_P(StructsExec, ReturnStruct) {
  const int n = 200;
  Rng rng(81);
  auto in = rng.vec<float>(3 * n, [&] { return rng.f32(-100, 100); });
  uint64_t din = upload(in), dout = zeros<float>(3 * n);
  ASSERT_LAUNCH(launch("return_struct", {blocks_for(n, 64)}, {64}, {din, dout, n}));
  // cross(a, (1, 2, 3)); the products by 1 and 2 are exact. nvcc (which
  // propagates the constant into the __noinline__ function) keeps every
  // product separate; clang contracts a.y * 3 - a.z * 2 into one fma.
  std::vector<float> want(3 * n);
  for (int i = 0; i < n; ++i) {
    const float x = in[3 * i], y = in[3 * i + 1], z = in[3 * i + 2];
    want[3 * i] = is_clang() ? std::fma(y, 3.0f, -(z * 2.0f)) : y * 3.0f - z * 2.0f;
    want[3 * i + 1] = z - x * 3.0f;
    want[3 * i + 2] = x * 2.0f - y;
  }
  EXPECT_TRUE(exact(download<float>(dout, 3 * n), want));
}

}  // namespace
}  // namespace warpsim::functional::corpus
