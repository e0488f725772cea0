// The compile-pass registry, from passes.def, and the passes' configuration
// sections.
#include "ptx/passes/pass_registry.h"

namespace warpsim::ptx {

// The passes' own declarations; their types stay incomplete here.
#define WARPSIM_PASS(name, factory, Config, config_table, Stats, stats_table, description) \
  struct Config;                                                                          \
  struct Stats;                                                                           \
  const config::Table<Config>& config_table();                                            \
  const stats::StatTable<Stats>& stats_table();                                           \
  std::unique_ptr<ModulePass> factory(const PassContext& context);
#include "ptx/passes/passes.def"
#undef WARPSIM_PASS

const PassRegistry& compile_passes() {
  static const PassRegistry registry("compile pass", {
#define WARPSIM_PASS(name, factory, Config, config_table, Stats, stats_table, description) \
  {name, description,                                                                     \
   PassPlugin{factory, []() -> const config::TableBase& { return config_table(); },       \
              []() -> const stats::StatTableBase& { return stats_table(); }}},
#include "ptx/passes/passes.def"
#undef WARPSIM_PASS
  });
  return registry;
}

config::PluginSections pass_sections() {
  config::PluginSections sections;
  for (const auto& p : compile_passes().entries()) sections.add(std::string(p.name), p.make.config());
  return sections;
}

std::string pass_prefix(std::string_view name) { return "compiler." + std::string(name); }

}  // namespace warpsim::ptx
