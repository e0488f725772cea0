#pragma once
// What the energy model needs to know of the simulated GPU besides its
// counters: clocks, how many of each component there are, flit width, DRAM
// timing. Filled from the configuration in a run (timing/power_machine.h)
// and recorded with the statistics (power.machine.*), so a stats file can
// be priced again without the configuration that produced it.
#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "common/stats.h"

namespace warpsim::power {

struct Machine {
  double core_clock_mhz = 1;    // SM clock: cycles to seconds
  uint32_t sms = 0;
  uint32_t l2_slices = 0;
  uint32_t channels = 0;        // memory partitions = DRAM channels = memory controllers
  uint32_t switches = 0;        // routers, or crossbar switches (one per subnet)
  uint32_t switch_ports = 0;    // input ports of all of them
  uint32_t flit_bits = 0;
  double dram_clock_mhz = 1;    // DRAM command clock
  uint32_t dram_tRC = 0;        // DRAM command cycles
  uint32_t dram_tRAS = 0;
  uint32_t dram_burst_bytes = 0;  // per channel burst
  uint32_t dram_burst_cycles = 0; // command cycles a burst occupies the data bus

  // Average input ports per switch (the crossbar energy's radix).
  double ports_per_switch() const { return switches ? static_cast<double>(switch_ports) / switches : 0.0; }

  // power.machine.* in a registry, and back from a statistics JSON file
  // (nullopt, with `error` set, when the file has none).
  void publish(StatsRegistry& stats) const;
  static std::optional<Machine> from_json(const nlohmann::json& stats, std::string& error);
};

}  // namespace warpsim::power
