#pragma once
// interconnect::Network: moves packets between numbered nodes, one network
// clock cycle per tick(), on two subnets (requests and replies).
//
// Implementations are the topologies of the topology registry
// (network_registry.h, one line each in network_registry.def), chosen by the
// name in [interconnect] topology; each has its own configuration section
// [interconnect.<name>]. make_network tells a topology which role each node
// plays (NodeRole), so that it can place cores and memory ports without
// knowing what they are.
//
// Protocol per network cycle, driven by the memory system:
//   1. eject(): senders at the destination pop delivered packets (the
//      consumer decides how many, checking its own room first);
//   2. can_inject()/inject(): sources offer packets; can_inject() false is
//      back-pressure (the source keeps the packet and retries), never a drop;
//   3. tick(): the network advances one cycle.
// A packet injected in cycle t can be ejected at the earliest in cycle
// t + 1 (ideal: t + latency). Where in_order() is true, packets of one
// subnet and (source, destination) pair are delivered in injection order;
// networks with several virtual channels or paths may reorder them.
//
// Statistics per node and subnet (NodeStats) and activity counts per subnet
// (NetworkActivity) are kept here in the base class, so every implementation
// reports the same figures.
#include <cstdint>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "interconnect/network_config.h"
#include "interconnect/packet.h"

namespace warpsim::interconnect {

// What sits at a node. The network moves packets between numbered nodes and
// knows nothing of SMs or caches; a topology may use the roles to place the
// nodes (which router a core or a memory port attaches to).
enum class NodeRole : uint8_t {
  Core,    // a cluster's port, where SMs inject requests
  Memory,  // a memory-side port, such as an L2 slice
};
inline constexpr int kNodeRoles = 2;

struct NodeStats {
  uint64_t packets_injected = 0, flits_injected = 0;
  uint64_t packets_ejected = 0, flits_ejected = 0;
  uint64_t queue_latency = 0;    // sum over ejected packets: injected - created
  uint64_t network_latency = 0;  // sum over ejected packets: tail's arrival - injected
  uint64_t max_latency = 0;      // largest (ejection - created)
  uint64_t blocked_cycles = 0;   // cycles this node had a packet but could not inject (count_blocked)
  uint64_t ejection_latency = 0; // sum over ejected packets: ejection cycle - tail's arrival
  uint64_t hops = 0;             // sum over ejected packets: routers passed
  uint64_t flit_hops = 0;        // sum over ejected packets: flits x routers passed
  uint64_t injection_stalled_cycles = 0;  // cycles the node's interface held a packet and sent no flit
};

// Events of one subnet, counted by the topologies that have the structures
// (the ideal network has none): what an energy model prices.
struct NetworkActivity {
  uint64_t buffer_writes = 0;       // flits written into a buffer (input, virtual-channel or output buffers)
  uint64_t buffer_reads = 0;        // flits read out of a buffer
  uint64_t switch_allocations = 0;  // connections granted by a switch allocator
  uint64_t switch_traversals = 0;   // flits through a switch
  uint64_t link_traversals = 0;     // flits over a link between routers (flit-hops)
  uint64_t stalled_cycles = 0;      // cycles a granted connection moved no flit (downstream full)
  uint64_t vc_allocations = 0;      // output virtual channels granted to packets (routers)
  uint64_t link_flit_um = 0;        // flits x link length in micrometres (wire energy)
};

// A network that cannot go on: a deadlock, or a packet its routing cannot
// deliver. The timing model ends the launch with it as the kernel's fault.
class NetworkError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class Network {
 public:
  // Node i has roles[i]; there is at least one node.
  Network(const NetworkConfig& config, std::span<const NodeRole> roles);
  virtual ~Network() = default;
  Network(const Network&) = delete;
  Network& operator=(const Network&) = delete;

  // Whether `node` can inject a packet of `bytes` into `subnet` this cycle.
  virtual bool can_inject(Subnet subnet, uint32_t node, uint32_t bytes) const = 0;
  // Injects (can_inject must be true). Sets packet.flits and .injected.
  virtual void inject(Subnet subnet, uint32_t node, Packet packet) = 0;
  // Pops the next packet delivered to `node` on `subnet`; false when none.
  virtual bool eject(Subnet subnet, uint32_t node, Packet& out) = 0;
  // Whether a packet is waiting for `node` on `subnet` (eject would succeed).
  virtual bool has_delivery(Subnet subnet, uint32_t node) const = 0;
  // Advances one network cycle.
  virtual void tick() = 0;
  // The earliest cycle >= cycle() at which tick() can move something or a
  // packet becomes ejectable; UINT64_MAX when nothing is in motion (packets
  // may still wait for ejection: has_delivery). Lets the caller skip cycles.
  virtual uint64_t next_event() const = 0;
  // Jumps the cycle counter forward to `cycle` (>= cycle(); callers only skip
  // when next_event() says nothing moves before then).
  virtual void skip_to(uint64_t cycle) = 0;
  // No packet anywhere in the network (buffers and delivery queues).
  virtual bool idle() const = 0;
  // The topology's registered name.
  virtual std::string_view name() const = 0;
  // Whether packets of one subnet and (source, destination) pair always
  // arrive in injection order.
  virtual bool in_order() const { return true; }
  // Whether a packet from node `src` can reach node `dst` (a checkerboard
  // mesh cannot route between some pairs of core nodes).
  virtual bool routable(uint32_t src, uint32_t dst) const {
    (void)src, (void)dst;
    return true;
  }

  uint64_t cycle() const { return cycle_; }
  uint32_t nodes() const { return nodes_; }
  NodeRole role(uint32_t node) const { return roles_[node]; }
  // How many nodes have `role`.
  uint32_t nodes_with(NodeRole role) const { return role_counts_[int(role)]; }
  const NetworkConfig& config() const { return config_; }
  uint32_t flits(uint32_t bytes) const { return (bytes + config_.flit_bytes - 1) / config_.flit_bytes; }

  // The source had a packet ready but could not inject it this cycle.
  void count_blocked(Subnet subnet, uint32_t node) { stats_[int(subnet)][node].blocked_cycles++; }
  const NodeStats& stats(Subnet subnet, uint32_t node) const { return stats_[int(subnet)][node]; }
  const NetworkActivity& activity(Subnet subnet) const { return activity_[int(subnet)]; }
  // Routers (of every plane, plane by plane) and their activity, both
  // subnets together: the per-router inputs of an energy model. None for
  // networks without routers.
  virtual size_t routers() const { return 0; }
  virtual NetworkActivity router_activity(size_t router) const {
    (void)router;
    return {};
  }

 protected:
  // Implementations call these so the statistics stay uniform.
  void record_inject(Subnet subnet, const Packet& p);
  void record_eject(Subnet subnet, const Packet& p);  // at cycle()

  NetworkConfig config_;
  uint32_t nodes_;
  uint64_t cycle_ = 0;
  std::vector<NodeStats> stats_[kSubnets];
  NetworkActivity activity_[kSubnets];  // filled by the implementations

 private:
  std::vector<NodeRole> roles_;
  uint32_t role_counts_[kNodeRoles] = {};
};

// Builds the network named by config.topology over roles.size() nodes, node
// i having roles[i]; every node may send to every node on both subnets.
std::unique_ptr<Network> make_network(const NetworkConfig& config, std::span<const NodeRole> roles);

}  // namespace warpsim::interconnect
