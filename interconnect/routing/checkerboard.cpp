// `checkerboard` and `checkerboard-2phase`: routing on a checkerboard mesh,
// whose half routers (router (x, y) with x + y odd) cannot turn a packet
// (Bakhoda, PhD thesis, UBC 2014, sec. 5.2). Dimension-order XY turns at
// (dst.x, src.y), YX at (src.x, dst.y); the choice keeps every turn on a
// full router:
//   - source and destination in one row or column: straight, no turn (XY);
//   - full source, even column distance: XY;
//   - full source, half destination, odd column distance: YX (case 1);
//   - half source, odd column distance: XY;
//   - half source, full destination, even column distance: YX (case 3;
//     `checkerboard-2phase` routes it in two phases, as case 2);
//   - half source, half destination, even column distance: two phases (case
//     2), YX to a full router I inside the minimal quadrant, not in the
//     source's row and an even number of columns from it (chosen at random
//     per packet), then XY to the destination.
//   - full source, full destination, odd column distance: no minimal or
//     non-minimal route exists (every path would turn at a half router);
//     placements put every memory node on a half router so that the GPU's
//     traffic never needs one, and such a packet stops the simulation.
// Deadlock freedom as O1Turn's: XY packets use virtual-channel class 0 and
// YX packets class 1; a two-phase packet moves from class 1 to class 0 at
// I, in that direction only, so the class dependency graph has no cycle.
#include <cstdlib>
#include <memory>
#include <stdexcept>
#include <string>

#include <fmt/format.h>

#include "interconnect/network.h"
#include "interconnect/routing/grid_steps.h"

namespace warpsim::interconnect {
namespace {

class Checkerboard final : public Routing {
 public:
  Checkerboard(const Fabric& f, bool case3_two_phase) : fabric_(f), case3_two_phase_(case3_two_phase) {}
  uint32_t classes() const override { return 2; }

  void start(uint32_t src, uint32_t dst, Subnet, uint64_t random, RouteState& s) const override {
    s = RouteState{};
    s.dst = dst;
    const FabricRouter& a = fabric_.routers[src];
    const FabricRouter& b = fabric_.routers[dst];
    const uint32_t dx = a.x > b.x ? a.x - b.x : b.x - a.x;
    const bool straight = a.x == b.x || a.y == b.y;
    const bool even = dx % 2 == 0;
    if (straight || (!a.half && even) || (a.half && !even)) {
      s.y_first = false;
    } else if (!a.half) {
      if (!b.half)
        throw NetworkError(fmt::format(
            "checkerboard routing: no route from full router ({},{}) to full router ({},{}), an odd number "
            "of columns apart (every path would turn at a half router); place such nodes on half routers",
            a.x, a.y, b.x, b.y));
      s.y_first = true;  // case 1
    } else if (!b.half && !case3_two_phase_) {
      s.y_first = true;  // case 3
    } else {
      s.via = intermediate(a, b, random);  // case 2
      s.y_first = true;
    }
    s.vc_class = s.y_first ? 1 : 0;
  }

  bool reaches(uint32_t src, uint32_t dst) const override {
    const FabricRouter& a = fabric_.routers[src];
    const FabricRouter& b = fabric_.routers[dst];
    const bool straight = a.x == b.x || a.y == b.y;
    const uint32_t dx = a.x > b.x ? a.x - b.x : b.x - a.x;
    return straight || a.half || b.half || dx % 2 == 0;
  }

  uint32_t route(uint32_t router, uint32_t, RouteState& s) const override {
    if (s.via == router) {
      s.via = kNoPort;
      s.y_first = false;
    }
    // At the intermediate router `via` was cleared above, so only the
    // destination yields kEject.
    const uint32_t target = s.via != kNoPort ? s.via : s.dst;
    const uint32_t port = grid::dimension_order(fabric_, router, target, s.y_first, s);
    s.vc_class = s.y_first ? 1 : 0;
    return port;
  }

 private:
  // A full router in the minimal quadrant of a -> b, not in a's row, an even
  // number of columns from a; the `random`-th of them.
  uint32_t intermediate(const FabricRouter& a, const FabricRouter& b, uint64_t random) const {
    const uint32_t x0 = std::min(a.x, b.x), x1 = std::max(a.x, b.x);
    const uint32_t y0 = std::min(a.y, b.y), y1 = std::max(a.y, b.y);
    const auto ok = [&](uint32_t x, uint32_t y) {
      return y != a.y && (x + a.x) % 2 == 0 && (x + y) % 2 == 0;
    };
    uint32_t count = 0;
    for (uint32_t y = y0; y <= y1; ++y)
      for (uint32_t x = x0; x <= x1; ++x) count += ok(x, y);
    // The column of a, one row toward b, always qualifies (the rows differ
    // by at least two in case 2), so count >= 1.
    uint32_t pick = static_cast<uint32_t>((random >> 8) % count);
    for (uint32_t y = y0; y <= y1; ++y)
      for (uint32_t x = x0; x <= x1; ++x)
        if (ok(x, y) && pick-- == 0) return y * fabric_.columns + x;
    return kNoPort;  // unreachable
  }

  const Fabric& fabric_;
  bool case3_two_phase_;
};

std::unique_ptr<Routing> make(const Fabric& fabric, bool two_phase, std::string& error) {
  if (!fabric.is_grid() || fabric.wraps) {
    error = "checkerboard routing needs a checkerboard mesh";
    return nullptr;
  }
  return std::make_unique<Checkerboard>(fabric, two_phase);
}

}  // namespace

std::unique_ptr<Routing> make_checkerboard_routing(const Fabric& fabric, std::string& error) {
  return make(fabric, false, error);
}
std::unique_ptr<Routing> make_checkerboard_2phase_routing(const Fabric& fabric, std::string& error) {
  return make(fabric, true, error);
}

}  // namespace warpsim::interconnect
