#pragma once
// The wiring of a router-level network: routers with numbered input and
// output ports, the channel behind every output port, and where each node
// injects and ejects. Topologies build fabrics (interconnect/topologies/);
// the routed network (routed_network.h) runs them; routing functions
// (interconnect/routing/) read them; the area model prices them. A fabric
// is data only: no behaviour, no timing state.
//
// One fabric is one physical network (a "plane"). A network with request
// and reply traffic on separate physical networks, or sliced into two
// narrower networks, has several planes (RoutedLayout).
#include <cstdint>
#include <string>
#include <vector>

namespace warpsim::interconnect {

inline constexpr uint32_t kNoPort = UINT32_MAX;

// What a port connects to. Grid routers number their network ports East,
// West, North, South (0..3) and their terminal ports after them; other
// fabrics (butterflies, one big switch) use Other for router-to-router ports.
enum class PortKind : uint8_t { East = 0, West = 1, North = 2, South = 3, Terminal = 4, Other = 5 };

// The channel behind one output port.
struct FabricChannel {
  uint32_t router = kNoPort;  // downstream router; kNoPort: an ejection channel to `node`
  uint32_t port = kNoPort;    // the downstream router's input port
  uint32_t node = kNoPort;    // ejection channels: the node it delivers to
  uint32_t latency = 1;       // cycles on the wire
  double length_mm = 0;       // wire length, for the area and energy models
};

struct FabricRouter {
  std::vector<PortKind> inputs;    // per input port
  std::vector<PortKind> outputs;   // per output port
  std::vector<FabricChannel> out;  // per output port: where it leads
  std::vector<uint32_t> in_node;   // per input port: the injecting node, kNoPort for a network input
  // A half router (Bakhoda, PhD thesis, UBC 2014, sec. 5.1) connects East
  // with West and North with South only: a packet cannot turn in it. Its
  // terminal input reaches every output and every input reaches its
  // terminal outputs.
  bool half = false;
  uint32_t x = 0, y = 0;  // grid column and row (row 0 at the top); butterflies: index and stage

  // Whether the router's switch connects input `in` to output `out`.
  bool connects(uint32_t in, uint32_t out) const {
    if (!half) return true;
    const PortKind a = inputs[in], b = outputs[out];
    if (a == PortKind::Terminal || b == PortKind::Terminal) return true;
    const auto axis = [](PortKind k) { return k == PortKind::East || k == PortKind::West ? 0 : 1; };
    return a != b && axis(a) == axis(b);
  }
};

// Where a node attaches: a router and one of its ports.
struct Attachment {
  uint32_t router = kNoPort;
  uint32_t port = kNoPort;
};

struct Fabric {
  std::vector<FabricRouter> routers;
  // Per node: the router input ports it injects into and the router output
  // ports that deliver to it (several with multi-port attachments; none in
  // a plane the node does not use).
  std::vector<std::vector<Attachment>> inject, eject;
  // Grid geometry for the grid routing functions; zero for other fabrics.
  uint32_t columns = 0, rows = 0;
  bool wraps = false;      // torus: every row and column is a ring
  bool datelines = false;  // torus: dateline virtual-channel classes on the rings

  bool is_grid() const { return columns != 0; }
  bool has_half_routers() const {
    for (const FabricRouter& r : routers)
      if (r.half) return true;
    return false;
  }
  // The router a node ejects at (its first ejection port's router).
  uint32_t router_of(uint32_t node) const { return eject[node].front().router; }
  // The output port of grid router `r` toward direction `k`; kNoPort if none.
  uint32_t port(uint32_t r, PortKind k) const {
    const auto& o = routers[r].outputs;
    for (uint32_t p = 0; p < o.size(); ++p)
      if (o[p] == k) return p;
    return kNoPort;
  }
};

}  // namespace warpsim::interconnect
