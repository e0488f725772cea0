#pragma once
// The offload_chains pass (docs/compiler.md): finds, inside basic blocks,
// the short load-compute-store chains of Pattnaik et al. (ISCA 2019, Table 1)
// that could be computed where their operands meet instead of on the SM,
// moves the chain's address arithmetic above it so that the chain is
// contiguous, and tags its instructions (ptx/passes/offload_tags.h).
#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "common/config.h"
#include "common/stat_table.h"
#include "ptx/compile.h"

namespace warpsim::ptx {

struct OffloadChainsConfig {
  // A kernel whose static shared memory exceeds this (or that uses dynamic
  // shared memory, whose size the compiler cannot know) leaves a core no room
  // for the service queue's operand buffers: its chains are marked for LLC
  // nodes only. Default: 48 KiB per SM minus 24 KiB for a 96-entry service
  // queue of two 128-B operands per entry.
  uint64_t core_compute_shared_limit = 24 * 1024;
  // The most instructions from a chain's first member to its last, before
  // the chain is made contiguous (longer ones are left alone).
  uint32_t max_span = 64;
};
const config::Table<OffloadChainsConfig>& offload_chains_config_table();

inline constexpr size_t kOffloadPatterns = 9;

struct OffloadChainsStats {
  uint64_t chains = 0;
  uint64_t by_pattern[kOffloadPatterns] = {};
  uint64_t tagged_instructions = 0;
  uint64_t instructions = 0;
  uint64_t global_accesses = 0;
  uint64_t tagged_global_accesses = 0;
  uint64_t hoisted = 0;
  uint64_t sunk = 0;
  uint64_t loads_kept_for_reuse = 0;
  uint64_t rejected_reuse = 0;
  uint64_t rejected_alias = 0;
  uint64_t rejected_width = 0;
  uint64_t rejected_shape = 0;
  uint64_t rejected_order = 0;
  uint64_t kernels = 0;
  uint64_t kernels_without_core_compute = 0;
};
const stats::StatTable<OffloadChainsStats>& offload_chains_stats_table();

// One chain the pass tagged, as the module holds it after the pass.
struct OffloadChain {
  uint32_t function = 0;  // Module::functions index
  uint32_t id = 0;        // Annotation::group of its members
  uint32_t pattern = 0;   // 1-9
  bool core_compute = true;  // false: LLC nodes only (the shared-memory guard)
  std::vector<uint32_t> instructions;  // contiguous, in order
  uint32_t hoisted = 0;   // instructions moved above it to make it contiguous
};

// The chains an offload_chains pass tagged in every module it ran on, in
// order (empty for another pass).
std::span<const OffloadChain> offload_chains_of(const ModulePass& pass);

// The pass with `config` (for tools and tests; the pipeline makes it by name).
std::unique_ptr<ModulePass> make_offload_chains_pass(const OffloadChainsConfig& config);

}  // namespace warpsim::ptx
