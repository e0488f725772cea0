#pragma once
// The cluster-port mechanism registry (common/registry.h): one line per
// mechanism in port_mechanisms.def, naming its factory, its configuration
// section [timing.cluster.<name>] and its statistics table (published at
// timing.cluster.<name>). [timing.cluster] mechanisms lists the ones a port
// asks, in order.
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/config.h"
#include "common/plugin_sections.h"
#include "common/registry.h"
#include "common/stat_table.h"
#include "timing/memory/cluster_port_mechanism.h"

namespace warpsim::timing {

// What a mechanism is told about the port it serves.
struct PortContext {
  uint32_t cluster = 0;
  uint32_t first_sm = 0, sms = 1;         // the cluster's SMs
  uint64_t core_period_ps = 1000;         // the SMs' clock
  uint64_t port_period_ps = 1000;         // the port's clock (the interconnect's): one lookup cycle
  const config::PluginSections* sections = nullptr;  // [timing.cluster.<name>]

  template <class T>
  const T& section(std::string_view name) const {
    return sections->get<T>(name);
  }
};

struct PortMechanismPlugin {
  std::unique_ptr<ClusterPortMechanism> (*make)(const PortContext&);
  const config::TableBase& (*config)();
  const stats::StatTableBase& (*stats)();

  std::unique_ptr<ClusterPortMechanism> operator()(const PortContext& context) const { return make(context); }
};
using PortMechanismRegistry = Registry<PortMechanismPlugin>;

const PortMechanismRegistry& port_mechanisms();

// The names in a [timing.cluster] mechanisms list ("a, b" or "a,b"; "" and
// "none" are none: `--set` needs a value).
std::vector<std::string> mechanism_list(std::string_view list);
// Why `list` is not a valid mechanisms list (unknown or repeated names), or "".
std::string check_mechanism_list(std::string_view list);
// Where mechanism `name`'s counters are published: "timing.cluster.<name>".
std::string mechanism_prefix(std::string_view name);

}  // namespace warpsim::timing
