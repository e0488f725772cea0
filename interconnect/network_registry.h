#pragma once
// The topology registry (common/registry.h): one line per topology in
// network_registry.def, naming its factory, its configuration section's
// struct and table, and a one-line description. make_network builds the
// configured one; topology_sections() gives every section at its defaults.
#include <memory>
#include <optional>
#include <span>
#include <string>

#include "common/config.h"
#include "common/registry.h"
#include "interconnect/network.h"
#include "interconnect/router/routed_layout.h"

namespace warpsim::interconnect {

// What a topology registers: its factory and the table of its section
// [interconnect.<name>].
struct TopologyPlugin {
  using LayoutFn = std::optional<RoutedLayout> (*)(const NetworkConfig& config, std::span<const NodeRole> roles,
                                                   std::string& error);
  std::unique_ptr<Network> (*make)(const NetworkConfig& config, std::span<const NodeRole> roles);
  const config::TableBase& (*table)();
  LayoutFn layout;  // flit-level topologies: their fabrics; null for the others

  std::unique_ptr<Network> operator()(const NetworkConfig& config,
                                      std::span<const NodeRole> roles) const {
    return make(config, roles);
  }
};
using TopologyRegistry = Registry<TopologyPlugin>;

const TopologyRegistry& topologies();

// Why `config`'s network cannot be built over `roles` (a user-facing
// message naming the key), or "" when it can.
std::string validate_network(const NetworkConfig& config, std::span<const NodeRole> roles);

}  // namespace warpsim::interconnect
