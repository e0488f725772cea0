// The topology registry: make_network and network_names, driven by the
// one-line-per-topology table in network_registry.def.

#include "common/invariant.h"
#include "interconnect/network.h"

namespace warpsim::interconnect {

#define WARPSIM_TOPOLOGY(name, factory) \
  std::unique_ptr<Network> factory(const NetworkConfig& config, uint32_t nodes);
#include "interconnect/network_registry.def"
#undef WARPSIM_TOPOLOGY

namespace {

struct Topology {
  std::string_view name;
  std::unique_ptr<Network> (*make)(const NetworkConfig&, uint32_t);
};

constexpr Topology kTopologies[] = {
#define WARPSIM_TOPOLOGY(name, factory) {name, factory},
#include "interconnect/network_registry.def"
#undef WARPSIM_TOPOLOGY
};

}  // namespace

const std::vector<std::string_view>& network_names() {
  static const std::vector<std::string_view> names = [] {
    std::vector<std::string_view> v;
    for (const Topology& t : kTopologies) v.push_back(t.name);
    return v;
  }();
  return names;
}

std::unique_ptr<Network> make_network(const NetworkConfig& config, uint32_t nodes) {
  for (const Topology& t : kTopologies)
    if (t.name == config.topology) return t.make(config, nodes);
  // The config table validates the name; an unknown one reaching here is a bug.
  WARPSIM_INVARIANT(false, "unknown network topology (the config layer validates names)");
}

}  // namespace warpsim::interconnect
