// The NoC area model (noc_area.h).
#include "interconnect/area/noc_area.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "common/invariant.h"

namespace warpsim::interconnect {

std::string RouterShape::name() const {
  std::string s = half ? "half" : "full";
  if (ports_per_node > 1) s += fmt::format(" {}P", ports_per_node);
  if (nodes == 0) s += " (no node)";
  if (nodes > 1) s += fmt::format(" {} nodes", nodes);
  return s;
}

namespace {

bool is_network(PortKind k) { return k != PortKind::Terminal; }

}  // namespace

RouterShape router_shape(const FabricRouter& router) {
  RouterShape s;
  s.half = router.half;
  s.inputs = static_cast<uint32_t>(router.inputs.size());
  s.outputs = static_cast<uint32_t>(router.outputs.size());
  WARPSIM_INVARIANT(router.in_node.size() == s.inputs && router.out.size() == s.outputs,
                    "a fabric router has a node per input and a channel per output");
  // Terminal ports per node, injection and ejection.
  std::map<uint32_t, std::pair<uint32_t, uint32_t>> ports;
  const auto in_node = [&](uint32_t i) {
    return router.inputs[i] == PortKind::Terminal ? router.in_node[i] : kNoPort;
  };
  const auto out_node = [&](uint32_t o) {
    return router.outputs[o] == PortKind::Terminal ? router.out[o].node : kNoPort;
  };
  for (uint32_t i = 0; i < s.inputs; ++i)
    if (router.inputs[i] == PortKind::Terminal) {
      ++s.terminal_inputs;
      if (in_node(i) != kNoPort) ++ports[in_node(i)].first;
    }
  for (uint32_t o = 0; o < s.outputs; ++o)
    if (router.outputs[o] == PortKind::Terminal) {
      ++s.terminal_outputs;
      if (out_node(o) != kNoPort) ++ports[out_node(o)].second;
    }
  s.nodes = static_cast<uint32_t>(ports.size());
  for (const auto& [node, p] : ports)
    s.ports_per_node = std::max({s.ports_per_node, p.first, p.second});

  for (uint32_t i = 0; i < s.inputs; ++i)
    for (uint32_t o = 0; o < s.outputs; ++o) {
      if (is_network(router.inputs[i]) || is_network(router.outputs[o])) {
        // A half router's network output muxes only the opposite input and
        // the terminals (connects()); a full router connects all, U-turns
        // included, as the thesis's pessimistic square does.
        if (router.connects(i, o)) ++s.pairs;
        continue;
      }
      const uint32_t node = in_node(i);
      if (node == kNoPort || node != out_node(o)) {
        ++s.pairs;  // another node's terminal (concentration)
        continue;
      }
      // A node's own injection-to-ejection path: only in the square of a
      // full router where the node has one port each way.
      const auto [injects, ejects] = ports[node];
      if (!router.half && injects == 1 && ejects == 1) ++s.pairs;
    }
  return s;
}

RouterArea router_area(const RouterShape& shape, const RouterConfig& router, uint32_t width_bits,
                       const AreaConfig& config) {
  constexpr double kMm2PerUm2 = 1e-6;
  const double w = width_bits;
  const double in = shape.inputs, out = shape.outputs, vcs = router.vcs;
  RouterArea a;
  a.crossbar_mm2 = static_cast<double>(shape.pairs) * w * w * config.crosspoint_um2 * kMm2PerUm2;
  a.buffer_mm2 = in * vcs * router.vc_buffer_flits * w * config.buffer_um2_per_bit * kMm2PerUm2;
  const double vc_arbiter_inputs = in * vcs * vcs + out * vcs * in * vcs;
  const double switch_arbiter_inputs = in * vcs + out * in;
  a.allocator_mm2 =
      (vc_arbiter_inputs + switch_arbiter_inputs) * config.allocator_um2_per_input * kMm2PerUm2;
  return a;
}

namespace {

double link_mm2(double length_mm, uint32_t width_bits, const AreaConfig& config) {
  return width_bits * length_mm * config.link_um2_per_bit_mm * 1e-6;
}

// A grid router as one tile design: its missing edge ports added, unwired.
FabricRouter as_tile(const FabricRouter& r) {
  FabricRouter t = r;
  for (PortKind d : {PortKind::East, PortKind::West, PortKind::North, PortKind::South}) {
    if (std::find(r.inputs.begin(), r.inputs.end(), d) == r.inputs.end()) {
      t.inputs.push_back(d);
      t.in_node.push_back(kNoPort);
    }
    if (std::find(r.outputs.begin(), r.outputs.end(), d) == r.outputs.end()) {
      t.outputs.push_back(d);
      t.out.push_back({});
    }
  }
  return t;
}

void add_link(std::vector<LinkKindArea>& links, bool terminal, double length_mm, double each_mm2) {
  for (auto& l : links)
    if (l.terminal == terminal && l.length_mm == length_mm) {
      ++l.count;
      return;
    }
  links.push_back({terminal, length_mm, each_mm2, 1});
}

}  // namespace

NocArea noc_area(const RoutedLayout& layout, const AreaConfig& config) {
  NocArea a;
  a.planes = static_cast<uint32_t>(layout.planes.size());
  a.width_bits = layout.flit_bytes * 8;
  std::vector<LinkKindArea> channels, terminals;
  for (const Fabric& plane : layout.planes)
    for (const FabricRouter& r : plane.routers) {
      const bool tile = plane.is_grid() && config.identical_grid_routers;
      const RouterShape shape = router_shape(tile ? as_tile(r) : r);
      auto kind = std::find_if(a.routers.begin(), a.routers.end(),
                               [&](const RouterKindArea& k) { return k.shape == shape; });
      if (kind == a.routers.end())
        kind = a.routers.insert(
            a.routers.end(), {shape, router_area(shape, layout.router, a.width_bits, config), 0});
      ++kind->count;
      for (uint32_t o = 0; o < r.outputs.size(); ++o) {
        const FabricChannel& c = r.out[o];
        if (c.router != kNoPort) {
          add_link(channels, false, c.length_mm, link_mm2(c.length_mm, a.width_bits, config));
        } else if (c.node != kNoPort) {
          add_link(terminals, true, config.terminal_link_mm,
                   link_mm2(config.terminal_link_mm, a.width_bits, config));
        }
      }
      for (uint32_t i = 0; i < r.inputs.size(); ++i)
        if (r.inputs[i] == PortKind::Terminal && r.in_node[i] != kNoPort)
          add_link(terminals, true, config.terminal_link_mm,
                   link_mm2(config.terminal_link_mm, a.width_bits, config));
    }
  a.links = std::move(channels);
  a.links.insert(a.links.end(), terminals.begin(), terminals.end());
  for (const auto& k : a.routers) a.routers_mm2 += k.count * k.each.total_mm2();
  for (const auto& l : a.links) a.links_mm2 += l.count * l.each_mm2;
  return a;
}

double non_noc_area_mm2(const ChipParts& parts, const AreaConfig& config) {
  return parts.cores * config.core_mm2 + parts.memory_controllers * config.memory_controller_mm2 +
         parts.l2_mib * config.l2_mm2_per_mib;
}

}  // namespace warpsim::interconnect
