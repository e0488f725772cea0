// The `gpu` pattern: the request/reply traffic of a GPU's cores and memory
// partitions, as in Bakhoda's synthetic GPU traffic (Bakhoda, PhD thesis,
// UBC 2014). Core nodes create requests on the request subnet, each a read
// (read_fraction, a header-only packet) or a write (header and data), to a
// Memory node chosen uniformly - or, with hotspot_fraction > 0, to one
// memory node for that fraction of the requests and uniformly among the
// other memory nodes for the rest. Every request delivered to a memory node
// is answered at once on the reply subnet: data for a read, an
// acknowledgement for a write. The memory side has no service time, so the
// network alone sets the round trip; replies are created as requests
// arrive, whatever the injection rate (closed loop at the memory side).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "interconnect/traffic/traffic_pattern.h"

namespace warpsim::interconnect {
namespace {

class GpuTraffic final : public TrafficPattern {
 public:
  GpuTraffic(std::vector<uint32_t> cores, std::vector<uint32_t> memories, uint32_t hot,
             const GpuTrafficParams& params)
      : TrafficPattern(Subnet::Request, std::move(cores)), params_(params), hot_(hot) {
    for (uint32_t m : memories)
      if (m != hot || params.hotspot_fraction == 0) others_.push_back(m);
    // With a hotspot and a single memory node, every request goes there.
    if (others_.empty()) others_.push_back(hot);
  }

  double mean_flits() const override {
    return params_.read_fraction * params_.read_request_flits +
           (1 - params_.read_fraction) * params_.write_request_flits;
  }

  TrafficPacket make(uint32_t, TrafficRng& rng) const override {
    TrafficPacket p;
    if (params_.hotspot_fraction > 0 && rng.chance(params_.hotspot_fraction))
      p.dst = hot_;
    else
      p.dst = others_[rng.below(others_.size())];
    const bool read = rng.chance(params_.read_fraction);
    p.kind = read ? TrafficKind::ReadRequest : TrafficKind::WriteRequest;
    p.flits = read ? params_.read_request_flits : params_.write_request_flits;
    return p;
  }

  bool reply(TrafficKind kind, uint32_t src, uint32_t, TrafficPacket& out) const override {
    if (kind != TrafficKind::ReadRequest && kind != TrafficKind::WriteRequest) return false;
    out.dst = src;
    out.kind = TrafficKind::Reply;
    out.flits = kind == TrafficKind::ReadRequest ? params_.read_reply_flits : params_.write_reply_flits;
    return true;
  }

  bool closed_loop() const override { return true; }

 private:
  GpuTrafficParams params_;
  uint32_t hot_;
  std::vector<uint32_t> others_;  // the uniform destinations
};

bool fraction(double f) { return std::isfinite(f) && f >= 0 && f <= 1; }

}  // namespace

std::unique_ptr<TrafficPattern> make_gpu_traffic(const TrafficParams& params, std::span<const NodeRole> roles,
                                                 std::string& error) {
  const GpuTrafficParams& g = params.gpu;
  auto cores = nodes_with_role(roles, NodeRole::Core);
  auto memories = nodes_with_role(roles, NodeRole::Memory);
  if (cores.empty() || memories.empty()) {
    error = fmt::format("gpu needs Core and Memory nodes; these {} nodes have {} Core and {} Memory",
                        roles.size(), cores.size(), memories.size());
    return nullptr;
  }
  if (!fraction(g.read_fraction) || !fraction(g.hotspot_fraction)) {
    error = fmt::format("gpu: the read fraction ({}) and the hotspot fraction ({}) must be from 0 to 1",
                        g.read_fraction, g.hotspot_fraction);
    return nullptr;
  }
  if (g.read_request_flits == 0 || g.read_reply_flits == 0 || g.write_request_flits == 0 ||
      g.write_reply_flits == 0) {
    error = "gpu: every packet has at least 1 flit";
    return nullptr;
  }
  const uint32_t hot = g.hotspot_node.value_or(memories.front());
  if (std::find(memories.begin(), memories.end(), hot) == memories.end()) {
    error = fmt::format("gpu: the hotspot node {} is not a Memory node (there are {}, the first is node {})",
                        hot, memories.size(), memories.front());
    return nullptr;
  }
  return std::make_unique<GpuTraffic>(std::move(cores), std::move(memories), hot, g);
}

}  // namespace warpsim::interconnect
