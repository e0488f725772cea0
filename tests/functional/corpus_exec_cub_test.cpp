// Corpus execution: tests/ptx/src/cub.cu (CUB block collectives). Every
// result is exact: integer sums and scans, float maxima.
#include <climits>

#include "tests/functional/corpus_exec_util.h"

namespace warpsim::functional::corpus {
namespace {

CORPUS_EXEC_SUITE(CubExec, "cub");

constexpr uint32_t kBlocks = 3;

TEST_P(CubExec, CubBlockReduce) {
  Rng rng(160);
  auto in = rng.vec<int>(kBlocks * 128, [&] { return static_cast<int>(rng.u32()); });
  uint64_t din = upload(in), dout = zeros<int>(kBlocks);
  ASSERT_LAUNCH(launch("cub_block_reduce", {kBlocks}, {128}, {din, dout}));
  std::vector<int> want(kBlocks);
  for (uint32_t b = 0; b < kBlocks; ++b) {
    uint32_t s = 0;  // wrapping sum
    for (int t = 0; t < 128; ++t) s += static_cast<uint32_t>(in[b * 128 + t]);
    want[b] = static_cast<int>(s);
  }
  EXPECT_TRUE(exact(download<int>(dout, kBlocks), want));
}

TEST_P(CubExec, CubBlockReduceMax) {
  Rng rng(161);
  auto in = rng.vec<float>(kBlocks * 256, [&] { return rng.f32(-1e6f, 1e6f); });
  uint64_t din = upload(in), dout = zeros<float>(kBlocks);
  ASSERT_LAUNCH(launch("cub_block_reduce_max", {kBlocks}, {256}, {din, dout}));
  std::vector<float> want(kBlocks);
  for (uint32_t b = 0; b < kBlocks; ++b)
    want[b] = *std::max_element(in.begin() + b * 256, in.begin() + (b + 1) * 256);
  EXPECT_TRUE(exact(download<float>(dout, kBlocks), want));
}

TEST_P(CubExec, CubBlockScan) {
  Rng rng(162);
  auto in = rng.vec<int>(kBlocks * 512, [&] { return rng.i32(-1000, 1000); });
  uint64_t din = upload(in), dout = zeros<int>(kBlocks * 512);
  ASSERT_LAUNCH(launch("cub_block_scan", {kBlocks}, {128}, {din, dout}));
  std::vector<int> want(kBlocks * 512);
  for (uint32_t b = 0; b < kBlocks; ++b) {
    int s = 0;
    for (int k = 0; k < 512; ++k) {
      want[b * 512 + k] = s;
      s += in[b * 512 + k];
    }
  }
  EXPECT_TRUE(exact(download<int>(dout, kBlocks * 512), want));
}

TEST_P(CubExec, CubBlockScanInclusive) {
  Rng rng(163);
  auto in = rng.vec<float>(kBlocks * 64, [&] { return rng.f32(-100, 100); });
  uint64_t din = upload(in), dout = zeros<float>(kBlocks * 64);
  ASSERT_LAUNCH(launch("cub_block_scan_inclusive", {kBlocks}, {64}, {din, dout}));
  std::vector<float> want(kBlocks * 64);
  for (uint32_t b = 0; b < kBlocks; ++b) {
    float m = -INFINITY;
    for (int k = 0; k < 64; ++k) want[b * 64 + k] = m = std::max(m, in[b * 64 + k]);
  }
  EXPECT_TRUE(exact(download<float>(dout, kBlocks * 64), want));
}

}  // namespace
}  // namespace warpsim::functional::corpus
