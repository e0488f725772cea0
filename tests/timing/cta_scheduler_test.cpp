// CTA scheduling policies against the example of Wang et al., IEEE TC 2019
// (sec. 4.1 and 5, Fig. 6: N=10, C=2, S=2, M=2), worked by hand from the
// paper's prose; the paper's CTAs 1..10 are 0..9 here and its C1.SM1,
// C1.SM2, C2.SM1, C2.SM2 are flat SMs 0..3.
#include "timing/cta/cta_scheduler.h"

#include <gtest/gtest.h>

#include "tests/plugin_test_util.h"

#include <algorithm>
#include <ostream>
#include <random>
#include <string>
#include <vector>

namespace warpsim::timing {

// Readable failure messages (found by ADL, so outside the unnamed namespace).
static void PrintTo(const CtaAssignment& a, std::ostream* os) {
  *os << "{sm " << a.sm << ", cta " << a.cta << "}";
}

namespace {

using Mapping = std::vector<std::vector<uint64_t>>;  // per SM, CTAs in arrival order
using Cycle = std::vector<CtaAssignment>;

// Drives one scheduler the way the timing model will: each call to cycle()
// reports M minus the resident CTAs of every SM, and applies the launches.
struct Harness {
  Harness(std::string policy, CtaGridShape shape_in, uint32_t issue = 1, bool tail = true,
          uint32_t block = 2)
      : shape(shape_in),
        sched(make_cta_scheduler({.policy = std::move(policy), .block_size = block,
                                  .block_partial_tail = tail, .issue_per_cluster = issue})),
        resident(shape.clusters * shape.sms_per_cluster, 0),
        mapping(resident.size()) {
    sched->start(shape);
  }

  Cycle cycle() {
    std::vector<uint32_t> free(resident.size());
    for (size_t sm = 0; sm < free.size(); ++sm) free[sm] = shape.max_ctas_per_sm - resident[sm];
    Cycle out;
    sched->schedule(free, out);
    for (const CtaAssignment& a : out) {
      ++resident[a.sm];
      mapping[a.sm].push_back(a.cta);
    }
    return out;
  }
  // Runs cycles until one launches nothing (no slots are freed meanwhile).
  void drain() {
    while (!cycle().empty()) {
    }
  }
  void finish(uint32_t sm) { --resident[sm]; }

  CtaGridShape shape;
  std::unique_ptr<CtaScheduler> sched;
  std::vector<uint32_t> resident;
  Mapping mapping;
};

constexpr CtaGridShape kPaper{.num_ctas = 10, .clusters = 2, .sms_per_cluster = 2,
                              .max_ctas_per_sm = 2};

// The contract every registered policy keeps, run over the registry's names
// (a new policy is tested here without editing this file).
class CtaPolicyContract : public ::testing::TestWithParam<std::string_view> {};

TEST_P(CtaPolicyContract, IsMadeByName) {
  EXPECT_NE(make_cta_scheduler({.policy = std::string(GetParam())}), nullptr);
  EXPECT_EQ(cta_policies().check(GetParam()), "");
}

TEST(CtaSchedulerDeathTest, UnknownPolicyIsAnInvariantViolation) {
  EXPECT_DEATH(make_cta_scheduler({.policy = "round-robin"}), "unknown CTA scheduling policy");
}

TEST(CtaScheduler, TwoLevelRrMatchesThePaperCycleByCycle) {
  Harness h("two-level-rr", kPaper);
  // Clusters first, one CTA per cluster per cycle, each cluster RR over its SMs.
  EXPECT_EQ(h.cycle(), (Cycle{{0, 0}, {2, 1}}));
  EXPECT_EQ(h.cycle(), (Cycle{{1, 2}, {3, 3}}));
  EXPECT_EQ(h.cycle(), (Cycle{{0, 4}, {2, 5}}));
  EXPECT_EQ(h.cycle(), (Cycle{{1, 6}, {3, 7}}));
  EXPECT_EQ(h.cycle(), Cycle{});
  EXPECT_EQ(h.mapping, (Mapping{{0, 4}, {2, 6}, {1, 5}, {3, 7}}));
  h.finish(0);  // CTA1 done: CTA9 -> C1.SM1
  EXPECT_EQ(h.cycle(), (Cycle{{0, 8}}));
}

TEST(CtaScheduler, GlobalRrMatchesThePaper) {
  Harness h("global-rr", kPaper);
  // Flat SM order; the issue limit ends a cycle rather than reorder.
  EXPECT_EQ(h.cycle(), (Cycle{{0, 0}}));
  EXPECT_EQ(h.cycle(), (Cycle{{1, 1}, {2, 2}}));
  h.drain();
  EXPECT_EQ(h.mapping, (Mapping{{0, 4}, {1, 5}, {2, 6}, {3, 7}}));
  h.finish(0);
  EXPECT_EQ(h.cycle(), (Cycle{{0, 8}}));
}

TEST(CtaScheduler, GreedyClusteringMatchesThePaper) {
  Harness h("greedy-clustering", kPaper);
  h.drain();
  EXPECT_EQ(h.mapping, (Mapping{{0, 2}, {1, 3}, {4, 6}, {5, 7}}));
  h.finish(0);
  EXPECT_EQ(h.cycle(), (Cycle{{0, 8}}));
}

TEST(CtaScheduler, DistributedMatchesThePaper) {
  Harness h("distributed", kPaper);
  EXPECT_EQ(h.cycle(), (Cycle{{0, 0}, {2, 5}}));
  h.drain();
  EXPECT_EQ(h.mapping, (Mapping{{0, 2}, {1, 3}, {5, 7}, {6, 8}}));
  h.finish(0);  // CTA1 done: CTA5 (own pool) -> C1.SM1
  EXPECT_EQ(h.cycle(), (Cycle{{0, 4}}));
  EXPECT_EQ(h.sched->remaining(), 1u);  // CTA 9 waits for a cluster-2 slot
}

TEST(CtaScheduler, DistributedBlockLiteralRuleMatchesThePaper) {
  Harness h("distributed-block", kPaper, 1, /*tail=*/false);
  EXPECT_EQ(h.cycle(), (Cycle{{0, 0}, {0, 1}, {2, 5}, {2, 6}}));
  h.drain();
  EXPECT_EQ(h.mapping, (Mapping{{0, 1}, {2, 3}, {5, 6}, {7, 8}}));
  h.finish(0);  // CTA1 done: nothing (one free context)
  EXPECT_EQ(h.cycle(), Cycle{});
  h.finish(0);  // CTA2 done too: CTA5 -> C1.SM1
  EXPECT_EQ(h.cycle(), (Cycle{{0, 4}}));
}

TEST(CtaScheduler, DistributedBlockPartialTailFitsOneFreeSlot) {
  Harness h("distributed-block", kPaper, 1, /*tail=*/true);
  h.drain();
  EXPECT_EQ(h.mapping, (Mapping{{0, 1}, {2, 3}, {5, 6}, {7, 8}}));
  h.finish(0);  // pool 1 holds only CTA 4: one free slot is enough
  EXPECT_EQ(h.cycle(), (Cycle{{0, 4}}));
}

TEST(CtaScheduler, DistributedBlockDelaysLaunchUntilAWholeBlockFits) {
  // N=12: pools {0..5}, {6..11}; after the first round pool 1 still has 4, 5.
  Harness h("distributed-block", {12, 2, 2, 2}, 1, /*tail=*/true);
  h.drain();
  EXPECT_EQ(h.mapping, (Mapping{{0, 1}, {2, 3}, {6, 7}, {8, 9}}));
  h.finish(0);
  EXPECT_EQ(h.cycle(), Cycle{});
  h.finish(0);
  EXPECT_EQ(h.cycle(), (Cycle{{0, 4}, {0, 5}}));
}

TEST(CtaScheduler, DistributedBlockWithOddM) {
  // M=3: after one block one slot is left, too few for the next block.
  Harness h("distributed-block", {6, 1, 1, 3});
  EXPECT_EQ(h.cycle(), (Cycle{{0, 0}, {0, 1}}));
  EXPECT_EQ(h.cycle(), Cycle{});
  h.finish(0);
  EXPECT_EQ(h.cycle(), (Cycle{{0, 2}, {0, 3}}));
}

TEST(CtaScheduler, DistributedBlockFallsBackToSingleCtasWhenMIsBelowBlockSize) {
  Harness h("distributed-block", {3, 1, 2, 1}, 1, /*tail=*/false, /*block=*/2);
  EXPECT_EQ(h.cycle(), (Cycle{{0, 0}}));
  EXPECT_EQ(h.cycle(), (Cycle{{1, 1}}));
  EXPECT_EQ(h.cycle(), Cycle{});
  h.finish(1);
  EXPECT_EQ(h.cycle(), (Cycle{{1, 2}}));
  EXPECT_TRUE(h.sched->done());
}

TEST(CtaScheduler, IssueLimitOfTwoLetsAClusterTakeTwoPerCycle) {
  EXPECT_EQ(Harness("two-level-rr", kPaper, 2).cycle(),
            (Cycle{{0, 0}, {2, 1}, {1, 2}, {3, 3}}));
  EXPECT_EQ(Harness("global-rr", kPaper, 2).cycle(), (Cycle{{0, 0}, {1, 1}, {2, 2}, {3, 3}}));
  Harness gc("greedy-clustering", kPaper, 2);
  EXPECT_EQ(gc.cycle(), (Cycle{{0, 0}, {1, 1}}));  // cluster 1 waits while cluster 0 has room
  EXPECT_EQ(gc.cycle(), (Cycle{{0, 2}, {1, 3}, {2, 4}, {3, 5}}));  // cluster 0 full: move on
  EXPECT_EQ(gc.cycle(), (Cycle{{2, 6}, {3, 7}}));
  EXPECT_EQ(Harness("distributed", kPaper, 2).cycle(), (Cycle{{0, 0}, {1, 1}, {2, 5}, {3, 6}}));
  EXPECT_EQ(Harness("distributed-block", kPaper, 2).cycle(),
            (Cycle{{0, 0}, {0, 1}, {1, 2}, {1, 3}, {2, 5}, {2, 6}, {3, 7}, {3, 8}}));
}

// Blocks handed to one cluster in one cycle: a block is a run of consecutive
// CTAs to the same SM (for policies other than distributed-block, every CTA
// is its own block, as no two consecutive assignments share an SM there).
std::vector<uint32_t> blocks_per_cluster(const Cycle& cycle, const CtaGridShape& shape,
                                         bool blocks) {
  std::vector<uint32_t> count(shape.clusters, 0);
  for (size_t i = 0; i < cycle.size(); ++i) {
    const bool continues = blocks && i > 0 && cycle[i].sm == cycle[i - 1].sm &&
                           cycle[i].cta == cycle[i - 1].cta + 1;
    if (!continues) ++count[cycle[i].sm / shape.sms_per_cluster];
  }
  return count;
}

TEST_P(CtaPolicyContract, IssueLimitOfOneIsNeverExceeded) {
  const std::string_view name = GetParam();
  {
    Harness h(std::string(name), {20, 3, 2, 3});
    for (int i = 0; i < 20; ++i) {
      const Cycle c = h.cycle();
      for (uint32_t n : blocks_per_cluster(c, h.shape, name == "distributed-block")) {
        EXPECT_LE(n, 1u) << name;
      }
      // Free one slot on every other SM to keep CTAs flowing.
      for (uint32_t sm = static_cast<uint32_t>(i % 2); sm < h.resident.size(); sm += 2) {
        if (h.resident[sm] > 0) h.finish(sm);
      }
    }
    EXPECT_TRUE(h.sched->done()) << name;
  }
}

TEST_P(CtaPolicyContract, DoneAndRemaining) {
  const std::string_view name = GetParam();
  {
    Harness h(std::string(name), kPaper);
    EXPECT_FALSE(h.sched->done()) << name;
    EXPECT_EQ(h.sched->remaining(), 10u) << name;
    const size_t first = h.cycle().size();
    EXPECT_EQ(h.sched->remaining(), 10u - first) << name;
    h.drain();
    EXPECT_EQ(h.sched->remaining(), 2u) << name;  // 8 slots, 10 CTAs
    EXPECT_FALSE(h.sched->done()) << name;
    for (uint32_t sm = 0; sm < 4; ++sm) h.resident[sm] = 0;  // everything finished
    h.drain();
    EXPECT_EQ(h.sched->remaining(), 0u) << name;
    EXPECT_TRUE(h.sched->done()) << name;
    EXPECT_EQ(h.cycle(), Cycle{}) << name;
  }
}

TEST(CtaScheduler, FewerCtasThanSms) {
  const CtaGridShape shape{3, 2, 2, 2};
  const std::pair<std::string, Mapping> expected[] = {
      {"two-level-rr", {{0}, {2}, {1}, {}}},
      {"global-rr", {{0}, {1}, {2}, {}}},
      {"greedy-clustering", {{0, 2}, {1}, {}, {}}},  // imbalance: cluster 1 gets nothing
      {"distributed", {{0}, {1}, {2}, {}}},          // pools {0,1}, {2}
      {"distributed-block", {{0, 1}, {}, {2}, {}}},
  };
  for (const auto& [name, mapping] : expected) {
    Harness h(name, shape);
    h.drain();
    EXPECT_EQ(h.mapping, mapping) << name;
    EXPECT_TRUE(h.sched->done()) << name;
  }
}

TEST(CtaScheduler, DistributedPoolsWhenNIsNotDivisibleByC) {
  // N=7, C=2: pools {0..3}, {4..6}.
  Harness h("distributed", {7, 2, 2, 2});
  h.drain();
  EXPECT_EQ(h.mapping, (Mapping{{0, 2}, {1, 3}, {4, 6}, {5}}));
  EXPECT_TRUE(h.sched->done());

  // No stealing: cluster 1 has free slots and an empty pool, cluster 0 is full.
  Harness s("distributed", {7, 2, 1, 2});
  s.drain();
  EXPECT_EQ(s.mapping, (Mapping{{0, 1}, {4, 5}}));
  s.finish(1);
  s.finish(1);
  EXPECT_EQ(s.cycle(), (Cycle{{1, 6}}));
  EXPECT_EQ(s.cycle(), Cycle{});
  EXPECT_EQ(s.sched->remaining(), 2u);

  // N=5, C=4: pools of 2 -> {0,1}, {2,3}, {4}, {} (the last one empty).
  Harness e("distributed", {5, 4, 1, 2});
  e.drain();
  EXPECT_EQ(e.mapping, (Mapping{{0, 1}, {2, 3}, {4}, {}}));
  EXPECT_TRUE(e.sched->done());
}

TEST_P(CtaPolicyContract, NoCtas) {
  const std::string_view name = GetParam();
  {
    Harness h(std::string(name), {0, 2, 2, 2});
    EXPECT_TRUE(h.sched->done()) << name;
    EXPECT_EQ(h.sched->remaining(), 0u) << name;
    std::vector<uint32_t> free(4, 2);
    Cycle out{{7, 7}};  // schedule() appends; it must leave this alone
    h.sched->schedule(free, out);
    EXPECT_EQ(out, (Cycle{{7, 7}})) << name;
  }
}

TEST_P(CtaPolicyContract, StartResetsForTheNextKernel) {
  const std::string_view name = GetParam();
  {
    Harness h(std::string(name), kPaper);
    h.drain();
    Harness fresh(std::string(name), kPaper);
    fresh.drain();
    h.sched->start(kPaper);
    h.resident.assign(4, 0);
    h.mapping.assign(4, {});
    h.drain();
    EXPECT_EQ(h.mapping, fresh.mapping) << name;
  }
}

// Random completions: every CTA is handed out exactly once, never to a full
// SM, and never more than issue_per_cluster blocks per cluster per cycle.
TEST_P(CtaPolicyContract, RandomCompletionsNeverOversubscribe) {
  const std::string_view name = GetParam();
  std::mt19937 rng(12345);  // mt19937's sequence is fixed by the standard
  auto draw = [&rng](uint32_t n) { return static_cast<uint32_t>(rng() % n); };
  {
    for (int trial = 0; trial < 40; ++trial) {
      // One draw per statement: argument evaluation order is unspecified.
      const CtaGridShape shape{.num_ctas = draw(200), .clusters = 1 + draw(4),
                               .sms_per_cluster = 1 + draw(4), .max_ctas_per_sm = 1 + draw(4)};
      const uint32_t issue = 1 + draw(3);
      const bool tail = draw(2) == 0;
      const uint32_t block = 1 + draw(3);
      Harness h(std::string(name), shape, issue, tail, block);
      std::vector<std::vector<uint64_t>> running(h.resident.size());
      std::vector<bool> seen(shape.num_ctas, false);
      uint64_t handed = 0;
      for (int cycle = 0; cycle < 20000 && !(h.sched->done() && handed == shape.num_ctas);
           ++cycle) {
        for (uint32_t sm = 0; sm < running.size(); ++sm) {
          if (!running[sm].empty() && draw(3) == 0) {
            const uint32_t which = draw(static_cast<uint32_t>(running[sm].size()));
            running[sm].erase(running[sm].begin() + which);
            h.finish(sm);
          }
        }
        const std::vector<uint32_t> before = h.resident;
        const Cycle c = h.cycle();
        for (uint32_t n : blocks_per_cluster(c, shape, name == "distributed-block")) {
          ASSERT_LE(n, issue) << name;
        }
        for (const CtaAssignment& a : c) {
          ASSERT_LT(a.sm, running.size()) << name;
          ASSERT_LT(a.cta, shape.num_ctas) << name;
          ASSERT_FALSE(seen[a.cta]) << name << " CTA " << a.cta;
          seen[a.cta] = true;
          running[a.sm].push_back(a.cta);
          ++handed;
        }
        for (uint32_t sm = 0; sm < running.size(); ++sm) {
          ASSERT_LE(h.resident[sm], shape.max_ctas_per_sm) << name;
          ASSERT_GE(h.resident[sm], before[sm]) << name;
        }
        ASSERT_EQ(h.sched->remaining(), shape.num_ctas - handed) << name;
      }
      EXPECT_TRUE(h.sched->done()) << name << " trial " << trial;
      EXPECT_EQ(handed, shape.num_ctas) << name;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Registered, CtaPolicyContract, ::testing::ValuesIn(cta_policies().names()),
                         warpsim::plugin_test_name<std::string_view>);

}  // namespace
}  // namespace warpsim::timing
