// The topology registry, from network_registry.def, and what it drives:
// make_network and the topologies' configuration sections.
#include "interconnect/network_registry.h"

namespace warpsim::interconnect {

// The topologies' own declarations; their types stay incomplete here.
#define WARPSIM_TOPOLOGY(name, factory, Config, config_table, description) \
  struct Config;                                                           \
  const config::Table<Config>& config_table();                             \
  std::unique_ptr<Network> factory(const NetworkConfig& config, std::span<const NodeRole> roles);
#include "interconnect/network_registry.def"
#undef WARPSIM_TOPOLOGY

const TopologyRegistry& topologies() {
  static const TopologyRegistry registry("network topology", {
#define WARPSIM_TOPOLOGY(name, factory, Config, config_table, description) \
  {name, description,                                                      \
   TopologyPlugin{factory, []() -> const config::TableBase& { return config_table(); }}},
#include "interconnect/network_registry.def"
#undef WARPSIM_TOPOLOGY
  });
  return registry;
}

config::PluginSections topology_sections() {
  config::PluginSections sections;
  for (const auto& t : topologies().entries()) sections.add(std::string(t.name), t.make.table());
  return sections;
}

std::unique_ptr<Network> make_network(const NetworkConfig& config,
                                      std::span<const NodeRole> roles) {
  // The config table validated the name (an unknown one is a bug: factory()).
  return topologies().make(config.topology, config, roles);
}

}  // namespace warpsim::interconnect
