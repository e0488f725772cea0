// The cluster-port mechanism registry, from port_mechanisms.def, and the
// mechanisms' configuration sections.
#include "timing/cluster/port_mechanism_registry.h"

#include "timing/memory/memory_system_config.h"

namespace warpsim::timing {

// The mechanisms' own declarations; their types stay incomplete here.
#define WARPSIM_PORT_MECHANISM(name, factory, Config, config_table, Stats, stats_table, description) \
  struct Config;                                                                                    \
  struct Stats;                                                                                     \
  const config::Table<Config>& config_table();                                                      \
  const stats::StatTable<Stats>& stats_table();                                                     \
  std::unique_ptr<ClusterPortMechanism> factory(const PortContext& context);
#include "timing/cluster/port_mechanisms.def"
#undef WARPSIM_PORT_MECHANISM

const PortMechanismRegistry& port_mechanisms() {
  static const PortMechanismRegistry registry("cluster-port mechanism", {
#define WARPSIM_PORT_MECHANISM(name, factory, Config, config_table, Stats, stats_table, description) \
  {name, description,                                                                               \
   PortMechanismPlugin{factory, []() -> const config::TableBase& { return config_table(); },        \
                       []() -> const stats::StatTableBase& { return stats_table(); }}},
#include "timing/cluster/port_mechanisms.def"
#undef WARPSIM_PORT_MECHANISM
  });
  return registry;
}

config::PluginSections port_mechanism_sections() {
  config::PluginSections sections;
  for (const auto& m : port_mechanisms().entries()) sections.add(std::string(m.name), m.make.config());
  return sections;
}

std::vector<std::string> mechanism_list(std::string_view list) { return name_list(list); }

std::string check_mechanism_list(std::string_view list) { return port_mechanisms().check_list(list); }

std::string mechanism_prefix(std::string_view name) { return "timing.cluster." + std::string(name); }

}  // namespace warpsim::timing
