// The registered cluster-port mechanisms (timing/cluster/): the merge table
// and the coalesced cache of intra-cluster coalescing (Wang et al., IEEE TC
// 2019, sec. 6) event by event, with the timings worked out by hand on the
// port rig (every clock 1 GHz, an ideal one-cycle network), each corner case
// docs/cluster-mechanisms.md decides, the locality probe's counts, the
// registry, and the mechanisms in the whole memory system.
#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "tests/timing/port_rig.h"
#include "tests/timing/timing_test_util.h"
#include "timing/cluster/coalesced_cache.h"
#include "timing/cluster/locality_probe.h"
#include "timing/cluster/merge_table.h"
#include "timing/cluster/port_mechanism_registry.h"
#include "timing/gpu.h"

namespace warpsim::timing {
namespace {

using functional::param_bytes;
using testing::kP;
using testing::PortRig;
using testing::TimedDevice;

MergeTable* add_merge_table(PortRig& r, uint32_t entries = 48, uint32_t lookup = 1) {
  auto m = std::make_unique<MergeTable>(MergeTableConfig{entries, lookup}, kP);
  MergeTable* p = m.get();
  r.port.add_mechanism(std::move(m));
  return p;
}

CoalescedCache* add_cache(PortRig& r, CoalescedCacheConfig c = {}) {
  auto m = std::make_unique<CoalescedCache>(c, kP);
  CoalescedCache* p = m.get();
  r.port.add_mechanism(std::move(m));
  return p;
}

// Every reply the port delivers in core cycles [from, to): (sm, id) in order.
std::vector<std::pair<uint32_t, uint32_t>> deliveries(PortRig& r, uint64_t from, uint64_t to) {
  std::vector<std::pair<uint32_t, uint32_t>> out;
  for (uint64_t c = from; c < to; ++c)
    for (uint32_t sm = 0; sm < 3; ++sm) {
      uint32_t id = 0;
      while (r.port.receive(sm, c, c * kP, id)) out.push_back({sm, id});
    }
  return out;
}

// A miss allocates an entry and enters the network one lookup cycle later
// than it would without the table: sent at cycle 0, the bus moves it at 0,
// the lookup ends at 1, it is injected at 2 (at 1 without the table) and the
// slice takes it one network cycle later, at 3 (2 without the table).
TEST(MergeTable, AMissAllocatesAndPaysTheLookupCycle) {
  PortRig plain;
  const uint32_t p = plain.load(0, 0x1000, 0);
  plain.run(0, 10);
  PortRig r;
  MergeTable* mt = add_merge_table(r);
  const uint32_t a = r.load(0, 0x1000, 0);
  r.run(0, 10);
  EXPECT_EQ(plain.arrival_cycle.at(p), 2u);
  EXPECT_EQ(r.arrival_cycle.at(a), 3u);
  EXPECT_EQ(mt->stats().lookups, 1u);
  EXPECT_EQ(mt->stats().allocations, 1u);
  EXPECT_EQ(mt->occupancy(), 1u);
  // The reply frees the entry; it had one waiter, so it is no broadcast.
  r.reply(a);
  r.run(10, 12);
  EXPECT_EQ(mt->occupancy(), 0u);
  EXPECT_EQ(mt->stats().broadcasts, 0u);
}

// A second SM's load of a line in flight is parked: no packet; the one reply
// reaches both SMs in the same core cycle, and the entry is free again.
TEST(MergeTable, AHitParksTheLoadAndTheReplyIsBroadcast) {
  PortRig r;
  MergeTable* mt = add_merge_table(r);
  const uint32_t a = r.load(0, 0x1000, 0);
  const uint32_t b = r.load(1, 0x1000, 0);
  EXPECT_EQ(r.run(0, 10), (std::vector<uint32_t>{a})) << "b merged: one request packet";
  EXPECT_EQ(mt->stats().hits, 1u);
  EXPECT_EQ(r.port.stats().merged, 1u);
  EXPECT_EQ(r.port.stats().requests, 1u);
  EXPECT_EQ(r.port.stats().read_requests, 1u);
  r.reply(a);
  r.run(10, 12);
  EXPECT_EQ(deliveries(r, 20, 21), (std::vector<std::pair<uint32_t, uint32_t>>{{0, a}, {1, b}}))
      << "both in core cycle 20";
  EXPECT_EQ(mt->stats().broadcasts, 1u);
  EXPECT_EQ(mt->occupancy(), 0u);
  // The next load of the line is a miss again.
  r.load(2, 0x1000, 12 * kP);
  r.run(12, 20);
  EXPECT_EQ(mt->stats().allocations, 2u);
}

// A full table: a load of another line goes on untracked (its reply is
// delivered normally), while a load of a tracked line still merges.
TEST(MergeTable, AFullTableBypassesNewLinesButStillMerges) {
  PortRig r;
  MergeTable* mt = add_merge_table(r, 1);
  const uint32_t a = r.load(0, 0x1000, 0);
  const uint32_t b = r.load(1, 0x2000, 0);
  const uint32_t c = r.load(2, 0x1000, 0);
  EXPECT_EQ(r.run(0, 10), (std::vector<uint32_t>{a, b}));
  EXPECT_EQ(mt->stats().full_bypasses, 1u);
  EXPECT_EQ(mt->stats().hits, 1u);
  r.reply(b);
  r.run(10, 12);
  EXPECT_EQ(mt->occupancy(), 1u) << "an untracked reply frees nothing";
  EXPECT_EQ(deliveries(r, 20, 21), (std::vector<std::pair<uint32_t, uint32_t>>{{1, b}}));
  r.reply(a);
  r.run(12, 14);
  EXPECT_EQ(deliveries(r, 21, 22), (std::vector<std::pair<uint32_t, uint32_t>>{{0, a}, {2, c}}));
}

// The duplicate-delivery hazard: SM 1's load of L goes untracked (the table
// is full), then SM 2's load of L allocates an entry. SM 1's reply arrives
// first: it must reach SM 1 only and leave SM 2's entry alone, so that SM 0's
// later load of L still merges into SM 2's, and every SM gets its line once.
TEST(MergeTable, AnUntrackedReplyNeverHitsALaterEntry) {
  PortRig r;
  MergeTable* mt = add_merge_table(r, 1);
  const uint32_t x = r.load(0, 0x9000, 0);
  const uint32_t a = r.load(1, 0x1000, 0);  // untracked: the entry holds x
  r.run(0, 10);
  r.reply(x);
  r.run(10, 12);
  const uint32_t b = r.load(2, 0x1000, 12 * kP);  // allocates
  r.run(12, 20);
  r.reply(a);
  r.run(20, 22);
  const uint32_t c = r.load(0, 0x1000, 22 * kP);  // merges into b
  r.run(22, 30);
  r.reply(b);
  r.run(30, 32);
  const auto got = deliveries(r, 40, 43);
  EXPECT_EQ(got, (std::vector<std::pair<uint32_t, uint32_t>>{{0, x}, {1, a}, {0, c}, {2, b}}));
  EXPECT_EQ(mt->stats().full_bypasses, 1u);
  EXPECT_EQ(mt->stats().hits, 1u);
  EXPECT_EQ(mt->stats().broadcasts, 1u);
  EXPECT_EQ(mt->occupancy(), 0u);
  EXPECT_TRUE(r.port.idle());
}

// A line in flight for fewer sectors than a load wants: the load goes on
// untracked instead of merging into a reply that lacks its data.
TEST(MergeTable, ALoadWantingMoreSectorsGoesOn) {
  PortRig r;
  MergeTable* mt = add_merge_table(r);
  const uint32_t a = r.load(0, 0x1000, 0);
  r.pool[a].l2_sectors = 0b0001;
  const uint32_t b = r.load(1, 0x1000, 0);  // wants 0b1111
  const uint32_t c = r.load(2, 0x1000, 0);
  r.pool[c].l2_sectors = 0b0001;
  EXPECT_EQ(r.run(0, 10), (std::vector<uint32_t>{a, b}));
  EXPECT_EQ(mt->stats().sector_bypasses, 1u);
  EXPECT_EQ(mt->stats().hits, 1u) << "c wants what a asked for";
}

// Stores, atomics, local loads and instruction and constant fetches are not
// looked up: they pass at once, with no lookup cycle.
TEST(MergeTable, OnlyGlobalLoadsAreLookedUp) {
  PortRig plain, r;
  MergeTable* mt = add_merge_table(r);
  std::vector<uint32_t> ids, plain_ids;
  const MemKind kinds[] = {MemKind::Store, MemKind::Atomic, MemKind::Instruction, MemKind::Constant};
  for (MemKind k : kinds) {
    ids.push_back(r.load(0, 0x1000, 0, k));
    plain_ids.push_back(plain.load(0, 0x1000, 0, k));
  }
  ids.push_back(r.load(1, kLocalL1Base + 0x1000, 0));
  plain_ids.push_back(plain.load(1, kLocalL1Base + 0x1000, 0));
  r.run(0, 20);
  plain.run(0, 20);
  for (size_t i = 0; i < ids.size(); ++i) EXPECT_EQ(r.arrival_cycle.at(ids[i]), plain.arrival_cycle.at(plain_ids[i])) << i;
  EXPECT_EQ(mt->stats().lookups, 0u);
  EXPECT_EQ(r.port.stats().merged, 0u);
  EXPECT_EQ(r.port.stats().read_requests, 3u) << "the local load and the two fetches";
}

// The coalesced cache is filled by a reply that several requests waited for
// (and only such a reply); a later load of the line is answered at the port:
// looked up at cycle t, its reply is in the response FIFO at t + 1.
TEST(CoalescedCache, CoalescedLinesAreServedAtThePort) {
  PortRig r;
  CoalescedCache* cc = add_cache(r);
  add_merge_table(r);
  const uint32_t a = r.load(0, 0x1000, 0);
  r.load(1, 0x1000, 0);
  const uint32_t lone = r.load(2, 0x2000, 0);
  r.run(0, 10);
  r.reply(a);
  r.reply(lone);
  r.run(10, 14);
  deliveries(r, 20, 22);
  EXPECT_EQ(cc->stats().fills, 1u);
  EXPECT_TRUE(cc->holds(0x1000));
  EXPECT_FALSE(cc->holds(0x2000)) << "one waiter: not coalesced";
  // Sent at 30: the bus moves it at 30, the lookup hits, the reply enters
  // the response FIFO at 31; no packet.
  const uint32_t d = r.load(2, 0x1000, 30 * kP);
  EXPECT_TRUE(r.run(30, 31).empty());
  EXPECT_FALSE(r.port.reply_waiting());
  EXPECT_TRUE(r.run(31, 32).empty());
  EXPECT_TRUE(r.port.reply_waiting());
  EXPECT_EQ(deliveries(r, 31, 32), (std::vector<std::pair<uint32_t, uint32_t>>{{2, d}}));
  EXPECT_EQ(cc->stats().hits, 1u);
  EXPECT_EQ(cc->stats().lookups, 4u);
  EXPECT_EQ(r.port.stats().served, 1u);
}

// The cache's and the table's lookups run in parallel: a load that misses
// both pays one cycle, not two.
TEST(CoalescedCache, LookupsRunInParallelWithTheMergeTable) {
  PortRig r;
  add_cache(r);
  add_merge_table(r);
  const uint32_t a = r.load(0, 0x1000, 0);
  r.run(0, 10);
  EXPECT_EQ(r.arrival_cycle.at(a), 3u) << "as with the merge table alone";
}

// LRU replacement over the 2 lines of a small cache.
TEST(CoalescedCache, ReplacesTheLeastRecentlyUsedLine) {
  PortRig r;
  CoalescedCache* cc = add_cache(r, {2, 1, false, false});
  add_merge_table(r);
  uint64_t t = 0;
  auto coalesce = [&](uint64_t line) {
    const uint32_t a = r.load(0, line, t * kP);
    r.load(1, line, t * kP);
    r.run(t, t + 10);
    r.reply(a);
    r.run(t + 10, t + 14);
    deliveries(r, t + 14, t + 15);
    t += 20;
  };
  coalesce(0x1000);
  coalesce(0x2000);
  r.load(2, 0x1000, t * kP);  // a hit makes 0x1000 the most recent
  r.run(t, t + 5);
  deliveries(r, t + 5, t + 6);
  t += 20;
  coalesce(0x3000);
  EXPECT_TRUE(cc->holds(0x1000));
  EXPECT_FALSE(cc->holds(0x2000));
  EXPECT_TRUE(cc->holds(0x3000));
  EXPECT_EQ(cc->stats().evictions, 1u);
}

// invalidate_on_write: a store from the cluster drops the line; without it
// the line stays (the paper's behaviour). flush_at_launch empties the cache
// when a kernel starts.
TEST(CoalescedCache, WritesAndLaunchesDropLinesWhenConfigured) {
  for (bool invalidate : {false, true}) {
    PortRig r;
    CoalescedCache* cc = add_cache(r, {24, 1, invalidate, true});
    add_merge_table(r);
    const uint32_t a = r.load(0, 0x1000, 0);
    r.load(1, 0x1000, 0);
    r.run(0, 10);
    r.reply(a);
    r.run(10, 14);
    deliveries(r, 14, 15);
    ASSERT_TRUE(cc->holds(0x1000));
    r.load(2, 0x1000, 20 * kP, MemKind::Store);
    r.run(20, 25);
    EXPECT_EQ(cc->holds(0x1000), !invalidate);
    EXPECT_EQ(cc->stats().invalidations, invalidate ? 1u : 0u);
    r.port.begin_launch(30 * kP);
    EXPECT_FALSE(cc->holds(0x1000));
    EXPECT_EQ(cc->stats().flushes, 1u);
  }
}

// The locality probe: with windows of 500, 1000, 1500 and 2000 cycles, a read
// of a line the cluster read 100 cycles earlier (other bytes) is line
// sharing in every window; one 600 cycles after that and 700 after the first
// read (the first's bytes) is not redundant within 500 cycles and is data
// sharing from 1000 on. Reads of other lines, and stores, count nothing.
TEST(LocalityProbe, CountsRedundantReadsPerWindowAndSplitsThem) {
  LocalityProbe probe(LocalityConfig{}, kP);
  RequestPool pool;
  auto read = [&](uint64_t line, uint32_t parts, uint64_t cycle, MemKind kind = MemKind::Load) {
    const uint32_t id = pool.acquire();
    pool[id].request.kind = kind;
    pool[id].request.address = line;
    pool[id].request.parts = parts;
    pool[id].l2_line = line;
    EXPECT_EQ(probe.on_request(id, pool[id], cycle * kP).kind, PortDecision::Kind::Forward);
  };
  read(0x1000, 0b01, 0);
  read(0x1000, 0b10, 100);
  read(0x1000, 0b01, 700);
  read(0x2000, 0b01, 701);
  read(0x1000, 0b01, 702, MemKind::Store);
  const LocalityStats& s = probe.stats();
  EXPECT_EQ(s.reads, 4u);
  EXPECT_EQ(s.redundant[0], 1u);
  EXPECT_EQ(s.line_sharing[0], 1u);
  EXPECT_EQ(s.data_sharing[0], 0u);
  for (size_t w = 1; w < kLocalityWindows; ++w) {
    EXPECT_EQ(s.redundant[w], 2u) << w;
    EXPECT_EQ(s.line_sharing[w], 1u) << w;
    EXPECT_EQ(s.data_sharing[w], 1u) << w;
  }
}

TEST(PortMechanismRegistry, ListsParseAndBadListsAreRefused) {
  EXPECT_EQ(mechanism_list("locality, merge_table"), (std::vector<std::string>{"locality", "merge_table"}));
  EXPECT_TRUE(mechanism_list("none").empty());
  EXPECT_TRUE(mechanism_list("").empty());
  EXPECT_EQ(check_mechanism_list("coalesced_cache,merge_table"), "");
  EXPECT_NE(check_mechanism_list("merge_tables").find("unknown cluster-port mechanism 'merge_tables'"),
            std::string::npos);
  EXPECT_NE(check_mechanism_list("merge_table,merge_table").find("listed twice"), std::string::npos);
  for (std::string_view name : port_mechanisms().names())
    EXPECT_EQ(check_mechanism_list(name), "") << "every registered mechanism is a valid list";
}

// ---- in the whole memory system ---------------------------------------------

struct SharedReadRun {
  LaunchActivity first, activity;  // the first launch, the second
  bool correct = true;
};

SharedReadRun run_shared_read(const std::string& mechanisms) {
  SimConfig c = testing::small_gpu();
  c.timing.gpu.sms_per_cluster = 4;
  c.timing.ldst.cache_global_loads = false;
  c.timing.cluster.mechanisms = mechanisms;
  TimedDevice t(c, testing::kSharedReadKernel);
  const uint64_t in = t.alloc(256 * 4), out = t.alloc(4 * 256 * 4);
  std::vector<uint32_t> values(256);
  for (uint32_t i = 0; i < 256; ++i) values[i] = i * 7 + 1;
  EXPECT_FALSE(t.device.memory().copy_from_host(in, values.data(), 256 * 4));
  // Twice: the second launch reads lines the first one coalesced.
  SharedReadRun result;
  for (int launch = 0; launch < 2; ++launch) {
    auto r = t.run("twice", {4}, {256}, {param_bytes(out), param_bytes(in)});
    EXPECT_TRUE(r.ok());
    const auto got = t.download<uint32_t>(out, 4 * 256);
    for (uint32_t i = 0; i < 4 * 256; ++i) result.correct &= got[i] == 2 * values[i % 256];
    if (launch == 0) result.first = t.gpu->last();
  }
  result.activity = t.gpu->last();
  return result;
}

uint64_t counter(const LaunchActivity& a, std::string_view prefix, std::string_view row) {
  for (const MechanismCounters& c : a.memory.port_mechanisms)
    if (c.prefix == prefix) {
      const auto rows = c.table->rows();
      for (size_t i = 0; i < rows.size(); ++i)
        if (rows[i].name == row) return c.values[i];
    }
  ADD_FAILURE() << prefix << "." << row << " not found";
  return 0;
}

TEST(ClusterMechanisms, InTheMemorySystemResultsHoldAndRequestsAreConserved) {
  const SharedReadRun none = run_shared_read("none");
  const SharedReadRun mt = run_shared_read("coalesced_cache,merge_table");
  ASSERT_TRUE(none.correct);
  ASSERT_TRUE(mt.correct);
  EXPECT_GT(counter(mt.first, "timing.cluster.merge_table", "hits"), 0u);
  EXPECT_GT(counter(mt.activity, "timing.cluster.coalesced_cache", "hits"), 0u)
      << "the second launch finds the lines the first coalesced";
  for (const LaunchActivity* a : {&mt.first, &mt.activity}) {
    EXPECT_EQ(counter(*a, "timing.cluster.merge_table", "hits"), a->memory.ports.merged);
    EXPECT_EQ(counter(*a, "timing.cluster.coalesced_cache", "hits"), a->memory.ports.served);
    EXPECT_EQ(a->memory.ports.requests + a->memory.ports.merged + a->memory.ports.served, a->sm.memory_requests);
    EXPECT_EQ(a->memory.ports.replies, a->sm.memory_requests);
  }
  EXPECT_LT(mt.first.memory.ports.read_requests, none.first.memory.ports.read_requests);
  EXPECT_LT(mt.activity.memory.ports.read_requests, none.activity.memory.ports.read_requests);
  EXPECT_TRUE(none.activity.memory.port_mechanisms.empty());
}

// The locality probe measures and changes nothing: the same cycles and
// network traffic as without it.
TEST(ClusterMechanisms, TheLocalityProbeChangesNoTiming) {
  const SharedReadRun none = run_shared_read("none");
  const SharedReadRun probe = run_shared_read("locality");
  EXPECT_EQ(probe.activity.cycles, none.activity.cycles);
  EXPECT_EQ(probe.activity.memory.ports.requests, none.activity.memory.ports.requests);
  EXPECT_GT(counter(probe.activity, "timing.cluster.locality", "redundant.window_3"), 0u);
  EXPECT_EQ(counter(probe.activity, "timing.cluster.locality", "reads"), probe.activity.memory.ports.read_requests);
}

}  // namespace
}  // namespace warpsim::timing
