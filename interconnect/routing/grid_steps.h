#pragma once
// Dimension-order steps on a grid fabric (mesh or torus), shared by the
// grid routing functions. Columns grow East, rows grow South (row 0 at the
// top). On a torus a packet takes the shorter way round each ring (East or
// South on a tie) and, with datelines, moves to virtual-channel class 1 when
// it crosses the ring's wrap-around link, back to class 0 on the next ring.
#include <cstdint>

#include "interconnect/router/fabric.h"
#include "interconnect/routing/routing.h"

namespace warpsim::interconnect::grid {

// The direction toward `to` along one dimension from coordinate `from` on
// a ring or line of `n` routers; `positive` is East/South. False when
// aligned.
inline bool direction(uint32_t from, uint32_t to, uint32_t n, bool wraps, bool& positive) {
  if (from == to) return false;
  if (!wraps) {
    positive = to > from;
    return true;
  }
  const uint32_t forward = (to + n - from) % n;
  positive = forward <= n - forward;
  return true;
}

// One hop along X (along_x) or Y toward router `dst`; kNoPort when already
// aligned in that dimension. Updates the dateline bits and the class.
inline uint32_t step(const Fabric& f, uint32_t router, uint32_t dst, bool along_x, RouteState& s) {
  const FabricRouter& here = f.routers[router];
  const FabricRouter& there = f.routers[dst];
  bool positive = false;
  const uint32_t from = along_x ? here.x : here.y, to = along_x ? there.x : there.y;
  const uint32_t n = along_x ? f.columns : f.rows;
  if (!direction(from, to, n, f.wraps, positive)) return kNoPort;
  const PortKind k = along_x ? (positive ? PortKind::East : PortKind::West)
                             : (positive ? PortKind::South : PortKind::North);
  const uint8_t bit = along_x ? 1 : 2;
  if (f.wraps && ((positive && from == n - 1) || (!positive && from == 0))) s.crossed |= bit;
  s.vc_class = f.datelines && (s.crossed & bit) ? 1 : 0;
  return f.port(router, k);
}

// Dimension-order routing: the first dimension until aligned, then the
// other; kEject at `dst`.
inline uint32_t dimension_order(const Fabric& f, uint32_t router, uint32_t dst, bool y_first, RouteState& s) {
  if (router == dst) return kEject;
  const uint32_t first = step(f, router, dst, !y_first, s);
  if (first != kNoPort) return first;
  return step(f, router, dst, y_first, s);
}

// Dateline classes a dimension-order routing needs on `f`.
inline uint32_t dateline_classes(const Fabric& f) { return f.wraps && f.datelines ? 2 : 1; }

}  // namespace warpsim::interconnect::grid
