// The warp scheduling policies' orders.
#include "timing/sm/warp_scheduler.h"

#include <gtest/gtest.h>

#include <vector>

namespace warpsim::timing {
namespace {

std::vector<uint32_t> order(WarpSchedulerPolicy& p, const std::vector<uint32_t>& warps) {
  std::vector<uint32_t> out;
  p.order(warps, out);
  return out;
}

std::unique_ptr<WarpSchedulerPolicy> make(WarpPolicy policy, uint32_t active = 8) {
  SmConfig c;
  c.warp_policy = policy;
  c.two_level_active = active;
  return make_warp_policy(c, 64);
}

using V = std::vector<uint32_t>;

TEST(WarpScheduler, LooseRoundRobinStartsAfterTheLastIssued) {
  auto p = make(WarpPolicy::Lrr);
  const V warps = {2, 4, 6, 8};
  EXPECT_EQ(order(*p, warps), (V{2, 4, 6, 8}));
  p->issued(4);
  EXPECT_EQ(order(*p, warps), (V{6, 8, 2, 4}));
  p->issued(8);
  EXPECT_EQ(order(*p, warps), (V{2, 4, 6, 8}));
  // The last issued warp left: start from the front.
  p->issued(6);
  EXPECT_EQ(order(*p, V{2, 4, 8}), (V{2, 4, 8}));
}

TEST(WarpScheduler, GreedyThenOldestKeepsTheLastIssuedFirst) {
  auto p = make(WarpPolicy::Gto);
  const V warps = {1, 3, 5, 7};  // oldest first
  EXPECT_EQ(order(*p, warps), (V{1, 3, 5, 7}));
  p->issued(5);
  EXPECT_EQ(order(*p, warps), (V{5, 1, 3, 7}));
  p->issued(5);
  EXPECT_EQ(order(*p, warps), (V{5, 1, 3, 7}));
  p->removed(5);
  EXPECT_EQ(order(*p, V{1, 3, 7}), (V{1, 3, 7}));
}

TEST(WarpScheduler, OldestFirstIgnoresHistory) {
  auto p = make(WarpPolicy::OldestFirst);
  p->issued(9);
  EXPECT_EQ(order(*p, V{3, 9, 12}), (V{3, 9, 12}));
}

TEST(WarpScheduler, TwoLevelServesAnActivePoolAndDemotesLongLatencyWarps) {
  auto p = make(WarpPolicy::TwoLevel, 2);
  const V warps = {0, 1, 2, 3};
  // The two oldest form the active pool.
  EXPECT_EQ(order(*p, warps), (V{0, 1}));
  p->issued(0);
  EXPECT_EQ(order(*p, warps), (V{1, 0}));
  // Warp 1 waits on memory: it goes to the back of the pending queue and the
  // oldest pending warp (2) takes its place; round-robin goes on after 0.
  p->long_latency_stall(1);
  EXPECT_EQ(order(*p, warps), (V{2, 0}));
  p->long_latency_stall(0);
  EXPECT_EQ(order(*p, warps), (V{2, 3}));
  // A warp that finished frees its place for the next pending one (1).
  p->removed(3);
  EXPECT_EQ(order(*p, V{0, 1, 2}), (V{2, 1}));
}

}  // namespace
}  // namespace warpsim::timing
