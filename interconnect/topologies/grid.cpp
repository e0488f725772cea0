// The grid builder and the grid section's table (see grid.h).
#include "interconnect/topologies/grid.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "interconnect/routing/routing.h"
#include "interconnect/topologies/placement.h"

namespace warpsim::interconnect {

config::Table<GridConfig> grid_config_table(std::string description, GridConfig defaults) {
  using T = GridConfig;
  config::Table<T> t(std::move(description), std::move(defaults));
  t.integer("columns", &T::columns, "routers", "grid width (0 with rows = 0: the smallest near-square grid)")
      .range(0, 256);
  t.integer("rows", &T::rows, "routers", "grid height (0 with columns = 0: chosen with columns)").range(0, 256);
  t.integer("concentration", &T::concentration, "nodes", "nodes per router").range(1, 16);
  t.string("routing", &T::routing, "routing function (see docs/interconnect.md)").one_of(routings());
  std::string patterns;
  for (const std::string& p : placement_patterns()) patterns += (patterns.empty() ? "" : ", ") + p;
  t.string("placement", &T::placement, "where the memory nodes (L2 slices) sit: " + patterns)
      .check(patterns, [](const config::Value& v) -> std::string {
        const auto& names = placement_patterns();
        const std::string& s = std::get<std::string>(v);
        return std::find(names.begin(), names.end(), s) != names.end() ? "" : "unknown placement '" + s + "'";
      });
  t.string("memory_routers", &T::memory_routers,
           "placement \"list\": the memory nodes' routers (y * columns + x), comma-separated, in node order");
  t.integer("memory_ports", &T::memory_ports, "ports",
            "injection and ejection ports of each memory node at its router (2: multi-port memory routers)")
      .range(1, 4);
  t.integer("slices", &T::slices, "planes",
            "1, or 2 for a combined double network: two planes of the grid, both carrying requests and "
            "replies, a node alternating between them")
      .range(1, 2);
  t.real("tile_mm", &T::tile_mm, "mm", "router pitch: the length of each link (area and energy)")
      .range(0.001, 100.0);
  t.boolean("datelines", &T::datelines, "torus: dateline virtual-channel classes on each ring (off: may deadlock)");
  return t;
}

namespace {

bool half_at(GridKind kind, uint32_t plane, uint32_t x, uint32_t y) {
  if (kind == GridKind::Checkerboard) return (x + y) % 2 == 1;
  if (kind == GridKind::DoubleCheckerboard) return (x + y) % 2 == (plane == 0 ? 1u : 0u);
  return false;
}

// One plane: routers, links, and the nodes' terminal ports at `node_router`.
Fabric build_plane(const GridConfig& g, GridKind kind, uint32_t plane, uint32_t cols, uint32_t rows,
                   uint32_t link_latency, std::span<const NodeRole> roles,
                   const std::vector<uint32_t>& node_router) {
  Fabric f;
  f.columns = cols;
  f.rows = rows;
  f.wraps = kind == GridKind::Torus;
  f.datelines = f.wraps && g.datelines;
  f.routers.resize(size_t{cols} * rows);
  const uint32_t n = cols * rows;
  // Neighbour of (x, y) toward direction d, or kNoPort.
  auto neighbour = [&](uint32_t x, uint32_t y, PortKind d) -> uint32_t {
    int nx = int(x), ny = int(y);
    if (d == PortKind::East) ++nx;
    if (d == PortKind::West) --nx;
    if (d == PortKind::North) --ny;
    if (d == PortKind::South) ++ny;
    if (f.wraps) {
      if (cols == 1 && (d == PortKind::East || d == PortKind::West)) return kNoPort;
      if (rows == 1 && (d == PortKind::North || d == PortKind::South)) return kNoPort;
      nx = (nx + int(cols)) % int(cols);
      ny = (ny + int(rows)) % int(rows);
    }
    if (nx < 0 || ny < 0 || nx >= int(cols) || ny >= int(rows)) return kNoPort;
    // A 2-wide torus ring: East and West lead to the same router; keep one.
    if (f.wraps && cols == 2 && d == PortKind::West) return kNoPort;
    if (f.wraps && rows == 2 && d == PortKind::North) return kNoPort;
    return uint32_t(ny) * cols + uint32_t(nx);
  };
  constexpr PortKind dirs[] = {PortKind::East, PortKind::West, PortKind::North, PortKind::South};
  for (uint32_t r = 0; r < n; ++r) {
    FabricRouter& fr = f.routers[r];
    fr.x = r % cols;
    fr.y = r / cols;
    fr.half = half_at(kind, plane, fr.x, fr.y);
    for (PortKind d : dirs)
      if (neighbour(fr.x, fr.y, d) != kNoPort) {
        fr.inputs.push_back(d);
        fr.outputs.push_back(d);
        fr.in_node.push_back(kNoPort);
        fr.out.push_back({});
      }
  }
  // Wire the network ports: the output toward d feeds the neighbour's input
  // from the opposite side.
  auto opposite = [](PortKind d) {
    switch (d) {
      case PortKind::East: return PortKind::West;
      case PortKind::West: return PortKind::East;
      case PortKind::North: return PortKind::South;
      default: return PortKind::North;
    }
  };
  for (uint32_t r = 0; r < n; ++r) {
    FabricRouter& fr = f.routers[r];
    for (uint32_t o = 0; o < fr.outputs.size(); ++o) {
      const uint32_t to = neighbour(fr.x, fr.y, fr.outputs[o]);
      const FabricRouter& tr = f.routers[to];
      uint32_t in = kNoPort;
      for (uint32_t i = 0; i < tr.inputs.size(); ++i)
        if (tr.inputs[i] == opposite(fr.outputs[o])) in = i;
      // 2-wide torus rings keep one port per dimension: it pairs with itself.
      if (in == kNoPort)
        for (uint32_t i = 0; i < tr.inputs.size(); ++i)
          if (tr.inputs[i] == fr.outputs[o]) in = i;
      fr.out[o] = FabricChannel{to, in, kNoPort, link_latency, g.tile_mm};
    }
  }
  // Terminal ports.
  f.inject.resize(roles.size());
  f.eject.resize(roles.size());
  for (uint32_t node = 0; node < roles.size(); ++node) {
    const uint32_t r = node_router[node];
    FabricRouter& fr = f.routers[r];
    const uint32_t ports = roles[node] == NodeRole::Memory ? g.memory_ports : 1;
    for (uint32_t k = 0; k < ports; ++k) {
      f.inject[node].push_back({r, static_cast<uint32_t>(fr.inputs.size())});
      fr.inputs.push_back(PortKind::Terminal);
      fr.in_node.push_back(node);
      f.eject[node].push_back({r, static_cast<uint32_t>(fr.outputs.size())});
      fr.outputs.push_back(PortKind::Terminal);
      // Injection and ejection channels are 0.05 mm (Bakhoda's thesis, sec. 6.8).
      fr.out.push_back(FabricChannel{kNoPort, kNoPort, node, 0, 0.05});
    }
  }
  return f;
}

}  // namespace

std::optional<RoutedLayout> grid_layout(const NetworkConfig& config, std::span<const NodeRole> roles,
                                        const GridConfig& g, GridKind kind, PlanePolicy double_policy,
                                        std::string& error) {
  const std::string section = "interconnect." + config.topology;
  const uint32_t nodes = static_cast<uint32_t>(roles.size());
  uint32_t memory = 0;
  for (NodeRole r : roles) memory += r == NodeRole::Memory;
  uint32_t cols = g.columns, rows = g.rows;
  if ((cols == 0) != (rows == 0)) {
    error = section + ": set both columns and rows, or neither";
    return std::nullopt;
  }
  if (cols == 0) {
    const uint32_t routers = (nodes + g.concentration - 1) / g.concentration;
    cols = std::max<uint32_t>(1, static_cast<uint32_t>(std::ceil(std::sqrt(double(routers)))));
    rows = (routers + cols - 1) / cols;
  }
  if (uint64_t{cols} * rows * g.concentration < nodes) {
    error = fmt::format("{}: a {}x{} grid with {} node(s) per router has {} places, but the GPU has {} network "
                        "nodes ({} cluster ports and {} L2 slices)",
                        section, cols, rows, g.concentration, cols * rows * g.concentration, nodes, nodes - memory,
                        memory);
    return std::nullopt;
  }
  if (kind == GridKind::DoubleCheckerboard && g.slices != 1) {
    error = section + ": slices: the double checkerboard is two planes already; leave slices = 1";
    return std::nullopt;
  }
  if ((kind == GridKind::Checkerboard || kind == GridKind::DoubleCheckerboard) && g.concentration != 1) {
    error = section + ": checkerboard grids take one node per router (concentration = 1)";
    return std::nullopt;
  }
  // Placement: memory nodes by the pattern, cores in the remaining slots.
  GridPlacementRequest request{cols, rows, g.concentration, memory, g.placement, g.memory_routers};
  std::string why;
  const std::vector<uint32_t> memory_routers = place_memory_nodes(request, why);
  if (!why.empty()) {
    error = section + ": " + why;
    return std::nullopt;
  }
  std::vector<uint32_t> used(size_t{cols} * rows, 0);
  for (uint32_t r : memory_routers) used[r]++;
  std::vector<uint32_t> node_router(nodes);
  uint32_t next_memory = 0, slot = 0;
  for (uint32_t node = 0; node < nodes; ++node) {
    if (roles[node] == NodeRole::Memory) {
      node_router[node] = memory_routers[next_memory++];
      continue;
    }
    while (used[slot] >= g.concentration) ++slot;
    node_router[node] = slot;
    used[slot]++;
  }
  if (kind == GridKind::Checkerboard)
    for (uint32_t node = 0; node < nodes; ++node)
      if (roles[node] == NodeRole::Memory && (node_router[node] % cols + node_router[node] / cols) % 2 == 0) {
        error = fmt::format(
            "{}: memory node {} sits at full router ({},{}); in a checkerboard mesh every memory node must sit "
            "at a half router (x + y odd) so that every core can reach it (use placement \"checkerboard\" or a "
            "list of half routers)",
            section, node, node_router[node] % cols, node_router[node] / cols);
        return std::nullopt;
      }
  const uint32_t latency = config.router.link_latency;
  RoutedLayout layout =
      single_fabric_layout(config, build_plane(g, kind, 0, cols, rows, latency, roles, node_router), g.routing);
  if (kind == GridKind::DoubleCheckerboard || g.slices == 2) {
    // Two planes, both carrying requests and replies on separate virtual
    // channels: the inverted checkerboard, or a second copy of the grid.
    Fabric second = kind == GridKind::DoubleCheckerboard
                        ? build_plane(g, kind, 1, cols, rows, latency, roles, node_router)
                        : layout.planes.front();
    layout.planes = {layout.planes.front(), std::move(second)};
    layout.policy = kind == GridKind::DoubleCheckerboard ? double_policy : PlanePolicy::Alternate;
    layout.protocol_classes = 2;
  }
  if (kind == GridKind::DoubleCheckerboard && g.routing != "xy" && g.routing != "cdr") {
    error = section + ": the double checkerboard picks each packet's plane for xy or cdr routing; set routing to one of them";
    return std::nullopt;
  }
  if (kind != GridKind::Checkerboard && g.routing.rfind("checkerboard", 0) == 0) {
    error = section + ": checkerboard routing needs the checkerboard topology";
    return std::nullopt;
  }
  if (kind == GridKind::Checkerboard && g.routing.rfind("checkerboard", 0) != 0) {
    error = section + ": a checkerboard mesh needs checkerboard routing (routing = \"checkerboard\")";
    return std::nullopt;
  }
  // The routing must take the fabric, and the virtual channels must split
  // evenly between the protocol and routing classes.
  error = check_layout_routing(layout, section);
  if (!error.empty()) return std::nullopt;
  return layout;
}

}  // namespace warpsim::interconnect
