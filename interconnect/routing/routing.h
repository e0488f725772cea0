#pragma once
// Routing functions of the flit-level networks, one file each, chosen by
// name ([interconnect.<topology>] routing) from the registry in
// routings.def. A routing function is built for one plane's fabric and
// answers, for a head flit at a router, which output port it leaves by and
// which virtual-channel class it takes there. It never allocates.
//
// Virtual-channel classes: a routing that needs classes to stay
// deadlock-free (O1Turn's XY and YX halves, a torus's dateline classes, the
// checkerboard's YX and XY phases) says how many; the router splits each
// port's virtual channels evenly between them (after the split between
// requests and replies when they share a plane). docs/interconnect.md
// gives each routing's deadlock argument.
#include <cstdint>
#include <memory>
#include <string>

#include "common/registry.h"
#include "interconnect/packet.h"
#include "interconnect/router/fabric.h"

namespace warpsim::interconnect {

// Returned by Routing::route at the destination router.
inline constexpr uint32_t kEject = UINT32_MAX - 1;

// What a routing keeps per packet (set by start, updated by route).
struct RouteState {
  uint32_t dst = 0;          // destination router
  uint32_t via = kNoPort;    // two-phase routes: the intermediate router, kNoPort once reached or unused
  uint8_t vc_class = 0;      // class of the virtual channel the packet takes at the next router
  bool y_first = false;      // dimension order chosen for this packet (grid routings)
  uint8_t crossed = 0;       // torus: bit 0 / bit 1 once the packet crossed the X / Y ring's dateline
};

class Routing {
 public:
  virtual ~Routing() = default;
  // Virtual-channel classes the routing needs (at least 1).
  virtual uint32_t classes() const { return 1; }
  // Called once per packet before its head enters the first router:
  // `src`/`dst` routers, its subnet, and a per-packet random number for
  // routings that choose at random (deterministic: derived from the packet).
  // Sets state.dst and the class of the injection channel's virtual channel.
  virtual void start(uint32_t src, uint32_t dst, Subnet subnet, uint64_t random, RouteState& state) const;
  // The output port at `router` for a head flit that arrived on input port
  // `in`, or kEject at the destination router; sets state.vc_class for the
  // virtual channel it takes at the next router.
  virtual uint32_t route(uint32_t router, uint32_t in, RouteState& state) const = 0;
  // Whether a packet can go from router `src` to router `dst`.
  virtual bool reaches(uint32_t src, uint32_t dst) const {
    (void)src, (void)dst;
    return true;
  }
};

// A routing's factory: builds it for `fabric` (which outlives it), or sets
// `error` (why it cannot route this fabric) and returns null.
using RoutingFactory = std::unique_ptr<Routing> (*)(const Fabric& fabric, std::string& error);
using RoutingRegistry = Registry<RoutingFactory>;

const RoutingRegistry& routings();

}  // namespace warpsim::interconnect
