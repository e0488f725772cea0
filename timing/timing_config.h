#pragma once
// The timing model's configuration: the [timing.*] sections.
//
// One struct per component, defaults in the member initialisers, and one
// table each (timing_config.cpp) giving units, descriptions and ranges. The
// defaults describe an SM of the built-in default GPU (H100-like); configs/
// holds the GTX480-like, the clustered 60-SM and the Volta/Ampere-like GPUs,
// each file citing the source of its values.
#include <cstdint>
#include <string>

#include "common/config.h"
#include "interconnect/network_config.h"
#include "timing/cta/cta_scheduler.h"
#include "timing/dram/dram_config.h"
#include "timing/memory/memory_system_config.h"
#include "timing/cache/sectored_cache.h"

namespace warpsim::timing {

// [timing]: the GPU level.
struct GpuTimingConfig {
  uint32_t sms_per_cluster = 1;  // SMs sharing one network port (1: no clusters)
  uint32_t sms_per_gpc = 0;      // SMs a thread-block cluster's CTAs are placed among (0: all)
  std::string cta_policy = "two-level-rr";
  uint32_t cta_block_size = 2;
  bool cta_block_partial_tail = false;
  uint32_t cta_issue_per_cluster = 1;
  bool cta_trace = false;  // record every CTA -> SM placement in the statistics
  uint64_t max_cycles = 0;  // stop a launch after this many cycles (0: unlimited)
  bool skip_idle_cycles = true;  // jump over cycles in which nothing can happen
  uint32_t threads = 0;  // host threads ticking the SMs (0: this machine's cores, at most 16)
  // Sampled simulation (gpu.h, "Sampled launches"): off by default.
  bool sample = false;
  uint64_t sample_window = 1000;   // cycles per IPC window
  uint32_t sample_windows = 5;     // windows per block; two consecutive blocks' IPCs must agree
  double sample_tolerance = 0.05;  // how far the two blocks' IPCs may differ (fraction of their mean)
  uint64_t sample_warmup = 2000;   // cycles at a launch's start that never count
  // The last wave (gpu.cpp, last_wave_steady) stops no earlier than this many
  // windows into it; 0: it is always simulated.
  uint32_t sample_last_wave = 0;
  // Scale-model sampling (gpu.h, "Scale-model sampling"): 1 in sample_ctas
  // CTAs in timing mode on a GPU of 1/sample_ctas the SMs and partitions;
  // 1: off.
  uint32_t sample_ctas = 1;
  // Launch-level sampling (launch_sampler.h): at most this many launches of
  // a repeated shape in a row are estimated between simulated ones; 0: off.
  uint32_t sample_launches = 0;
  CtaSchedulerConfig cta_scheduler() const {
    return {cta_policy, cta_block_size, cta_block_partial_tail, cta_issue_per_cluster};
  }
};

// [timing.sm]: the front end and issue stage of one SM.
struct SmConfig {
  uint32_t schedulers = 4;          // warp schedulers; warp w belongs to scheduler w % schedulers
  std::string warp_policy = "gto";  // one of warp_policies() (sm/warp_policy.h)
  uint32_t two_level_active = 8;    // two-level: warps in each scheduler's active pool
  uint32_t ibuffer_entries = 2;     // decoded instructions buffered per warp
  uint32_t fetch_per_cycle = 4;     // warps fetched from the L1I per cycle (one per sub-core L0 on Volta+)
  uint32_t issue_interval = 1;      // cycles between two issues of one scheduler (Fermi at its shader clock: 2)
  uint32_t decode_latency = 1;      // cycles from fetch (hit) to the instruction buffer
  uint32_t scoreboard_entries = 64; // pending register writes per warp before issue stalls
  bool operand_collector = false;   // model register-bank conflicts when reading operands
  uint32_t register_banks = 4;
  uint32_t instruction_bytes = 16;  // bytes per instruction in the L1I (SASS-like)
};

// Execution units: latency and initiation interval per instruction class.
// (The LD/ST unit is one per SM, holding one memory instruction at a time:
// sm_memory.cpp.)
struct UnitConfig {
  uint32_t sp_latency = 4, sp_interval = 1, sp_units = 1;          // fp32 / fp16
  uint32_t int_latency = 4, int_interval = 1, int_units = 1;       // integer, logic, moves
  uint32_t dp_latency = 8, dp_interval = 2, dp_units = 1;          // fp64
  uint32_t sfu_latency = 20, sfu_interval = 4, sfu_units = 1;      // transcendentals, div, rem
  uint32_t tensor_latency = 32, tensor_interval = 8, tensor_units = 1;
  uint32_t branch_latency = 2, branch_interval = 1, branch_units = 1;  // control, barriers
};

// [timing.shared]
struct SharedMemoryConfig {
  uint32_t banks = 32;
  uint32_t bank_width = 4;  // bytes
  uint32_t latency = 24;    // cycles for a conflict-free access
  uint32_t cluster_latency = 180;  // another CTA's shared memory in the cluster (DSMEM)
};

// [timing.ldst]: which accesses go through the L1 data cache.
struct LdstConfig {
  bool cache_global_loads = true;  // false: global loads bypass L1 (Kepler's default -dlcm=cg)
  bool cache_local = true;         // local memory through L1
  uint32_t param_latency = 4;      // ld.param from the kernel parameter buffer (constant bank)
  uint32_t atomic_latency = 0;     // added on top of the memory's reply latency
};

// [timing.memory]: which model serves the requests below L1, and the
// parameters of the fixed-latency one.
struct FixedLatencyMemoryConfig {
  MemoryModel model = MemoryModel::MemorySystem;
  uint32_t latency = 300;         // core cycles from request to reply
  uint32_t bytes_per_cycle = 64;  // per SM: request + reply data the port moves per cycle
  uint32_t queue = 64;            // requests in flight per SM before the port refuses more
};

struct TimingConfig {
  GpuTimingConfig gpu;
  SmConfig sm;
  UnitConfig units;
  CacheConfig l1d;
  CacheConfig l1i;
  CacheConfig constant;
  SharedMemoryConfig shared;
  LdstConfig ldst;
  FixedLatencyMemoryConfig memory;
  ClusterPortConfig cluster;
  PartitionConfig partition;
  CacheConfig l2;
  DramConfig dram;
  interconnect::NetworkConfig network;
  TimingConfig();  // the caches' defaults differ from CacheConfig's
};

const config::Table<GpuTimingConfig>& gpu_timing_config_table();
const config::Table<SmConfig>& sm_config_table();
const config::Table<UnitConfig>& unit_config_table();
const config::Table<CacheConfig>& cache_config_table();
const config::Table<SharedMemoryConfig>& shared_memory_config_table();
const config::Table<LdstConfig>& ldst_config_table();
const config::Table<FixedLatencyMemoryConfig>& fixed_latency_memory_config_table();

// Adds the [timing.*] sections of `config` to `schema`.
void add_timing_sections(config::Schema& schema, TimingConfig& config);

}  // namespace warpsim::timing
