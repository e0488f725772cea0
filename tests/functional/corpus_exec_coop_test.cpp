// Corpus execution: tests/ptx/src/coop.cu (cooperative groups).
#include <bit>

#include "tests/functional/corpus_exec_util.h"

namespace warpsim::functional::corpus {
namespace {

CORPUS_EXEC_SUITE(CoopExec, "coop");

constexpr uint32_t kBlocks = 3, kBlock = 64, T = kBlocks * kBlock;

TEST_P(CoopExec, TileReduce) {
  const int n = 170;  // the last tiles see elements past n as 0
  Rng rng(170);
  auto in = rng.vec<int>(n, [&] { return rng.i32(-100000, 100000); });
  uint64_t din = upload(in), dout = filled<int>(T / 16, -1);
  ASSERT_LAUNCH(launch("tile_reduce", {kBlocks}, {kBlock}, {din, dout, n}));
  std::vector<int> want(T / 16);
  for (uint32_t t = 0; t < T; ++t) want[t / 16] += static_cast<int>(t) < n ? in[t] : 0;
  EXPECT_TRUE(exact(download<int>(dout, T / 16), want));
}

TEST_P(CoopExec, TileShfl) {
  Rng rng(171);
  auto in = rng.vec<int>(T, [&] { return rng.i32(-1000000, 1000000); });
  uint64_t din = upload(in), dout = zeros<int>(T);
  ASSERT_LAUNCH(launch("tile_shfl", {kBlocks}, {kBlock}, {din, dout}));
  std::vector<int> want(T);
  for (uint32_t t = 0; t < T; ++t) {
    const uint32_t base = t - t % 16;
    want[t] = in[base + 15 - t % 16] + 1000 * static_cast<int>(t % kBlock % 8);
  }
  EXPECT_TRUE(exact(download<int>(dout, T), want));
}

TEST_P(CoopExec, BlockGroup) {
  uint64_t dout = filled<int>(T, -1);
  ASSERT_LAUNCH(launch("block_group", {kBlocks}, {kBlock}, {dout}));
  std::vector<int> want(T);
  for (uint32_t t = 0; t < T; ++t) want[t] = static_cast<int>(t % kBlock + 10000 * (t / kBlock));
  EXPECT_TRUE(exact(download<int>(dout, T), want));
}

TEST_P(CoopExec, Coalesced) {
  Rng rng(172);
  auto in = rng.vec<int>(T, [&] { return rng.i32(-5, 5); });
  for (uint32_t l = 0; l < 32; ++l) in[32 + l] = 1;  // one warp fully coalesced
  uint64_t din = upload(in), dout = zeros<int>(T);
  ASSERT_LAUNCH(launch("coalesced", {kBlocks}, {kBlock}, {din, dout}));
  std::vector<int> want(T);
  for (uint32_t t = 0; t < T; ++t) {
    if (in[t] <= 0) {
      want[t] = -1;
      continue;
    }
    const uint32_t base = t - t % 32;
    uint32_t mask = 0;
    for (uint32_t l = 0; l < 32; ++l)
      if (in[base + l] > 0) mask |= 1u << l;
    const int rank = std::popcount(mask & ((1u << (t % 32)) - 1));
    want[t] = std::popcount(mask) * 100 + rank;
  }
  EXPECT_TRUE(exact(download<int>(dout, T), want));
}

TEST_P(CoopExec, CgReduce) {
  Rng rng(173);
  auto in = rng.vec<int>(T, [&] { return static_cast<int>(rng.u32()); });
  uint64_t din = upload(in), dout = zeros<int>(T / 32);
  ASSERT_LAUNCH(launch("cg_reduce", {kBlocks}, {kBlock}, {din, dout}));
  std::vector<int> want(T / 32);
  for (uint32_t t = 0; t < T; ++t)  // wrapping sum
    want[t / 32] =
        static_cast<int>(static_cast<uint32_t>(want[t / 32]) + static_cast<uint32_t>(in[t]));
  EXPECT_TRUE(exact(download<int>(dout, T / 32), want));
}

// grid_sync_sum: phase 1 per block (grid-stride sums, then the shared-memory
// tree), grid.sync(), then block 0 thread 0 adds the partials in block order.
struct GridSum {
  std::vector<float> partial;
  float total;
};
GridSum grid_sum(const std::vector<float>& in, uint32_t blocks, uint32_t block) {
  GridSum r{std::vector<float>(blocks), 0.0f};
  const size_t threads = size_t{blocks} * block;
  for (uint32_t b = 0; b < blocks; ++b) {
    std::vector<float> s(block);
    for (uint32_t t = 0; t < block; ++t) {
      float v = 0.0f;
      for (size_t i = size_t{b} * block + t; i < in.size(); i += threads) v += in[i];
      s[t] = v;
    }
    for (uint32_t st = block / 2; st > 0; st >>= 1)
      for (uint32_t t = 0; t < st; ++t) s[t] = s[t] + s[t + st];
    r.partial[b] = s[0];
  }
  for (float p : r.partial) r.total += p;
  return r;
}

// The runtime's grid-sync workspace of a cooperative launch: its address
// reaches the kernel in %envreg1 (high 32 bits) and %envreg2 (low 32 bits),
// as cooperative_groups' code assembles it (bfi of envreg1 over envreg2).
std::function<void(LaunchConfig&)> cooperative(uint64_t workspace) {
  return [workspace](LaunchConfig& c) {
    c.cooperative = true;
    c.envreg[1] = static_cast<uint32_t>(workspace >> 32);
    c.envreg[2] = static_cast<uint32_t>(workspace);
  };
}

TEST_P(CoopExec, GridSyncSum) {
  const int n = 2000;
  const uint32_t blocks = 4, block = 128;
  Rng rng(174);
  auto in = rng.vec<float>(n, [&] { return rng.f32(-1, 1); });
  uint64_t din = upload(in), dpartial = zeros<float>(blocks), dout = zeros<float>(1);
  uint64_t workspace = zeros<uint32_t>(2, "grid sync workspace");
  ASSERT_LAUNCH(launch("grid_sync_sum", {blocks}, {block}, {din, dpartial, dout, n}, block * 4,
                       cooperative(workspace)));
  const GridSum want = grid_sum(in, blocks, block);
  EXPECT_TRUE(exact(download<float>(dpartial, blocks), want.partial));
  EXPECT_TRUE(exact(download<float>(dout, 1), {want.total}));
}

// Launched without cudaLaunchCooperativeKernel there is no workspace: the
// cooperative-groups code traps, and the launch fails cleanly.
TEST_P(CoopExec, GridSyncSumNonCooperativeTraps) {
  const int n = 100;
  uint64_t din = zeros<float>(n), dpartial = zeros<float>(2), dout = zeros<float>(1);
  const LaunchResult r = launch("grid_sync_sum", {2}, {64}, {din, dpartial, dout, n}, 64 * 4);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error, LaunchError::LaunchFailure);
  ASSERT_TRUE(r.fault);
  EXPECT_EQ(r.fault->fault.kind, FaultKind::Trap) << r.fault->message;
  EXPECT_NE(r.fault->instruction.find("trap"), std::string::npos) << r.fault->message;
}

}  // namespace
}  // namespace warpsim::functional::corpus
