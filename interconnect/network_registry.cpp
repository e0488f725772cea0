// The topology registry, from network_registry.def, and what it drives:
// make_network, routed_layout and the topologies' configuration sections.
#include "interconnect/network_registry.h"

#include <stdexcept>

#include "interconnect/router/routed_network.h"

namespace warpsim::interconnect {

// The topologies' own declarations; their types stay incomplete here.
#define WARPSIM_TOPOLOGY(name, factory, Config, config_table, description) \
  struct Config;                                                           \
  const config::Table<Config>& config_table();                             \
  std::unique_ptr<Network> factory(const NetworkConfig& config, std::span<const NodeRole> roles);
#define WARPSIM_ROUTED_TOPOLOGY(name, layout, Config, config_table, description) \
  struct Config;                                                                 \
  const config::Table<Config>& config_table();                                   \
  std::optional<RoutedLayout> layout(const NetworkConfig& config, std::span<const NodeRole> roles, std::string& error);
#include "interconnect/network_registry.def"
#undef WARPSIM_TOPOLOGY
#undef WARPSIM_ROUTED_TOPOLOGY

namespace {

// The factory of every routed topology: its layout, run by RoutedNetwork.
template <TopologyPlugin::LayoutFn Layout>
std::unique_ptr<Network> make_routed(const NetworkConfig& config, std::span<const NodeRole> roles) {
  std::string error;
  std::optional<RoutedLayout> layout = Layout(config, roles, error);
  // The configuration checks (validate_network) report this to the user
  // first; here it is a caller that skipped them.
  if (!layout) throw std::invalid_argument(error);
  return std::make_unique<RoutedNetwork>(config, roles, std::move(*layout), config.topology);
}

}  // namespace

const TopologyRegistry& topologies() {
  static const TopologyRegistry registry("network topology", {
#define WARPSIM_TOPOLOGY(name, factory, Config, config_table, description) \
  {name, description,                                                      \
   TopologyPlugin{factory, []() -> const config::TableBase& { return config_table(); }, nullptr}},
#define WARPSIM_ROUTED_TOPOLOGY(name, layout, Config, config_table, description)               \
  {name, description,                                                                          \
   TopologyPlugin{make_routed<layout>, []() -> const config::TableBase& { return config_table(); }, \
                  layout}},
#include "interconnect/network_registry.def"
#undef WARPSIM_TOPOLOGY
#undef WARPSIM_ROUTED_TOPOLOGY
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

std::optional<RoutedLayout> routed_layout(const NetworkConfig& config, std::span<const NodeRole> roles,
                                          std::string& error) {
  for (const auto& t : topologies().entries())
    if (t.name == config.topology) {
      if (!t.make.layout) {
        error = "topology '" + config.topology + "' has no routers (only flit-level topologies do)";
        return std::nullopt;
      }
      return t.make.layout(config, roles, error);
    }
  error = "unknown topology '" + config.topology + "'";
  return std::nullopt;
}

std::string validate_network(const NetworkConfig& config, std::span<const NodeRole> roles) {
  std::string error;
  for (const auto& t : topologies().entries())
    if (t.name == config.topology && t.make.layout) t.make.layout(config, roles, error);
  return error;
}

}  // namespace warpsim::interconnect
