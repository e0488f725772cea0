#pragma once
// Configuration of the memory system below L1: the cluster ports
// ([timing.cluster]), the memory partitions and their L2 slices
// ([timing.partition], [timing.l2]), the DRAM channels ([timing.dram],
// dram_channel.h) and the network ([interconnect], interconnect/). One
// table per section (memory_system_config.cpp) gives units, descriptions and
// ranges; defaults describe the built-in H100-like GPU.
#include <cstdint>
#include <string>

#include "common/config.h"
#include "common/plugin_sections.h"
#include "timing/memory/address_mapping.h"

namespace warpsim::timing {

// Which model answers the SMs' requests below L1.
enum class MemoryModel : uint8_t {
  MemorySystem,  // cluster ports, interconnect, L2 slices, DRAM (memory_system.h)
  FixedLatency,  // a fixed latency and per-SM bandwidth (placeholder_memory.h): for SM-only studies
};

// Every registered cluster-port mechanism's section at its defaults
// (timing/cluster/port_mechanism_registry.cpp).
config::PluginSections port_mechanism_sections();

// [timing.cluster]: the network port the SMs of one cluster share (Wang et
// al., IEEE TC 2019, sec. 2.2), and the mechanisms at it.
struct ClusterPortConfig {
  uint32_t sm_queue = 4;       // requests per SM waiting for the intra-cluster bus
  uint32_t inject_buffer = 8;  // packets in the shared injection buffer
  uint32_t response_fifo = 8;  // packets in the shared response FIFO (GPGPU-Sim's ejection buffer: 8)
  std::string mechanisms;      // registered mechanisms, comma-separated, asked in this order
  config::PluginSections sections = port_mechanism_sections();  // [timing.cluster.<mechanism>]
};

// [timing.partition]: memory partitions (one DRAM channel each), their
// sub-partitions (one L2 slice and one network node each), the address
// mapping and the queues between the L2 and its neighbours.
struct PartitionConfig {
  // H100: 5 HBM3 stacks of 16 64-bit pseudo-channels = 80 channels.
  uint32_t partitions = 80;
  uint32_t sub_partitions = 1;
  uint32_t interleave_bytes = 256;
  PartitionHash hash = PartitionHash::Xor;
  std::string mapping = "RRRRRRRR.RRRRRRRR.RBBBBCCC.CCCSSSSS";  // 16 banks, 2 KB rows (6 C + 5 byte bits)
  double l2_clock_mhz = 1980;     // L2 slice clock
  // H100 pointer-chase latencies (Luo et al., IPDPS 2024): ~262 cycles for
  // an L2 hit, ~478 for DRAM; the rest of the path is modelled.
  uint32_t rop_latency = 210;     // L2 cycles from arrival at the slice to the L2 access (GPGPU-Sim -rop_latency)
  uint32_t dram_return_latency = 195;  // L2 cycles from the DRAM data to the L2 fill (GPGPU-Sim -dram_latency)
  uint32_t icnt_to_l2_queue = 16; // requests between the network and the slice pipeline
  uint32_t l2_to_icnt_queue = 16; // replies waiting for the network
  uint32_t l2_to_dram_queue = 8;  // misses and write-backs waiting for the DRAM scheduler
  uint32_t dram_to_l2_queue = 8;  // DRAM data waiting for the L2 fill
  uint32_t atomic_latency = 4;    // L2 cycles an atomic's read-modify-write adds at the slice

  AddressMappingConfig address_mapping() const {
    return {partitions, sub_partitions, interleave_bytes, hash, mapping};
  }
};

const config::Table<ClusterPortConfig>& cluster_port_config_table();
const config::Table<PartitionConfig>& partition_config_table();

}  // namespace warpsim::timing
