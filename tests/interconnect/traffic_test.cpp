// The synthetic-traffic driver (interconnect/traffic/): the random numbers,
// each pattern's destinations (transpose, bitcomp, hotspot weights, the
// role-based patterns, gpu), packet sizes and the hotspot list; the driver
// and the BookSim-style measurement on the `ideal` network (every packet
// exactly the network's latency; accepted = offered) and on the `crossbar`
// (latency rises with load; one hot spot saturates at 1/N
// flits/node/cycle); the gpu pattern answering every request; determinism;
// and the rate sweep's saturation rule. Expected values are computed in the
// comments. Measurements use 1,000-cycle periods to keep the tests fast.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "interconnect/crossbar.h"
#include "interconnect/ideal_network.h"
#include "interconnect/network_registry.h"
#include "interconnect/traffic/hotspot_spec.h"
#include "interconnect/traffic/packet_sizes.h"
#include "interconnect/traffic/rate_sweep.h"
#include "interconnect/traffic/traffic_driver.h"
#include "interconnect/traffic/traffic_measurement.h"
#include "interconnect/traffic/traffic_pattern.h"
#include "interconnect/traffic/traffic_rng.h"

namespace warpsim::interconnect {
namespace {

std::vector<NodeRole> all_cores(uint32_t n) { return std::vector<NodeRole>(n, NodeRole::Core); }

std::vector<NodeRole> cores_then_memory(uint32_t cores, uint32_t memories) {
  std::vector<NodeRole> r(cores, NodeRole::Core);
  r.resize(cores + memories, NodeRole::Memory);
  return r;
}

std::unique_ptr<TrafficPattern> pattern(const char* name, std::span<const NodeRole> roles,
                                        TrafficParams params = {}) {
  std::string error;
  auto p = make_traffic_pattern(name, params, roles, error);
  EXPECT_TRUE(p) << error;
  return p;
}

std::string pattern_error(const char* name, std::span<const NodeRole> roles, TrafficParams params = {}) {
  std::string error;
  auto p = make_traffic_pattern(name, params, roles, error);
  EXPECT_FALSE(p);
  return error;
}

// Destination counts of n packets from `src`.
std::map<uint32_t, int> destinations(const TrafficPattern& p, uint32_t src, int n, uint64_t seed = 1) {
  TrafficRng rng(seed);
  std::map<uint32_t, int> count;
  for (int i = 0; i < n; ++i) count[p.make(src, rng).dst]++;
  return count;
}

// Within 5 standard deviations of a binomial(n, p) count.
void expect_binomial(int count, int n, double p, const std::string& what) {
  const double mean = n * p, sd = std::sqrt(n * p * (1 - p));
  EXPECT_NEAR(count, mean, 5 * sd) << what;
}

NetworkConfig ideal(uint32_t latency) {
  NetworkConfig c;
  c.topology = "ideal";
  c.topologies.get<IdealConfig>("ideal").latency = latency;
  return c;
}

NetworkConfig crossbar() {
  NetworkConfig c;
  c.topology = "crossbar";  // latency 4, 16-flit buffers, iSLIP
  return c;
}

MeasurementConfig short_periods() {
  MeasurementConfig m;
  m.sample_period = 1000;
  return m;
}

// ------------------------------------------------------------ random numbers

TEST(TrafficRng, DrawsBelowTheBoundUniformlyAndRepeatsFromASeed) {
  TrafficRng a(42), b(42), c(43);
  int counts[3] = {};
  bool differs = false;
  for (int i = 0; i < 30000; ++i) {
    const uint64_t x = a.below(3);
    ASSERT_LT(x, 3u);
    ASSERT_EQ(x, b.below(3));
    differs = differs || x != c.below(3);
    counts[x]++;
  }
  EXPECT_TRUE(differs);
  for (int k = 0; k < 3; ++k) expect_binomial(counts[k], 30000, 1.0 / 3, "value " + std::to_string(k));
  for (int i = 0; i < 100; ++i) EXPECT_EQ(a.below(1), 0u);
  int hits = 0;
  for (int i = 0; i < 40000; ++i) hits += a.chance(0.25);
  expect_binomial(hits, 40000, 0.25, "chance(0.25)");
  EXPECT_FALSE(a.chance(0.0));
  EXPECT_TRUE(a.chance(1.0));
}

TEST(TrafficRng, TheSequenceIsFixedByTheStandardEngine) {
  // mt19937_64's output is specified by the C++ standard (its 10000th value
  // from the default seed is 9981545732273789042), so unit() is too: the
  // top 53 bits of the first output from seed 5489.
  std::mt19937_64 reference(5489);
  TrafficRng rng(5489);
  EXPECT_EQ(rng.unit(), double(reference() >> 11) * 0x1.0p-53);
}

// ------------------------------------------------------------ patterns

TEST(TrafficPatterns, UniformSpreadsOverAllNodesIncludingTheSource) {
  auto p = pattern("uniform", all_cores(4));
  EXPECT_EQ(p->sources().size(), 4u);
  EXPECT_EQ(p->subnet(), Subnet::Request);
  const auto count = destinations(*p, 2, 40000);
  ASSERT_EQ(count.size(), 4u);
  for (const auto& [dst, n] : count) expect_binomial(n, 40000, 0.25, "to node " + std::to_string(dst));
}

TEST(TrafficPatterns, TransposeSwapsTheGridCoordinates) {
  // 4 x 4: node id = y*4 + x. Node 9 = (1,2) -> (2,1) = 6; 6 -> 9; the
  // diagonal (0, 5, 10, 15) sends to itself; 3 = (3,0) -> (0,3) = 12.
  auto p = pattern("transpose", all_cores(16));
  TrafficRng rng(1);
  for (uint32_t y = 0; y < 4; ++y)
    for (uint32_t x = 0; x < 4; ++x) EXPECT_EQ(p->make(y * 4 + x, rng).dst, x * 4 + y);
  EXPECT_EQ(p->make(9, rng).dst, 6u);
  EXPECT_EQ(p->make(3, rng).dst, 12u);
  EXPECT_EQ(p->make(10, rng).dst, 10u);
  EXPECT_NE(pattern_error("transpose", all_cores(12)).find("12 is not a square"), std::string::npos);
}

TEST(TrafficPatterns, BitcompSendsToTheBitComplement) {
  // 8 nodes: 0 (000) -> 7 (111), 5 (101) -> 2 (010), 6 (110) -> 1 (001).
  auto p = pattern("bitcomp", all_cores(8));
  TrafficRng rng(1);
  EXPECT_EQ(p->make(0, rng).dst, 7u);
  EXPECT_EQ(p->make(5, rng).dst, 2u);
  EXPECT_EQ(p->make(6, rng).dst, 1u);
  for (uint32_t s = 0; s < 8; ++s) EXPECT_EQ(p->make(s, rng).dst, 7 - s);
  EXPECT_NE(pattern_error("bitcomp", all_cores(12)).find("power-of-2"), std::string::npos);
}

TEST(HotspotList, ParsesNodesWeightsAndTheRest) {
  std::string error;
  auto w = parse_hotspot("27:16,*:1", 64, error);
  ASSERT_TRUE(w) << error;
  for (uint32_t n = 0; n < 64; ++n) EXPECT_EQ((*w)[n], n == 27 ? 16u : 1u) << n;
  w = parse_hotspot("27", 64, error);
  ASSERT_TRUE(w);
  for (uint32_t n = 0; n < 64; ++n) EXPECT_EQ((*w)[n], n == 27 ? 1u : 0u) << n;
  w = parse_hotspot("0:3,5", 8, error);
  ASSERT_TRUE(w);
  EXPECT_EQ(*w, (std::vector<uint64_t>{3, 0, 0, 0, 0, 1, 0, 0}));
  w = parse_hotspot("*:2", 3, error);
  ASSERT_TRUE(w);
  EXPECT_EQ(*w, (std::vector<uint64_t>{2, 2, 2}));
}

TEST(HotspotList, RejectsWhatItCannotRead) {
  const auto error_of = [](const char* spec) {
    std::string error;
    EXPECT_FALSE(parse_hotspot(spec, 64, error)) << spec;
    return error;
  };
  EXPECT_NE(error_of("64").find("node 64 is out of range (the network has 64 nodes, 0 to 63)"),
            std::string::npos);
  EXPECT_NE(error_of("3,3").find("node 3 appears twice"), std::string::npos);
  EXPECT_NE(error_of("*,*:2").find("'*' appears twice"), std::string::npos);
  EXPECT_NE(error_of("3:0").find("weight '0'"), std::string::npos);
  EXPECT_NE(error_of("3:x").find("weight 'x'"), std::string::npos);
  EXPECT_NE(error_of("abc").find("'abc' is not a node number"), std::string::npos);
  EXPECT_NE(error_of("3,").find("'' is not a node number"), std::string::npos);
  EXPECT_NE(error_of("").find("empty"), std::string::npos);
  EXPECT_NE(error_of("-1").find("is not a node number"), std::string::npos);
}

TEST(TrafficPatterns, HotspotChoosesByWeight) {
  // 27:16,*:1 on 64 nodes: node 27 has 16 of 16 + 63 = 79 shares, every
  // other node 1 (BookSim's 20% hotspot).
  TrafficParams params;
  params.hotspot = "27:16,*:1";
  auto p = pattern("hotspot", all_cores(64), params);
  EXPECT_EQ(p->sources().size(), 64u);
  const auto count = destinations(*p, 5, 79000);
  expect_binomial(count.at(27), 79000, 16.0 / 79, "node 27");
  expect_binomial(count.at(5), 79000, 1.0 / 79, "node 5 (the source itself)");
  expect_binomial(count.at(63), 79000, 1.0 / 79, "node 63");
  params.hotspot = "27";
  const auto single = destinations(*pattern("hotspot", all_cores(64), params), 5, 1000);
  EXPECT_EQ(single.size(), 1u);
  EXPECT_EQ(single.at(27), 1000);
  EXPECT_NE(pattern_error("hotspot", all_cores(64)).find("needs a hotspot list"), std::string::npos);
  params.hotspot = "64";
  EXPECT_NE(pattern_error("hotspot", all_cores(64), params).find("out of range"), std::string::npos);
}

TEST(TrafficPatterns, ManyToFewSendsFromCoresToMemoryOnTheRequestSubnet) {
  const auto roles = cores_then_memory(6, 3);  // cores 0-5, memory 6-8
  auto p = pattern("many-to-few", roles);
  EXPECT_EQ(std::vector<uint32_t>(p->sources().begin(), p->sources().end()),
            (std::vector<uint32_t>{0, 1, 2, 3, 4, 5}));
  EXPECT_EQ(p->subnet(), Subnet::Request);
  const auto count = destinations(*p, 2, 30000);
  ASSERT_EQ(count.size(), 3u);
  for (const auto& [dst, n] : count) {
    EXPECT_EQ(roles[dst], NodeRole::Memory) << dst;
    expect_binomial(n, 30000, 1.0 / 3, "to node " + std::to_string(dst));
  }
  EXPECT_NE(pattern_error("many-to-few", all_cores(8)).find("these 8 nodes have 8 Core and 0 Memory"),
            std::string::npos);
}

TEST(TrafficPatterns, FewToManySendsFromMemoryToCoresOnTheReplySubnet) {
  const auto roles = cores_then_memory(6, 3);
  auto p = pattern("few-to-many", roles);
  EXPECT_EQ(std::vector<uint32_t>(p->sources().begin(), p->sources().end()),
            (std::vector<uint32_t>{6, 7, 8}));
  EXPECT_EQ(p->subnet(), Subnet::Reply);
  const auto count = destinations(*p, 7, 6000);
  ASSERT_EQ(count.size(), 6u);
  for (const auto& [dst, n] : count) EXPECT_EQ(roles[dst], NodeRole::Core) << dst;
}

TEST(TrafficPatterns, PacketSizesFixedOrMixed) {
  std::string error;
  EXPECT_EQ(parse_packet_sizes("5", error)->mean_flits(), 5.0);
  EXPECT_EQ(parse_packet_sizes("mixed", error)->mean_flits(), 3.0);
  EXPECT_EQ(parse_packet_sizes("mixed", error)->describe(), "1 or 5 flits (mean 3)");
  EXPECT_EQ(parse_packet_sizes("1", error)->describe(), "1 flit");
  for (const char* bad : {"0", "", "x", "2x", "-1", "100000"}) {
    EXPECT_FALSE(parse_packet_sizes(bad, error)) << bad;
    EXPECT_NE(error.find("not a number of flits"), std::string::npos);
  }
  TrafficParams params;
  params.sizes = PacketSizes::mixed();
  auto p = pattern("uniform", all_cores(4), params);
  TrafficRng rng(3);
  int five = 0;
  for (int i = 0; i < 20000; ++i) {
    const uint32_t f = p->make(0, rng).flits;
    ASSERT_TRUE(f == 1 || f == 5) << f;
    five += f == 5;
  }
  expect_binomial(five, 20000, 0.5, "5-flit packets");
}

TEST(TrafficPatterns, GpuSendsReadsAndWritesToMemoryAndAnswersEach) {
  const auto roles = cores_then_memory(8, 4);  // cores 0-7, memory 8-11
  auto p = pattern("gpu", roles);
  EXPECT_TRUE(p->closed_loop());
  EXPECT_EQ(p->sources().size(), 8u);
  EXPECT_DOUBLE_EQ(p->mean_flits(), 0.9 * 1 + 0.1 * 4);
  TrafficRng rng(5);
  int reads = 0;
  std::map<uint32_t, int> to;
  for (int i = 0; i < 40000; ++i) {
    const TrafficPacket t = p->make(3, rng);
    ASSERT_EQ(roles[t.dst], NodeRole::Memory);
    to[t.dst]++;
    TrafficPacket answer;
    ASSERT_TRUE(p->reply(t.kind, 3, t.dst, answer));
    EXPECT_EQ(answer.dst, 3u);
    EXPECT_EQ(answer.kind, TrafficKind::Reply);
    if (t.kind == TrafficKind::ReadRequest) {
      reads++;
      EXPECT_EQ(t.flits, 1u);
      EXPECT_EQ(answer.flits, 4u);  // the data
    } else {
      EXPECT_EQ(t.kind, TrafficKind::WriteRequest);
      EXPECT_EQ(t.flits, 4u);
      EXPECT_EQ(answer.flits, 1u);  // the acknowledgement
    }
  }
  expect_binomial(reads, 40000, 0.9, "reads");
  for (uint32_t m = 8; m < 12; ++m) expect_binomial(to[m], 40000, 0.25, "to node " + std::to_string(m));
}

TEST(TrafficPatterns, GpuHotspotSendsItsFractionToOneMemoryNode) {
  // 20% to node 10, the other 80% uniformly over 8, 9 and 11.
  const auto roles = cores_then_memory(8, 4);
  TrafficParams params;
  params.gpu.hotspot_fraction = 0.2;
  params.gpu.hotspot_node = 10;
  const auto count = destinations(*pattern("gpu", roles, params), 0, 50000);
  expect_binomial(count.at(10), 50000, 0.2, "node 10");
  for (uint32_t m : {8u, 9u, 11u}) expect_binomial(count.at(m), 50000, 0.8 / 3, "node " + std::to_string(m));
  params.gpu.hotspot_node.reset();  // default: the first memory node
  EXPECT_NEAR(destinations(*pattern("gpu", roles, params), 0, 10000).at(8), 2000, 250);
  params.gpu.hotspot_node = 3;
  EXPECT_NE(pattern_error("gpu", roles, params).find("node 3 is not a Memory node"), std::string::npos);
  params.gpu.hotspot_node.reset();
  params.gpu.read_fraction = 1.5;
  EXPECT_NE(pattern_error("gpu", roles, params).find("from 0 to 1"), std::string::npos);
}

TEST(TrafficPatterns, UnknownNamesListTheRegisteredOnes) {
  EXPECT_EQ(pattern_error("tornado", all_cores(4)),
            "unknown traffic pattern 'tornado' (one of: uniform, transpose, bitcomp, hotspot, many-to-few, "
            "few-to-many, gpu)");
}

// ------------------------------------------------------------ driver

TEST(TrafficDriver, GpuAnswersEveryRequestToItsSender) {
  // On the crossbar, with back-pressure: after the sources stop and the
  // network empties, each core has received as many replies as it sent
  // requests, and each memory node sent as many replies as it received
  // requests.
  const auto roles = cores_then_memory(6, 2);
  auto p = pattern("gpu", roles);
  auto net = make_network(crossbar(), roles);
  TrafficDriver d(*net, *p, 0.3, 9);
  d.run(3000);
  d.run_until_empty();
  uint64_t requests = 0;
  for (uint32_t c = 0; c < 6; ++c) {
    EXPECT_GT(net->stats(Subnet::Request, c).packets_injected, 0u);
    EXPECT_EQ(net->stats(Subnet::Reply, c).packets_ejected, net->stats(Subnet::Request, c).packets_injected)
        << c;
    EXPECT_EQ(net->stats(Subnet::Request, c).packets_ejected, 0u);
    requests += net->stats(Subnet::Request, c).packets_injected;
  }
  for (uint32_t m = 6; m < 8; ++m)
    EXPECT_EQ(net->stats(Subnet::Reply, m).packets_injected, net->stats(Subnet::Request, m).packets_ejected)
        << m;
  EXPECT_EQ(d.packets_delivered(), 2 * requests);
  EXPECT_EQ(d.window().round_trips, requests);
}

TEST(TrafficDriver, IdealNetworkDeliversEveryPacketExactlyItsLatencyAfterCreation) {
  // Unlimited bandwidth: nothing queues at the source, so every packet -
  // at light and at full load, 1 or 5 flits - takes exactly the latency.
  for (double rate : {0.02, 1.0}) {
    TrafficParams params;
    params.sizes = PacketSizes::mixed();
    auto p = pattern("uniform", all_cores(16), params);
    auto net = make_network(ideal(7), all_cores(16));
    TrafficDriver d(*net, *p, rate, 1);
    d.run(2000);
    EXPECT_GT(d.window().packets, 500u);
    EXPECT_EQ(d.window().min_latency, 7u) << rate;
    EXPECT_EQ(d.window().max_latency, 7u) << rate;
    EXPECT_EQ(d.window().network_latency, 7 * d.window().packets);
    EXPECT_EQ(d.window().hops, 0u);
  }
}

// ------------------------------------------------------------ measurement

TEST(TrafficMeasurement, IdealNetworkLatencyIsExactAndAcceptedEqualsOffered) {
  // uniform, 5-flit packets, 32 nodes, latency 6, BookSim's periods (the
  // ideal network is cheap): offered = rate x 5 flits/node/cycle. The
  // window holds at least 3 x 5000 cycles x 32 nodes x rate packets
  // (24,000 at 0.05: a binomial standard deviation of 0.65%), so accepted
  // is within 3% of offered.
  TrafficParams params;
  params.sizes = PacketSizes::fixed(5);
  auto p = pattern("uniform", all_cores(32), params);
  for (double rate : {0.05, 0.5}) {
    const PointResult r = measure_point(ideal(6), all_cores(32), *p, rate, 3, MeasurementConfig{});
    ASSERT_TRUE(r.stable) << r.unstable_reason;
    EXPECT_EQ(r.packet_latency, 6.0);
    EXPECT_EQ(r.network_latency, 6.0);
    EXPECT_EQ(r.max_latency, 6u);
    EXPECT_EQ(r.hops, 0.0);
    EXPECT_DOUBLE_EQ(r.offered, rate * 5);
    EXPECT_NEAR(r.accepted, r.offered, 0.03 * r.offered) << rate;
    EXPECT_GE(r.periods, 6u);  // 3 warm-up + at least 3 converged
    EXPECT_GE(r.packets, uint64_t(0.97 * 3 * 5000 * 32 * rate));
  }
}

TEST(TrafficMeasurement, SameSeedSameResultOtherSeedOtherResult) {
  auto p = pattern("uniform", all_cores(16));
  const auto run = [&](uint64_t seed) {
    return measure_point(crossbar(), all_cores(16), *p, 0.5, seed, short_periods());
  };
  const PointResult a = run(4), b = run(4), c = run(5);
  EXPECT_EQ(a.packet_latency, b.packet_latency);
  EXPECT_EQ(a.network_latency, b.network_latency);
  EXPECT_EQ(a.accepted, b.accepted);
  EXPECT_EQ(a.packets, b.packets);
  EXPECT_EQ(a.cycles, b.cycles);
  EXPECT_EQ(a.flit_hops, b.flit_hops);
  EXPECT_EQ(a.periods, b.periods);
  EXPECT_NE(a.packet_latency, c.packet_latency);
}

TEST(TrafficMeasurement, CrossbarLatencyRisesWithLoad) {
  // Uncontended, a 1-flit packet is ejectable 1 + latency 4 = 5 cycles
  // after injection (crossbar.h); contention for the outputs adds queueing
  // as the load grows. (With its default 16-flit input buffers and one
  // iSLIP iteration this 16-node crossbar saturates near 0.7
  // flits/node/cycle under uniform traffic.)
  auto p = pattern("uniform", all_cores(16));
  const auto at = [&](double rate) {
    return measure_point(crossbar(), all_cores(16), *p, rate, 1, short_periods());
  };
  const PointResult light = at(0.01), half = at(0.4), heavy = at(0.65);
  ASSERT_TRUE(light.stable && half.stable && heavy.stable);
  EXPECT_NEAR(light.packet_latency, 5.0, 0.1);
  EXPECT_EQ(light.hops, 1.0);
  EXPECT_GT(half.packet_latency, light.packet_latency + 0.3);
  EXPECT_GT(heavy.packet_latency, half.packet_latency + 1.0);
  EXPECT_NEAR(heavy.accepted, 0.65, 0.02);
}

TEST(TrafficMeasurement, CrossbarHotspotSaturatesAtOneFlitPerCycleOverN) {
  // Every node sends to node 0, whose output takes one flit per cycle: the
  // throughput cannot pass 1/16 = 0.0625 flits/node/cycle. The sweep goes
  // 0.001, 0.002, 0.005, 0.01, 0.02, 0.05 (0.8 of the bound), 0.1
  // (saturated), then bisects between 0.05 and 0.1.
  TrafficParams params;
  params.hotspot = "0";
  auto p = pattern("hotspot", all_cores(16), params);
  const SweepResult s = sweep_automatic(automatic_start_rate(16, 1), 4, [&](double rate) {
    return measure_point(crossbar(), all_cores(16), *p, rate, 1, short_periods());
  });
  ASSERT_TRUE(s.saturation_found());
  EXPECT_GE(s.saturation_throughput(), 0.05);
  EXPECT_LE(s.saturation_throughput(), 1.0 / 16 + 1e-9);
  EXPECT_FALSE(s.points.back().stable);  // 0.1: far past the bound
  EXPECT_NEAR(*s.zero_load_latency, 5.0, 0.2);
}

TEST(TrafficMeasurement, UnstableWhenTheLatencyRunsAway) {
  // 16 nodes to one at 0.2 packets/node/cycle: 3.2 flits per cycle for a
  // 1-flit/cycle output; the queues grow without bound.
  TrafficParams params;
  params.hotspot = "0";
  auto p = pattern("hotspot", all_cores(16), params);
  const PointResult r = measure_point(crossbar(), all_cores(16), *p, 0.2, 1, short_periods());
  EXPECT_FALSE(r.stable);
  EXPECT_NE(r.unstable_reason.find("latency above 500 cycles"), std::string::npos);
  EXPECT_GT(r.packet_latency, 500.0);
  EXPECT_LE(r.accepted, 1.0 / 16 + 1e-9);
}

TEST(TrafficMeasurement, GpuReportsTheRoundTrip) {
  // Ideal network, latency 5. A core creates at most one request per cycle
  // and injects it at once, so every request takes 5 cycles; a memory node
  // receiving several requests in one cycle injects one reply per cycle, so
  // replies take 5 + q cycles, q their wait at the memory node. Each
  // measured request has one measured reply, so the average packet latency
  // is 5 + avg(q)/2 and the round trip 10 + avg(q): twice the former.
  const auto roles = cores_then_memory(8, 4);
  auto p = pattern("gpu", roles);
  const PointResult r = measure_point(ideal(5), roles, *p, 0.1, 1, short_periods());
  ASSERT_TRUE(r.stable);
  EXPECT_GT(r.packet_latency, 5.0);
  EXPECT_LT(r.packet_latency, 5.5);
  EXPECT_NEAR(r.round_trip, 2 * r.packet_latency, 1e-9);
  EXPECT_EQ(r.packets % 2, 0u);
  // Offered: 8 of 12 nodes x 0.1 x 1.3 flits.
  EXPECT_DOUBLE_EQ(r.offered, 0.1 * 1.3 * 8 / 12);
}

TEST(TrafficMeasurement, MethodChecks) {
  MeasurementConfig m;
  EXPECT_EQ(check_measurement_config(m), "");
  m.max_samples = 5;
  EXPECT_NE(check_measurement_config(m).find("max samples (5)"), std::string::npos);
  m = {};
  m.sample_period = 0;
  EXPECT_NE(check_measurement_config(m), "");
}

// ------------------------------------------------------------ sweeps

// A made-up network: latency 10 / (1 - rate / 0.3) below 0.3, unstable
// from 0.3 up; 3 x zero-load (10.0 at 0.001) is crossed at rate 0.2.
PointResult model(double rate) {
  PointResult r;
  r.rate = rate;
  r.accepted = rate;
  r.stable = rate < 0.3;
  r.packet_latency = r.stable ? 10 / (1 - rate / 0.3) : 1000;
  return r;
}

TEST(RateSweep, AutomaticClimbsTheOneTwoFiveSeriesThenBisects) {
  std::vector<double> asked;
  const SweepResult s = sweep_automatic(0.001, 3, [&](double r) {
    asked.push_back(r);
    return model(r);
  });
  // Zero-load: 10 / (1 - 0.001/0.3) = 10.033, so saturated above 30.1.
  // 0.1: 15; 0.2: 10 / (1 - 2/3) = 30.0, just under; 0.5: unstable.
  // Bisection: 0.35 (unstable), 0.275 (120: saturated), 0.2375 (48:
  // saturated); the knee stays at 0.2.
  const std::vector<double> expected = {0.001, 0.002, 0.005, 0.01, 0.02,  0.05,
                                        0.1,   0.2,   0.5,   0.35, 0.275, 0.2375};
  ASSERT_EQ(asked.size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) EXPECT_NEAR(asked[i], expected[i], 1e-12) << i;
  ASSERT_TRUE(s.saturation_found());
  EXPECT_DOUBLE_EQ(s.points[*s.knee].rate, 0.2);
  EXPECT_DOUBLE_EQ(s.saturation_throughput(), 0.2);
  EXPECT_NEAR(*s.zero_load_latency, 10 / (1 - 0.001 / 0.3), 1e-12);
  for (size_t i = 1; i < s.points.size(); ++i) EXPECT_LT(s.points[i - 1].rate, s.points[i].rate);
}

TEST(RateSweep, ListedRatesAreAllMeasuredAndNeverSaturatingIsReported) {
  const std::vector<double> rates = {0.25, 0.01, 0.1};
  const SweepResult s = sweep_rates(rates, model);
  ASSERT_EQ(s.points.size(), 3u);
  EXPECT_EQ(s.points[0].rate, 0.01);
  EXPECT_EQ(s.saturated, (std::vector<bool>{false, false, true}));  // 0.25: 60 > 3 x 10.3
  EXPECT_EQ(s.points[*s.knee].rate, 0.1);
  // The ideal network never saturates: the sweep ends at rate 1.
  const SweepResult flat = sweep_automatic(0.1, 3, [](double r) {
    PointResult p;
    p.rate = r;
    p.stable = true;
    p.packet_latency = 4;
    return p;
  });
  EXPECT_FALSE(flat.saturation_found());
  EXPECT_EQ(flat.points.back().rate, 1.0);
  EXPECT_EQ(flat.points.size(), 4u);  // 0.1, 0.2, 0.5, 1
}

TEST(RateSweep, StartRateIsLightLoadForTheNetwork) {
  EXPECT_DOUBLE_EQ(automatic_start_rate(64, 1), 0.001);
  EXPECT_DOUBLE_EQ(automatic_start_rate(64, 5), 0.0002);    // 0.1 / 320 = 0.0003125
  EXPECT_DOUBLE_EQ(automatic_start_rate(212, 5), 0.00005);  // 0.1 / 1060 = 0.0000943
}

}  // namespace
}  // namespace warpsim::interconnect
