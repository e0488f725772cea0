// What every registered traffic pattern (traffic_patterns.def) must do, on
// 16 nodes (12 Core, then 4 Memory; a square and a power of 2, so every
// pattern applies): its sources are distinct nodes in ascending order, its
// packets go to nodes of the network with at least one flit, only a
// closed-loop pattern answers, its choices depend on the seed alone, and
// the driver delivers all of its traffic, answers included, exactly once.
#include <gtest/gtest.h>

#include "tests/plugin_test_util.h"

#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "interconnect/network_registry.h"
#include "interconnect/ideal_network.h"
#include "interconnect/traffic/traffic_driver.h"
#include "interconnect/traffic/traffic_pattern.h"

namespace warpsim::interconnect {
namespace {

std::vector<NodeRole> cores_then_memory(uint32_t cores, uint32_t memories) {
  std::vector<NodeRole> r(cores, NodeRole::Core);
  r.resize(cores + memories, NodeRole::Memory);
  return r;
}

TrafficParams params() {
  TrafficParams p;
  p.sizes = PacketSizes::mixed();
  p.hotspot = "3:4,*:1";
  return p;
}

class TrafficPatternContract : public ::testing::TestWithParam<std::string_view> {
 protected:
  std::vector<NodeRole> roles_ = cores_then_memory(12, 4);
  std::unique_ptr<TrafficPattern> make() {
    std::string error;
    auto p = make_traffic_pattern(GetParam(), params(), roles_, error);
    EXPECT_TRUE(p) << error;
    return p;
  }
};

TEST_P(TrafficPatternContract, SourcesAreDistinctAscendingNodes) {
  auto p = make();
  ASSERT_TRUE(p);
  ASSERT_FALSE(p->sources().empty());
  for (size_t i = 0; i < p->sources().size(); ++i) {
    EXPECT_LT(p->sources()[i], roles_.size());
    if (i > 0) {
      EXPECT_LT(p->sources()[i - 1], p->sources()[i]);
    }
  }
  EXPECT_GE(p->mean_flits(), 1.0);
}

TEST_P(TrafficPatternContract, PacketsGoToNodesOfTheNetworkAndRepliesOnlyWhenClosedLoop) {
  auto p = make();
  ASSERT_TRUE(p);
  TrafficRng rng(1);
  for (int i = 0; i < 2000; ++i) {
    const uint32_t src = p->sources()[size_t(i) % p->sources().size()];
    const TrafficPacket t = p->make(src, rng);
    ASSERT_LT(t.dst, roles_.size());
    ASSERT_GE(t.flits, 1u);
    TrafficPacket answer;
    if (p->reply(t.kind, src, t.dst, answer)) {
      EXPECT_TRUE(p->closed_loop());
      EXPECT_EQ(answer.dst, src);
      EXPECT_GE(answer.flits, 1u);
      TrafficPacket none;
      EXPECT_FALSE(p->reply(answer.kind, t.dst, src, none)) << "an answer is not answered";
    }
  }
}

TEST_P(TrafficPatternContract, ChoicesDependOnTheSeedAlone) {
  auto p = make();
  ASSERT_TRUE(p);
  TrafficRng a(7), b(7);
  for (int i = 0; i < 500; ++i) {
    const uint32_t src = p->sources()[size_t(i) % p->sources().size()];
    const TrafficPacket x = p->make(src, a), y = p->make(src, b);
    ASSERT_EQ(std::tie(x.dst, x.flits, x.kind), std::tie(y.dst, y.flits, y.kind));
  }
}

TEST_P(TrafficPatternContract, TheDriverDeliversEveryPacketAndAnswerExactlyOnce) {
  auto p = make();
  ASSERT_TRUE(p);
  NetworkConfig c;
  c.topology = "ideal";
  c.topologies.get<IdealConfig>("ideal").latency = 3;
  auto net = make_network(c, roles_);
  TrafficDriver d(*net, *p, 0.2, 11);
  d.run(500);
  d.run_until_empty();
  EXPECT_GT(d.packets_created(), 50 * p->sources().size());  // 100 per source expected
  EXPECT_EQ(d.packets_delivered(), d.packets_created());
  EXPECT_EQ(d.outstanding().packets, 0u);
  EXPECT_EQ(d.queued(), 0u);
  EXPECT_TRUE(net->idle());
  uint64_t injected = 0, ejected = 0;
  for (uint32_t n = 0; n < net->nodes(); ++n)
    for (Subnet s : {Subnet::Request, Subnet::Reply}) {
      injected += net->stats(s, n).packets_injected;
      ejected += net->stats(s, n).packets_ejected;
    }
  EXPECT_EQ(injected, d.packets_created());
  EXPECT_EQ(ejected, d.packets_created());
}

INSTANTIATE_TEST_SUITE_P(Registered, TrafficPatternContract, ::testing::ValuesIn(traffic_patterns().names()),
                         plugin_test_name<std::string_view>);

}  // namespace
}  // namespace warpsim::interconnect
