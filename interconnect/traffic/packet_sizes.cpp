// Packet sizes of the open-loop patterns: mean, description, parsing.
#include "interconnect/traffic/packet_sizes.h"

#include <fmt/format.h>

#include <charconv>

namespace warpsim::interconnect {

double PacketSizes::mean_flits() const {
  double weighted = 0, total = 0;
  for (const Size& s : sizes) {
    weighted += double(s.flits) * double(s.weight);
    total += double(s.weight);
  }
  return total > 0 ? weighted / total : 0;
}

std::string PacketSizes::describe() const {
  if (sizes.size() == 1) return fmt::format("{} flit{}", sizes[0].flits, sizes[0].flits == 1 ? "" : "s");
  std::string out;
  for (size_t i = 0; i < sizes.size(); ++i)
    out += fmt::format("{}{}", i == 0 ? "" : (i + 1 == sizes.size() ? " or " : ", "), sizes[i].flits);
  return fmt::format("{} flits (mean {:g})", out, mean_flits());
}

std::optional<PacketSizes> parse_packet_sizes(std::string_view text, std::string& error) {
  if (text == "mixed") return PacketSizes::mixed();
  uint32_t flits = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), flits);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || flits == 0 ||
      flits > kMaxPacketFlits) {
    error = fmt::format("packet size '{}' is not a number of flits from 1 to {} or 'mixed' (1 or 5 "
                        "flits, equally likely)",
                        text, kMaxPacketFlits);
    return std::nullopt;
  }
  return PacketSizes::fixed(flits);
}

}  // namespace warpsim::interconnect
