// The traffic pattern registry, from traffic_patterns.def, and what every
// pattern shares.
#include "interconnect/traffic/traffic_pattern.h"

namespace warpsim::interconnect {

#define WARPSIM_PLUGIN(name, factory, description)                                        \
  std::unique_ptr<TrafficPattern> factory(const TrafficParams& params,                    \
                                          std::span<const NodeRole> roles, std::string& error);
#include "interconnect/traffic/traffic_patterns.def"
#undef WARPSIM_PLUGIN

const TrafficPatternRegistry& traffic_patterns() {
  static const TrafficPatternRegistry registry("traffic pattern", {
#define WARPSIM_PLUGIN(name, factory, description) {name, description, factory},
#include "interconnect/traffic/traffic_patterns.def"
#undef WARPSIM_PLUGIN
  });
  return registry;
}

std::unique_ptr<TrafficPattern> make_traffic_pattern(std::string_view name, const TrafficParams& params,
                                                     std::span<const NodeRole> roles, std::string& error) {
  if (const std::string why = traffic_patterns().check(name); !why.empty()) {
    error = why;
    return nullptr;
  }
  return traffic_patterns().make(name, params, roles, error);
}

bool TrafficPattern::reply(TrafficKind, uint32_t, uint32_t, TrafficPacket&) const { return false; }

std::vector<uint32_t> nodes_with_role(std::span<const NodeRole> roles, NodeRole role) {
  std::vector<uint32_t> nodes;
  for (uint32_t n = 0; n < roles.size(); ++n)
    if (roles[n] == role) nodes.push_back(n);
  return nodes;
}

}  // namespace warpsim::interconnect
