// Corpus execution: tests/ptx/src/async.cu (cp.async pipelines, cuda::barrier
// and cooperative_groups::memcpy_async on sm_80+; the same APIs fall back to
// plain loads and stores on sm_75).
#include "tests/functional/corpus_exec_util.h"

namespace warpsim::functional::corpus {
namespace {

CORPUS_EXEC_SUITE(AsyncExec, "async");

TEST_P(AsyncExec, PipelineScale) {
  const int n = 256 * 7;  // 7 chunks over 3 blocks: double buffering across iterations
  Rng rng(180);
  auto in = rng.vec<float>(n, [&] { return rng.f32(-1e3f, 1e3f); });
  uint64_t din = upload(in), dout = zeros<float>(n);
  ASSERT_LAUNCH(launch("pipeline_scale", {3}, {256}, {din, dout, n}));
  std::vector<float> want(n);
  for (int i = 0; i < n; ++i) want[i] = 2.0f * in[i] + 1.0f;  // 2x is exact: fused or not
  EXPECT_TRUE(exact(download<float>(dout, n), want));
}

TEST_P(AsyncExec, PipelineVec4) {
  const int n4 = 128 * 3;
  Rng rng(181);
  auto in = rng.vec<float>(4 * n4, [&] { return rng.f32(-1e3f, 1e3f); });
  uint64_t din = upload(in), dout = zeros<float>(4 * n4);
  ASSERT_LAUNCH(launch("pipeline_vec4", {3}, {128}, {din, dout, n4}));
  std::vector<float> want(4 * n4);
  for (int i = 0; i < 4 * n4; ++i) want[i] = in[i] * static_cast<float>(i % 4 + 1);
  EXPECT_TRUE(exact(download<float>(dout, 4 * n4), want));
}

TEST_P(AsyncExec, MemcpyAsyncBarrier) {
  const int n = 128 * 5;
  Rng rng(182);
  auto in = rng.vec<int>(n, [&] { return static_cast<int>(rng.u32()); });
  uint64_t din = upload(in), dout = zeros<int>(n);
  // One block more than there are slices: it passes the barrier setup and returns.
  ASSERT_LAUNCH(launch("memcpy_async_barrier", {6}, {128}, {din, dout, n}));
  std::vector<int> want(n);
  for (int i = 0; i < n; ++i) want[i] = in[i] ^ 0x5a5a;
  EXPECT_TRUE(exact(download<int>(dout, n), want));
}

TEST_P(AsyncExec, CgMemcpyAsync) {
  const int n = 512 * 5;  // 5 stages over 2 blocks: the grid-stride loop
  Rng rng(183);
  auto in = rng.vec<float>(n, [&] { return rng.f32(-100, 100); });
  uint64_t din = upload(in), dout = zeros<float>(n);
  ASSERT_LAUNCH(launch("cg_memcpy_async", {2}, {128}, {din, dout, n}));
  std::vector<float> want(n);
  for (int i = 0; i < n; ++i) want[i] = in[i] * in[i];
  EXPECT_TRUE(exact(download<float>(dout, n), want));
}

}  // namespace
}  // namespace warpsim::functional::corpus
