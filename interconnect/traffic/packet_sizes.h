#pragma once
// The sizes of the packets an open-loop traffic pattern creates, in flits: one
// fixed size P, or a mix picked per packet with weights. `mixed` is 1 or 5
// flits with equal probability (mean 3), as in the BookSim 2 studies with
// packet_size = {1,5} (Jiang et al., ISPASS 2013): a short control packet
// and a data packet sharing the network.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace warpsim::interconnect {

struct PacketSizes {
  struct Size {
    uint32_t flits = 1;   // >= 1
    uint64_t weight = 1;  // relative, >= 1
  };
  std::vector<Size> sizes = std::vector<Size>(1);  // one size: 1 flit

  static PacketSizes fixed(uint32_t flits) {
    PacketSizes p;
    p.sizes = {Size{flits, 1}};
    return p;
  }
  static PacketSizes mixed() {
    PacketSizes p;
    p.sizes = {Size{1, 1}, Size{5, 1}};
    return p;
  }

  double mean_flits() const;
  // "1 flit", "5 flits", "1 or 5 flits (mean 3)"
  std::string describe() const;
};

// "N" (1..kMaxPacketFlits) or "mixed"; nullopt with `error` set otherwise.
inline constexpr uint32_t kMaxPacketFlits = 1024;
std::optional<PacketSizes> parse_packet_sizes(std::string_view text, std::string& error);

}  // namespace warpsim::interconnect
