#pragma once
// The simulator's whole configuration: every component's section, assembled
// into one Schema, loaded from a named config or a file plus `--set`
// overrides.
//
// SimConfig lives in timing/, the highest simulator layer: it assembles the
// sections of every layer below (gpu, functional, timing.*); the tools and
// the CUDA runtime shim sit above it.
//
// Named configs: a NAME (no '/', no ".toml") is NAME.toml in the first
// directory of the search path that holds it:
//   1. the directories in $WARPSIM_CONFIG_PATH (colon separated),
//   2. <directory of the running executable>/../share/warpsim/configs,
//   3. the source tree's configs/ (an absolute path fixed at build time).
#include <optional>
#include <string>
#include <vector>

#include "common/config.h"
#include "common/diagnostics.h"
#include "common/gpu_config.h"
#include "functional/grid.h"
#include "interconnect/network.h"
#include "power/power_config.h"
#include "ptx/compiler_config.h"
#include "timing/timing_config.h"

namespace warpsim {

struct SimConfig {
  GpuConfig gpu;                           // [gpu]
  functional::ExecutorOptions functional;  // [functional]
  ptx::CompilerConfig compiler;            // [compiler], [compiler.<pass>]
  timing::TimingConfig timing;             // [timing], [timing.*]
  power::PowerConfig power;                // [power]
};

// The sections of `config`, bound to its members (which must outlive the
// Schema).
config::Schema sim_config_schema(SimConfig& config);

// The search path for named configs, in order (see above).
std::vector<std::string> config_search_path();

// The network's nodes for `config`: one Core node per cluster of SMs, then
// one Memory node per L2 slice (the order the memory system numbers them).
std::vector<interconnect::NodeRole> network_roles(const SimConfig& config);

// Scale-model sampling (timing.sample_ctas = N > 1): the GPU its sampled
// launches run on, with 1/N of `config`'s SMs and 1/N of its memory
// partitions (rounded to the nearest, at least one), every other value the
// same, so each SM has about the L2 slices, DRAM bandwidth and network ports
// of the full GPU's.
SimConfig scale_model(const SimConfig& config);

// Built-in defaults (empty `name_or_file`) or the named config / file, then
// `overrides` ("section.key=value") in order, then validation. Diagnostics
// (errors and warnings) go to `diags`; nullopt when any error was reported.
std::optional<SimConfig> load_sim_config(const std::string& name_or_file,
                                         const std::vector<std::string>& overrides,
                                         DiagnosticEngine& diags);
// The same with an explicit search path (tests, tools that set their own).
// `check_network`: whether the network must fit the GPU's own nodes (off
// for tools that build the network over nodes of their own, such as
// `warpsim noc run --nodes N`, which check it themselves).
std::optional<SimConfig> load_sim_config(const std::string& name_or_file,
                                         const std::vector<std::string>& overrides,
                                         const std::vector<std::string>& search_path,
                                         DiagnosticEngine& diags, bool check_network = true);

// `warpsim config show`: the effective configuration as TOML, every value
// annotated with its description and unit; loads back to the same values.
std::string sim_config_toml(const SimConfig& config);

// `warpsim config docs`: docs/config.md, the intro followed by one table per
// section generated from the configuration tables.
std::string sim_config_markdown();

}  // namespace warpsim
