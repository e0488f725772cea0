// The flit-level network (see routed_network.h for the model and its timing).
//
// One tick: deliver the flits and credits due this cycle (the calendar),
// step every router that holds flits (route heads, allocate virtual
// channels, allocate the switch and send the granted flits), then let the
// nodes' network interfaces send one flit per injection port.
#include "interconnect/router/routed_network.h"

#include <algorithm>
#include <cmath>
#include <bit>

#include <fmt/format.h>

#include "common/invariant.h"

namespace warpsim::interconnect {
namespace {

constexpr uint32_t kNone = UINT32_MAX;

enum class VcState : uint8_t { Idle, Routing, VcAlloc, Active };

struct Flit {
  uint32_t packet = kNone;
  bool head = false, tail = false;
  uint64_t arrival = 0;  // cycle it was written into the buffer
};

struct InputVc {
  uint32_t head = 0, count = 0;  // ring of flits in Plane::flits
  VcState state = VcState::Idle;
  bool speculative = false;      // granted a VC this cycle; may bid for the switch now
  uint32_t out_port = kNone;     // route: output port (router-local)
  uint32_t alt_port = kNone;     // a second ejection port of the same node, kNone if none
  uint32_t vc_lo = 0, vc_hi = 0; // allowed output VCs [lo, hi)
  uint32_t out_vc = kNone;       // granted output VC (router-local: port * vcs + vc)
  uint64_t ready = 0;            // first cycle the next stage may run
};

struct OutputVc {
  uint32_t owner = kNone;  // router-local input VC holding it
  uint32_t credits = 0;
};

struct RouterState {
  uint32_t in_base = 0, out_base = 0;  // first plane-wide input / output port
  uint32_t inputs = 0, outputs = 0;
  uint32_t buffered = 0;               // flits in its input buffers
  uint32_t routing = 0, allocating = 0;  // input VCs waiting for route computation / for a VC
  // The next cycle the router can act: after a cycle in which nothing moved,
  // its earliest timed stage; an event (a flit or credit arriving, a place
  // freed in a delivery queue) wakes it sooner.
  uint64_t wake = 0;
  uint32_t active_at = kNone;          // index in Plane::active
  std::unique_ptr<Allocator> vc_allocator, sw_allocator;
  std::vector<uint32_t> next_vc;       // per input port: round-robin start among its VCs
};

// Who feeds an input port: an output port of another router (plane-wide
// index) or a node's injection port (NodeInterface::ports index).
struct Upstream {
  bool from_node = false;
  uint32_t index = kNone;
};

enum class EventKind : uint8_t { FlitToRouter, FlitToNode, CreditToRouter, CreditToNode };

struct Event {
  EventKind kind;
  uint8_t plane;
  uint32_t target;  // plane-wide input VC, node, plane-wide output VC, or node port
  uint32_t vc;      // CreditToNode: the VC
  Flit flit;
};

}  // namespace

struct RoutedNetwork::Plane {
  uint8_t index = 0;
  Fabric fabric;
  std::unique_ptr<Routing> routing;
  uint32_t routing_classes = 1;
  std::vector<RouterState> routers;
  std::vector<InputVc> ivcs;           // plane-wide input port * vcs + vc
  std::vector<Flit> flits;             // ivc * depth + slot
  std::vector<OutputVc> ovcs;          // plane-wide output port * vcs + vc
  std::vector<Upstream> upstream;      // per plane-wide input port
  std::vector<uint32_t> port_router;   // per plane-wide input port: its router
  std::vector<uint32_t> out_latency;   // per plane-wide output port: its channel's latency
  std::vector<uint32_t> out_router;    // per plane-wide output port: its router
  std::vector<uint32_t> eject_node;    // per plane-wide output port: the node, or kNone
  std::vector<uint64_t> channel_flits; // per plane-wide output port
  std::vector<NetworkActivity> activity;  // per router
  std::vector<uint32_t> active;        // routers holding flits
};

// Flits and credits in flight, by the cycle they arrive: a ring of
// per-cycle lists longer than the longest delay.
struct RoutedNetwork::Calendar {
  std::vector<std::vector<Event>> slots;
  uint64_t pending = 0;
  void push(uint64_t now, uint64_t at, const Event& e) {
    WARPSIM_INVARIANT(at > now && at - now < slots.size(), "calendar: an event lies in a later cycle");
    slots[at & (slots.size() - 1)].push_back(e);
    ++pending;
  }
};

struct RoutedNetwork::NodeInterface {
  struct InFlight {
    Packet packet;
    RouteState route;
    Subnet subnet = Subnet::Request;
    uint8_t plane = 0;
    uint32_t protocol = 0;  // protocol class (0, or the subnet when planes carry both)
    uint32_t next_free = kNone;
  };
  struct Port {
    uint32_t node = 0;
    uint8_t plane = 0;
    uint32_t router = 0, port = 0;  // router and its local input port
    uint32_t plane_port = 0;        // plane-wide input port
    uint32_t packet = kNone;        // in transmission
    uint32_t vc = 0, sent = 0;
    std::vector<uint32_t> credits;  // per VC
    std::vector<uint8_t> busy;      // per VC: a packet from this port holds it until its tail leaves
    uint32_t next_queue = 0;        // round-robin between its subnets' queues
    uint32_t last_output = kNone;   // the first router's output the last packet given to it takes
  };
  struct Queue {
    RingQueue<uint32_t> packets;
    uint32_t flits = 0;
  };

  std::vector<InFlight> pool;
  uint32_t free = kNone;
  std::vector<Port> ports;
  std::vector<std::vector<uint32_t>> node_ports;   // per node: its ports (all planes)
  std::vector<std::vector<uint32_t>> plane_ports;  // per (node, plane): its ports there
  std::vector<uint32_t> next_port;                 // per (node, plane): round-robin choice
  // Source queues per (port, subnet); flits accounted per (node, subnet).
  std::vector<Queue> queues;
  std::vector<uint32_t> queued_flits;  // per (node, subnet)
  std::vector<RingQueue<uint32_t>> deliveries;  // per (node, subnet): arrived packets
  std::vector<uint32_t> reserved;               // per (node, subnet): places taken in deliveries
  std::vector<uint32_t> pending;                // per node: packets queued
  std::vector<uint32_t> active;                 // nodes with queued packets
  std::vector<uint32_t> active_at;              // per node
  std::vector<int32_t> balance;                 // per node: DCIE up/down counter
  std::vector<uint32_t> alternate;              // per node: combined double network's next plane

  uint32_t allocate() {
    if (free == kNone) {
      pool.emplace_back();
      return static_cast<uint32_t>(pool.size() - 1);
    }
    const uint32_t id = free;
    free = pool[id].next_free;
    return id;
  }
  void release(uint32_t id) {
    pool[id].next_free = free;
    free = id;
  }
};

RoutedNetwork::~RoutedNetwork() = default;

RoutedNetwork::RoutedNetwork(const NetworkConfig& config, std::span<const NodeRole> roles, RoutedLayout layout,
                             std::string_view name)
    : Network(config, roles),
      layout_(std::move(layout)),
      name_(name),
      nis_(std::make_unique<NodeInterface>()),
      calendar_(std::make_unique<Calendar>()) {
  const RouterConfig& rc = layout_.router;
  const uint32_t vcs = rc.vcs, depth = rc.vc_buffer_flits;
  WARPSIM_INVARIANT(!layout_.planes.empty() && layout_.planes.size() < 256, "a routed network has 1..255 planes");
  for (uint32_t pi = 0; pi < layout_.planes.size(); ++pi) {
    auto p = std::make_unique<Plane>();
    p->index = static_cast<uint8_t>(pi);
    p->fabric = layout_.planes[pi];
    std::string error;
    p->routing = routings().make(layout_.routing, p->fabric, error);
    WARPSIM_INVARIANT(p->routing != nullptr, "routed_layout() checked the routing");
    p->routing_classes = p->routing->classes();
    const Fabric& f = p->fabric;
    uint32_t in_ports = 0, out_ports = 0;
    p->routers.resize(f.routers.size());
    for (uint32_t r = 0; r < f.routers.size(); ++r) {
      RouterState& s = p->routers[r];
      s.in_base = in_ports;
      s.out_base = out_ports;
      s.inputs = static_cast<uint32_t>(f.routers[r].inputs.size());
      s.outputs = static_cast<uint32_t>(f.routers[r].outputs.size());
      in_ports += s.inputs;
      out_ports += s.outputs;
      s.vc_allocator = allocators().make(rc.vc_allocator,
                                         AllocatorConfig{s.inputs * vcs, s.outputs * vcs, rc.alloc_iterations});
      s.sw_allocator =
          allocators().make(rc.sw_allocator, AllocatorConfig{s.inputs, s.outputs, rc.alloc_iterations});
      s.next_vc.assign(s.inputs, 0);
      max_ports_ = std::max<size_t>(max_ports_, std::max(s.inputs, s.outputs));
    }
    p->ivcs.resize(size_t{in_ports} * vcs);
    p->flits.resize(p->ivcs.size() * depth);
    p->ovcs.resize(size_t{out_ports} * vcs);
    p->upstream.resize(in_ports);
    p->port_router.resize(in_ports);
    for (uint32_t r = 0; r < f.routers.size(); ++r)
      for (uint32_t i = 0; i < p->routers[r].inputs; ++i) p->port_router[p->routers[r].in_base + i] = r;

    p->eject_node.assign(out_ports, kNone);
    p->out_latency.assign(out_ports, 0);
    p->out_router.assign(out_ports, 0);
    p->channel_flits.assign(out_ports, 0);
    p->activity.resize(f.routers.size());
    for (uint32_t r = 0; r < f.routers.size(); ++r) {
      const RouterState& s = p->routers[r];
      for (uint32_t o = 0; o < s.outputs; ++o) {
        const FabricChannel& ch = f.routers[r].out[o];
        const uint32_t out = s.out_base + o;
        p->out_latency[out] = ch.latency;
        p->out_router[out] = r;
        for (uint32_t v = 0; v < vcs; ++v) p->ovcs[size_t(out) * vcs + v].credits = ch.router == kNoPort ? UINT32_MAX : depth;
        if (ch.router == kNoPort) {
          p->eject_node[out] = ch.node;
        } else {
          p->upstream[p->routers[ch.router].in_base + ch.port] = Upstream{false, out};
        }
      }
    }
    planes_.push_back(std::move(p));
  }
  // Network interfaces: a port per injection attachment.
  NodeInterface& ni = *nis_;
  ni.node_ports.resize(nodes_);
  ni.plane_ports.resize(size_t{nodes_} * planes_.size());
  ni.next_port.assign(size_t{nodes_} * planes_.size(), 0);
  for (uint32_t pi = 0; pi < planes_.size(); ++pi) {
    Plane& p = *planes_[pi];
    for (uint32_t n = 0; n < nodes_ && n < p.fabric.inject.size(); ++n)
      for (const Attachment& a : p.fabric.inject[n]) {
        NodeInterface::Port port;
        port.node = n;
        port.plane = static_cast<uint8_t>(pi);
        port.router = a.router;
        port.port = a.port;
        port.plane_port = p.routers[a.router].in_base + a.port;
        port.credits.assign(vcs, depth);
        port.busy.assign(vcs, 0);
        p.upstream[port.plane_port] = Upstream{true, static_cast<uint32_t>(ni.ports.size())};
        ni.node_ports[n].push_back(static_cast<uint32_t>(ni.ports.size()));
        ni.plane_ports[size_t(n) * planes_.size() + pi].push_back(static_cast<uint32_t>(ni.ports.size()));
        ni.ports.push_back(std::move(port));
      }
  }
  ni.queues.resize(ni.ports.size() * kSubnets);
  ni.queued_flits.assign(size_t{nodes_} * kSubnets, 0);
  ni.deliveries.resize(size_t{nodes_} * kSubnets);
  ni.reserved.assign(size_t{nodes_} * kSubnets, 0);
  ni.pending.assign(nodes_, 0);
  ni.active_at.assign(nodes_, kNone);
  ni.balance.assign(nodes_, 0);
  ni.alternate.assign(nodes_, 0);
  // The calendar spans the longest delay of a flit or a credit.
  uint32_t channel = std::max(rc.link_latency, rc.terminal_latency);
  for (const auto& p : planes_)
    for (uint32_t latency : p->out_latency) channel = std::max(channel, latency);
  const uint32_t alloc = std::max(rc.vc_alloc_delay, rc.sw_alloc_delay);
  const uint32_t longest = alloc + rc.st_delay + channel + rc.credit_delay + 2;
  calendar_->slots.resize(std::bit_ceil(longest + 1));
  in_used_.assign(max_ports_, 0);
  out_used_.assign(max_ports_, 0);
}

bool RoutedNetwork::routable(uint32_t src, uint32_t dst) const {
  for (const auto& p : planes_)
    if (!p->fabric.inject[src].empty() && !p->fabric.eject[dst].empty() &&
        p->routing->reaches(p->fabric.inject[src].front().router, p->fabric.router_of(dst)))
      return true;
  return false;
}

size_t RoutedNetwork::routers() const {
  size_t n = 0;
  for (const auto& p : planes_) n += p->routers.size();
  return n;
}

NetworkActivity RoutedNetwork::router_activity(size_t router) const {
  for (const auto& p : planes_) {
    if (router < p->routers.size()) return p->activity[router];
    router -= p->routers.size();
  }
  return {};
}

std::span<const uint64_t> RoutedNetwork::channel_flits(uint32_t plane) const {
  return planes_[plane]->channel_flits;
}

// ---------------------------------------------------------------------------
// Nodes: injection and ejection.

bool RoutedNetwork::can_inject(Subnet subnet, uint32_t node, uint32_t bytes) const {
  WARPSIM_INVARIANT(node < nodes_ && bytes > 0, "can_inject: node in range, packet not empty");
  const uint32_t used = nis_->queued_flits[size_t(node) * kSubnets + int(subnet)];
  return used == 0 || used + flits(bytes) <= layout_.router.injection_queue_flits;
}

uint32_t RoutedNetwork::choose_plane(Subnet subnet, uint32_t src, uint32_t dst) {
  NodeInterface& ni = *nis_;
  switch (layout_.policy) {
    case PlanePolicy::BySubnet:
      return static_cast<uint32_t>(subnet);
    case PlanePolicy::Single:
      return 0;
    case PlanePolicy::Alternate: {
      const uint32_t plane = ni.alternate[src];
      ni.alternate[src] = (plane + 1) % planes_.size();
      return plane;
    }
    case PlanePolicy::ColumnParity:
    case PlanePolicy::Balanced: {
      // Plane 0 is the checkerboard, plane 1 the inverted one; a node sits
      // on a full router in exactly one of them. An even column distance
      // (0 included) goes to that one, an odd distance to the other, so no
      // packet turns at a half router under XY (Bakhoda, PhD thesis, UBC
      // 2014, sec. 5.5). With CDR, replies go YX and use the row distance.
      const Fabric& f0 = planes_[0]->fabric;
      const FabricRouter& a = f0.routers[f0.inject[src].front().router];
      const FabricRouter& b = f0.routers[f0.router_of(dst)];
      const bool yx = layout_.routing == "cdr" && subnet == Subnet::Reply;
      const uint32_t distance = yx ? (a.y > b.y ? a.y - b.y : b.y - a.y) : (a.x > b.x ? a.x - b.x : b.x - a.x);
      const uint32_t full_plane = a.half ? 1 : 0;
      uint32_t plane = distance % 2 == 0 ? full_plane : 1 - full_plane;
      // DCIE (sec. 5.6.1): a packet that never turns may use either plane;
      // an up/down counter keeps the two balanced.
      if (layout_.policy == PlanePolicy::Balanced && (a.x == b.x || a.y == b.y))
        plane = ni.balance[src] > 0 ? 0 : 1;
      if (layout_.policy == PlanePolicy::Balanced) ni.balance[src] += plane == 1 ? 1 : -1;
      return plane;
    }
  }
  return 0;
}

void RoutedNetwork::inject(Subnet subnet, uint32_t node, Packet packet) {
  WARPSIM_INVARIANT(node == packet.src && packet.src < nodes_ && packet.dst < nodes_,
                    "inject: the packet's source is the injecting node; both nodes in range");
  WARPSIM_INVARIANT(can_inject(subnet, node, packet.bytes), "inject without room (check can_inject)");
  NodeInterface& ni = *nis_;
  packet.flits = flits(packet.bytes);
  packet.injected = cycle_;
  packet.hops = 0;
  const uint32_t plane = choose_plane(subnet, node, packet.dst);
  const uint32_t id = ni.allocate();
  NodeInterface::InFlight& f = ni.pool[id];
  f.packet = packet;
  f.subnet = subnet;
  f.plane = static_cast<uint8_t>(plane);
  f.protocol = layout_.protocol_classes == 2 ? static_cast<uint32_t>(subnet) : 0;
  Plane& p = *planes_[plane];
  WARPSIM_INVARIANT(!p.fabric.inject[node].empty() && !p.fabric.eject[packet.dst].empty(),
                    "both nodes are attached to the packet's plane");
  // A per-packet random number for routings that choose at random:
  // derived from the packet, so runs are deterministic.
  uint64_t random = (uint64_t{node} << 40) ^ (uint64_t{packet.dst} << 20) ^ cycle_ ^ (uint64_t{id} << 52);
  random = (random ^ (random >> 31)) * 0x9e3779b97f4a7c15ULL;
  random ^= random >> 29;
  p.routing->start(p.fabric.inject[node].front().router, p.fabric.router_of(packet.dst), subnet, random, f.route);
  NodeInterface::Queue& q = ni.queues[size_t(choose_port(node, plane, id, random)) * kSubnets + int(subnet)];
  q.packets.push(id);
  q.flits += packet.flits;
  ni.queued_flits[size_t(node) * kSubnets + int(subnet)] += packet.flits;
  if (ni.pending[node]++ == 0) {
    ni.active_at[node] = static_cast<uint32_t>(ni.active.size());
    ni.active.push_back(node);
  }
  ++in_network_;
  record_inject(subnet, f.packet);
}

uint32_t RoutedNetwork::choose_port(uint32_t node, uint32_t plane, uint32_t packet, uint64_t random) {
  NodeInterface& ni = *nis_;
  const std::vector<uint32_t>& ports = ni.plane_ports[size_t(node) * planes_.size() + plane];
  WARPSIM_INVARIANT(!ports.empty(), "the node has a port on the packet's plane");
  if (ports.size() == 1) return ports[0];
  const uint32_t n = static_cast<uint32_t>(ports.size());
  if (layout_.router.port_policy == PortPolicy::RoundRobin) {
    uint32_t& next = ni.next_port[size_t(node) * planes_.size() + plane];
    const uint32_t port = ports[next];
    next = next + 1 == n ? 0 : next + 1;
    return port;
  }
  // Smart (Bakhoda 2014, sec. 5.3.1): from a random port, the first that is
  // empty or whose last packet took the same output of the first router
  // (so packets in one port's queue head the same way), else the last tried.
  Plane& p = *planes_[plane];
  const NodeInterface::InFlight& f = ni.pool[packet];
  uint32_t chosen = kNone;
  uint32_t output = kNone;
  for (uint32_t k = 0, i = static_cast<uint32_t>((random >> 40) % n); k < n; ++k, i = i + 1 == n ? 0 : i + 1) {
    NodeInterface::Port& port = ni.ports[ports[i]];
    if (output == kNone) {
      RouteState probe = f.route;  // route() may update the state: ask a copy
      output = p.routing->route(port.router, port.port, probe);
    }
    chosen = ports[i];
    bool empty = port.packet == kNone;
    for (int s = 0; s < kSubnets && empty; ++s) empty = ni.queues[size_t(ports[i]) * kSubnets + s].packets.empty();
    if (empty || port.last_output == output) break;
  }
  ni.ports[chosen].last_output = output;
  return chosen;
}

bool RoutedNetwork::has_delivery(Subnet subnet, uint32_t node) const {
  return !nis_->deliveries[size_t(node) * kSubnets + int(subnet)].empty();
}

bool RoutedNetwork::eject(Subnet subnet, uint32_t node, Packet& out) {
  NodeInterface& ni = *nis_;
  const size_t k = size_t(node) * kSubnets + int(subnet);
  if (ni.deliveries[k].empty()) return false;
  const uint32_t id = ni.deliveries[k].front();
  ni.deliveries[k].pop();
  ni.reserved[k]--;
  // A head waiting for a place in this queue may now be granted one.
  for (auto& p : planes_)
    for (const Attachment& a : p->fabric.eject[node]) p->routers[a.router].wake = 0;
  out = ni.pool[id].packet;
  ni.release(id);
  --in_network_;
  record_eject(subnet, out);
  return true;
}

// Sends the next flit of port `port_id`'s packet, starting one if it has
// none; true if a flit left.
bool RoutedNetwork::send_from_port(uint32_t port_id) {
  NodeInterface& ni = *nis_;
  NodeInterface::Port& port = ni.ports[port_id];
  Plane& p = *planes_[port.plane];
  const uint32_t vcs = layout_.router.vcs;
  if (port.packet == kNone) {
    // Take the head of one of this port's queues, round-robin between the
    // subnets.
    for (uint32_t k = 0; k < kSubnets && port.packet == kNone; ++k) {
      const uint32_t s = (port.next_queue + k) % kSubnets;
      NodeInterface::Queue& q = ni.queues[size_t(port_id) * kSubnets + s];
      if (q.packets.empty()) continue;
      const NodeInterface::InFlight& f = ni.pool[q.packets.front()];
      // A free virtual channel of the packet's class with a credit.
      const uint32_t group = vcs / (layout_.protocol_classes * p.routing_classes);
      const uint32_t lo = (f.protocol * p.routing_classes + f.route.vc_class) * group;
      for (uint32_t v = lo; v < lo + group; ++v) {
        if (port.busy[v] || port.credits[v] == 0) continue;
        port.packet = q.packets.front();
        q.packets.pop();
        q.flits -= f.packet.flits;
        ni.queued_flits[size_t(port.node) * kSubnets + s] -= f.packet.flits;
        port.vc = v;
        port.sent = 0;
        port.busy[v] = 1;
        port.next_queue = (s + 1) % kSubnets;
        break;
      }
    }
    if (port.packet == kNone) return false;
  }
  if (port.credits[port.vc] == 0) return false;
  const NodeInterface::InFlight& f = ni.pool[port.packet];
  Flit flit;
  flit.packet = port.packet;
  flit.head = port.sent == 0;
  flit.tail = port.sent + 1 == f.packet.flits;
  port.credits[port.vc]--;
  port.sent++;
  const uint64_t at = cycle_ + 1 + layout_.router.terminal_latency;
  calendar_->push(cycle_, at,
                  Event{EventKind::FlitToRouter, port.plane, port.plane_port * vcs + port.vc, 0, flit});
  if (flit.tail) {
    port.busy[port.vc] = 0;
    port.packet = kNone;
    if (--ni.pending[port.node] == 0) {
      const uint32_t last = ni.active.back();
      ni.active[ni.active_at[port.node]] = last;
      ni.active_at[last] = ni.active_at[port.node];
      ni.active.pop_back();
      ni.active_at[port.node] = kNone;
    }
  }
  last_move_ = cycle_;
  return true;
}

void RoutedNetwork::send_from_nodes() {
  NodeInterface& ni = *nis_;
  // Iterate over a snapshot's length: nodes that finish are swapped out.
  for (size_t i = 0; i < ni.active.size();) {
    const uint32_t node = ni.active[i];
    bool sent = false;
    for (uint32_t port : ni.node_ports[node]) sent |= send_from_port(port);
    if (!sent) {
      // Queued but nothing could leave: the node is blocked this cycle.
      for (int s = 0; s < kSubnets; ++s)
        if (ni.queued_flits[size_t(node) * kSubnets + s] != 0) stats_[s][node].injection_stalled_cycles++;
    }
    if (i < ni.active.size() && ni.active[i] == node) ++i;
  }
}

// ---------------------------------------------------------------------------
// Routers.

void RoutedNetwork::route_heads(Plane& p, uint32_t r) {
  const RouterState& s = p.routers[r];
  const uint32_t vcs = layout_.router.vcs;
  const uint32_t group = vcs / (layout_.protocol_classes * p.routing_classes);
  for (uint32_t iv = s.in_base * vcs; iv < (s.in_base + s.inputs) * vcs; ++iv) {
    InputVc& vc = p.ivcs[iv];
    if (vc.state != VcState::Routing || vc.ready > cycle_) continue;
    const Flit& flit = p.flits[iv * layout_.router.vc_buffer_flits + vc.head];
    NodeInterface::InFlight& f = nis_->pool[flit.packet];
    const uint32_t in_port = iv / vcs - s.in_base;
    uint32_t out = p.routing->route(r, in_port, f.route);
    vc.alt_port = kNone;
    if (out == kEject) {
      // The destination's ejection ports at this router (two with a
      // multi-port attachment).
      out = kNone;
      for (const Attachment& a : p.fabric.eject[f.packet.dst]) {
        if (a.router != r) continue;
        if (out == kNone) out = a.port;
        else if (vc.alt_port == kNone) vc.alt_port = a.port;
      }
      WARPSIM_INVARIANT(out != kNone, "routing ejects at the destination's router");
    }
    if (!p.fabric.routers[r].connects(in_port, out))
      throw NetworkError(fmt::format(
          "{}: routing {} turns a packet from node {} to node {} at half router ({},{}), which cannot turn",
          name_, layout_.routing, f.packet.src, f.packet.dst, p.fabric.routers[r].x, p.fabric.routers[r].y));
    vc.out_port = out;
    vc.vc_lo = (f.protocol * p.routing_classes + f.route.vc_class) * group;
    vc.vc_hi = vc.vc_lo + group;
    vc.state = VcState::VcAlloc;
    router_moved_ = true;
    p.routers[r].routing--;
    p.routers[r].allocating++;
  }
}

void RoutedNetwork::allocate_vcs(Plane& p, uint32_t r) {
  RouterState& s = p.routers[r];
  const uint32_t vcs = layout_.router.vcs;
  NodeInterface& ni = *nis_;
  requests_.clear();
  for (uint32_t iv = s.in_base * vcs; iv < (s.in_base + s.inputs) * vcs; ++iv) {
    const InputVc& vc = p.ivcs[iv];
    if (vc.state != VcState::VcAlloc || vc.ready > cycle_) continue;
    const uint32_t local_in = iv - s.in_base * vcs;
    for (uint32_t port : {vc.out_port, vc.alt_port}) {
      if (port == kNone) continue;
      const uint32_t out = s.out_base + port;
      if (p.eject_node[out] != kNone) {
        // An ejection channel needs a place in the delivery queue.
        const Flit& flit = p.flits[iv * layout_.router.vc_buffer_flits + vc.head];
        const size_t k = size_t(p.eject_node[out]) * kSubnets + int(ni.pool[flit.packet].subnet);
        if (ni.reserved[k] >= layout_.router.ejection_queue_packets) continue;
      }
      for (uint32_t v = vc.vc_lo; v < vc.vc_hi; ++v)
        if (p.ovcs[size_t(out) * vcs + v].owner == kNone) requests_.push_back({local_in, port * vcs + v});
    }
  }
  if (requests_.empty()) return;
  s.vc_allocator->allocate(requests_, cycle_, grants_);
  for (uint32_t g : grants_) {
    const uint32_t local_in = requests_[g].input, local_out = requests_[g].output;
    InputVc& vc = p.ivcs[s.in_base * vcs + local_in];
    const uint32_t out = s.out_base + local_out / vcs;
    if (p.eject_node[out] != kNone) {
      // Two grants of one node's two ejection ports in one cycle must not
      // overrun its delivery queue.
      const Flit& flit = p.flits[(s.in_base * vcs + local_in) * layout_.router.vc_buffer_flits + vc.head];
      const size_t k = size_t(p.eject_node[out]) * kSubnets + int(ni.pool[flit.packet].subnet);
      if (ni.reserved[k] >= layout_.router.ejection_queue_packets) continue;
      ni.reserved[k]++;
    }
    p.ovcs[size_t(s.out_base) * vcs + local_out].owner = local_in;
    vc.out_vc = local_out;
    vc.out_port = local_out / vcs;
    vc.state = VcState::Active;
    s.allocating--;
    router_moved_ = true;
    vc.ready = cycle_ + layout_.router.vc_alloc_delay;
    vc.speculative = layout_.router.speculative;
    p.activity[r].vc_allocations++;
    const Flit& head = p.flits[(s.in_base * vcs + local_in) * layout_.router.vc_buffer_flits + vc.head];
    activity_[int(ni.pool[head.packet].subnet)].vc_allocations++;
  }
}

void RoutedNetwork::allocate_switch(Plane& p, uint32_t r) {
  RouterState& s = p.routers[r];
  const uint32_t vcs = layout_.router.vcs;
  // Two rounds: virtual channels that hold their output VC bid first; heads
  // granted a VC this cycle (speculative) bid for what is left.
  for (int round = 0; round < (layout_.router.speculative ? 2 : 1); ++round) {
    requests_.clear();
    request_vcs_.clear();
    for (uint32_t in = 0; in < s.inputs; ++in) {
      if (in_used_[in] == stamp_) continue;
      const size_t first = requests_.size();
      const uint32_t base = (s.in_base + in) * vcs;
      // Round-robin from next_vc (no division: this loop is the router's hottest).
      for (uint32_t k = 0, v = s.next_vc[in]; k < vcs; ++k, v = v + 1 == vcs ? 0 : v + 1) {
        const InputVc& vc = p.ivcs[base + v];
        if (vc.state != VcState::Active || vc.count == 0) continue;
        const bool spec = vc.speculative && vc.ready > cycle_;
        if (spec != (round == 1) || (!spec && vc.ready > cycle_)) continue;
        const uint32_t out = vc.out_port;
        if (out_used_[out] == stamp_) continue;
        if (p.ovcs[size_t(s.out_base) * vcs + vc.out_vc].credits == 0) continue;
        // One bid per (input, output) pair: the first VC in round-robin order.
        bool seen = false;
        for (size_t q = first; q < requests_.size(); ++q) seen |= requests_[q].output == out;
        if (seen) continue;
        requests_.push_back({in, out});
        request_vcs_.push_back(v);
      }
    }
    if (requests_.empty()) continue;
    s.sw_allocator->allocate(requests_, cycle_, grants_);
    for (uint32_t g : grants_) {
      const uint32_t in = requests_[g].input;
      in_used_[in] = stamp_;
      out_used_[requests_[g].output] = stamp_;
      s.next_vc[in] = request_vcs_[g] + 1 == vcs ? 0 : request_vcs_[g] + 1;
      router_moved_ = true;
      send_flit(p, r, in, request_vcs_[g], round == 1 ? std::max(layout_.router.vc_alloc_delay,
                                                                 layout_.router.sw_alloc_delay)
                                                      : layout_.router.sw_alloc_delay);
    }
  }
}

// Moves the front flit of (input port `in`, VC `v`) of router `r` through
// the switch; `stage` is the allocation stage's delay (the switch
// allocation's, or the longer of the two when speculative).
void RoutedNetwork::send_flit(Plane& p, uint32_t r, uint32_t in, uint32_t v, uint32_t stage) {
  RouterState& s = p.routers[r];
  const RouterConfig& rc = layout_.router;
  const uint32_t vcs = rc.vcs, depth = rc.vc_buffer_flits;
  const uint32_t iv = (s.in_base + in) * vcs + v;
  InputVc& vc = p.ivcs[iv];
  const Flit flit = p.flits[size_t(iv) * depth + vc.head];
  vc.head = (vc.head + 1) % depth;
  vc.count--;
  s.buffered--;
  --in_routers_;
  NodeInterface::InFlight& f = nis_->pool[flit.packet];
  NetworkActivity& a = p.activity[r];
  NetworkActivity& subnet = activity_[int(f.subnet)];
  a.buffer_reads++, subnet.buffer_reads++;
  a.switch_traversals++, subnet.switch_traversals++;
  a.switch_allocations++, subnet.switch_allocations++;
  if (flit.head) f.packet.hops++;
  // The credit for the freed slot goes upstream.
  const Upstream& up = p.upstream[s.in_base + in];
  const uint64_t leave = cycle_ + stage - 1;
  if (up.from_node) {
    calendar_->push(cycle_, leave + 1 + rc.terminal_latency + rc.credit_delay + 1,
                    Event{EventKind::CreditToNode, p.index, up.index, v, Flit{}});
  } else {
    calendar_->push(cycle_, leave + 1 + p.out_latency[up.index] + rc.credit_delay,
                    Event{EventKind::CreditToRouter, p.index, up.index * vcs + v, 0, Flit{}});
  }
  // Down the output.
  const uint32_t out = s.out_base + vc.out_port;
  OutputVc& ovc = p.ovcs[size_t(s.out_base) * vcs + vc.out_vc];
  if (ovc.credits != UINT32_MAX) ovc.credits--;
  p.channel_flits[out]++;
  const FabricChannel& ch = p.fabric.routers[r].out[vc.out_port];
  const uint8_t plane_index = p.index;
  if (ch.router == kNoPort) {
    calendar_->push(cycle_, leave + 1 + rc.st_delay + rc.terminal_latency,
                    Event{EventKind::FlitToNode, plane_index, ch.node, 0, flit});
  } else {
    a.link_traversals++, subnet.link_traversals++;
    const auto um = static_cast<uint64_t>(std::llround(ch.length_mm * 1000.0));
    a.link_flit_um += um, subnet.link_flit_um += um;
    const uint32_t next_iv = (p.routers[ch.router].in_base + ch.port) * vcs + vc.out_vc % vcs;
    calendar_->push(cycle_, leave + 1 + rc.st_delay + ch.latency,
                    Event{EventKind::FlitToRouter, plane_index, next_iv, 0, flit});
  }
  if (flit.tail) {
    ovc.owner = kNone;
    vc.out_vc = kNone;
    if (vc.count == 0) {
      vc.state = VcState::Idle;
    } else {
      const Flit& next = p.flits[size_t(iv) * depth + vc.head];
      WARPSIM_INVARIANT(next.head, "a tail is followed by a head");
      vc.state = VcState::Routing;
      s.routing++;
      vc.ready = head_start(p, r, in, next.packet, std::max(next.arrival, cycle_ + stage)) + rc.routing_delay;
    }
  } else {
    vc.ready = cycle_ + stage;
  }
  vc.speculative = false;
  last_move_ = cycle_;
}

uint64_t RoutedNetwork::head_start(Plane& p, uint32_t router, uint32_t in_port, uint32_t packet, uint64_t cycle) {
  if (!hook_) return cycle;
  return std::max(cycle, hook_->head_ready(p.index, router, in_port, nis_->pool[packet].packet, cycle));
}

void RoutedNetwork::step_router(Plane& p, uint32_t r) {
  RouterState& s = p.routers[r];
  router_moved_ = false;
  // Most cycles most virtual channels stream body flits or wait for
  // credits: skip the stages no channel is in.
  if (s.routing != 0) route_heads(p, r);
  if (s.allocating != 0) allocate_vcs(p, r);
  ++stamp_;
  allocate_switch(p, r);
  s.wake = router_moved_ ? cycle_ + 1 : next_wake(p, r);
}

// After a cycle in which router `r` moved nothing: the earliest cycle one of
// its virtual channels reaches a timed stage. Channels that wait for
// something else (a credit, an output VC, a place in a delivery queue) are
// woken by that event (wake_router). Skipping the cycles in between changes
// nothing: with no request, no allocator runs and no pointer moves.
uint64_t RoutedNetwork::next_wake(const Plane& p, uint32_t r) const {
  const RouterState& s = p.routers[r];
  const uint32_t vcs = layout_.router.vcs;
  uint64_t wake = UINT64_MAX;
  for (uint32_t iv = s.in_base * vcs; iv < (s.in_base + s.inputs) * vcs; ++iv) {
    const InputVc& vc = p.ivcs[iv];
    if (vc.count == 0 || vc.ready <= cycle_) continue;
    // A speculative head may bid again in the next cycle.
    wake = std::min(wake, vc.state == VcState::Active && vc.speculative ? cycle_ + 1 : vc.ready);
  }
  return wake;
}

// ---------------------------------------------------------------------------
// The calendar.

void RoutedNetwork::deliver_events() {
  std::vector<Event>& due = calendar_->slots[cycle_ & (calendar_->slots.size() - 1)];
  if (due.empty()) return;
  const RouterConfig& rc = layout_.router;
  const uint32_t vcs = rc.vcs, depth = rc.vc_buffer_flits;
  NodeInterface& ni = *nis_;
  for (const Event& e : due) {
    switch (e.kind) {
      case EventKind::FlitToRouter: {
        Plane& p = *planes_[e.plane];
        InputVc& vc = p.ivcs[e.target];
        WARPSIM_INVARIANT(vc.count < depth, "credit flow control keeps buffers from overflowing");
        Flit flit = e.flit;
        flit.arrival = cycle_;
        p.flits[size_t(e.target) * depth + (vc.head + vc.count) % depth] = flit;
        vc.count++;
        const uint32_t r = p.port_router[e.target / vcs];
        p.routers[r].wake = 0;
        if (vc.state == VcState::Idle) {
          WARPSIM_INVARIANT(flit.head, "a flit into an idle virtual channel is a head");
          vc.state = VcState::Routing;
          p.routers[r].routing++;
          vc.ready = head_start(p, r, e.target / vcs - p.routers[r].in_base, flit.packet, cycle_) + rc.routing_delay;
        }
        RouterState& s = p.routers[r];
        if (s.buffered++ == 0) {
          s.active_at = static_cast<uint32_t>(p.active.size());
          p.active.push_back(r);
        }
        ++in_routers_;
        NodeInterface::InFlight& f = ni.pool[flit.packet];
        p.activity[r].buffer_writes++;
        activity_[int(f.subnet)].buffer_writes++;
        break;
      }
      case EventKind::FlitToNode: {
        if (!e.flit.tail) break;
        NodeInterface::InFlight& f = ni.pool[e.flit.packet];
        f.packet.arrived = cycle_;
        ni.deliveries[size_t(e.target) * kSubnets + int(f.subnet)].push(e.flit.packet);
        break;
      }
      case EventKind::CreditToRouter: {
        Plane& p = *planes_[e.plane];
        p.ovcs[e.target].credits++;
        p.routers[p.out_router[e.target / vcs]].wake = 0;
        break;
      }
      case EventKind::CreditToNode:
        ni.ports[e.target].credits[e.vc]++;
        break;
    }
  }
  calendar_->pending -= due.size();
  due.clear();
}

void RoutedNetwork::tick() {
  deliver_events();
  for (auto& pp : planes_) {
    Plane& p = *pp;
    // Routers may leave the active list while it is walked.
    for (size_t i = 0; i < p.active.size();) {
      const uint32_t r = p.active[i];
      RouterState& s = p.routers[r];
      if (s.wake > cycle_) {
        ++i;
        continue;
      }
      step_router(p, r);
      if (s.buffered == 0) {
        const uint32_t last = p.active.back();
        p.active[s.active_at] = last;
        p.routers[last].active_at = s.active_at;
        p.active.pop_back();
        s.active_at = kNone;
      } else {
        ++i;
      }
    }
  }
  send_from_nodes();
  if (in_routers_ != 0 && cycle_ - last_move_ > layout_.router.deadlock_cycles) check_deadlock();
  ++cycle_;
}

uint64_t RoutedNetwork::next_event() const {
  if (in_routers_ != 0 || !nis_->active.empty()) return cycle_;
  if (calendar_->pending == 0) return UINT64_MAX;
  for (uint64_t c = cycle_;; ++c)
    if (!calendar_->slots[c & (calendar_->slots.size() - 1)].empty()) return c;
}

void RoutedNetwork::skip_to(uint64_t cycle) {
  WARPSIM_INVARIANT(cycle >= cycle_ && next_event() >= cycle, "skip_to: only forward, and not past next_event()");
  if (cycle != cycle_) last_move_ = cycle - 1;
  cycle_ = cycle;
}

std::string RoutedNetwork::unreturned() const {
  const uint32_t vcs = layout_.router.vcs, depth = layout_.router.vc_buffer_flits;
  std::string out;
  for (const auto& pp : planes_) {
    const Plane& p = *pp;
    for (size_t o = 0; o < p.ovcs.size(); ++o) {
      const OutputVc& v = p.ovcs[o];
      // Ejection channels (and a butterfly's unused terminal outputs) have no credits.
      const bool ejection = v.credits == UINT32_MAX;
      if (v.owner != kNone || (!ejection && v.credits != depth))
        out += fmt::format("plane {} router {} output {} VC {}: {} credits of {}{}\n", p.index,
                           p.out_router[o / vcs], o / vcs - p.routers[p.out_router[o / vcs]].out_base, o % vcs,
                           v.credits, depth, v.owner != kNone ? ", still held" : "");
    }
  }
  for (const NodeInterface::Port& port : nis_->ports)
    for (uint32_t v = 0; v < vcs; ++v)
      if (port.credits[v] != depth || port.busy[v])
        out += fmt::format("node {} port on plane {} VC {}: {} credits of {}\n", port.node, port.plane, v,
                           port.credits[v], depth);
  for (size_t k = 0; k < nis_->reserved.size(); ++k)
    if (nis_->reserved[k] != 0) out += fmt::format("node {}: {} delivery places reserved\n", k / kSubnets, nis_->reserved[k]);
  return out;
}

// ---------------------------------------------------------------------------
// Deadlock reports.

void RoutedNetwork::check_deadlock() { throw NetworkDeadlock(dump_blocked()); }

std::string RoutedNetwork::dump_blocked() const {
  const uint32_t vcs = layout_.router.vcs;
  std::string out = fmt::format(
      "{}: deadlock: {} flits in the routers and none moved for {} cycles (cycle {}); blocked virtual "
      "channels (plane router (x,y) input.vc: flits, state, wants output):\n",
      name_, in_routers_, layout_.router.deadlock_cycles, cycle_);
  size_t shown = 0;
  for (size_t pi = 0; pi < planes_.size(); ++pi) {
    const Plane& p = *planes_[pi];
    for (uint32_t r = 0; r < p.routers.size(); ++r) {
      const RouterState& s = p.routers[r];
      for (uint32_t in = 0; in < s.inputs; ++in)
        for (uint32_t v = 0; v < vcs; ++v) {
          const InputVc& vc = p.ivcs[(s.in_base + in) * vcs + v];
          if (vc.count == 0) continue;
          if (++shown > 64) continue;
          const char* state = vc.state == VcState::Routing   ? "routing"
                              : vc.state == VcState::VcAlloc ? "waiting for a VC"
                              : vc.state == VcState::Active  ? "waiting for credit"
                                                             : "idle";
          out += fmt::format("  plane {} router {} ({},{}) in {}.{}: {} flits, {}, output {}\n", pi, r,
                             p.fabric.routers[r].x, p.fabric.routers[r].y, in, v, vc.count, state,
                             vc.out_port == kNone ? -1 : int64_t(vc.out_port));
        }
    }
  }
  if (shown > 64) out += fmt::format("  ... and {} more\n", shown - 64);
  return out;
}

}  // namespace warpsim::interconnect
