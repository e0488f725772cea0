#pragma once
// The simulated GPU as the CUDA runtime reports it: the [gpu] section.
//
// These are the numbers an application sees through cudaGetDeviceProperties
// and cudaDeviceGetAttribute, and the limits a launch is checked against
// (block size, shared memory, registers, clusters). The timing model's
// microarchitecture (pipelines, caches, interconnect, DRAM timing) gets its
// own sections when it lands.
//
// The defaults are the built-in default GPU, an H100 SXM5 80GB-like device;
// configs/h100.toml holds the same values. Sources, abbreviated below:
//   [H100-WP]  NVIDIA H100 Tensor Core GPU Architecture whitepaper (2022)
//   [CUDA-CC]  CUDA C++ Programming Guide, "Compute Capabilities" tables
//              (technical specifications per compute capability)
//   [CUDA-OCC] CUDA Occupancy Calculator / cuda_occupancy.h allocation
//              granularities per compute capability
//   [DQ]       deviceQuery (CUDA samples) output on an H100 SXM5 80GB
#include <array>
#include <cstdint>
#include <string>

#include "common/config.h"

namespace warpsim {

struct GpuConfig {
  std::string name = "warpsim H100-SXM5 (simulated)";  // cudaDeviceProp::name (ours)
  std::string compute_capability = "9.0";  // [CUDA-CC] Hopper GH100 = compute capability 9.0
  uint32_t num_sms = 132;                  // [H100-WP] H100 SXM5: 132 SMs (66 TPCs)
  uint32_t warp_size = 32;                 // [CUDA-CC] all compute capabilities
  uint32_t max_threads_per_block = 1024;   // [CUDA-CC]
  std::array<uint32_t, 3> max_block_dim = {1024, 1024, 64};           // [CUDA-CC]
  std::array<uint32_t, 3> max_grid_dim = {2147483647, 65535, 65535};  // [CUDA-CC]
  uint32_t max_threads_per_sm = 2048;                // [CUDA-CC] CC 9.0: 64 resident warps per SM
  uint32_t max_ctas_per_sm = 32;                     // [CUDA-CC] CC 9.0: 32 resident blocks per SM
  uint32_t regs_per_sm = 65536;                      // [CUDA-CC] 64K 32-bit registers per SM
  uint32_t regs_per_block = 65536;                   // [CUDA-CC] 64K per thread block
  uint32_t max_regs_per_thread = 255;                // [CUDA-CC]
  uint32_t reg_alloc_unit = 256;                     // [CUDA-OCC] registers, allocated per warp
  uint64_t shared_mem_per_sm = 228 * 1024;           // [CUDA-CC] CC 9.0: 228 KB per SM
  uint64_t shared_mem_per_block = 48 * 1024;         // [CUDA-CC] static limit, 48 KB
  uint64_t shared_mem_per_block_optin = 227 * 1024;  // [CUDA-CC] CC 9.0: 227 KB opt-in
  // [CUDA-CC] 1 KB per block reserved by the system from CC 8.0 on
  uint64_t reserved_shared_mem_per_block = 1024;
  uint64_t shared_mem_alloc_unit = 128;               // [CUDA-OCC] CC 8.x/9.0: 128 B
  uint64_t const_mem = 64 * 1024;                     // [CUDA-CC] 64 KB constant memory
  uint64_t l2_size = 50ull * 1024 * 1024;             // [H100-WP] 50 MB L2 (SXM5); [DQ] 52428800 B
  uint64_t memory_size = 80ull * 1024 * 1024 * 1024;  // [H100-WP] 80 GB HBM3 (nominal)
  uint32_t memory_bus_width = 5120;  // [H100-WP] 5 HBM3 stacks, 10 x 512-bit controllers
  double memory_clock = 2619;        // [DQ] "Memory Clock rate: 2619 Mhz" (HBM3)
  double core_clock = 1980;          // [DQ] "GPU Max Clock rate: 1980 MHz" (SXM5 max boost)
  uint32_t max_cluster_size = 8;     // [CUDA-CC] thread block clusters: 8 portable
  // [CUDA-CC] 16 with cudaFuncAttributeNonPortableClusterSizeAllowed (H100)
  uint32_t max_cluster_size_nonportable = 16;
  // [DQ] "Concurrent copy and kernel execution: Yes with 3 copy engine(s)"
  uint32_t async_engines = 3;
  uint32_t pci_domain_id = 0;  // plausible fixed location 0000:01:00.0, as for
  uint32_t pci_bus_id = 1;     // the first GPU of a single-GPU machine
  uint32_t pci_device_id = 0;

  // Compute capability parts; 0 when compute_capability is malformed (a
  // validated config never is).
  int cc_major() const;
  int cc_minor() const;
  // major * 10 + minor: 90 for "9.0", 75 for "7.5", 120 for "12.0".
  int cc() const { return cc_major() * 10 + cc_minor(); }

  friend bool operator==(const GpuConfig&, const GpuConfig&) = default;
};

// The [gpu] table: fields, units, descriptions, ranges and cross-field checks.
const config::Table<GpuConfig>& gpu_config_table();

}  // namespace warpsim
