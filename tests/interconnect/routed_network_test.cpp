// The flit-level network (interconnect/router/routed_network.h): zero-load
// latency equals the documented per-hop formula on every routed topology
// and pipeline; random traffic on every topology x routing x virtual-channel
// setting delivers every packet once, returns every credit and leaves no
// flit behind; a torus without datelines deadlocks and is reported, with
// datelines it does not; placements and configuration errors are checked.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <deque>
#include <random>
#include <string>
#include <vector>

#include "interconnect/network_registry.h"
#include "interconnect/router/routed_network.h"
#include "interconnect/topologies/grid.h"
#include "interconnect/topologies/placement.h"

namespace warpsim::interconnect {
namespace {

std::vector<NodeRole> cores(uint32_t n) { return std::vector<NodeRole>(n, NodeRole::Core); }

// n nodes, the last `memory` of them memory nodes.
std::vector<NodeRole> gpu_roles(uint32_t n, uint32_t memory) {
  std::vector<NodeRole> r(n - memory, NodeRole::Core);
  r.resize(n, NodeRole::Memory);
  return r;
}

NetworkConfig grid(const std::string& topology, uint32_t columns, uint32_t rows, const std::string& routing = "") {
  NetworkConfig c;
  c.topology = topology;
  GridConfig& g = c.topologies.get<GridConfig>(topology);
  g.columns = columns;
  g.rows = rows;
  if (!routing.empty()) g.routing = routing;
  c.flit_bytes = 16;
  return c;
}

// The zero-load latency of routed_network.h for a packet of `flits` flits
// through `hops` routers.
uint64_t zero_load(const RouterConfig& r, uint32_t hops, uint32_t flits) {
  const uint32_t alloc = r.speculative ? std::max(r.vc_alloc_delay, r.sw_alloc_delay)
                                       : r.vc_alloc_delay + r.sw_alloc_delay;
  const uint32_t t_router = r.routing_delay + alloc + r.st_delay;
  return uint64_t{hops} * (t_router + r.link_latency) + 1 + 2 * r.terminal_latency - r.link_latency +
         uint64_t{flits - 1} * r.sw_alloc_delay;
}

// Sends one packet src -> dst through an idle network; returns it as
// delivered (arrived and hops set).
Packet lone_packet(Network& net, Subnet subnet, uint32_t src, uint32_t dst, uint32_t bytes) {
  Packet p;
  p.src = src;
  p.dst = dst;
  p.bytes = bytes;
  p.created = net.cycle();
  EXPECT_TRUE(net.idle());
  net.inject(subnet, src, p);
  for (int guard = 0; guard < 10000; ++guard) {
    Packet out;
    if (net.eject(subnet, dst, out)) return out;
    net.tick();
  }
  ADD_FAILURE() << "packet " << src << " -> " << dst << " never arrived";
  return p;
}

struct ZeroLoadCase {
  std::string topology;
  std::string routing;
  uint32_t columns, rows;
  RouterConfig router;
  uint32_t flits;
};

void check_zero_load(const ZeroLoadCase& c, uint32_t nodes) {
  NetworkConfig config = c.topology == "butterfly" ? NetworkConfig{} : grid(c.topology, c.columns, c.rows, c.routing);
  config.topology = c.topology;
  config.flit_bytes = 16;
  config.router = c.router;
  const std::vector<NodeRole> roles = c.topology == "checkerboard" ? gpu_roles(nodes, nodes / 4) : cores(nodes);
  auto net = make_network(config, roles);
  uint32_t checked = 0;
  for (uint32_t src = 0; src < nodes; ++src)
    for (uint32_t dst = 0; dst < nodes; ++dst) {
      if (!net->routable(src, dst)) continue;
      for (Subnet s : {Subnet::Request, Subnet::Reply}) {
        const Packet p = lone_packet(*net, s, src, dst, c.flits * config.flit_bytes);
        ASSERT_EQ(p.arrived - p.injected, zero_load(c.router, p.hops, c.flits))
            << c.topology << " " << src << " -> " << dst << ", " << p.hops << " routers";
        ++checked;
      }
    }
  EXPECT_GT(checked, nodes * 2);
}

RouterConfig pipeline(uint32_t routing, uint32_t va, uint32_t sa, uint32_t st, bool speculative) {
  RouterConfig r;
  r.routing_delay = routing;
  r.vc_alloc_delay = va;
  r.sw_alloc_delay = sa;
  r.st_delay = st;
  r.speculative = speculative;
  r.vcs = 4;
  r.vc_buffer_flits = 8;
  return r;
}

TEST(RoutedNetworkZeroLoad, MeshMatchesTheFormulaForEveryPipeline) {
  for (const RouterConfig& r : {pipeline(1, 1, 1, 1, false), pipeline(0, 1, 1, 1, false), pipeline(1, 1, 1, 1, true),
                                pipeline(0, 1, 1, 1, true), pipeline(2, 2, 2, 2, false), pipeline(1, 2, 1, 3, true)})
    for (uint32_t flits : {1u, 5u}) {
      SCOPED_TRACE("routing " + std::to_string(r.routing_delay) + " va " + std::to_string(r.vc_alloc_delay) + " sa " +
                   std::to_string(r.sw_alloc_delay) + " st " + std::to_string(r.st_delay) +
                   (r.speculative ? " speculative" : "") + ", " + std::to_string(flits) + " flits");
      check_zero_load({"mesh", "xy", 4, 4, r, flits}, 16);
    }
}

TEST(RoutedNetworkZeroLoad, LinkAndTerminalLatenciesAndCreditDelayEnterAsDocumented) {
  RouterConfig r = pipeline(1, 1, 1, 1, false);
  r.link_latency = 3;
  r.terminal_latency = 2;
  r.credit_delay = 2;  // no effect at zero load with deep buffers
  check_zero_load({"mesh", "yx", 3, 3, r, 3}, 9);
}

TEST(RoutedNetworkZeroLoad, EveryRoutedTopologyMatchesTheFormula) {
  const RouterConfig r = pipeline(1, 1, 1, 1, false);
  check_zero_load({"torus", "xy", 4, 3, r, 2}, 12);
  check_zero_load({"mesh", "o1turn", 3, 3, r, 2}, 9);
  check_zero_load({"mesh", "cdr", 3, 4, r, 2}, 12);
  check_zero_load({"cmesh", "xy", 2, 2, r, 2}, 16);
  check_zero_load({"checkerboard", "checkerboard", 4, 4, r, 2}, 16);
  check_zero_load({"checkerboard", "checkerboard-2phase", 4, 4, r, 2}, 16);
  check_zero_load({"dci", "xy", 4, 4, r, 2}, 16);
  check_zero_load({"dcie", "cdr", 4, 4, r, 2}, 16);
  check_zero_load({"butterfly", "table", 0, 0, r, 2}, 64);
}

TEST(RoutedNetworkZeroLoad, MeshHopsAreManhattanDistancePlusOne) {
  auto net = make_network(grid("mesh", 5, 3), cores(15));
  for (uint32_t src = 0; src < 15; ++src)
    for (uint32_t dst = 0; dst < 15; ++dst) {
      const Packet p = lone_packet(*net, Subnet::Request, src, dst, 16);
      const uint32_t d = uint32_t(std::abs(int(src % 5) - int(dst % 5)) + std::abs(int(src / 5) - int(dst / 5)));
      EXPECT_EQ(p.hops, d + 1) << src << " -> " << dst;
    }
}

TEST(RoutedNetworkZeroLoad, TorusTakesTheShortWayRound) {
  auto net = make_network(grid("torus", 6, 1), cores(6));
  EXPECT_EQ(lone_packet(*net, Subnet::Request, 0, 5, 16).hops, 2u);  // 0 -> 5 westward over the wrap link
  EXPECT_EQ(lone_packet(*net, Subnet::Request, 0, 3, 16).hops, 4u);  // a tie goes East
}

TEST(RoutedNetworkZeroLoad, PacketsLongerThanTheBuffersStallOnCreditsAsBookSimDoes) {
  // 4-flit buffers, 5-flit packets: the source sends four flits, then waits
  // three cycles for its first credit; one cycle of it remains at the
  // destination (BookSim 2's constant is 7 instead of 6 on this pipeline).
  RouterConfig r = pipeline(1, 1, 1, 1, false);
  r.vcs = 2;
  r.vc_buffer_flits = 4;
  NetworkConfig c = grid("mesh", 8, 8);
  c.router = r;
  auto net = make_network(c, cores(64));
  for (uint32_t dst : {0u, 1u, 9u, 63u}) {
    const Packet p = lone_packet(*net, Subnet::Request, 0, dst, 5 * 16);
    EXPECT_EQ(p.arrived - p.injected, 5 * p.hops + 7) << "0 -> " << dst;
  }
}

// Random traffic, with receivers that stop ejecting for stretches; returns
// the number of packets delivered. Checks every packet arrives once,
// unchanged, and that the network ends idle with its buffers balanced.
uint64_t random_traffic(const NetworkConfig& config, const std::vector<NodeRole>& roles, uint32_t packets,
                        uint64_t seed) {
  auto net = make_network(config, roles);
  const uint32_t n = static_cast<uint32_t>(roles.size());
  std::mt19937_64 rng(seed);
  struct Want {
    Packet p;
    Subnet s;
  };
  std::vector<Want> sent;
  std::vector<uint8_t> seen;
  std::vector<std::deque<Packet>> queued(n * kSubnets);
  uint32_t created = 0;
  uint64_t delivered = 0;
  for (uint64_t cycle = 0; cycle < 2000000; ++cycle) {
    for (uint32_t node = 0; node < n; ++node)
      for (Subnet s : {Subnet::Request, Subnet::Reply}) {
        if ((cycle / 64 + node) % 5 == 0) continue;  // this receiver pauses
        Packet p;
        while (net->eject(s, node, p)) {
          EXPECT_EQ(p.dst, node);
          EXPECT_LT(p.payload, sent.size());
          EXPECT_FALSE(seen[p.payload]) << "delivered twice";
          seen[p.payload] = 1;
          EXPECT_EQ(p.src, sent[p.payload].p.src);
          EXPECT_EQ(p.bytes, sent[p.payload].p.bytes);
          EXPECT_EQ(s, sent[p.payload].s);
          ++delivered;
        }
      }
    for (uint32_t k = 0; k < 3 && created < packets; ++k) {
      Packet p;
      p.src = uint32_t(rng() % n);
      p.dst = uint32_t(rng() % n);
      if (!net->routable(p.src, p.dst)) continue;
      p.bytes = uint32_t(1 + rng() % (6 * config.flit_bytes));
      p.payload = sent.size();
      p.created = cycle;
      const Subnet s = rng() % 2 ? Subnet::Request : Subnet::Reply;
      sent.push_back({p, s});
      seen.push_back(0);
      queued[p.src * kSubnets + int(s)].push_back(p);
      ++created;
    }
    for (uint32_t q = 0; q < queued.size(); ++q)
      while (!queued[q].empty() && net->can_inject(Subnet(q % kSubnets), q / kSubnets, queued[q].front().bytes)) {
        net->inject(Subnet(q % kSubnets), q / kSubnets, queued[q].front());
        queued[q].pop_front();
      }
    if (created == packets && delivered == sent.size()) break;
    net->tick();
    if (cycle == 5000) {
      // Mid-run, with traffic in flight, the check finds credits away.
      const auto* routed = dynamic_cast<const RoutedNetwork*>(net.get());
      if (routed && !net->idle()) {
        EXPECT_NE(routed->unreturned(), "") << "flits in flight hold credits";
      }
    }
  }
  EXPECT_EQ(delivered, sent.size());
  EXPECT_TRUE(net->idle());
  EXPECT_EQ(net->next_event(), UINT64_MAX) << "no flit or credit left in flight";
  for (int s = 0; s < kSubnets; ++s)
    EXPECT_EQ(net->activity(Subnet(s)).buffer_writes, net->activity(Subnet(s)).buffer_reads);
  // Credits are conserved: every one came home, no VC or delivery place is
  // still held.
  const auto* routed = dynamic_cast<const RoutedNetwork*>(net.get());
  EXPECT_NE(routed, nullptr);
  if (routed) {
    EXPECT_EQ(routed->unreturned(), "");
  }
  return delivered;
}

struct PropertyCase {
  std::string topology, routing;
  uint32_t vcs, buffer;
  SubnetMode subnets;
  uint32_t memory_ports = 1, slices = 1;
  PortPolicy port_policy = PortPolicy::RoundRobin;
};

TEST(RoutedNetworkProperty, RandomTrafficArrivesOnceOnEveryTopologyRoutingAndVcSetting) {
  const std::vector<PropertyCase> cases = {
      {"mesh", "xy", 1, 2, SubnetMode::Physical},   {"mesh", "xy", 2, 4, SubnetMode::Virtual},
      {"mesh", "yx", 4, 1, SubnetMode::Physical},   {"mesh", "o1turn", 2, 3, SubnetMode::Physical},
      {"mesh", "o1turn", 4, 2, SubnetMode::Virtual}, {"mesh", "cdr", 2, 4, SubnetMode::Virtual},
      {"mesh", "xy", 4, 4, SubnetMode::Virtual, 2, 2},
      {"torus", "xy", 2, 2, SubnetMode::Physical},  {"torus", "yx", 4, 3, SubnetMode::Virtual},
      {"torus", "cdr", 4, 4, SubnetMode::Virtual},  {"cmesh", "xy", 2, 4, SubnetMode::Physical},
      {"cmesh", "o1turn", 4, 2, SubnetMode::Virtual},
      {"checkerboard", "checkerboard", 2, 4, SubnetMode::Physical, 2},
      {"checkerboard", "checkerboard", 4, 2, SubnetMode::Virtual},
      {"checkerboard", "checkerboard-2phase", 4, 4, SubnetMode::Virtual, 2},
      {"checkerboard", "checkerboard", 4, 2, SubnetMode::Virtual, 2, 1, PortPolicy::Smart},
      {"mesh", "xy", 2, 4, SubnetMode::Physical, 3, 1, PortPolicy::Smart},
      {"dci", "xy", 2, 4, SubnetMode::Virtual},     {"dci", "cdr", 4, 2, SubnetMode::Virtual, 2},
      {"dcie", "xy", 4, 4, SubnetMode::Virtual, 2, 1, PortPolicy::Smart},
      {"dcie", "xy", 2, 2, SubnetMode::Virtual},    {"butterfly", "table", 2, 2, SubnetMode::Physical},
      {"butterfly", "table", 4, 4, SubnetMode::Virtual},
  };
  for (const PropertyCase& c : cases) {
    SCOPED_TRACE(c.topology + " " + c.routing + " vcs " + std::to_string(c.vcs) + " x " + std::to_string(c.buffer) +
                 (c.subnets == SubnetMode::Virtual ? " virtual" : " physical") + " ports " +
                 std::to_string(c.memory_ports) + " slices " + std::to_string(c.slices));
    NetworkConfig config;
    config.topology = c.topology;
    config.flit_bytes = 16;
    if (c.topology != "butterfly") {
      GridConfig& g = config.topologies.get<GridConfig>(c.topology);
      g.columns = c.topology == "cmesh" ? 3 : 4;
      g.rows = 3;
      g.routing = c.routing;
      g.memory_ports = c.memory_ports;
      g.slices = c.slices;
    }
    config.router.vcs = c.vcs;
    config.router.vc_buffer_flits = c.buffer;
    config.router.subnets = c.subnets;
    config.router.port_policy = c.port_policy;
    config.router.injection_queue_flits = 16;
    config.router.ejection_queue_packets = 2;
    const uint32_t nodes = c.topology == "cmesh" ? 30 : c.topology == "butterfly" ? 27 : 12;
    const uint32_t memory = c.topology == "checkerboard" ? 3 : nodes / 4;
    std::string error;
    ASSERT_TRUE(validate_network(config, gpu_roles(nodes, memory)).empty())
        << validate_network(config, gpu_roles(nodes, memory));
    EXPECT_EQ(random_traffic(config, gpu_roles(nodes, memory), 3000, 7), 3000u);
  }
}

// Every node of a ring sends long packets half-way round, all the same way:
// each packet holds the channels behind it while it waits for the ones
// ahead, around the whole ring. Returns the packets delivered.
uint64_t ring_traffic(const NetworkConfig& config, uint32_t nodes, uint32_t packets) {
  auto net = make_network(config, cores(nodes));
  uint64_t delivered = 0, sent = 0;
  for (uint64_t cycle = 0; cycle < 200000 && delivered < packets; ++cycle) {
    for (uint32_t node = 0; node < nodes; ++node) {
      Packet p;
      while (net->eject(Subnet::Request, node, p)) ++delivered;
      p = Packet{};
      p.src = node;
      p.dst = (node + nodes / 2) % nodes;
      p.bytes = 16 * config.flit_bytes;  // spans eight 2-flit buffers
      p.created = cycle;
      if (sent < packets && net->can_inject(Subnet::Request, node, p.bytes)) {
        net->inject(Subnet::Request, node, p);
        ++sent;
      }
    }
    net->tick();
  }
  return delivered;
}

TEST(RoutedNetworkDeadlock, TorusWithoutDatelinesIsReportedWithDatelinesItIsNot) {
  NetworkConfig config = grid("torus", 8, 1);
  config.router.vcs = 2;  // physical subnets: 2 VCs = the two dateline classes
  config.router.vc_buffer_flits = 2;
  config.router.deadlock_cycles = 1000;
  config.topologies.get<GridConfig>("torus").datelines = true;
  EXPECT_EQ(ring_traffic(config, 8, 2000), 2000u);
  config.topologies.get<GridConfig>("torus").datelines = false;
  try {
    ring_traffic(config, 8, 2000);
    ADD_FAILURE() << "a torus without datelines under this load should deadlock";
  } catch (const NetworkDeadlock& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("deadlock"), std::string::npos) << what;
    EXPECT_NE(what.find("waiting for"), std::string::npos) << "the dump lists the blocked channels: " << what;
  }
}

TEST(RoutedNetworkConfig, ReportsWhatDoesNotFit) {
  NetworkConfig c = grid("mesh", 3, 3);
  EXPECT_NE(validate_network(c, cores(10)).find("has 9 places, but the GPU has 10 network nodes"), std::string::npos);
  c = grid("mesh", 3, 0);
  EXPECT_NE(validate_network(c, cores(4)).find("set both columns and rows"), std::string::npos);
  c = grid("checkerboard", 4, 4);
  c.topologies.get<GridConfig>("checkerboard").placement = "top-bottom";
  EXPECT_NE(validate_network(c, gpu_roles(16, 4)).find("must sit at a half router"), std::string::npos);
  c = grid("mesh", 4, 4, "checkerboard");
  EXPECT_NE(validate_network(c, cores(16)).find("needs the checkerboard topology"), std::string::npos);
  c = grid("mesh", 4, 4, "o1turn");
  c.router.vcs = 3;
  EXPECT_NE(validate_network(c, cores(16)).find("cannot be split evenly"), std::string::npos);
  c = grid("mesh", 4, 4);
  c.topologies.get<GridConfig>("mesh").placement = "list";
  c.topologies.get<GridConfig>("mesh").memory_routers = "1,2,99";
  EXPECT_NE(validate_network(c, gpu_roles(16, 3)).find("'99' is not a router"), std::string::npos);
  c.topologies.get<GridConfig>("mesh").memory_routers = "1,2";
  EXPECT_NE(validate_network(c, gpu_roles(16, 3)).find("lists 2 routers but the GPU has 3"), std::string::npos);
  c.topologies.get<GridConfig>("mesh").memory_routers = "1,2,5";
  EXPECT_EQ(validate_network(c, gpu_roles(16, 3)), "");
  c = grid("mesh", 4, 4);
  EXPECT_EQ(validate_network(c, gpu_roles(16, 4)), "");
}

TEST(RoutedNetworkPlacement, PatternsPutTheMemoryNodesWhereTheyAreDocumented) {
  std::string error;
  auto tb = place_memory_nodes({6, 6, 1, 8, "top-bottom", ""}, error);
  EXPECT_EQ(tb, (std::vector<uint32_t>{1, 2, 3, 4, 31, 32, 33, 34}));
  auto cb = place_memory_nodes({6, 6, 1, 8, "checkerboard", ""}, error);
  ASSERT_EQ(cb.size(), 8u) << error;
  EXPECT_EQ(cb.front(), 5u) << "the first at the top-right corner";
  std::vector<int> per_row(6), per_col(6);
  for (uint32_t r : cb) {
    EXPECT_EQ((r % 6 + r / 6) % 2, 1u) << "on a half router: " << r;
    per_row[r / 6]++, per_col[r % 6]++;
    for (uint32_t o : cb)
      if (o != r) {
        EXPECT_GT(std::abs(int(o % 6) - int(r % 6)) + std::abs(int(o / 6) - int(r / 6)), 1) << r << " " << o;
      }
  }
  for (int k = 0; k < 6; ++k) {
    EXPECT_LE(per_row[k], 2);
    EXPECT_LE(per_col[k], 2);
  }
  auto pc = place_memory_nodes({8, 8, 1, 8, "peripheral-column", ""}, error);
  for (uint32_t r : pc) EXPECT_TRUE(r % 8 == 0 || r % 8 == 7) << r;
  auto pr = place_memory_nodes({8, 8, 1, 8, "peripheral-row", ""}, error);
  for (uint32_t r : pr) EXPECT_TRUE(r / 8 == 0 || r / 8 == 7) << r;
  auto none = place_memory_nodes({2, 2, 1, 8, "top-bottom", ""}, error);
  EXPECT_TRUE(none.empty());
  EXPECT_NE(error.find("do not fit"), std::string::npos);
}


// Holds every packet whose first tag is 1 for `hold` cycles at router `at`.
class HoldAtRouter final : public RouterHook {
 public:
  HoldAtRouter(uint32_t at, uint64_t hold) : at_(at), hold_(hold) {}
  uint64_t head_ready(uint32_t, uint32_t router, uint32_t, const Packet& packet, uint64_t cycle) override {
    ++calls;
    return router == at_ && packet.tags[0] == 1 ? cycle + hold_ : cycle;
  }
  uint64_t calls = 0;

 private:
  uint32_t at_;
  uint64_t hold_;
};

TEST(RoutedNetworkHook, AHeldHeadStartsRouteComputationWhenTheHookSays) {
  NetworkConfig c = grid("mesh", 4, 1);
  auto net = make_network(c, cores(4));
  auto* routed = dynamic_cast<RoutedNetwork*>(net.get());
  ASSERT_NE(routed, nullptr);
  HoldAtRouter hook(1, 10);
  routed->set_hook(&hook);
  const RouterConfig r = c.router;
  // 0 -> 3 passes routers 0..3; a tagged packet waits 10 cycles at router 1.
  Packet plain = lone_packet(*net, Subnet::Request, 0, 3, 16);
  EXPECT_EQ(plain.arrived - plain.injected, zero_load(r, 4, 1));
  Packet p;
  p.src = 0;
  p.dst = 3;
  p.bytes = 16;
  p.tags[0] = 1;
  p.created = net->cycle();
  net->inject(Subnet::Request, 0, p);
  Packet out;
  for (int guard = 0; guard < 1000 && !net->eject(Subnet::Request, 3, out); ++guard) net->tick();
  EXPECT_EQ(out.arrived - out.injected, zero_load(r, 4, 1) + 10);
  EXPECT_EQ(out.tags[0], 1u) << "the header words travel unchanged";
  EXPECT_EQ(hook.calls, 8u) << "once per head per router";
}

}  // namespace
}  // namespace warpsim::interconnect
