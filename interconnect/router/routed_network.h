#pragma once
// The flit-level network: input-queued virtual-channel routers with
// credit-based flow control and wormhole switching, wired as a topology's
// fabric (fabric.h) and routed by a routing function (routing/routing.h).
// Every flit-level topology (mesh, torus, cmesh, checkerboard, dci,
// butterfly) is this network with its own layout (routed_layout.h).
//
// Router pipeline (per head flit, BookSim 2's input-queued router: Jiang et
// al., ISPASS 2013), for a flit written into an input buffer at cycle a:
//   route computation   ready at a + routing_delay
//   VC allocation       at cycle v >= that; the output VC is held from v
//   switch allocation   at cycle s >= v + vc_alloc_delay (speculative: s = v
//                       is allowed, and the stage then takes
//                       max(vc_alloc_delay, sw_alloc_delay))
//   the flit leaves the buffer at s + sw_alloc_delay - 1, crosses the
//   switch and the link and is written into the next buffer at
//   s + sw_alloc_delay + st_delay + link_latency.
// Body flits follow through switch allocation alone (a virtual channel bids
// again sw_alloc_delay cycles after its last grant, as in BookSim, so a
// packet's flits leave one per sw_alloc_delay cycles). A credit goes back as
// a flit leaves a buffer: usable upstream at s + sw_alloc_delay +
// link_latency + credit_delay (a router), one cycle later at a node's
// network interface. The zero-load latency of a packet of F flits crossing
// H routers is
//     H * (t_router + link_latency) + 1 + 2 * terminal_latency - link_latency + (F - 1) * sw_alloc_delay
// with t_router = routing_delay + vc_alloc_delay + sw_alloc_delay + st_delay
// (speculative: max of the two allocation delays), plus credit stalls when
// F exceeds vc_buffer_flits. docs/interconnect.md draws the diagram.
//
// Network interfaces: each node has a source queue per subnet
// (injection_queue_flits; can_inject() is false when a packet does not
// fit) feeding its injection ports one flit per port per cycle, and a
// delivery queue per subnet (ejection_queue_packets): a head flit is
// granted an ejection channel only with a place reserved there, so a
// receiver that stops ejecting back-pressures the network without
// deadlocking it.
//
// Cost: per cycle, proportional to the routers that hold flits and the
// nodes with packets to send; flits and credits in flight wait in a
// calendar of future cycles. Nothing is allocated per packet once the
// packet pool and the calendar have grown. Results are deterministic:
// routers are visited in a fixed order, and within a cycle a router changes
// only its own state, what it sends (arriving in a later cycle) and, at an
// ejection port, its node's delivery reservations (shared by a node's
// routers in several planes, plane 0 first).
//
// A deadlock (flits in routers, none moving for deadlock_cycles) throws
// NetworkDeadlock with a dump of the blocked virtual channels.
#include <cstdint>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "interconnect/allocators/allocator.h"
#include "interconnect/network.h"
#include "interconnect/ring_queue.h"
#include "interconnect/router/routed_layout.h"
#include "interconnect/routing/routing.h"

namespace warpsim::interconnect {

class NetworkDeadlock : public NetworkError {
 public:
  using NetworkError::NetworkError;
};

// A mechanism in the routers' pipeline (row-aware holding of requests, for
// example): told of every head flit that reaches the front of an input
// virtual channel, it may hold the packet there before route computation.
// A held packet keeps its buffer slots (back-pressure upstream) and its
// virtual channel; holding counts as "no flit moved" for the deadlock
// detector, so holds must end well before deadlock_cycles.
class RouterHook {
 public:
  virtual ~RouterHook() = default;
  // The head of `packet` is at the front of input port `in` of router
  // `router` of plane `plane` in `cycle`; returns the first cycle its route
  // computation may start (`cycle` or earlier: no hold).
  virtual uint64_t head_ready(uint32_t plane, uint32_t router, uint32_t in, const Packet& packet,
                              uint64_t cycle) = 0;
};

class RoutedNetwork final : public Network {
 public:
  RoutedNetwork(const NetworkConfig& config, std::span<const NodeRole> roles, RoutedLayout layout,
                std::string_view name);
  ~RoutedNetwork() override;

  bool can_inject(Subnet subnet, uint32_t node, uint32_t bytes) const override;
  void inject(Subnet subnet, uint32_t node, Packet packet) override;
  bool eject(Subnet subnet, uint32_t node, Packet& out) override;
  bool has_delivery(Subnet subnet, uint32_t node) const override;
  void tick() override;
  uint64_t next_event() const override;
  void skip_to(uint64_t cycle) override;
  bool idle() const override { return in_network_ == 0; }
  std::string_view name() const override { return name_; }
  bool in_order() const override { return false; }
  bool routable(uint32_t src, uint32_t dst) const override;

  const RoutedLayout& layout() const { return layout_; }
  // With the network idle: "" when every credit is home (each output VC and
  // each injection port holds its buffer's full depth), no virtual channel
  // is held and no delivery place is reserved; else what is not.
  std::string unreturned() const;
  // Installs `hook` (owned by the caller, outliving the network; null: none).
  void set_hook(RouterHook* hook) { hook_ = hook; }
  size_t routers() const override;
  NetworkActivity router_activity(size_t router) const override;
  // Flits that crossed each output channel of each router of `plane`,
  // indexed like the plane's output ports (router by router).
  std::span<const uint64_t> channel_flits(uint32_t plane) const;

 private:
  struct Plane;
  struct Calendar;
  struct NodeInterface;

  void deliver_events();
  void step_router(Plane& p, uint32_t r);
  uint64_t next_wake(const Plane& p, uint32_t r) const;
  void route_heads(Plane& p, uint32_t r);
  void allocate_vcs(Plane& p, uint32_t r);
  void allocate_switch(Plane& p, uint32_t r);
  void send_flit(Plane& p, uint32_t r, uint32_t in_port, uint32_t vc, uint32_t stage);
  void send_from_nodes();
  bool send_from_port(uint32_t port_id);
  uint32_t choose_plane(Subnet subnet, uint32_t src, uint32_t dst);
  uint32_t choose_port(uint32_t node, uint32_t plane, uint32_t packet, uint64_t random);
  void check_deadlock();
  // When a head that reaches the front of an input VC at `cycle` may be routed.
  uint64_t head_start(Plane& p, uint32_t router, uint32_t in_port, uint32_t packet, uint64_t cycle);
  std::string dump_blocked() const;

  RoutedLayout layout_;
  std::string name_;
  std::vector<std::unique_ptr<Plane>> planes_;
  std::unique_ptr<NodeInterface> nis_;
  std::unique_ptr<Calendar> calendar_;
  uint64_t in_network_ = 0;  // accepted, not yet ejected
  uint64_t in_routers_ = 0;  // flits in router buffers
  uint64_t last_move_ = 0;   // last cycle a flit moved
  RouterHook* hook_ = nullptr;
  bool router_moved_ = false;  // the router being stepped routed, allocated or sent something

  // Allocation scratch, reused by every router every cycle.
  std::vector<AllocatorRequest> requests_;
  std::vector<uint32_t> grants_, request_vcs_;
  std::vector<uint64_t> in_used_, out_used_;  // per router port: stamp_ when granted this round
  uint64_t stamp_ = 0;
  size_t max_ports_ = 0;
};

}  // namespace warpsim::interconnect
