// The warp scheduling policies: the contract every registered policy keeps
// (run over the registry's names, so a new policy is tested here without
// editing this file), and each policy's own order.
#include "timing/sm/warp_policy.h"

#include <gtest/gtest.h>

#include "tests/plugin_test_util.h"

#include <algorithm>
#include <random>
#include <set>
#include <vector>

namespace warpsim::timing {
namespace {

// Warps as a policy sees them outside an SM: nothing buffered yet.
class NoViews final : public WarpViews {
 public:
  WarpView view(uint32_t) const override { return {}; }
};

std::vector<uint32_t> order(WarpSchedulerPolicy& p, const std::vector<uint32_t>& warps) {
  std::vector<uint32_t> out;
  p.order(warps, NoViews(), out);
  return out;
}

std::unique_ptr<WarpSchedulerPolicy> make(const std::string& policy, uint32_t active = 8) {
  SmConfig c;
  c.warp_policy = policy;
  c.two_level_active = active;
  return warp_policies().make(policy, c, 64);
}

class WarpPolicyContract : public ::testing::TestWithParam<std::string_view> {};

// Whatever happens (issues, long-latency stalls, warps leaving and joining),
// an order names each warp at most once, only the scheduler's warps, and at
// least one of them, and never a warp that left.
TEST_P(WarpPolicyContract, OrdersAreSubsetsWithoutRepeatsAndNeverEmpty) {
  auto p = make(std::string(GetParam()), 3);
  std::mt19937 rng(7);
  std::vector<uint32_t> warps;
  uint32_t next_id = 0;
  for (int step = 0; step < 2000; ++step) {
    const uint32_t dice = rng() % 10;
    if ((dice == 0 || warps.empty()) && next_id < 64) {
      warps.push_back(next_id++);  // a new warp (the youngest)
    } else if (dice == 1 && !warps.empty()) {
      const size_t i = rng() % warps.size();
      p->removed(warps[i]);
      warps.erase(warps.begin() + static_cast<long>(i));
      continue;
    }
    if (warps.empty()) break;  // every slot used and every warp gone
    const std::vector<uint32_t> o = order(*p, warps);
    ASSERT_FALSE(o.empty()) << GetParam() << " step " << step;
    std::set<uint32_t> seen;
    for (uint32_t w : o) {
      ASSERT_TRUE(seen.insert(w).second) << GetParam() << ": warp " << w << " twice";
      ASSERT_NE(std::find(warps.begin(), warps.end(), w), warps.end()) << GetParam() << ": warp " << w;
    }
    // The first warp of the order issues, or stalls on a long latency.
    if (rng() % 3 == 0) (void)p->long_latency_stall(o.front());
    else p->issued(o.front());
  }
}

// Deterministic: two instances given the same warps and events give the
// same orders (no hidden randomness, no dependence on addresses).
TEST_P(WarpPolicyContract, SameEventsSameOrders) {
  auto a = make(std::string(GetParam()), 2), b = make(std::string(GetParam()), 2);
  const std::vector<uint32_t> warps = {3, 5, 8, 9, 12};
  for (int step = 0; step < 200; ++step) {
    const std::vector<uint32_t> oa = order(*a, warps), ob = order(*b, warps);
    ASSERT_EQ(oa, ob) << GetParam() << " step " << step;
    const uint32_t w = oa[static_cast<size_t>(step) % oa.size()];
    if (step % 4 == 0) {
      EXPECT_EQ(a->long_latency_stall(w), b->long_latency_stall(w));
    } else {
      a->issued(w);
      b->issued(w);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Registered, WarpPolicyContract, ::testing::ValuesIn(warp_policies().names()),
                         warpsim::plugin_test_name<std::string_view>);

using V = std::vector<uint32_t>;

TEST(WarpScheduler, LooseRoundRobinStartsAfterTheLastIssued) {
  auto p = make("lrr");
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
  auto p = make("gto");
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
  auto p = make("oldest-first");
  p->issued(9);
  EXPECT_EQ(order(*p, V{3, 9, 12}), (V{3, 9, 12}));
}

TEST(WarpScheduler, TwoLevelServesAnActivePoolAndDemotesLongLatencyWarps) {
  auto p = make("two-level", 2);
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
