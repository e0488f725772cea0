// Corpus execution: tests/ptx/src/sm90.cu (thread-block clusters, mbarriers,
// bulk copies, elect.sync, programmatic dependent launch on sm_90; builds for
// older architectures compute the same results without them).
#include "tests/functional/corpus_exec_util.h"

namespace warpsim::functional::corpus {
namespace {

CORPUS_EXEC_SUITE(Sm90Exec, "sm90");

TEST_P(Sm90Exec, ClusterExchange) {
  const uint32_t blocks = 6;  // three clusters of two
  uint64_t dout = filled<int>(blocks * 65, -1);
  ASSERT_LAUNCH(launch("cluster_exchange", {blocks}, {64}, {dout}));
  std::vector<int> want(blocks * 65);
  for (uint32_t b = 0; b < blocks; ++b) {
    for (int k = 0; k < 64; ++k) want[b * 64 + k] = static_cast<int>((b ^ 1) * 1000) + k;
    want[blocks * 64 + b] = static_cast<int>(b & 1) + 20;  // rank + 10 * blocks per cluster
  }
  EXPECT_TRUE(exact(download<int>(dout, blocks * 65), want));
}

TEST_P(Sm90Exec, MbarrierPhases) {
  const int n = 100;  // threads >= n only take part in the barrier
  Rng rng(190);
  auto in = rng.vec<int>(n, [&] { return rng.i32(-1000000, 1000000); });
  uint64_t din = upload(in), dout = filled<int>(128, -7);
  ASSERT_LAUNCH(launch("mbarrier_phases", {1}, {128}, {din, dout, n}));
  std::vector<int> want(128, -7);
  for (int t = 0; t < n; ++t) want[t] = in[(t + 1) % n] * 3 + in[t] * 3;
  EXPECT_TRUE(exact(download<int>(dout, 128), want));
}

TEST_P(Sm90Exec, BulkCopy) {
  const int n = 256 * 3;
  Rng rng(191);
  auto in = rng.vec<float>(n, [&] { return rng.f32(-1e3f, 1e3f); });
  uint64_t din = upload(in), dout = zeros<float>(n);
  ASSERT_LAUNCH(launch("bulk_copy", {4}, {256}, {din, dout, n}));  // the 4th block returns at once
  std::vector<float> want(n);
  for (int i = 0; i < n; ++i) want[i] = in[i] + 0.5f;
  EXPECT_TRUE(exact(download<float>(dout, n), want));
}

TEST_P(Sm90Exec, ElectLeader) {
  const uint32_t blocks = 3, block = 96, warps = blocks * block / 32;
  uint64_t counter = zeros<unsigned>(1), dout = zeros<int>(warps);
  ASSERT_LAUNCH(launch("elect_leader", {blocks}, {block}, {counter, dout}));
  EXPECT_TRUE(exact(download<unsigned>(counter, 1), {warps}));
  EXPECT_TRUE(exact(download<int>(dout, warps), std::vector<int>(warps, 1)));
}

TEST_P(Sm90Exec, PdlConsumer) {
  const int n = 700;
  Rng rng(192);
  auto in = rng.vec<float>(n, [&] { return rng.f32(-1e3f, 1e3f); });
  uint64_t din = upload(in), dout = zeros<float>(n);
  ASSERT_LAUNCH(launch("pdl_consumer", {blocks_for(n, 128)}, {128}, {din, dout, n}));
  std::vector<float> want(n);
  for (int i = 0; i < n; ++i) want[i] = in[i] * 2.0f;
  EXPECT_TRUE(exact(download<float>(dout, n), want));
}

}  // namespace
}  // namespace warpsim::functional::corpus
