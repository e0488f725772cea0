// Unit tests of the memory system's own components: the L2 slice (hit,
// miss, merge, write-back and atomic sequences, back-pressure) and the
// cluster port (round-robin bus, one packet per network cycle, replies
// routed to their SM, one delivery per core cycle). Timing through whole
// kernels is in memory_microbenchmark_test.cpp.
#include <gtest/gtest.h>

#include <vector>

#include "interconnect/ideal_network.h"
#include "interconnect/network.h"
#include "timing/memory/cluster_port.h"
#include "timing/memory/l2_slice.h"
#include "timing/memory/memory_system.h"
#include "tests/timing/memory_test_util.h"

namespace warpsim::timing {
namespace {

using testing::kP;
using testing::small_l2;

ClockDomains one_ghz() { return {}; }

PartitionConfig slice_config() {
  PartitionConfig p;
  p.rop_latency = 5;
  p.atomic_latency = 2;
  return p;
}

struct SliceRig {
  explicit SliceRig(const PartitionConfig& p = slice_config()) : slice(p, small_l2(), clocks, pool) {}
  ClockDomains clocks = one_ghz();
  RequestPool pool;
  L2Slice slice;

  uint32_t request(MemKind kind, uint64_t line, uint32_t sectors) {
    const uint32_t id = pool.acquire();
    pool[id].request.kind = kind;
    pool[id].l2_line = line;
    pool[id].l2_sectors = sectors;
    return id;
  }
  // The DRAM operation at the head of the slice's queue (fails if none).
  DramOp take_dram_op(uint64_t now_ps) {
    EXPECT_TRUE(slice.dram_op_ready(now_ps));
    const DramOp op = slice.dram_op_front();
    slice.dram_op_pop();
    return op;
  }
  uint32_t take_reply(uint64_t now_ps) {
    EXPECT_TRUE(slice.reply_ready(now_ps));
    const uint32_t id = slice.reply_front();
    slice.reply_pop();
    return id;
  }
};

// A load reaches the cache rop_latency (5) cycles after it arrives; a miss
// asks DRAM for its sector; the fill answers it one L2 cycle later; a second
// load of the line hits and is answered hit_latency (3) cycles later.
TEST(L2Slice, MissFillThenHit) {
  SliceRig r;
  const uint32_t a = r.request(MemKind::Load, 0, 0b0001);
  r.slice.accept(a, 0);
  r.slice.tick(4 * kP);
  EXPECT_FALSE(r.slice.dram_op_ready(4 * kP)) << "not before rop_latency";
  r.slice.tick(5 * kP);
  const DramOp op = r.take_dram_op(5 * kP);
  EXPECT_EQ(op.line, 0u);
  EXPECT_EQ(op.sectors, 0b0001u);
  EXPECT_FALSE(op.write);
  EXPECT_FALSE(r.slice.reply_ready(100 * kP)) << "no reply before the data";
  r.slice.fill_arrives(0, 0b0001, 10 * kP);
  r.slice.tick(10 * kP);
  EXPECT_FALSE(r.slice.reply_ready(10 * kP));
  EXPECT_EQ(r.take_reply(11 * kP), a);

  const uint32_t b = r.request(MemKind::Load, 0, 0b0001);
  r.slice.accept(b, 20 * kP);
  r.slice.tick(25 * kP);
  EXPECT_FALSE(r.slice.dram_op_ready(25 * kP)) << "a hit asks nothing of DRAM";
  EXPECT_FALSE(r.slice.reply_ready(27 * kP));
  EXPECT_EQ(r.take_reply(28 * kP), b);
  const CacheCounters& c = r.slice.cache().counters();
  EXPECT_EQ(c.read_misses, 1u);
  EXPECT_EQ(c.read_hits, 1u);
  EXPECT_EQ(r.slice.stats().requests, 2u);
  EXPECT_TRUE(r.slice.idle());
}

// Two loads of the same line while its miss is in flight: one DRAM read,
// and the fill answers both (mshr_max_merge = 2).
TEST(L2Slice, MissesToOneLineMerge) {
  SliceRig r;
  const uint32_t a = r.request(MemKind::Load, 128, 0b0011);
  const uint32_t b = r.request(MemKind::Load, 128, 0b0001);
  r.slice.accept(a, 0);
  r.slice.accept(b, 0);
  r.slice.tick(5 * kP);  // a misses
  r.slice.tick(6 * kP);  // b merges
  const DramOp op = r.take_dram_op(6 * kP);
  EXPECT_EQ(op.sectors, 0b0011u);
  EXPECT_FALSE(r.slice.dram_op_ready(UINT64_MAX - 1)) << "the merged load fetches nothing";
  r.slice.fill_arrives(128, 0b0011, 20 * kP);
  r.slice.tick(20 * kP);
  EXPECT_EQ(r.take_reply(21 * kP), a);
  EXPECT_EQ(r.take_reply(21 * kP), b);
  EXPECT_EQ(r.slice.cache().counters().read_hit_reserved, 1u);
}

// Write-back, write-allocate: stores to three lines of set 0 (0, 512,
// 1024) are acknowledged after the hit latency without DRAM traffic until
// the third evicts the least recently used dirty line 0 with its written
// sector.
TEST(L2Slice, WriteBackEvictsDirtyLine) {
  SliceRig r;
  const uint64_t lines[] = {0, 512, 1024};
  const uint32_t sectors[] = {0b0100, 0b0001, 0b1000};
  for (int i = 0; i < 3; ++i) {
    const uint32_t id = r.request(MemKind::Store, lines[i], sectors[i]);
    r.slice.accept(id, uint64_t(10 * i) * kP);
    r.slice.tick(uint64_t(10 * i + 5) * kP);
    EXPECT_EQ(r.take_reply(uint64_t(10 * i + 8) * kP), id) << "store " << i;
    if (i < 2) {
      EXPECT_FALSE(r.slice.dram_op_ready(UINT64_MAX - 1)) << "store " << i;
    }
  }
  const DramOp wb = r.take_dram_op(25 * kP);
  EXPECT_TRUE(wb.write);
  EXPECT_EQ(wb.line, 0u);
  EXPECT_EQ(wb.sectors, 0b0100u);
  EXPECT_EQ(r.slice.cache().counters().writebacks, 1u);
}

// An atomic that misses fetches its line, then at the fill writes it (dirty)
// and answers after the fill cycle plus atomic_latency (2); evicting that
// line later writes it back.
TEST(L2Slice, AtomicExecutesAtTheSliceAndDirtiesTheLine) {
  SliceRig r;
  const uint32_t a = r.request(MemKind::Atomic, 0, 0b0001);
  r.slice.accept(a, 0);
  r.slice.tick(5 * kP);
  EXPECT_FALSE(r.take_dram_op(5 * kP).write);
  r.slice.fill_arrives(0, 0b0001, 10 * kP);
  r.slice.tick(10 * kP);
  EXPECT_FALSE(r.slice.reply_ready(12 * kP));
  EXPECT_EQ(r.take_reply(13 * kP), a);  // 10 + 1 + 2
  EXPECT_EQ(r.slice.stats().atomics, 1u);
  // Two loads of other lines of set 0: line 512 takes the free way, line
  // 1024 evicts line 0 (line 512 is in flight, so not a candidate), which
  // the atomic made dirty: its sector is written back.
  for (uint64_t line : {512u, 1024u}) {
    const uint32_t id = r.request(MemKind::Load, line, 0b0001);
    r.slice.accept(id, 20 * kP);
  }
  r.slice.tick(25 * kP);
  r.slice.tick(26 * kP);
  std::vector<DramOp> ops;
  while (r.slice.dram_op_ready(26 * kP)) ops.push_back(r.take_dram_op(26 * kP));
  ASSERT_EQ(ops.size(), 3u);
  EXPECT_EQ(ops[0].line, 512u);
  EXPECT_FALSE(ops[0].write);
  EXPECT_EQ(ops[1].line, 0u);
  EXPECT_TRUE(ops[1].write) << "the dirty victim goes first";
  EXPECT_EQ(ops[1].sectors, 0b0001u);
  EXPECT_EQ(ops[2].line, 1024u);
  EXPECT_FALSE(ops[2].write);
}

// An access needs room for two DRAM operations (a miss and a victim): with
// l2_to_dram_queue = 2 and one miss waiting, the next access waits (counted
// as a DRAM-full stall) until the partition takes the operation.
TEST(L2Slice, FullDramQueueStallsTheSlice) {
  PartitionConfig p = slice_config();
  p.l2_to_dram_queue = 2;
  SliceRig r(p);
  const uint32_t a = r.request(MemKind::Load, 0, 0b0001);
  const uint32_t b = r.request(MemKind::Load, 128, 0b0001);
  r.slice.accept(a, 0);
  r.slice.accept(b, 0);
  r.slice.tick(5 * kP);  // a misses: one operation queued
  r.slice.tick(6 * kP);  // b waits
  r.slice.tick(7 * kP);  // still
  EXPECT_EQ(r.slice.stats().dram_full_stall_cycles, 2u);
  EXPECT_EQ(r.slice.stats().requests, 1u);
  EXPECT_EQ(r.slice.next_work(8 * kP), 8 * kP) << "a stalled slice retries every cycle";
  EXPECT_EQ(r.take_dram_op(7 * kP).line, 0u);
  r.slice.tick(8 * kP);  // b misses now
  EXPECT_EQ(r.slice.stats().requests, 2u);
  EXPECT_EQ(r.take_dram_op(8 * kP).line, 128u);
}

// ---- cluster port ---------------------------------------------------------------

// Node 0 a cluster's port, node 1 a slice.
constexpr interconnect::NodeRole kTwoNodes[] = {interconnect::NodeRole::Core,
                                                interconnect::NodeRole::Memory};

interconnect::NetworkConfig ideal(uint32_t latency) {
  interconnect::NetworkConfig n;
  n.topology = "ideal";
  n.topologies.get<interconnect::IdealConfig>("ideal").latency = latency;
  n.flit_bytes = 32;
  return n;
}

// Two SMs of one cluster each send four requests at once: the bus takes one
// per network cycle, alternating between the SMs, and the port injects one
// packet per cycle.
TEST(ClusterPort, BusArbitratesRoundRobinAndInjectsOnePerCycle) {
  RequestPool pool;
  ClusterPortConfig cfg;
  cfg.sm_queue = 4;
  ClusterPort port(0, 10, 2, cfg, pool);  // SMs 10 and 11, network node 0
  auto net = interconnect::make_network(ideal(1), kTwoNodes);
  for (int k = 0; k < 4; ++k)
    for (uint32_t sm : {10u, 11u}) {
      ASSERT_TRUE(port.can_accept(sm));
      const uint32_t id = pool.acquire();
      pool[id].request.sm = sm;
      pool[id].slice_node = 1;
      pool[id].request_bytes = 8;
      port.send(sm, id, 0);
    }
  EXPECT_FALSE(port.can_accept(10)) << "sm_queue = 4 is full";
  std::vector<uint32_t> order;
  std::vector<uint64_t> arrival;
  for (uint64_t c = 0; c < 20; ++c) {
    interconnect::Packet p;
    while (net->eject(interconnect::Subnet::Request, 1, p)) {
      order.push_back(pool[uint32_t(p.payload)].request.sm);
      arrival.push_back(c);
    }
    port.tick(c * kP, *net);
    net->tick();
  }
  ASSERT_EQ(order.size(), 8u);
  EXPECT_EQ(order, (std::vector<uint32_t>{10, 11, 10, 11, 10, 11, 10, 11}));
  // Bus at cycle 0, injection at 1, ejectable at 2; then one per cycle.
  for (size_t i = 0; i < arrival.size(); ++i) EXPECT_EQ(arrival[i], 2 + i) << i;
  EXPECT_EQ(port.stats().requests, 8u);
}

// Replies come back through the shared response FIFO: the head goes only to
// its own SM, one delivery per core cycle.
TEST(ClusterPort, RepliesReachTheirSmOnePerCoreCycle) {
  RequestPool pool;
  ClusterPort port(0, 0, 2, ClusterPortConfig{}, pool);
  auto net = interconnect::make_network(ideal(1), kTwoNodes);
  std::vector<uint32_t> ids;
  for (uint32_t sm : {1u, 0u}) {
    const uint32_t id = pool.acquire();
    pool[id].request.sm = sm;
    ids.push_back(id);
    interconnect::Packet p;
    p.src = 1;
    p.dst = 0;
    p.bytes = 40;
    p.payload = id;
    net->inject(interconnect::Subnet::Reply, 1, p);
  }
  net->tick();                     // cycle 1: both ejectable
  port.tick(1 * kP, *net);         // one into the FIFO
  net->tick();
  port.tick(2 * kP, *net);         // the second
  uint32_t got;
  EXPECT_FALSE(port.receive(0, 3, 3 * kP, got)) << "the head is SM 1's";
  ASSERT_TRUE(port.receive(1, 3, 3 * kP, got));
  EXPECT_EQ(got, ids[0]);
  EXPECT_FALSE(port.receive(0, 3, 3 * kP, got)) << "one delivery per core cycle";
  ASSERT_TRUE(port.receive(0, 4, 4 * kP, got));
  EXPECT_EQ(got, ids[1]);
  EXPECT_TRUE(port.idle());
}

}  // namespace
}  // namespace warpsim::timing
