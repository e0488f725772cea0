// Corpus execution: tests/ptx/src/reduce.cu.
#include <climits>

#include "tests/functional/corpus_exec_util.h"

namespace warpsim::functional::corpus {
namespace {

CORPUS_EXEC_SUITE(ReduceExec, "reduce");

// Lane 0's result of warp_sum(): v[l] += v[l + off] for off = 16, 8, 4, 2, 1
// (lanes whose source is out of range keep their own value; they do not
// feed lane 0).
float warp_sum_lane0(std::vector<float> v) {
  v.resize(32, 0.0f);
  for (int off = 16; off > 0; off >>= 1)
    for (int l = 0; l + off < 32; ++l) v[l] = v[l] + v[l + off];
  return v[0];
}

TEST_P(ReduceExec, ReduceShared) {
  const unsigned n = 1000, block = 128;  // 8 blocks, the last one partial
  Rng rng(10);
  auto in = rng.vec<float>(n, [&] { return rng.f32(-1, 1); });
  const unsigned blocks = blocks_for(n, block);
  uint64_t din = upload(in), dout = zeros<float>(blocks);
  ASSERT_LAUNCH(launch("reduce_shared", {blocks}, {block}, {din, dout, n}, block * 4));
  // The kernel's tree order: s[t] += s[t + s] for s = 64, 32, ..., 1.
  std::vector<float> want(blocks);
  for (unsigned b = 0; b < blocks; ++b) {
    std::vector<float> s(block);
    for (unsigned t = 0; t < block; ++t) s[t] = b * block + t < n ? in[b * block + t] : 0.0f;
    for (unsigned st = block / 2; st > 0; st >>= 1)
      for (unsigned t = 0; t < st; ++t) s[t] = s[t] + s[t + st];
    want[b] = s[0];
  }
  EXPECT_TRUE(exact(download<float>(dout, blocks), want));
}

TEST_P(ReduceExec, ReduceShuffleBlockSum) {
  // One block: the result is the kernel's own summation order (grid-stride
  // sums, warp trees, the tree over the per-warp partials) with no racing
  // atomics, so it is exact for any inputs.
  const int n = 900, block = 128;
  Rng rng(11);
  auto in = rng.vec<float>(n, [&] { return rng.f32(-1, 1); });
  uint64_t din = upload(in), dout = zeros<float>(1);
  ASSERT_LAUNCH(launch("reduce_shuffle", {1}, {block}, {din, dout, n}));
  std::vector<float> partial;
  for (int w = 0; w < block / 32; ++w) {
    std::vector<float> lanes(32);
    for (int l = 0; l < 32; ++l) {
      float sum = 0.0f;
      for (int i = w * 32 + l; i < n; i += block) sum += in[i];
      lanes[l] = sum;
    }
    partial.push_back(warp_sum_lane0(lanes));
  }
  const float want = 0.0f + warp_sum_lane0(partial);  // atomicAdd into the zeroed out[0]
  EXPECT_TRUE(exact(download<float>(dout, 1), {want}));
}

TEST_P(ReduceExec, ReduceShuffleGrid) {
  // Several blocks add into out[0] in any order: multiples of 1/16 below 64
  // keep every partial sum exact, so the order does not matter.
  const int n = 5000;
  Rng rng(12);
  auto in = rng.vec<float>(n, [&] { return static_cast<float>(rng.i32(-1024, 1024)) / 16; });
  uint64_t din = upload(in), dout = zeros<float>(1);
  ASSERT_LAUNCH(launch("reduce_shuffle", {5}, {256}, {din, dout, n}));
  double want = 0;
  for (float v : in) want += v;
  EXPECT_TRUE(exact(download<float>(dout, 1), {static_cast<float>(want)}));
}

TEST_P(ReduceExec, ReduceIntMax) {
  const int n = 1500;  // 6 blocks of 256, the last one partial
  Rng rng(13);
  auto in = rng.vec<int>(n, [&] { return rng.i32(INT_MIN, INT_MAX - 1); });
  uint64_t din = upload(in), dout = upload(std::vector<int>{INT_MIN});
  ASSERT_LAUNCH(launch("reduce_int_max", {blocks_for(n, 256)}, {256}, {din, dout, n}));
  EXPECT_TRUE(exact(download<int>(dout, 1), {*std::max_element(in.begin(), in.end())}));
}

}  // namespace
}  // namespace warpsim::functional::corpus
