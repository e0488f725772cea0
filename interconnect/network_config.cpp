// The [interconnect] configuration table. The topology is checked by name
// against the topology registry, whose descriptions the docs list, so a new
// topology needs no change here.
#include "interconnect/network_config.h"

#include "interconnect/network_registry.h"

namespace warpsim::interconnect {
const config::Table<NetworkConfig>& network_config_table() {
  static const config::Table<NetworkConfig> table = [] {
    using N = NetworkConfig;
    config::Table<N> t(
        "Interconnect between the clusters' ports and the memory partitions; each topology's own "
        "keys are in its section [interconnect.<topology>]");
    t.string("topology", &N::topology, topologies().described()).one_of(topologies());
    t.clock_mhz("clock_mhz", &N::clock_mhz, "network clock").range(1.0, 100000.0);
    t.bytes("flit_bytes", &N::flit_bytes, "bytes per flit (channel width); packets are whole flits")
        .range(1, 1024);
    t.bytes("header_bytes", &N::header_bytes,
            "size of a control packet (read request, write acknowledgement) and of a data "
            "packet's header")
        .range(1, 1024);
    return t;
  }();
  return table;
}

}  // namespace warpsim::interconnect
