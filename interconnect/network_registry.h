#pragma once
// The topology registry (common/registry.h): one line per topology in
// network_registry.def, naming its factory, its configuration section's
// struct and table, and a one-line description. make_network builds the
// configured one; topology_sections() gives every section at its defaults.
#include <memory>
#include <span>

#include "common/config.h"
#include "common/registry.h"
#include "interconnect/network.h"

namespace warpsim::interconnect {

// What a topology registers: its factory and the table of its section
// [interconnect.<name>].
struct TopologyPlugin {
  std::unique_ptr<Network> (*make)(const NetworkConfig& config, std::span<const NodeRole> roles);
  const config::TableBase& (*table)();

  std::unique_ptr<Network> operator()(const NetworkConfig& config,
                                      std::span<const NodeRole> roles) const {
    return make(config, roles);
  }
};
using TopologyRegistry = Registry<TopologyPlugin>;

const TopologyRegistry& topologies();

}  // namespace warpsim::interconnect
