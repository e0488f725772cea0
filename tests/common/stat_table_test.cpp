// StatTable: every kind of row merges, subtracts and publishes as its
// contract says, under the names the table declares.
#include "common/stat_table.h"

#include <gtest/gtest.h>

namespace warpsim::stats {
namespace {

struct Counts {
  uint64_t hits = 0, misses = 0, peak = 0;
  uint64_t kinds[2] = {};
  uint64_t not_declared = 0;  // not in the table: never merged or published
};

struct Scope {
  uint64_t cycles = 0;
};

const StatTable<Counts, Scope>& table() {
  static const StatTable<Counts, Scope> t = [] {
    StatTable<Counts, Scope> t("A test component");
    t.counter("hits", &Counts::hits, "accesses", "hits").per_instance();
    t.counter("misses", &Counts::misses, "accesses", "misses").headline("{}_misses");
    t.maximum("peak", &Counts::peak, "cycles", "the longest wait");
    static constexpr const char* names[] = {"a", "b"};
    static constexpr const char* meanings[] = {"kind a", "kind b"};
    t.counters("kind", &Counts::kinds, names, meanings, "events");
    t.sum("accesses", {"hits", "misses"}, "accesses", "hits and misses").headline("{}_accesses").per_instance();
    t.formula("hit_rate", "fraction", "hits / accesses",
              [](const Counts& c) -> FormulaValue {
                return c.hits + c.misses ? static_cast<double>(c.hits) / (c.hits + c.misses) : 0.0;
              });
    t.formula("per_cycle", "accesses/cycle", "accesses per cycle",
              [](const Counts& c, const Scope& s) -> FormulaValue {
                return s.cycles ? (c.hits + c.misses) / s.cycles : uint64_t{0};
              });
    t.run_ratio("miss_rate", "{}_misses", "{}_accesses", "fraction", "misses / accesses over the run")
        .headline("{}_miss_rate");
    return t;
  }();
  return t;
}

TEST(StatTable, AddMergesCountersAndKeepsTheLargestMaximum) {
  Counts a{1, 2, 30, {4, 5}, 6}, b{10, 20, 7, {40, 50}, 60};
  table().add(a, b);
  EXPECT_EQ(a.hits, 11u);
  EXPECT_EQ(a.misses, 22u);
  EXPECT_EQ(a.peak, 30u);
  EXPECT_EQ(a.kinds[0], 44u);
  EXPECT_EQ(a.kinds[1], 55u);
  EXPECT_EQ(a.not_declared, 6u) << "only declared rows merge";
}

TEST(StatTable, DifferenceSubtractsCountersAndKeepsTheLaterMaximum) {
  const Counts before{1, 2, 30, {4, 5}, 0}, after{11, 22, 31, {44, 55}, 0};
  const Counts d = table().difference(after, before);
  EXPECT_EQ(d.hits, 10u);
  EXPECT_EQ(d.misses, 20u);
  EXPECT_EQ(d.peak, 31u) << "a maximum is the largest so far";
  EXPECT_EQ(d.kinds[0], 40u);
  EXPECT_EQ(d.kinds[1], 50u);
  EXPECT_EQ(table().value(d, "accesses"), 30u);
}

TEST(StatTable, PublishUsesDeclaredAndHeadlineNames) {
  StatsRegistry r;
  table().publish(r, Counts{3, 1, 9, {2, 0}, 0}, {"comp", "C"}, Scope{2});
  EXPECT_EQ(r.counter("comp.hits"), 3u);
  EXPECT_EQ(r.counter("C_misses"), 1u);
  EXPECT_FALSE(r.has("comp.misses")) << "a headline name replaces the prefixed one";
  EXPECT_EQ(r.counter("comp.peak"), 9u);
  EXPECT_EQ(r.counter("comp.kind.a"), 2u);
  EXPECT_EQ(r.counter("comp.kind.b"), 0u);
  EXPECT_EQ(r.counter("C_accesses"), 4u);
  EXPECT_EQ(std::get<double>(r.values().find("comp.hit_rate")->second), 0.75);
  EXPECT_EQ(std::get<uint64_t>(r.values().find("comp.per_cycle")->second), 2u) << "an integer formula stays one";
  EXPECT_EQ(std::get<double>(r.values().find("C_miss_rate")->second), 0.25);
  EXPECT_EQ(r.values().size(), 9u);
}

TEST(StatTable, LaunchesAddUpWhileFormulasDescribeTheLastAndRunRatiosTheRun) {
  StatsRegistry r;
  table().publish(r, Counts{3, 1, 9, {}, 0}, {"comp", "C"}, Scope{1});
  table().publish(r, Counts{1, 3, 5, {}, 0}, {"comp", "C"}, Scope{1});
  EXPECT_EQ(r.counter("comp.hits"), 4u);
  EXPECT_EQ(r.counter("C_misses"), 4u);
  EXPECT_EQ(r.counter("comp.peak"), 5u) << "maxima are published as the snapshot's (the largest so far)";
  EXPECT_EQ(std::get<double>(r.values().find("comp.hit_rate")->second), 0.25) << "the last launch";
  EXPECT_EQ(std::get<double>(r.values().find("C_miss_rate")->second), 0.5) << "the whole run";
}

TEST(StatTable, PerInstanceRowsOnly) {
  StatsRegistry r;
  table().publish_instance(r, Counts{3, 1, 9, {1, 1}, 0}, "comp.unit.7");
  EXPECT_EQ(r.counter("comp.unit.7.hits"), 3u);
  EXPECT_EQ(r.counter("comp.unit.7.accesses"), 4u) << "per instance under the row's own name";
  EXPECT_EQ(r.values().size(), 2u);
  EXPECT_TRUE(table().instance_idle(Counts{0, 0, 9, {1, 1}, 0}));
  EXPECT_FALSE(table().instance_idle(Counts{0, 1, 0, {}, 0}));
}

TEST(StatTable, MarkdownListsEveryRowWithItsScope) {
  const Instance where[] = {{"x.one", "One"}, {"x.two", "Two"}};
  const std::string md = table().markdown(where, "x.unit.N");
  EXPECT_NE(md.find("| `x.{one,two}.hits`, `x.unit.N.hits` | run | accesses | hits |"), std::string::npos) << md;
  EXPECT_NE(md.find("| `{One,Two}_misses` | run |"), std::string::npos) << md;
  EXPECT_NE(md.find("| `x.{one,two}.peak` | so far |"), std::string::npos) << md;
  EXPECT_NE(md.find("| `x.{one,two}.hit_rate` | launch |"), std::string::npos) << md;
  EXPECT_NE(md.find("(`{One,Two}_misses` / `{One,Two}_accesses`)"), std::string::npos) << md;
  EXPECT_EQ(std::count(md.begin(), md.end(), '\n'), 2 + 9);
}

}  // namespace
}  // namespace warpsim::stats
