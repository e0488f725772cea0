// Corpus execution: tests/ptx/src/warpops.cu (match.sync and redux.sync, or the
// shuffle-butterfly fallback below sm_80).
#include "tests/functional/corpus_exec_util.h"

namespace warpsim::functional::corpus {
namespace {

CORPUS_EXEC_SUITE(WarpopsExec, "warpops");

// No bounds checks in these kernels: launches cover whole warps only.
constexpr uint32_t kBlocks = 2, kBlock = 96, T = kBlocks * kBlock;

// Lanes of the warp of `t` (restricted to `members`) whose value equals v[t].
template <typename V>
unsigned same_value_lanes(const std::vector<V>& v, uint32_t t, unsigned members) {
  const uint32_t base = t - t % 32;
  unsigned m = 0;
  for (uint32_t l = 0; l < 32; ++l)
    if ((members >> l & 1) && v[base + l] == v[t]) m |= 1u << l;
  return m;
}

TEST_P(WarpopsExec, MatchOps) {
  Rng rng(140);
  std::vector<int> in(T);
  for (uint32_t t = 0; t < T; ++t) {
    const uint32_t w = t / 32;
    // Warp 0: all odd (match_all holds), warp 1: all equal, others mixed.
    in[t] = w == 0   ? 2 * rng.i32(0, 3) + 1
            : w == 1 ? 77
                     : rng.i32(0, 5) * (rng.chance(0.1) ? 1000 : 1);
  }
  uint64_t din = upload(in), dout = zeros<unsigned>(3 * T);
  ASSERT_LAUNCH(launch("match_ops", {kBlocks}, {kBlock}, {din, dout}));
  std::vector<unsigned> want(3 * T);
  for (uint32_t t = 0; t < T; ++t) {
    const uint32_t base = t - t % 32;
    bool all_same_parity = true;
    for (uint32_t l = 0; l < 32; ++l) all_same_parity &= (in[base + l] & 1) == (in[t] & 1);
    want[3 * t + 0] = same_value_lanes(in, t, 0xffffffffu);
    want[3 * t + 1] = all_same_parity ? 0xffffffffu : 0u;
    want[3 * t + 2] = all_same_parity;
  }
  EXPECT_TRUE(exact(download<unsigned>(dout, 3 * T), want));
}

TEST_P(WarpopsExec, MatchPartial) {
  Rng rng(141);
  // 64-bit values that differ only in the high half, so a 32-bit compare fails.
  auto in = rng.vec<uint64_t>(T, [&] { return uint64_t(rng.range(0, 2)) << 40 | 5; });
  uint64_t din = upload(in), dout = zeros<unsigned>(T);
  ASSERT_LAUNCH(launch("match_partial", {kBlocks}, {kBlock}, {din, dout}));
  std::vector<unsigned> want(T);
  for (uint32_t t = 0; t < T; ++t) want[t] = t % 32 < 16 ? same_value_lanes(in, t, 0xffffu) : 0u;
  EXPECT_TRUE(exact(download<unsigned>(dout, T), want));
}

TEST_P(WarpopsExec, WarpReduce) {
  Rng rng(142);
  auto in =
      rng.vec<uint32_t>(T, [&] { return rng.chance(0.5) ? rng.u32() : rng.u32() | 0x00ff00f0u; });
  uint64_t din = upload(in), dout = zeros<unsigned>(6 * T);
  ASSERT_LAUNCH(launch("warp_reduce", {kBlocks}, {kBlock}, {din, dout}));
  std::vector<unsigned> want(6 * T);
  for (uint32_t t = 0; t < T; ++t) {
    const uint32_t base = t - t % 32;
    uint32_t add = 0, band = ~0u, bor = 0, bxor = 0;
    int mn = static_cast<int>(in[base]), mx = mn;
    for (uint32_t l = 0; l < 32; ++l) {
      const uint32_t v = in[base + l];
      add += v;
      mn = std::min(mn, static_cast<int>(v));
      mx = std::max(mx, static_cast<int>(v));
      band &= v;
      bor |= v;
      bxor ^= v;
    }
    const unsigned r[6] = {add, static_cast<unsigned>(mn), static_cast<unsigned>(mx), band, bor,
                           bxor};
    std::copy(r, r + 6, &want[6 * t]);
  }
  EXPECT_TRUE(exact(download<unsigned>(dout, 6 * T), want));
}

TEST_P(WarpopsExec, WarpReducePartial) {
  Rng rng(143);
  auto in = rng.vec<uint32_t>(T, [&] { return rng.u32(); });
  uint64_t din = upload(in), dout = zeros<unsigned>(T);
  ASSERT_LAUNCH(launch("warp_reduce_partial", {kBlocks}, {kBlock}, {din, dout}));
  std::vector<unsigned> want(T);
  for (uint32_t t = 0; t < T; ++t) {
    if (t % 2) {
      want[t] = 0xffffffffu;
      continue;
    }
    const uint32_t base = t - t % 32;
    for (uint32_t l = 0; l < 32; l += 2) want[t] += in[base + l];
  }
  EXPECT_TRUE(exact(download<unsigned>(dout, T), want));
}

}  // namespace
}  // namespace warpsim::functional::corpus
