#pragma once
// [interconnect]: the network between the clusters' ports and the memory
// partitions: which topology, and what every topology shares (clock, flit
// and header sizes). Each topology's own keys are in its section
// [interconnect.<name>] (its struct and table live in its own files and are
// registered with it in network_registry.def); NetworkConfig holds all of
// them, selected or not. One table (network_config.cpp) gives units and
// descriptions.
#include <cstdint>
#include <string>

#include "common/config.h"
#include "common/plugin_sections.h"
#include "interconnect/router/router_config.h"
#include "interconnect/area/area_config.h"

namespace warpsim::interconnect {

// Every registered topology's section at its defaults, named by the topology
// (network_registry.cpp).
config::PluginSections topology_sections();

struct NetworkConfig {
  std::string topology = "crossbar";  // a name of the topology registry
  double clock_mhz = 1980;            // network clock (the built-in GPU: at the core clock)
  uint32_t flit_bytes = 32;           // bytes per flit (channel width)
  uint32_t header_bytes = 8;          // control packet / header size (GPGPU-Sim: 8 B)
  // [interconnect.<name>] of every topology; a topology reads its own:
  // topologies.get<CrossbarConfig>("crossbar").
  config::PluginSections topologies = topology_sections();
  // [interconnect.router]: the routers of every flit-level topology.
  RouterConfig router;
  AreaConfig area;  // [interconnect.area]: the area model's coefficients (`warpsim noc area`)
};

const config::Table<NetworkConfig>& network_config_table();

}  // namespace warpsim::interconnect
