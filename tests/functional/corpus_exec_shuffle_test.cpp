// Corpus execution: tests/ptx/src/shuffle.cu.
#include <bit>

#include "tests/functional/corpus_exec_util.h"

namespace warpsim::functional::corpus {
namespace {

CORPUS_EXEC_SUITE(ShuffleExec, "shuffle");

// No bounds checks in these kernels: launches cover whole warps only.
constexpr uint32_t kBlocks = 3, kBlock = 96, T = kBlocks * kBlock;

TEST_P(ShuffleExec, ShflAll) {
  Rng rng(30);
  auto in = rng.vec<int>(T, [&] { return static_cast<int>(rng.u32()); });
  uint64_t din = upload(in), dout = zeros<int>(4 * T);
  ASSERT_LAUNCH(launch("shfl_all", {kBlocks}, {kBlock}, {din, dout}));
  std::vector<int> want(4 * T);
  for (uint32_t t = 0; t < T; ++t) {
    const uint32_t lane = t % 32, base = t - lane;
    want[4 * t + 0] = lane < 3 ? in[t] : in[t - 3];
    want[4 * t + 1] = lane > 26 ? in[t] : in[t + 5];
    want[4 * t + 2] = in[base + (lane ^ 7)];
    want[4 * t + 3] = in[base + ((lane * 3) & 31)];
  }
  EXPECT_TRUE(exact(download<int>(dout, 4 * T), want));
}

TEST_P(ShuffleExec, ShflWidth) {
  Rng rng(31);
  auto in = rng.vec<float>(T, [&] { return rng.f32(-1e4f, 1e4f); });
  uint64_t din = upload(in), dout = zeros<float>(3 * T);
  ASSERT_LAUNCH(launch("shfl_width", {kBlocks}, {kBlock}, {din, dout}));
  std::vector<float> want(3 * T);
  for (uint32_t t = 0; t < T; ++t) {
    const uint32_t lane = t % 32, base = t - lane;
    want[3 * t + 0] = in[base + (lane & ~7u)];
    want[3 * t + 1] = lane % 16 == 15 ? in[t] : in[t + 1];
    want[3 * t + 2] = in[base + (lane ^ 2)];  // float -> double -> float is exact
  }
  EXPECT_TRUE(exact(download<float>(dout, 3 * T), want));
}

TEST_P(ShuffleExec, ShflPartial) {
  Rng rng(32);
  auto in = rng.vec<int>(T, [&] { return rng.i32(-1000000, 1000000); });
  uint64_t din = upload(in), dout = zeros<int>(T);
  ASSERT_LAUNCH(launch("shfl_partial", {kBlocks}, {kBlock}, {din, dout}));
  std::vector<int> want(T);
  for (uint32_t t = 0; t < T; ++t) want[t] = t % 2 == 0 ? in[t ^ 2] : -1;
  EXPECT_TRUE(exact(download<int>(dout, T), want));
}

TEST_P(ShuffleExec, VoteAll) {
  Rng rng(33);
  // Warp w: 0 all positive and <= 100; 1 all positive with one > 100; the
  // others random signs, so __all_sync/__any_sync see both answers.
  std::vector<int> in(T);
  for (uint32_t t = 0; t < T; ++t) {
    const uint32_t w = t / 32;
    in[t] = w == 0   ? rng.i32(1, 100)
            : w == 1 ? (t % 32 == 17 ? 500 : rng.i32(1, 100))
                     : rng.i32(-200, 200);
  }
  uint64_t din = upload(in), dout = zeros<unsigned>(5 * T);
  ASSERT_LAUNCH(launch("vote_all", {kBlocks}, {kBlock}, {din, dout}));
  std::vector<unsigned> want(5 * T);
  for (uint32_t t = 0; t < T; ++t) {
    const uint32_t lane = t % 32, base = t - lane;
    unsigned all = 1, any = 0, ballot = 0;
    for (uint32_t l = 0; l < 32; ++l) {
      const int v = in[base + l];
      all &= v > 0;
      any |= v > 100;
      if (v & 1) ballot |= 1u << l;
    }
    want[5 * t + 0] = all;
    want[5 * t + 1] = any;
    want[5 * t + 2] = ballot;
    want[5 * t + 3] = static_cast<unsigned>(std::popcount(ballot));
    want[5 * t + 4] = lane < 20 ? 0x000fffffu : 0u;
  }
  EXPECT_TRUE(exact(download<unsigned>(dout, 5 * T), want));
}

TEST_P(ShuffleExec, VotePartial) {
  Rng rng(34);
  auto in = rng.vec<int>(T, [&] { return rng.chance(0.5) ? 0 : rng.i32(-5, 5); });
  // One lower half with no negative value, so __any_sync gives 0 somewhere.
  for (uint32_t l = 0; l < 16; ++l) in[32 + l] = l;
  uint64_t din = upload(in), dout = zeros<unsigned>(T);
  ASSERT_LAUNCH(launch("vote_partial", {kBlocks}, {kBlock}, {din, dout}));
  std::vector<unsigned> want(T);
  for (uint32_t t = 0; t < T; ++t) {
    const uint32_t lane = t % 32, base = t - lane;
    unsigned r = 0;
    if (lane >= 16) {
      for (uint32_t l = 16; l < 32; ++l)
        if (in[base + l] != 0) r |= 1u << l;
    } else {
      for (uint32_t l = 0; l < 16; ++l) r |= in[base + l] < 0;
    }
    want[t] = r;
  }
  EXPECT_TRUE(exact(download<unsigned>(dout, T), want));
}

}  // namespace
}  // namespace warpsim::functional::corpus
