#pragma once
// Synthetic traffic patterns: which nodes create packets, where each packet
// goes and how big it is, for the traffic driver (traffic_driver.h).
//
// A pattern is registered by name (traffic_patterns.def, the registry
// template of common/registry.h) and built for a list of node roles, which
// some patterns use (many-to-few, few-to-many and gpu send between Core and
// Memory nodes). Open-loop patterns create packets only at their sources;
// the closed-loop `gpu` pattern also answers every delivered request with a
// reply from the memory node (reply()).
//
// Patterns are stateless: every random choice draws from the driver's
// TrafficRng, so a seed fixes the traffic.
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/registry.h"
#include "interconnect/network.h"
#include "interconnect/traffic/packet_sizes.h"
#include "interconnect/traffic/traffic_rng.h"

namespace warpsim::interconnect {

// What a packet is to the traffic driver (the network never sees this).
enum class TrafficKind : uint8_t {
  Data = 0,          // an open-loop packet
  ReadRequest = 1,   // gpu: a read request, answered with data
  WriteRequest = 2,  // gpu: a write request (with data), answered with an acknowledgement
  Reply = 3,         // gpu: a memory node's reply
};

// A packet a pattern asks for: where to and how many flits.
struct TrafficPacket {
  uint32_t dst = 0;
  uint32_t flits = 1;
  TrafficKind kind = TrafficKind::Data;
};

// The `gpu` pattern's request/reply traffic (Bakhoda, PhD thesis, UBC 2014):
// Core nodes send read and write requests to Memory nodes, and each memory
// node answers every request it receives.
struct GpuTrafficParams {
  double read_fraction = 0.9;        // of requests; the rest are writes
  uint32_t read_request_flits = 1;   // a read request: a header
  uint32_t read_reply_flits = 4;     // its reply: the data
  uint32_t write_request_flits = 4;  // a write request: header and data
  uint32_t write_reply_flits = 1;    // its acknowledgement: a header
  double hotspot_fraction = 0;       // of requests sent to hotspot_node; the rest uniformly to the others
  std::optional<uint32_t> hotspot_node;  // a Memory node; default: the first one
};

// What the patterns are built from; each reads the fields it needs.
struct TrafficParams {
  PacketSizes sizes;      // open-loop patterns' packet sizes
  std::string hotspot;    // hotspot: the destinations and weights (hotspot_spec.h)
  GpuTrafficParams gpu;   // gpu
};

class TrafficPattern {
 public:
  virtual ~TrafficPattern() = default;
  TrafficPattern(const TrafficPattern&) = delete;
  TrafficPattern& operator=(const TrafficPattern&) = delete;

  // The subnet the sources' packets travel on (replies: Subnet::Reply).
  Subnet subnet() const { return subnet_; }
  // The nodes that create packets, ascending.
  std::span<const uint32_t> sources() const { return sources_; }
  // Mean flits of a source's packet (for the offered load).
  virtual double mean_flits() const = 0;
  // A new packet from `src` (one of sources()).
  virtual TrafficPacket make(uint32_t src, TrafficRng& rng) const = 0;
  // Whether a delivered packet of `kind` (sent from `src` to `dst`) is
  // answered; if so, `out` is the answer, sent from `dst` on the reply subnet.
  virtual bool reply(TrafficKind kind, uint32_t src, uint32_t dst, TrafficPacket& out) const;
  // Whether reply() ever answers (the memory side is closed-loop).
  virtual bool closed_loop() const { return false; }

 protected:
  TrafficPattern(Subnet subnet, std::vector<uint32_t> sources)
      : subnet_(subnet), sources_(std::move(sources)) {}

 private:
  Subnet subnet_;
  std::vector<uint32_t> sources_;
};

// A pattern's factory: the pattern for nodes with `roles`, or nullptr with
// `error` set when the parameters do not fit the nodes (transpose on a
// number of nodes that is not a square, a hotspot node out of range, ...).
using TrafficPatternFactory = std::unique_ptr<TrafficPattern> (*)(const TrafficParams& params,
                                                                  std::span<const NodeRole> roles,
                                                                  std::string& error);
using TrafficPatternRegistry = Registry<TrafficPatternFactory>;

const TrafficPatternRegistry& traffic_patterns();

// The pattern `name` for `roles`; nullptr with `error` set when the name is
// unknown or the factory refuses.
std::unique_ptr<TrafficPattern> make_traffic_pattern(std::string_view name, const TrafficParams& params,
                                                     std::span<const NodeRole> roles, std::string& error);

// The nodes with `role`, ascending.
std::vector<uint32_t> nodes_with_role(std::span<const NodeRole> roles, NodeRole role);

}  // namespace warpsim::interconnect
