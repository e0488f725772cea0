#pragma once
// [interconnect]: the network between the clusters' ports and the memory
// partitions. One table (network_config.cpp) gives units and descriptions.
#include <cstdint>
#include <string>

#include "common/config.h"

namespace warpsim::interconnect {

struct NetworkConfig {
  std::string topology = "crossbar";  // ideal | crossbar
  double clock_mhz = 1980;            // network clock (the built-in GPU: at the core clock)
  uint32_t flit_bytes = 32;           // bytes per flit (channel width)
  uint32_t header_bytes = 8;          // control packet / header size (GPGPU-Sim: 8 B)
  uint32_t latency = 4;               // ideal: cycles from injection to ejection; crossbar: pipeline cycles through the switch
  uint32_t input_buffer_flits = 16;   // crossbar: per input and subnet
  uint32_t output_buffer_flits = 16;  // crossbar: per output and subnet (ejection queue)
  std::string allocator = "islip";    // crossbar: islip | round-robin
  uint32_t islip_iterations = 1;      // crossbar: iSLIP request-grant-accept iterations
  uint32_t output_speedup = 1;        // crossbar: flits an output accepts per cycle
};

const config::Table<NetworkConfig>& network_config_table();

}  // namespace warpsim::interconnect
