// The interconnect layer's topologies, one by one: the `ideal` network
// (exact latency, unlimited bandwidth), flit counting and per-node
// statistics, the `crossbar` (uncontended latency formula, fairness of both
// allocators, parallel transfers, back-pressure without loss, output
// speedup, iSLIP iterations, activity counts, independent subnets),
// skipping idle cycles, and the [interconnect] configuration tables.
// Expectations are hand-computed; the arithmetic is in the comments. What
// every topology and every allocator must do is in the contract tests
// (topology_contract_test.cpp, allocator_contract_test.cpp).
#include "interconnect/network.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <random>
#include <tuple>
#include <vector>

#include "common/config.h"
#include "common/diagnostics.h"
#include "interconnect/crossbar.h"
#include "interconnect/ideal_network.h"
#include "interconnect/network_registry.h"

namespace warpsim::interconnect {
namespace {

constexpr Subnet kReq = Subnet::Request;
constexpr Subnet kRep = Subnet::Reply;

// n nodes: the first half cores, the rest memory ports (the topologies
// tested here treat every node alike).
std::vector<NodeRole> roles(uint32_t n) {
  std::vector<NodeRole> r(n / 2, NodeRole::Core);
  r.resize(n, NodeRole::Memory);
  return r;
}

CrossbarConfig& xbar(NetworkConfig& c) { return c.topologies.get<CrossbarConfig>("crossbar"); }

NetworkConfig ideal_config(uint32_t latency) {
  NetworkConfig c;
  c.topology = "ideal";
  c.topologies.get<IdealConfig>("ideal").latency = latency;
  return c;
}

// 32-byte flits; buffers of 16 flits unless a test says otherwise.
NetworkConfig crossbar_config(uint32_t latency, const char* allocator = "islip") {
  NetworkConfig c;
  c.topology = "crossbar";
  xbar(c).latency = latency;
  xbar(c).allocator = allocator;
  return c;
}

Packet packet(uint32_t src, uint32_t dst, uint32_t bytes, uint64_t payload, uint64_t created) {
  Packet p;
  p.src = src;
  p.dst = dst;
  p.bytes = bytes;
  p.payload = payload;
  p.created = created;
  return p;
}

// Injects src -> dst now (created now); the network must accept it.
void send(Network& net, Subnet s, uint32_t src, uint32_t dst, uint32_t bytes, uint64_t payload) {
  ASSERT_TRUE(net.can_inject(s, src, bytes));
  net.inject(s, src, packet(src, dst, bytes, payload, net.cycle()));
}

void tick_until(Network& net, uint64_t cycle) {
  while (net.cycle() < cycle) net.tick();
}

// Ticks until `node` has a delivery on `s`; returns that cycle (or
// UINT64_MAX after `limit` cycles).
uint64_t arrival(Network& net, Subnet s, uint32_t node, uint64_t limit = 1000) {
  for (uint64_t i = 0; i < limit; ++i, net.tick())
    if (net.has_delivery(s, node)) return net.cycle();
  return UINT64_MAX;
}

std::vector<Packet> drain(Network& net, Subnet s, uint32_t node) {
  std::vector<Packet> out;
  Packet p;
  while (net.eject(s, node, p)) out.push_back(p);
  return out;
}

// ---------------------------------------------------------------- ideal

TEST(IdealNetwork, ArrivesExactlyLatencyCyclesAfterInjection) {
  auto net = make_network(ideal_config(5), roles(4));
  net->skip_to(3);
  send(*net, kReq, 0, 2, 8, 42);
  EXPECT_FALSE(net->idle());
  EXPECT_EQ(net->next_event(), 8u);  // 3 + 5
  for (uint64_t c = 3; c < 8; ++c) {
    EXPECT_FALSE(net->has_delivery(kReq, 2)) << "cycle " << c;
    net->tick();
  }
  EXPECT_EQ(net->cycle(), 8u);
  EXPECT_EQ(net->next_event(), 8u);  // becomes ejectable now
  EXPECT_FALSE(net->has_delivery(kRep, 2));
  EXPECT_FALSE(net->has_delivery(kReq, 1));
  Packet p;
  ASSERT_TRUE(net->eject(kReq, 2, p));
  EXPECT_EQ(p.payload, 42u);
  EXPECT_EQ(p.injected, 3u);
  EXPECT_TRUE(net->idle());
  net->tick();
  EXPECT_EQ(net->next_event(), UINT64_MAX);
  EXPECT_EQ(net->stats(kReq, 2).network_latency, 5u);
}

TEST(IdealNetwork, UnlimitedBandwidthHundredPacketsInOneCycleArriveTogetherInOrder) {
  auto net = make_network(ideal_config(3), roles(8));
  for (uint32_t i = 0; i < 100; ++i) send(*net, kReq, i % 8, 1, 136, i);
  tick_until(*net, 2);
  EXPECT_FALSE(net->has_delivery(kReq, 1));
  net->tick();  // cycle 3 = 0 + 3: all 100 at once
  std::vector<Packet> got = drain(*net, kReq, 1);
  ASSERT_EQ(got.size(), 100u);
  for (uint32_t i = 0; i < 100; ++i) {
    EXPECT_EQ(got[i].payload, i);
    EXPECT_EQ(got[i].src, i % 8);
  }
  EXPECT_TRUE(net->idle());
}

TEST(IdealNetwork, InjectionsInLaterCyclesArriveLater) {
  auto net = make_network(ideal_config(2), roles(2));
  send(*net, kReq, 0, 1, 8, 1);  // cycle 0 -> 2
  net->tick();
  send(*net, kReq, 0, 1, 8, 2);  // cycle 1 -> 3
  EXPECT_EQ(net->next_event(), 2u);
  net->tick();
  EXPECT_EQ(drain(*net, kReq, 1).size(), 1u);
  EXPECT_EQ(net->next_event(), 2u);  // an arrival at cycle() still counts
  net->tick();
  EXPECT_EQ(net->next_event(), 3u);
  std::vector<Packet> got = drain(*net, kReq, 1);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].payload, 2u);
}

// ---------------------------------------------------------------- flits and stats

TEST(NetworkStats, FlitCountRoundsUpToWholeFlits) {
  auto net = make_network(ideal_config(1), roles(2));  // 32-byte flits
  EXPECT_EQ(net->flits(8), 1u);                 // control packet: the 8-byte header
  EXPECT_EQ(net->flits(32), 1u);
  EXPECT_EQ(net->flits(33), 2u);
  EXPECT_EQ(net->flits(136), 5u);  // 8 + 128: ceil(136 / 32) = 5
  NetworkConfig c = ideal_config(1);
  c.flit_bytes = 16;
  EXPECT_EQ(make_network(c, roles(2))->flits(136), 9u);  // ceil(136 / 16) = 9
}

TEST(NetworkStats, CountsAtSourceAndLatenciesAtDestination) {
  auto net = make_network(ideal_config(4), roles(3));
  net->skip_to(10);
  // Node 0 first wanted to send at 7 (3 cycles of queueing), node 2 at 10.
  net->inject(kReq, 0, packet(0, 1, 8, 100, 7));
  net->inject(kReq, 2, packet(2, 1, 136, 200, 10));
  net->count_blocked(kReq, 0);
  net->count_blocked(kReq, 0);
  tick_until(*net, 14);
  Packet p;
  ASSERT_TRUE(net->eject(kReq, 1, p));  // cycle 14
  EXPECT_EQ(p.flits, 1u);
  EXPECT_EQ(p.injected, 10u);
  tick_until(*net, 16);
  ASSERT_TRUE(net->eject(kReq, 1, p));  // cycle 16
  EXPECT_EQ(p.flits, 5u);

  const NodeStats& s0 = net->stats(kReq, 0);
  EXPECT_EQ(s0.packets_injected, 1u);
  EXPECT_EQ(s0.flits_injected, 1u);
  EXPECT_EQ(s0.packets_ejected, 0u);
  EXPECT_EQ(s0.blocked_cycles, 2u);
  const NodeStats& s2 = net->stats(kReq, 2);
  EXPECT_EQ(s2.packets_injected, 1u);
  EXPECT_EQ(s2.flits_injected, 5u);
  const NodeStats& s1 = net->stats(kReq, 1);
  EXPECT_EQ(s1.packets_injected, 0u);
  EXPECT_EQ(s1.packets_ejected, 2u);
  EXPECT_EQ(s1.flits_ejected, 6u);     // 1 + 5
  EXPECT_EQ(s1.queue_latency, 3u);     // (10 - 7) + (10 - 10)
  EXPECT_EQ(s1.network_latency, 8u);   // both arrived at 14: (14 - 10) + (14 - 10)
  EXPECT_EQ(s1.ejection_latency, 2u);  // the second waited from 14 to 16 for the receiver
  EXPECT_EQ(s1.hops, 0u);              // the ideal network has no routers
  EXPECT_EQ(s1.max_latency, 7u);       // max(14 - 7, 16 - 10)
  EXPECT_EQ(net->stats(kRep, 1).packets_ejected, 0u);
  EXPECT_EQ(net->stats(kRep, 0).packets_injected, 0u);
}

TEST(NetworkStats, CrossbarKeepsTheSameFigures) {
  auto net = make_network(crossbar_config(0), roles(2));
  net->inject(kRep, 1, packet(1, 0, 136, 1, 0));
  // 5 flits move in cycles 0..4, ejectable at 0 + 5 + 0 = 5.
  EXPECT_EQ(arrival(*net, kRep, 0), 5u);
  Packet p;
  ASSERT_TRUE(net->eject(kRep, 0, p));
  EXPECT_EQ(net->stats(kRep, 1).flits_injected, 5u);
  EXPECT_EQ(net->stats(kRep, 0).flits_ejected, 5u);
  EXPECT_EQ(net->stats(kRep, 0).network_latency, 5u);
  EXPECT_EQ(net->stats(kReq, 0).flits_ejected, 0u);
}

// ---------------------------------------------------------------- crossbar latency

TEST(Crossbar, UncontendedPacketFollowsTheDocumentedFormula) {
  // Injected at t = 7, F = 5 flits, speedup 1, latency 4: flits move in
  // cycles 7..11, ejectable at t + ceil(5 / 1) + 4 = 16.
  auto net = make_network(crossbar_config(4), roles(4));
  net->skip_to(7);
  send(*net, kReq, 0, 3, 136, 9);
  EXPECT_EQ(net->next_event(), 7u);  // the input has a packet
  tick_until(*net, 12);
  EXPECT_EQ(net->next_event(), 16u);  // tail moved in 11: 11 + 1 + 4
  EXPECT_FALSE(net->has_delivery(kReq, 3));
  net->skip_to(15);
  EXPECT_FALSE(net->has_delivery(kReq, 3));
  net->tick();
  EXPECT_TRUE(net->has_delivery(kReq, 3));
  Packet p;
  ASSERT_TRUE(net->eject(kReq, 3, p));
  EXPECT_EQ(p.payload, 9u);
  EXPECT_EQ(net->stats(kReq, 3).network_latency, 9u);  // 16 - 7
  EXPECT_TRUE(net->idle());
}

TEST(Crossbar, ZeroLatencySingleFlitIsEjectableTheNextCycle) {
  auto net = make_network(crossbar_config(0), roles(2));
  net->skip_to(3);
  send(*net, kReq, 1, 0, 8, 1);
  EXPECT_EQ(arrival(*net, kReq, 0), 4u);  // 3 + ceil(1 / 1) + 0
}

TEST(Crossbar, SpeedupShortensTheFormula) {
  NetworkConfig c = crossbar_config(2);
  xbar(c).output_speedup = 2;
  auto net = make_network(c, roles(2));
  send(*net, kReq, 0, 1, 136, 1);
  EXPECT_EQ(arrival(*net, kReq, 1), 5u);  // 0 + ceil(5 / 2) + 2
}

TEST(Crossbar, InputsToDifferentOutputsProceedInParallel) {
  auto net = make_network(crossbar_config(4), roles(4));
  send(*net, kReq, 0, 2, 136, 1);
  send(*net, kReq, 1, 3, 136, 2);
  tick_until(*net, 8);  // both ejectable at 0 + 5 + 4 = 9
  EXPECT_FALSE(net->has_delivery(kReq, 2));
  EXPECT_FALSE(net->has_delivery(kReq, 3));
  net->tick();
  EXPECT_TRUE(net->has_delivery(kReq, 2));
  EXPECT_TRUE(net->has_delivery(kReq, 3));
  EXPECT_EQ(net->activity(kReq).switch_allocations, 2u);
}

TEST(Crossbar, TwoInputsToOneOutputAreSerialised) {
  auto net = make_network(crossbar_config(4), roles(4));
  send(*net, kReq, 0, 2, 136, 1);
  send(*net, kReq, 1, 2, 136, 2);
  // Input 0 first (grant pointer 0): tail in 4, ejectable at 9; input 1 is
  // granted in 5, tail in 9, ejectable at 9 + 1 + 4 = 14.
  EXPECT_EQ(arrival(*net, kReq, 2), 9u);
  Packet p;
  ASSERT_TRUE(net->eject(kReq, 2, p));
  EXPECT_EQ(p.src, 0u);
  EXPECT_EQ(arrival(*net, kReq, 2), 14u);
  ASSERT_TRUE(net->eject(kReq, 2, p));
  EXPECT_EQ(p.src, 1u);
}

TEST(Crossbar, VirtualOutputQueuesAvoidHeadOfLineBlocking) {
  // Input 1 sends 5 flits to output 2 in cycles 0..4. In cycle 1 input 0
  // queues a packet for the busy output 2, then one for the free output 3.
  // The second is not stuck behind the first: granted in 1, tail in 1,
  // ejectable at 1 + 1 + 0 = 2 (a FIFO input would hold it until 6).
  auto net = make_network(crossbar_config(0), roles(4));
  send(*net, kReq, 1, 2, 136, 1);
  net->tick();
  send(*net, kReq, 0, 2, 8, 2);
  send(*net, kReq, 0, 3, 8, 3);
  EXPECT_EQ(arrival(*net, kReq, 3), 2u);
}

// ---------------------------------------------------------------- fairness

void expect_fair_share(const char* allocator) {
  SCOPED_TRACE(allocator);
  // Inputs 0 and 1 always hold 2-flit packets for output 2, which ejects
  // everything each cycle. The output moves one flit per cycle, so packet k
  // has its flits in cycles 2k and 2k+1 and is ejectable at 2k + 1 + 1 + 4.
  // Ejections happen in cycles 0..999: 2k + 6 <= 999 -> k = 0..496, 497
  // packets, alternating from input 0: 249 from input 0, 248 from input 1.
  auto net = make_network(crossbar_config(4, allocator), roles(3));
  std::vector<uint32_t> order;
  uint64_t seq = 0;
  for (uint64_t c = 0; c < 1000; ++c) {
    for (const Packet& p : drain(*net, kReq, 2)) order.push_back(p.src);
    for (uint32_t src : {0u, 1u})
      while (net->can_inject(kReq, src, 64)) net->inject(kReq, src, packet(src, 2, 64, seq++, c));
    net->tick();
  }
  ASSERT_EQ(order.size(), 497u);
  EXPECT_EQ(std::count(order.begin(), order.end(), 0u), 249);
  EXPECT_EQ(std::count(order.begin(), order.end(), 1u), 248);
  for (size_t k = 0; k < order.size(); ++k) EXPECT_EQ(order[k], k % 2) << "packet " << k;
  EXPECT_EQ(net->stats(kReq, 0).packets_ejected + net->stats(kReq, 1).packets_ejected, 0u);
  EXPECT_EQ(net->stats(kReq, 2).flits_ejected, 994u);  // 497 * 2
}

TEST(Crossbar, TwoLoadedInputsShareAnOutputEquallyIslip) { expect_fair_share("islip"); }
TEST(Crossbar, TwoLoadedInputsShareAnOutputEquallyRoundRobin) { expect_fair_share("round-robin"); }

// ---------------------------------------------------------------- back-pressure

TEST(Crossbar, BackPressureFillsOutputThenInputThenRefusesAndLosesNothing) {
  NetworkConfig c = crossbar_config(2);
  xbar(c).input_buffer_flits = 4;
  xbar(c).output_buffer_flits = 4;
  auto net = make_network(c, roles(2));
  // 1-flit packets, node 1 does not eject. Cycle 0: 4 injected (input
  // full); ticks 0..3 move one flit each into the output (4: full); cycles
  // 1..4 refill one each. Total 4 + 4 = 8, then can_inject stays false.
  uint64_t seq = 0;
  std::vector<uint64_t> injected_by_cycle;
  for (uint64_t cy = 0; cy < 20; ++cy) {
    while (net->can_inject(kReq, 0, 8)) net->inject(kReq, 0, packet(0, 1, 8, seq++, cy));
    net->count_blocked(kReq, 0);
    injected_by_cycle.push_back(seq);
    net->tick();
  }
  EXPECT_EQ(injected_by_cycle[0], 4u);
  EXPECT_EQ(injected_by_cycle[3], 7u);
  EXPECT_EQ(injected_by_cycle[4], 8u);
  EXPECT_EQ(injected_by_cycle[19], 8u);
  EXPECT_FALSE(net->can_inject(kReq, 0, 8));
  EXPECT_EQ(net->activity(kReq).switch_traversals, 4u);  // the output buffer's 4 flits
  EXPECT_EQ(net->stats(kReq, 0).blocked_cycles, 20u);
  EXPECT_EQ(net->next_event(), net->cycle());  // the input still holds packets
  EXPECT_TRUE(net->has_delivery(kReq, 1));

  // Ejection resumes: 50 packets in all, each arrives once, in order.
  std::vector<uint64_t> got;
  for (uint64_t cy = 20; cy < 200 && got.size() < 50; ++cy) {
    for (const Packet& p : drain(*net, kReq, 1)) got.push_back(p.payload);
    while (seq < 50 && net->can_inject(kReq, 0, 8))
      net->inject(kReq, 0, packet(0, 1, 8, seq++, cy));
    net->tick();
  }
  ASSERT_EQ(got.size(), 50u);
  for (uint64_t i = 0; i < 50; ++i) EXPECT_EQ(got[i], i);
  EXPECT_TRUE(net->idle());
}

void expect_no_loss_with_stalled_destination(const char* allocator) {
  SCOPED_TRACE(allocator);
  // Sources 0 and 1 send 1- to 3-flit packets alternately to nodes 2 and 3;
  // node 3 ejects nothing for 60 cycles, node 2 always ejects. Afterwards
  // every packet arrives exactly once, in order per (source, destination).
  NetworkConfig c = crossbar_config(1, allocator);
  xbar(c).input_buffer_flits = 6;
  xbar(c).output_buffer_flits = 5;
  auto net = make_network(c, roles(4));
  constexpr uint64_t kPerSource = 60;
  uint64_t sent[2] = {0, 0};
  std::map<std::pair<uint32_t, uint32_t>, std::vector<uint64_t>> got;
  uint64_t received = 0;
  for (uint64_t cy = 0; cy < 2000 && received < 2 * kPerSource; ++cy) {
    for (uint32_t dst : {2u, 3u}) {
      if (dst == 3 && cy < 60) continue;
      for (const Packet& p : drain(*net, kReq, dst)) {
        got[{p.src, p.dst}].push_back(p.payload);
        ++received;
      }
    }
    for (uint32_t src : {0u, 1u}) {
      const uint64_t n = sent[src];
      if (n == kPerSource) continue;
      const uint32_t bytes = 32 * uint32_t(1 + n % 3);
      if (!net->can_inject(kReq, src, bytes)) continue;
      net->inject(kReq, src, packet(src, 2 + uint32_t(n % 2), bytes, n, cy));
      ++sent[src];
    }
    net->tick();
  }
  ASSERT_EQ(received, 2 * kPerSource);
  for (uint32_t src : {0u, 1u})
    for (uint32_t dst : {2u, 3u}) {
      const std::vector<uint64_t>& v = got[{src, dst}];
      ASSERT_EQ(v.size(), kPerSource / 2);
      for (size_t k = 0; k < v.size(); ++k) EXPECT_EQ(v[k], 2 * k + (dst - 2));
    }
  EXPECT_TRUE(net->idle());
}

TEST(Crossbar, StalledDestinationLosesNothingAndKeepsPairOrderIslip) {
  expect_no_loss_with_stalled_destination("islip");
}
TEST(Crossbar, StalledDestinationLosesNothingAndKeepsPairOrderRoundRobin) {
  expect_no_loss_with_stalled_destination("round-robin");
}

TEST(Crossbar, OversizedPacketDoesNotDeadlockSmallBuffers) {
  // A 5-flit packet with 2-flit buffers: admitted into the empty input
  // buffer, fills the empty output past its capacity, arrives.
  NetworkConfig c = crossbar_config(0);
  xbar(c).input_buffer_flits = 2;
  xbar(c).output_buffer_flits = 2;
  auto net = make_network(c, roles(2));
  send(*net, kReq, 0, 1, 136, 1);
  EXPECT_FALSE(net->can_inject(kReq, 0, 8));
  EXPECT_EQ(arrival(*net, kReq, 1), 5u);  // 0 + 5 + 0
}

// ---------------------------------------------------------------- speedup

uint64_t streamed_flits(uint32_t speedup) {
  NetworkConfig c = crossbar_config(0);
  xbar(c).output_speedup = speedup;
  auto net = make_network(c, roles(2));
  uint64_t flits = 0;
  for (uint64_t cy = 0; cy < 1000; ++cy) {
    for (const Packet& p : drain(*net, kReq, 1)) flits += p.flits;
    while (net->can_inject(kReq, 0, 128)) net->inject(kReq, 0, packet(0, 1, 128, 0, cy));
    net->tick();
  }
  return flits;
}

TEST(Crossbar, OutputSpeedupTwoDoublesThroughput) {
  // 4-flit packets, latency 0, ejections in cycles 0..999.
  // Speedup 1: tail of packet k in 4k + 3, ejectable 4k + 4 <= 999 ->
  //   249 packets = 996 flits.
  // Speedup 2: tail in 2k + 1, ejectable 2k + 2 <= 999 -> 499 packets = 1996.
  EXPECT_EQ(streamed_flits(1), 996u);
  EXPECT_EQ(streamed_flits(2), 1996u);
}

// ---------------------------------------------------------------- allocators

struct Matching {
  uint64_t first_cycle_grants;
  uint64_t ready[4];  // when payloads 1..4 become ejectable
};

// Cycle 0: input 0 queues packets for outputs 0 then 1, input 1 one for
// output 1; cycle 1: input 2 one for output 1. All 1-flit, latency 0.
Matching crafted_pattern(const char* allocator, uint32_t iterations) {
  NetworkConfig c = crossbar_config(0, allocator);
  xbar(c).islip_iterations = iterations;
  Crossbar net(c, roles(3));
  send(net, kReq, 0, 0, 8, 1);
  send(net, kReq, 0, 1, 8, 2);
  send(net, kReq, 1, 1, 8, 3);
  Matching m{};
  net.tick();
  m.first_cycle_grants = net.activity(kReq).switch_allocations;
  send(net, kReq, 2, 1, 8, 4);
  for (int n = 0; n < 4 && net.cycle() < 20; net.tick()) {
    for (uint32_t node : {0u, 1u})
      for (const Packet& p : drain(net, kReq, node)) {
        m.ready[p.payload - 1] = net.cycle();
        ++n;
      }
  }
  return m;
}

TEST(Crossbar, IslipMoreIterationsMatchMorePairs) {
  // One iteration. Cycle 0: outputs 0 and 1 both grant input 0 (pointers
  // at 0); input 0 accepts output 0: 1 pair; accept(0) = 1, grant(0) = 1,
  // grant(1) stays 0. Cycle 1: output 1 has requests from inputs 0, 1, 2
  // and grants input 0 (distance 0), accepted: grant(1) = 1. Cycle 2:
  // input 1, grant(1) = 2; cycle 3: input 2. Ejectable one cycle later.
  Matching one = crafted_pattern("islip", 1);
  EXPECT_EQ(one.first_cycle_grants, 1u);
  EXPECT_EQ(one.ready[0], 1u);
  EXPECT_EQ(one.ready[1], 2u);
  EXPECT_EQ(one.ready[2], 3u);
  EXPECT_EQ(one.ready[3], 4u);
  // Two iterations: the second round of cycle 0 matches input 1 -> output 1
  // without moving output 1's grant pointer (first-round accepts only), so
  // in cycle 1 output 1 grants input 0 (distance 0) before input 2.
  Matching two = crafted_pattern("islip", 2);
  EXPECT_EQ(two.first_cycle_grants, 2u);
  EXPECT_GE(two.first_cycle_grants, one.first_cycle_grants);
  EXPECT_EQ(two.ready[0], 1u);
  EXPECT_EQ(two.ready[1], 2u);
  EXPECT_EQ(two.ready[2], 1u);
  EXPECT_EQ(two.ready[3], 3u);
}

TEST(Crossbar, RoundRobinGrantsAnInputOnceAndWalksOn) {
  // Cycle 0, outputs walked from 0 % 3 = 0: output 0 grants input 0;
  // output 1 skips the matched input 0 and grants input 1, pointer -> 2.
  // Cycle 1: output 1's requesters are inputs 0 and 2; from pointer 2,
  // input 2 comes first. Cycle 2: input 0.
  Matching rr = crafted_pattern("round-robin", 1);
  EXPECT_EQ(rr.first_cycle_grants, 2u);
  EXPECT_EQ(rr.ready[0], 1u);
  EXPECT_EQ(rr.ready[1], 3u);
  EXPECT_EQ(rr.ready[2], 1u);
  EXPECT_EQ(rr.ready[3], 2u);
}

TEST(Crossbar, AFullOutputIsNotAllocated) {
  // Output 1 holds one flit (capacity 1) that is never ejected. Input 0
  // then queues packets for output 1 and for output 2 (cycle 1): only
  // output 2 is requested, so input 0 is not tied to the full output; the
  // packet to 2 is granted in 1, ejectable at 1 + 1 + 0 = 2.
  NetworkConfig c = crossbar_config(0);
  xbar(c).output_buffer_flits = 1;
  Crossbar net(c, roles(4));
  send(net, kReq, 3, 1, 8, 1);
  net.tick();
  send(net, kReq, 0, 1, 8, 2);
  send(net, kReq, 0, 2, 8, 3);
  EXPECT_EQ(arrival(net, kReq, 2), 2u);
  EXPECT_EQ(net.activity(kReq).stalled_cycles, 0u);
  EXPECT_EQ(net.activity(kReq).switch_allocations, 2u);
}

// ---------------------------------------------------------------- activity

TEST(Crossbar, ActivityCountsBufferSwitchAndStallEvents) {
  // Output buffer of 2 flits. A (1 flit) moves in cycle 0 and is not ejected
  // until cycle 4. B (2 flits, cycle 1) is granted in 1 and moves its first
  // flit, filling the output; cycles 2 and 3 stall; after A's ejection in 4
  // the tail moves in 4 (ejectable at 5).
  NetworkConfig c = crossbar_config(0);
  xbar(c).output_buffer_flits = 2;
  auto net = make_network(c, roles(2));
  send(*net, kReq, 0, 1, 8, 1);
  net->tick();
  send(*net, kReq, 0, 1, 64, 2);
  tick_until(*net, 4);
  EXPECT_EQ(net->activity(kReq).stalled_cycles, 2u);
  Packet p;
  ASSERT_TRUE(net->eject(kReq, 1, p));
  EXPECT_EQ(p.payload, 1u);
  net->tick();
  ASSERT_TRUE(net->eject(kReq, 1, p));
  EXPECT_EQ(p.payload, 2u);
  const NetworkActivity& a = net->activity(kReq);
  EXPECT_EQ(a.switch_allocations, 2u);
  EXPECT_EQ(a.switch_traversals, 3u);
  EXPECT_EQ(a.buffer_writes, 6u);  // 3 flits into the input buffer, the same 3 into the output buffer
  EXPECT_EQ(a.buffer_reads, 6u);   // and out of each
  EXPECT_EQ(a.stalled_cycles, 2u);
  EXPECT_EQ(a.link_traversals, 0u);  // one switch: no links between routers
  EXPECT_EQ(net->activity(kRep).buffer_writes, 0u);
}

TEST(IdealNetwork, CountsNoActivity) {
  auto net = make_network(ideal_config(2), roles(2));
  send(*net, kReq, 0, 1, 136, 1);
  tick_until(*net, 2);
  EXPECT_EQ(drain(*net, kReq, 1).size(), 1u);
  const NetworkActivity& a = net->activity(kReq);
  for (uint64_t n : {a.buffer_writes, a.buffer_reads, a.switch_allocations, a.switch_traversals,
                     a.link_traversals, a.stalled_cycles})
    EXPECT_EQ(n, 0u);
  EXPECT_EQ(net->stats(kReq, 1).flits_ejected, 5u);
}

// ---------------------------------------------------------------- subnets

TEST(Crossbar, FullRequestSubnetDoesNotBlockReplies) {
  NetworkConfig c = crossbar_config(3);
  xbar(c).input_buffer_flits = 4;
  xbar(c).output_buffer_flits = 4;
  auto net = make_network(c, roles(2));
  uint64_t seq = 0;
  for (uint64_t cy = 0; cy < 12; ++cy) {
    while (net->can_inject(kReq, 0, 8)) net->inject(kReq, 0, packet(0, 1, 8, seq++, cy));
    net->tick();
  }
  ASSERT_EQ(seq, 8u);  // 4 in the output, 4 in the input: full
  ASSERT_FALSE(net->can_inject(kReq, 0, 8));
  // A 5-flit reply on the same pair, injected in 12: 12 + 5 + 3 = 20.
  send(*net, kRep, 0, 1, 136, 99);
  EXPECT_EQ(arrival(*net, kRep, 1), 20u);
  Packet p;
  ASSERT_TRUE(net->eject(kRep, 1, p));
  EXPECT_EQ(p.payload, 99u);
  EXPECT_EQ(drain(*net, kReq, 1).size(), 4u);  // the requests are still there
}

// ---------------------------------------------------------------- skipping

struct Traffic {
  uint64_t cycle;
  Subnet subnet;
  uint32_t src, dst, bytes;
};

std::vector<Traffic> random_traffic(uint32_t nodes) {
  std::mt19937_64 rng(20240611);
  std::vector<Traffic> t;
  uint64_t cycle = 0;
  for (int i = 0; i < 400; ++i) {
    // Bursts with idle gaps, so that there is something to skip.
    cycle += rng() % 16 == 0 ? 40 + rng() % 60 : rng() % 2;
    const uint32_t sizes[] = {8, 40, 136};
    t.push_back({cycle, rng() % 3 == 0 ? kRep : kReq, uint32_t(rng() % nodes),
                 uint32_t(rng() % nodes), sizes[rng() % 3]});
  }
  return t;
}

struct RunLog {
  std::vector<std::tuple<uint64_t, uint64_t, uint32_t>> arrivals;  // payload, cycle, node
  std::vector<uint64_t> blocked;
  uint64_t skipped = 0;
  uint64_t end = 0;
};

// Every node ejects at most one packet per subnet per cycle (so packets
// wait in output buffers too); pending injections retry in order.
RunLog drive(const NetworkConfig& config, bool skip) {
  constexpr uint32_t kNodes = 6;
  auto net = make_network(config, roles(kNodes));
  const std::vector<Traffic> traffic = random_traffic(kNodes);
  std::vector<std::vector<size_t>> pending(kNodes * kSubnets);  // per (node, subnet)
  RunLog log;
  size_t next = 0;
  size_t waiting = 0;
  for (uint64_t guard = 0; guard < 100000; ++guard) {
    const uint64_t now = net->cycle();
    for (uint32_t node = 0; node < kNodes; ++node)
      for (Subnet s : {kReq, kRep}) {
        Packet p;
        if (net->eject(s, node, p)) log.arrivals.emplace_back(p.payload, now, node);
      }
    for (; next < traffic.size() && traffic[next].cycle <= now; ++next, ++waiting)
      pending[traffic[next].src * kSubnets + int(traffic[next].subnet)].push_back(next);
    for (uint32_t q = 0; q < pending.size(); ++q) {
      std::vector<size_t>& queue = pending[q];
      const Subnet s = Subnet(q % kSubnets);
      while (!queue.empty() && net->can_inject(s, q / kSubnets, traffic[queue[0]].bytes)) {
        const Traffic& t = traffic[queue[0]];
        net->inject(s, t.src, packet(t.src, t.dst, t.bytes, queue[0], t.cycle));
        queue.erase(queue.begin());
        --waiting;
      }
      if (!queue.empty()) net->count_blocked(s, q / kSubnets);
    }
    if (next == traffic.size() && waiting == 0 && net->idle()) break;
    net->tick();
    if (!skip || waiting != 0) continue;
    bool deliveries = false;
    for (uint32_t node = 0; node < kNodes; ++node)
      deliveries = deliveries || net->has_delivery(kReq, node) || net->has_delivery(kRep, node);
    if (deliveries) continue;
    uint64_t target = net->next_event();
    if (next < traffic.size()) target = std::min(target, traffic[next].cycle);
    if (target != UINT64_MAX && target > net->cycle()) {
      log.skipped += target - net->cycle();
      net->skip_to(target);
    }
  }
  log.end = net->cycle();
  for (uint32_t node = 0; node < kNodes; ++node)
    for (Subnet s : {kReq, kRep}) log.blocked.push_back(net->stats(s, node).blocked_cycles);
  return log;
}

void expect_skipping_is_invisible(const NetworkConfig& config) {
  SCOPED_TRACE(config.topology == "crossbar"
                   ? "crossbar " + config.topologies.get<CrossbarConfig>("crossbar").allocator
                   : config.topology);
  const RunLog ticked = drive(config, false);
  const RunLog skipped = drive(config, true);
  EXPECT_EQ(ticked.arrivals.size(), 400u);
  EXPECT_EQ(ticked.skipped, 0u);
  EXPECT_GT(skipped.skipped, 100u);  // the gaps were skipped
  EXPECT_EQ(skipped.arrivals, ticked.arrivals);
  EXPECT_EQ(skipped.blocked, ticked.blocked);
  EXPECT_EQ(skipped.end, ticked.end);
}

TEST(NetworkSkip, SkippingToNextEventGivesTheSameArrivals) {
  NetworkConfig small = crossbar_config(2, "islip");
  xbar(small).input_buffer_flits = 6;  // contention and back-pressure
  xbar(small).output_buffer_flits = 5;
  xbar(small).islip_iterations = 2;
  expect_skipping_is_invisible(small);
  xbar(small).allocator = "round-robin";
  expect_skipping_is_invisible(small);
  xbar(small).output_speedup = 2;
  expect_skipping_is_invisible(small);
  expect_skipping_is_invisible(ideal_config(7));
}

TEST(NetworkSkip, CrossbarRandomTrafficBlocksSometimes) {
  // Guards the test above: the small crossbar really applies back-pressure.
  NetworkConfig small = crossbar_config(2);
  xbar(small).input_buffer_flits = 6;
  xbar(small).output_buffer_flits = 5;
  const RunLog log = drive(small, false);
  uint64_t blocked = 0;
  for (uint64_t b : log.blocked) blocked += b;
  EXPECT_GT(blocked, 0u);
}

// ---------------------------------------------------------------- config

struct LoadResult {
  bool ok;
  std::string messages;
  NetworkConfig config;
};

// [interconnect] and every topology's [interconnect.<name>], as
// timing/timing_config.cpp binds them.
LoadResult load(const std::string& toml) {
  LoadResult r{false, "", {}};
  config::Schema schema;
  schema.add("interconnect", network_config_table(), r.config);
  r.config.topologies.bind(schema, "interconnect");
  DiagnosticEngine d;
  config::Loader loader(schema, d, {});
  r.ok = loader.load_text(toml, "net.toml") && loader.validate();
  r.messages = d.format_all();
  return r;
}

void expect_described(const config::TableBase& t, std::initializer_list<const char*> keys) {
  EXPECT_EQ(t.fields().size(), keys.size());
  for (const char* key : keys) {
    const config::Field* f = t.find(key);
    ASSERT_NE(f, nullptr) << key;
    EXPECT_FALSE(f->description.empty()) << key;
  }
}

TEST(NetworkConfigTable, DescribesEveryField) {
  const auto& t = network_config_table();
  expect_described(t, {"topology", "clock_mhz", "flit_bytes", "header_bytes"});
  EXPECT_EQ(t.find("clock_mhz")->kind, config::Kind::Clock);
  expect_described(ideal_config_table(), {"latency"});
  expect_described(crossbar_config_table(),
                   {"latency", "input_buffer_flits", "output_buffer_flits", "allocator",
                    "islip_iterations", "output_speedup"});
  EXPECT_EQ(crossbar_config_table().find("latency")->unit, "cycles");
}

TEST(NetworkConfigTable, EveryTopologyHasItsSection) {
  const NetworkConfig c;
  EXPECT_EQ(c.topologies.size(), topologies().names().size());
  for (std::string_view name : topologies().names()) EXPECT_TRUE(c.topologies.contains(name)) << name;
}

TEST(NetworkConfigTable, AppliesValidValues) {
  LoadResult r = load(
      "[interconnect]\ntopology = \"ideal\"\nflit_bytes = \"16B\"\nclock_mhz = 1200.5\n"
      "[interconnect.ideal]\nlatency = 3\n"
      "[interconnect.crossbar]\nallocator = \"round-robin\"\noutput_speedup = 2\n");
  ASSERT_TRUE(r.ok) << r.messages;
  EXPECT_EQ(r.config.topology, "ideal");
  EXPECT_EQ(r.config.flit_bytes, 16u);
  EXPECT_EQ(r.config.clock_mhz, 1200.5);
  EXPECT_EQ(r.config.topologies.get<IdealConfig>("ideal").latency, 3u);
  const CrossbarConfig& x = r.config.topologies.get<CrossbarConfig>("crossbar");
  EXPECT_EQ(x.allocator, "round-robin");
  EXPECT_EQ(x.output_speedup, 2u);
  EXPECT_EQ(x.input_buffer_flits, 16u);  // default kept
  EXPECT_EQ(x.latency, 4u);              // its own default, not the ideal's 3
}

TEST(NetworkConfigTable, TopologyKeysBelongInTheirSection) {
  LoadResult r = load("[interconnect]\nlatency = 3\n");
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.messages.find("unknown key 'latency' in [interconnect]"), std::string::npos)
      << r.messages;
}

TEST(NetworkConfigTable, CopiesAreDeep) {
  NetworkConfig a;
  NetworkConfig b = a;
  b.topologies.get<CrossbarConfig>("crossbar").latency = 9;
  EXPECT_EQ(a.topologies.get<CrossbarConfig>("crossbar").latency, 4u);
  a = b;
  b.topologies.get<CrossbarConfig>("crossbar").latency = 2;
  EXPECT_EQ(a.topologies.get<CrossbarConfig>("crossbar").latency, 9u);
}

TEST(NetworkConfigTable, RejectsUnknownTopologyListingTheNames) {
  LoadResult r = load("[interconnect]\ntopology = \"hypercube\"\n");
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.messages.find("unknown network topology 'hypercube' (one of: " + topologies().joined() + ")"),
            std::string::npos)
      << r.messages;
}

TEST(NetworkConfigTable, RejectsUnknownAllocatorAndBadRanges) {
  LoadResult r = load("[interconnect.crossbar]\nallocator = \"wavefront\"\n");
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.messages.find("unknown switch allocator 'wavefront' (one of: " + allocators().joined() + ")"),
            std::string::npos)
      << r.messages;
  EXPECT_FALSE(load("[interconnect]\nflit_bytes = 0\n").ok);
  EXPECT_FALSE(load("[interconnect.crossbar]\noutput_speedup = 0\n").ok);
  EXPECT_FALSE(load("[interconnect.crossbar]\ninput_buffer_flits = 0\n").ok);
}

TEST(NetworkConfigTable, IdealNeedsLatencyOfAtLeastOneEvenWhenNotSelected) {
  // Every topology's section is validated, selected or not.
  for (const char* topology : {"ideal", "crossbar"}) {
    LoadResult r = load("[interconnect]\ntopology = \"" + std::string(topology) +
                        "\"\n[interconnect.ideal]\nlatency = 0\n");
    EXPECT_FALSE(r.ok) << topology;
    EXPECT_NE(r.messages.find("interconnect.ideal.latency: 0 cycles is out of range"), std::string::npos)
        << r.messages;
  }
  EXPECT_TRUE(load("[interconnect.crossbar]\nlatency = 0\n").ok);
}

}  // namespace
}  // namespace warpsim::interconnect
