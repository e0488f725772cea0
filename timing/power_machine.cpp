// power_machine: counts the components the energy model prices.
#include "timing/power_machine.h"

#include "interconnect/network_registry.h"
#include "timing/dram/dram_config.h"

namespace warpsim::timing {

power::Machine power_machine(const SimConfig& config) {
  const TimingConfig& t = config.timing;
  power::Machine m;
  m.core_clock_mhz = config.gpu.core_clock;
  m.sms = config.gpu.num_sms;
  m.channels = t.partition.partitions;
  m.l2_slices = t.partition.partitions * t.partition.sub_partitions;
  m.flit_bits = t.network.flit_bytes * 8;
  // The network's switches: a flit-level topology's routers (every plane),
  // one crossbar switch per subnet with a port per node, none for the
  // ideal network.
  const std::vector<interconnect::NodeRole> roles = network_roles(config);
  const auto* topology = interconnect::topologies().find(t.network.topology);
  if (topology != nullptr && topology->make.layout != nullptr) {
    std::string error;
    if (auto layout = topology->make.layout(t.network, roles, error)) {
      m.flit_bits = layout->flit_bytes * 8;
      for (const interconnect::Fabric& plane : layout->planes)
        for (const interconnect::FabricRouter& r : plane.routers) {
          ++m.switches;
          m.switch_ports += static_cast<uint32_t>(r.inputs.size());
        }
    }
  } else if (t.network.topology == "crossbar") {
    m.switches = interconnect::kSubnets;
    m.switch_ports = interconnect::kSubnets * static_cast<uint32_t>(roles.size());
  }
  if (t.memory.model == MemoryModel::FixedLatency) m.switches = m.switch_ports = 0;
  DramConfig dram = t.dram;
  if (resolve_dram_config(dram).empty()) {
    m.dram_clock_mhz = dram.clock_mhz;
    m.dram_tRC = dram.tRC;
    m.dram_tRAS = dram.tRAS;
    m.dram_burst_bytes = dram.burst_bytes();
    m.dram_burst_cycles = dram.burst_cycles();
  }
  return m;
}

}  // namespace warpsim::timing
