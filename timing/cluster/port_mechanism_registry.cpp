// The cluster-port mechanism registry, from port_mechanisms.def, and the
// mechanisms' configuration sections.
#include "timing/cluster/port_mechanism_registry.h"

#include <algorithm>

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

std::vector<std::string> mechanism_list(std::string_view list) {
  std::vector<std::string> names;
  if (list == "none") return names;
  size_t start = 0;
  while (start <= list.size()) {
    size_t end = list.find(',', start);
    if (end == std::string_view::npos) end = list.size();
    std::string_view name = list.substr(start, end - start);
    while (!name.empty() && name.front() == ' ') name.remove_prefix(1);
    while (!name.empty() && name.back() == ' ') name.remove_suffix(1);
    if (!name.empty()) names.emplace_back(name);
    start = end + 1;
  }
  return names;
}

std::string check_mechanism_list(std::string_view list) {
  const std::vector<std::string> names = mechanism_list(list);
  for (size_t i = 0; i < names.size(); ++i) {
    const std::string err = port_mechanisms().check(names[i]);
    if (!err.empty()) return err;
    if (std::find(names.begin(), names.begin() + static_cast<std::ptrdiff_t>(i), names[i]) !=
        names.begin() + static_cast<std::ptrdiff_t>(i))
      return "cluster-port mechanism '" + names[i] + "' is listed twice";
  }
  return "";
}

std::string mechanism_prefix(std::string_view name) { return "timing.cluster." + std::string(name); }

}  // namespace warpsim::timing
