// The `ideal` network (see ideal_network.h): fixed latency, no contention.
#include "interconnect/ideal_network.h"

#include <memory>

#include "common/invariant.h"

namespace warpsim::interconnect {

const config::Table<IdealConfig>& ideal_config_table() {
  static const config::Table<IdealConfig> table = [] {
    config::Table<IdealConfig> t(
        "The `ideal` topology: every packet arrives a fixed latency after injection, with "
        "unlimited bandwidth and buffering");
    // At least 1: a packet injected in cycle t is ejectable from t + 1 at
    // the earliest (interconnect/network.h).
    t.integer("latency", &IdealConfig::latency, "cycles", "injection to ejection").range(1, 10000);
    return t;
  }();
  return table;
}

IdealNetwork::IdealNetwork(const NetworkConfig& config, std::span<const NodeRole> roles)
    : Network(config, roles), latency_(config.topologies.get<IdealConfig>("ideal").latency) {
  WARPSIM_INVARIANT(latency_ >= 1, "the ideal network needs latency >= 1");
  for (auto& per_node : deliveries_) per_node.resize(nodes_);
}

bool IdealNetwork::can_inject(Subnet, uint32_t node, uint32_t bytes) const {
  WARPSIM_INVARIANT(node < nodes_ && bytes > 0, "can_inject: node in range, packet not empty");
  return true;
}

void IdealNetwork::inject(Subnet subnet, uint32_t node, Packet packet) {
  WARPSIM_INVARIANT(node == packet.src && packet.src < nodes_ && packet.dst < nodes_,
                    "inject: the packet's source is the injecting node; both nodes in range");
  WARPSIM_INVARIANT(packet.bytes > 0, "inject: a packet has at least one byte");
  packet.flits = flits(packet.bytes);
  packet.injected = cycle_;
  packet.arrived = cycle_ + latency_;
  packet.hops = 0;
  record_inject(subnet, packet);
  deliveries_[int(subnet)][packet.dst].push(packet);
  const uint64_t arrival = cycle_ + latency_;
  if (arrivals_.empty() || arrivals_.back() != arrival) arrivals_.push(arrival);
  ++in_network_;
}

bool IdealNetwork::has_delivery(Subnet subnet, uint32_t node) const {
  const RingQueue<Packet>& q = deliveries_[int(subnet)][node];
  return !q.empty() && q.front().injected + latency_ <= cycle_;
}

bool IdealNetwork::eject(Subnet subnet, uint32_t node, Packet& out) {
  if (!has_delivery(subnet, node)) return false;
  RingQueue<Packet>& q = deliveries_[int(subnet)][node];
  out = q.front();
  q.pop();
  --in_network_;
  record_eject(subnet, out);
  return true;
}

void IdealNetwork::drop_past_arrivals() {
  while (!arrivals_.empty() && arrivals_.front() < cycle_) arrivals_.pop();
}

void IdealNetwork::tick() {
  ++cycle_;
  drop_past_arrivals();
}

uint64_t IdealNetwork::next_event() const {
  return arrivals_.empty() ? UINT64_MAX : arrivals_.front();
}

void IdealNetwork::skip_to(uint64_t cycle) {
  WARPSIM_INVARIANT(cycle >= cycle_ && next_event() >= cycle,
                    "skip_to: only forward, and not past next_event()");
  cycle_ = cycle;
  drop_past_arrivals();
}

std::unique_ptr<Network> make_ideal_network(const NetworkConfig& config,
                                            std::span<const NodeRole> roles) {
  return std::make_unique<IdealNetwork>(config, roles);
}

}  // namespace warpsim::interconnect
