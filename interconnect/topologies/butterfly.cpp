// `butterfly`: a k-ary n-fly (Dally and Towles, "Principles and Practices of
// Interconnection Networks", 2004, ch. 4): n stages of k^(n-1) routers with k
// inputs and k outputs each, k^n terminals. Node t injects at stage 0,
// router t / k, port t % k, and ejects at the last stage, same router and
// port. Between stages, output port j of router i at stage s leads to the
// router of stage s + 1 whose index is i with digit (n - 2 - s) (base k)
// replaced by j, arriving on the input port numbered by the replaced digit.
// Exactly one path joins each pair (destination-tag routing); the `table`
// routing finds it. The channel graph goes from stage to stage and has no
// cycle, so the network cannot deadlock. (interconnect.butterfly)
#include <cmath>
#include <optional>
#include <span>
#include <string>

#include <fmt/format.h>

#include "common/config.h"
#include "interconnect/network.h"
#include "interconnect/router/routed_layout.h"
#include "interconnect/routing/routing.h"

namespace warpsim::interconnect {

struct ButterflyConfig {
  uint32_t k = 4;                // router radix (ports per side)
  uint32_t n = 3;                // stages
  std::string routing = "table";
  double link_mm = 2.0;          // length of a link between stages (area and energy)
};

const config::Table<ButterflyConfig>& butterfly_config_table() {
  static const config::Table<ButterflyConfig> table = [] {
    using B = ButterflyConfig;
    config::Table<B> t("The `butterfly` topology: a k-ary n-fly of virtual-channel routers ([interconnect.router])");
    t.integer("k", &B::k, "ports", "router radix: inputs and outputs per router").range(2, 64);
    t.integer("n", &B::n, "stages", "stages (k^n terminals)").range(1, 8);
    t.string("routing", &B::routing, "routing function (table: the unique path)").one_of(routings());
    t.real("link_mm", &B::link_mm, "mm", "length of a link between stages").range(0.001, 100.0);
    return t;
  }();
  return table;
}

std::optional<RoutedLayout> butterfly_layout(const NetworkConfig& config, std::span<const NodeRole> roles,
                                             std::string& error) {
  const ButterflyConfig& b = config.topologies.get<ButterflyConfig>("butterfly");
  const double terminals = std::pow(double(b.k), double(b.n));
  if (terminals < double(roles.size()) || terminals > 1e6) {
    error = fmt::format("interconnect.butterfly: a {}-ary {}-fly has {} terminals but the GPU has {} network nodes",
                        b.k, b.n, terminals, roles.size());
    return std::nullopt;
  }
  const uint32_t per_stage = static_cast<uint32_t>(std::pow(double(b.k), double(b.n - 1)));
  Fabric f;
  f.routers.resize(size_t{per_stage} * b.n);
  auto id = [&](uint32_t stage, uint32_t index) { return stage * per_stage + index; };
  uint32_t place = 1;  // k^(n-2-s): the weight of the digit stage s replaces
  for (uint32_t s = 0; s + 2 < b.n; ++s) place *= b.k;
  for (uint32_t s = 0; s < b.n; ++s) {
    for (uint32_t i = 0; i < per_stage; ++i) {
      FabricRouter& r = f.routers[id(s, i)];
      r.x = i;
      r.y = s;
      const PortKind in_kind = s == 0 ? PortKind::Terminal : PortKind::Other;
      const PortKind out_kind = s + 1 == b.n ? PortKind::Terminal : PortKind::Other;
      r.inputs.assign(b.k, in_kind);
      r.in_node.assign(b.k, kNoPort);
      r.outputs.assign(b.k, out_kind);
      r.out.resize(b.k);
      for (uint32_t j = 0; j < b.k; ++j) {
        if (s + 1 == b.n) {
          const uint32_t node = i * b.k + j;
          r.out[j] = FabricChannel{kNoPort, kNoPort, node < roles.size() ? node : kNoPort, 0, 0.05};
        } else {
          const uint32_t digit = (i / place) % b.k;
          const uint32_t next = i - digit * place + j * place;
          r.out[j] = FabricChannel{id(s + 1, next), digit, kNoPort, config.router.link_latency, b.link_mm};
        }
      }
    }
    if (s + 2 < b.n) place /= b.k;
  }
  f.inject.resize(roles.size());
  f.eject.resize(roles.size());
  for (uint32_t node = 0; node < roles.size(); ++node) {
    f.inject[node].push_back({id(0, node / b.k), node % b.k});
    f.routers[id(0, node / b.k)].in_node[node % b.k] = node;
    f.eject[node].push_back({id(b.n - 1, node / b.k), node % b.k});
  }
  RoutedLayout layout = single_fabric_layout(config, std::move(f), b.routing);
  error = check_layout_routing(layout, "interconnect.butterfly");
  if (!error.empty()) return std::nullopt;
  return layout;
}

}  // namespace warpsim::interconnect
