// Parsing the hotspot list (hotspot_spec.h).
#include "interconnect/traffic/hotspot_spec.h"

#include <fmt/format.h>

#include <charconv>

namespace warpsim::interconnect {
namespace {

bool parse_whole(std::string_view text, uint64_t& out) {
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return !text.empty() && ec == std::errc() && end == text.data() + text.size();
}

}  // namespace

std::optional<std::vector<uint64_t>> parse_hotspot(std::string_view spec, uint32_t nodes,
                                                   std::string& error) {
  const auto fail = [&](const std::string& why) {
    error = fmt::format("hotspot list '{}': {} (write NODE[:WEIGHT],... with '*' for every other "
                        "node, e.g. 27 or 27:16,*:1)",
                        spec, why);
    return std::nullopt;
  };
  if (spec.empty()) return fail("empty");
  std::vector<uint64_t> weights(nodes, 0);
  std::vector<bool> listed(nodes, false);
  std::optional<uint64_t> others;  // the weight of '*'
  size_t start = 0;
  while (start <= spec.size()) {
    size_t comma = spec.find(',', start);
    if (comma == std::string_view::npos) comma = spec.size();
    const std::string_view entry = spec.substr(start, comma - start);
    const size_t colon = entry.find(':');
    const std::string_view target = entry.substr(0, colon);
    uint64_t weight = 1;
    if (colon != std::string_view::npos) {
      const std::string_view w = entry.substr(colon + 1);
      if (!parse_whole(w, weight) || weight == 0 || weight > kMaxHotspotWeight)
        return fail(fmt::format("weight '{}' is not a whole number from 1 to {}", w, kMaxHotspotWeight));
    }
    if (target == "*") {
      if (others) return fail("'*' appears twice");
      others = weight;
    } else {
      uint64_t node = 0;
      if (!parse_whole(target, node))
        return fail(fmt::format("'{}' is not a node number or '*'", target));
      if (node >= nodes)
        return fail(fmt::format("node {} is out of range (the network has {} nodes, 0 to {})", node,
                                nodes, nodes - 1));
      if (listed[node]) return fail(fmt::format("node {} appears twice", node));
      listed[node] = true;
      weights[node] = weight;
    }
    start = comma + 1;
  }
  if (others)
    for (uint32_t n = 0; n < nodes; ++n)
      if (!listed[n]) weights[n] = *others;
  return weights;  // every entry gave some node a weight >= 1
}

}  // namespace warpsim::interconnect
