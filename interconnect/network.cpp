// The Network base class: node roles, and the per-node, per-subnet statistics
// shared by every topology, so all of them report the same figures.
// Injection counts go to the source node, ejection counts and latencies to
// the destination node.
#include "interconnect/network.h"

#include <algorithm>

#include "common/invariant.h"

namespace warpsim::interconnect {

Network::Network(const NetworkConfig& config, std::span<const NodeRole> roles)
    : config_(config),
      nodes_(static_cast<uint32_t>(roles.size())),
      roles_(roles.begin(), roles.end()) {
  // The config table validates flit_bytes; reaching here with zero is a bug.
  WARPSIM_INVARIANT(config.flit_bytes > 0, "flit_bytes must be at least 1");
  WARPSIM_INVARIANT(nodes_ > 0, "a network has at least one node");
  for (auto& per_node : stats_) per_node.resize(nodes_);
  for (NodeRole r : roles_) role_counts_[int(r)]++;
}

void Network::record_inject(Subnet subnet, const Packet& p) {
  NodeStats& s = stats_[int(subnet)][p.src];
  s.packets_injected++;
  s.flits_injected += p.flits;
}

void Network::record_eject(Subnet subnet, const Packet& p) {
  WARPSIM_INVARIANT(p.created <= p.injected && p.injected <= p.arrived && p.arrived <= cycle_,
                    "packet times must satisfy created <= injected <= arrived <= ejection");
  NodeStats& s = stats_[int(subnet)][p.dst];
  s.packets_ejected++;
  s.flits_ejected += p.flits;
  s.queue_latency += p.injected - p.created;
  s.network_latency += p.arrived - p.injected;
  s.max_latency = std::max(s.max_latency, cycle_ - p.created);
  s.ejection_latency += cycle_ - p.arrived;
  s.hops += p.hops;
  s.flit_hops += uint64_t{p.flits} * p.hops;
}

}  // namespace warpsim::interconnect
