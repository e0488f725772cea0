// The Network contract (interconnect/network.h), checked for every topology
// of the registry with its section's defaults: a new topology is tested here
// without editing this file. Random traffic with a hot spot and destinations
// that stop ejecting for stretches (so buffered topologies apply
// back-pressure) must arrive exactly once, unchanged, in injection order per
// subnet and (source, destination) pair; the per-node statistics must match
// what the test saw; skipping to next_event() must change nothing; the
// roles given to make_network must be reported back.
#include <gtest/gtest.h>

#include "tests/plugin_test_util.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <deque>
#include <map>
#include <random>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "interconnect/network.h"
#include "interconnect/network_registry.h"

namespace warpsim::interconnect {
namespace {

constexpr uint32_t kNodes = 6;

struct Send {
  uint64_t cycle;
  Subnet subnet;
  uint32_t src, dst, bytes;
};

// Bursts with idle gaps (something to skip); a third of the packets go to
// node 0 (a hot spot); control, one-sector and whole-line sizes.
std::vector<Send> random_traffic() {
  std::mt19937_64 rng(20240612);
  std::vector<Send> t;
  uint64_t cycle = 0;
  for (int i = 0; i < 600; ++i) {
    cycle += rng() % 20 == 0 ? 50 + rng() % 80 : rng() % 2;
    const uint32_t sizes[] = {8, 40, 136};
    const uint32_t src = uint32_t(rng() % kNodes);
    const uint32_t dst = rng() % 3 == 0 ? 0 : uint32_t(rng() % kNodes);
    t.push_back(
        {cycle, rng() % 3 == 0 ? Subnet::Reply : Subnet::Request, src, dst, sizes[rng() % 3]});
  }
  return t;
}

// Destinations stop ejecting for stretches of 40 cycles, at different times.
bool ejects(uint32_t node, uint64_t cycle) { return (cycle / 40 + node) % 3 != 0; }

std::vector<NodeRole> alternating_roles(uint32_t n) {
  std::vector<NodeRole> r;
  for (uint32_t i = 0; i < n; ++i) r.push_back(i % 2 ? NodeRole::Memory : NodeRole::Core);
  return r;
}

struct Delivery {
  Packet packet;
  Subnet subnet;
  uint32_t node;
  uint64_t cycle;
};

struct Log {
  std::vector<Delivery> deliveries;
  std::vector<uint64_t> injected_at;          // per send
  std::vector<uint64_t> blocked;              // per (node, subnet): count_blocked calls
  std::vector<std::vector<NodeStats>> stats;  // per subnet, per node, at the end
  NetworkActivity activity[kSubnets];         // at the end
  bool idle = false;
  uint64_t skipped = 0, end = 0;
  bool next_event_in_past = false;  // next_event() < cycle() was seen
};

// The memory system's protocol each cycle: eject (up to 2 per node and
// subnet, where the node ejects now), inject what is pending in order
// (can_inject false: retry next cycle, counted as blocked), tick. With
// `skip`, jumps to next_event() or the next send when nothing waits.
Log drive(std::string_view topology, const std::vector<Send>& sends, bool skip) {
  NetworkConfig config;
  config.topology = std::string(topology);
  auto net = make_network(config, alternating_roles(kNodes));
  Log log;
  log.injected_at.assign(sends.size(), UINT64_MAX);
  log.blocked.assign(kNodes * kSubnets, 0);
  std::vector<std::deque<size_t>> pending(kNodes * kSubnets);  // per (node, subnet)
  size_t next = 0, waiting = 0;
  for (uint64_t guard = 0; guard < 100000; ++guard) {
    const uint64_t now = net->cycle();
    for (uint32_t node = 0; node < kNodes; ++node)
      for (Subnet s : {Subnet::Request, Subnet::Reply}) {
        if (!ejects(node, now)) continue;
        Packet p;
        for (int k = 0; k < 2 && net->eject(s, node, p); ++k)
          log.deliveries.push_back({p, s, node, now});
      }
    for (; next < sends.size() && sends[next].cycle <= now; ++next, ++waiting)
      pending[sends[next].src * kSubnets + int(sends[next].subnet)].push_back(next);
    for (uint32_t q = 0; q < pending.size(); ++q) {
      const uint32_t node = q / kSubnets;
      const Subnet s = Subnet(q % kSubnets);
      std::deque<size_t>& queue = pending[q];
      while (!queue.empty() && net->can_inject(s, node, sends[queue.front()].bytes)) {
        const size_t i = queue.front();
        Packet p;
        p.src = node;
        p.dst = sends[i].dst;
        p.bytes = sends[i].bytes;
        p.payload = i;
        p.created = sends[i].cycle;
        net->inject(s, node, p);
        log.injected_at[i] = now;
        queue.pop_front();
        --waiting;
      }
      if (!queue.empty()) {
        net->count_blocked(s, node);
        log.blocked[q]++;
      }
    }
    if (next == sends.size() && waiting == 0 && net->idle()) break;
    net->tick();
    if (net->next_event() < net->cycle()) log.next_event_in_past = true;
    if (!skip || waiting != 0) continue;
    bool deliveries = false;
    for (uint32_t node = 0; node < kNodes; ++node)
      deliveries = deliveries || net->has_delivery(Subnet::Request, node) ||
                   net->has_delivery(Subnet::Reply, node);
    if (deliveries) continue;
    uint64_t target = net->next_event();
    if (next < sends.size()) target = std::min(target, sends[next].cycle);
    if (target != UINT64_MAX && target > net->cycle()) {
      log.skipped += target - net->cycle();
      net->skip_to(target);
    }
  }
  log.idle = net->idle();
  log.end = net->cycle();
  log.stats.resize(kSubnets);
  for (int s = 0; s < kSubnets; ++s) {
    for (uint32_t node = 0; node < kNodes; ++node)
      log.stats[s].push_back(net->stats(Subnet(s), node));
    log.activity[s] = net->activity(Subnet(s));
  }
  return log;
}

// The random traffic without the pairs the topology cannot route (a
// checkerboard mesh cannot join some pairs of core nodes).
std::vector<Send> routable_traffic(std::string_view topology) {
  NetworkConfig config;
  config.topology = std::string(topology);
  auto net = make_network(config, alternating_roles(kNodes));
  std::vector<Send> out;
  for (const Send& s : random_traffic())
    if (net->routable(s.src, s.dst)) out.push_back(s);
  return out;
}

bool in_order(std::string_view topology) {
  NetworkConfig config;
  config.topology = std::string(topology);
  return make_network(config, alternating_roles(kNodes))->in_order();
}

class TopologyContract : public ::testing::TestWithParam<std::string_view> {
 protected:
  const std::vector<Send>& sends() {
    static std::map<std::string, std::vector<Send>> per_topology;
    auto [it, fresh] = per_topology.try_emplace(std::string(GetParam()));
    if (fresh) it->second = routable_traffic(GetParam());
    return it->second;
  }
};

TEST_P(TopologyContract, FreshNetworkIsIdleAndReportsItsRoles) {
  NetworkConfig config;
  config.topology = std::string(GetParam());
  const std::vector<NodeRole> roles = {NodeRole::Memory, NodeRole::Core, NodeRole::Core,
                                       NodeRole::Memory, NodeRole::Core};
  auto net = make_network(config, roles);
  EXPECT_EQ(net->name(), GetParam());
  EXPECT_EQ(net->nodes(), 5u);
  for (uint32_t i = 0; i < roles.size(); ++i) EXPECT_EQ(net->role(i), roles[i]) << i;
  EXPECT_EQ(net->nodes_with(NodeRole::Core), 3u);
  EXPECT_EQ(net->nodes_with(NodeRole::Memory), 2u);
  EXPECT_EQ(net->cycle(), 0u);
  EXPECT_TRUE(net->idle());
  EXPECT_EQ(net->next_event(), UINT64_MAX);
  for (uint32_t i = 0; i < roles.size(); ++i) {
    EXPECT_FALSE(net->has_delivery(Subnet::Request, i));
    EXPECT_TRUE(net->can_inject(Subnet::Request, i, 8)) << "an empty network takes a packet";
  }
}

TEST_P(TopologyContract, DeliversEveryPacketOnceUnchangedInPairOrderDespiteBackPressure) {
  const Log log = drive(GetParam(), sends(), false);
  ASSERT_EQ(log.deliveries.size(), sends().size());
  EXPECT_TRUE(log.idle);
  NetworkConfig config;
  std::vector<bool> seen(sends().size(), false);
  // Payloads are send indices: per (subnet, source) they were injected in
  // index order, so per (subnet, source, destination) they must arrive so
  // where the network keeps pair order.
  const bool ordered = in_order(GetParam());
  std::map<std::tuple<int, uint32_t, uint32_t>, uint64_t> last;
  for (const Delivery& d : log.deliveries) {
    const Packet& p = d.packet;
    ASSERT_LT(p.payload, sends().size());
    EXPECT_FALSE(seen[p.payload]) << "packet " << p.payload << " delivered twice";
    seen[p.payload] = true;
    const Send& s = sends()[p.payload];
    EXPECT_EQ(d.subnet, s.subnet);
    EXPECT_EQ(d.node, s.dst);
    EXPECT_EQ(p.src, s.src);
    EXPECT_EQ(p.dst, s.dst);
    EXPECT_EQ(p.bytes, s.bytes);
    EXPECT_EQ(p.created, s.cycle);
    EXPECT_EQ(p.flits, (s.bytes + config.flit_bytes - 1) / config.flit_bytes);
    EXPECT_EQ(p.injected, log.injected_at[p.payload]);
    EXPECT_GT(d.cycle, p.injected) << "ejectable at injection + 1 at the earliest";
    EXPECT_LE(p.arrived, d.cycle);
    EXPECT_GT(p.arrived, p.injected);
    if (!ordered) continue;
    auto [it, first] = last.try_emplace({int(d.subnet), p.src, p.dst}, p.payload);
    if (!first) {
      EXPECT_GT(p.payload, it->second) << "out of order on " << p.src << " -> " << p.dst;
      it->second = p.payload;
    }
  }
  // Every flit written into a buffer has been read out of it.
  for (const NetworkActivity& a : log.activity) EXPECT_EQ(a.buffer_reads, a.buffer_writes);
}

TEST_P(TopologyContract, NodeStatsMatchWhatTheSendersAndReceiversSaw) {
  const Log log = drive(GetParam(), sends(), false);
  NetworkConfig config;
  std::vector<std::vector<NodeStats>> want(kSubnets, std::vector<NodeStats>(kNodes));
  for (const Delivery& d : log.deliveries) {
    const Packet& p = d.packet;
    const uint32_t flits = (p.bytes + config.flit_bytes - 1) / config.flit_bytes;
    NodeStats& src = want[int(d.subnet)][p.src];
    src.packets_injected++;
    src.flits_injected += flits;
    NodeStats& dst = want[int(d.subnet)][p.dst];
    dst.packets_ejected++;
    dst.flits_ejected += flits;
    dst.queue_latency += p.injected - p.created;
    dst.network_latency += p.arrived - p.injected;
    dst.ejection_latency += d.cycle - p.arrived;
    dst.hops += p.hops;
    dst.max_latency = std::max(dst.max_latency, d.cycle - p.created);
  }
  for (int s = 0; s < kSubnets; ++s)
    for (uint32_t node = 0; node < kNodes; ++node) {
      SCOPED_TRACE("subnet " + std::to_string(s) + " node " + std::to_string(node));
      const NodeStats& got = log.stats[s][node];
      const NodeStats& w = want[s][node];
      EXPECT_EQ(got.packets_injected, w.packets_injected);
      EXPECT_EQ(got.flits_injected, w.flits_injected);
      EXPECT_EQ(got.packets_ejected, w.packets_ejected);
      EXPECT_EQ(got.flits_ejected, w.flits_ejected);
      EXPECT_EQ(got.queue_latency, w.queue_latency);
      EXPECT_EQ(got.network_latency, w.network_latency);
      EXPECT_EQ(got.ejection_latency, w.ejection_latency);
      EXPECT_EQ(got.hops, w.hops);
      EXPECT_EQ(got.max_latency, w.max_latency);
      EXPECT_EQ(got.blocked_cycles, log.blocked[node * kSubnets + s]);
    }
}

TEST_P(TopologyContract, SkippingToNextEventChangesNothing) {
  const Log ticked = drive(GetParam(), sends(), false);
  const Log skipped = drive(GetParam(), sends(), true);
  EXPECT_FALSE(ticked.next_event_in_past);
  EXPECT_FALSE(skipped.next_event_in_past);
  EXPECT_EQ(ticked.skipped, 0u);
  EXPECT_GT(skipped.skipped, 0u) << "the traffic's gaps were skipped";
  ASSERT_EQ(skipped.deliveries.size(), ticked.deliveries.size());
  for (size_t i = 0; i < ticked.deliveries.size(); ++i) {
    const Delivery& a = ticked.deliveries[i];
    const Delivery& b = skipped.deliveries[i];
    EXPECT_EQ(std::tuple(a.packet.payload, a.cycle, a.node, a.packet.injected),
              std::tuple(b.packet.payload, b.cycle, b.node, b.packet.injected))
        << "delivery " << i;
  }
  EXPECT_EQ(skipped.blocked, ticked.blocked);
  EXPECT_EQ(skipped.end, ticked.end);
}

INSTANTIATE_TEST_SUITE_P(Registered, TopologyContract, ::testing::ValuesIn(topologies().names()),
                         plugin_test_name<std::string_view>);

}  // namespace
}  // namespace warpsim::interconnect
