// The open-loop patterns: uniform, transpose, bitcomp, hotspot (every node a
// source, on the request subnet), many-to-few (Core to Memory, request
// subnet) and few-to-many (Memory to Core, reply subnet). Each creates
// packets at its sources only; nothing answers them. Definitions as in
// BookSim 2 (Jiang et al., ISPASS 2013) where it has the pattern; uniform
// includes the source itself among the destinations, as BookSim does.
#include <fmt/format.h>

#include <bit>
#include <numeric>

#include "interconnect/traffic/hotspot_spec.h"
#include "interconnect/traffic/traffic_pattern.h"
#include "interconnect/traffic/weighted_choice.h"

namespace warpsim::interconnect {
namespace {

std::vector<uint32_t> all_nodes(size_t n) {
  std::vector<uint32_t> nodes(n);
  std::iota(nodes.begin(), nodes.end(), 0u);
  return nodes;
}

// What the open-loop patterns share: the packet sizes (a fixed size costs no
// random draw), drawn after the destination.
class OpenLoopPattern : public TrafficPattern {
 public:
  OpenLoopPattern(Subnet subnet, std::vector<uint32_t> sources, const PacketSizes& sizes)
      : TrafficPattern(subnet, std::move(sources)), sizes_(sizes) {
    std::vector<uint64_t> weights;
    for (const auto& s : sizes.sizes) {
      WARPSIM_INVARIANT(s.flits >= 1 && s.weight >= 1, "packet sizes and weights are at least 1");
      weights.push_back(s.weight);
    }
    WARPSIM_INVARIANT(!weights.empty(), "an open-loop pattern needs a packet size");
    if (sizes.sizes.size() > 1) size_choice_ = WeightedChoice(weights);
  }

  double mean_flits() const override { return sizes_.mean_flits(); }

  TrafficPacket make(uint32_t src, TrafficRng& rng) const override {
    TrafficPacket p;
    p.dst = destination(src, rng);
    p.flits = sizes_.sizes.size() == 1 ? sizes_.sizes[0].flits : sizes_.sizes[size_choice_.pick(rng)].flits;
    return p;
  }

 protected:
  virtual uint32_t destination(uint32_t src, TrafficRng& rng) const = 0;

 private:
  PacketSizes sizes_;
  WeightedChoice size_choice_;  // with more than one size
};

// Destinations drawn uniformly from a list of nodes.
class UniformAmong final : public OpenLoopPattern {
 public:
  UniformAmong(Subnet subnet, std::vector<uint32_t> sources, std::vector<uint32_t> targets,
               const PacketSizes& sizes)
      : OpenLoopPattern(subnet, std::move(sources), sizes), targets_(std::move(targets)) {}

 private:
  uint32_t destination(uint32_t, TrafficRng& rng) const override {
    return targets_[rng.below(targets_.size())];
  }
  std::vector<uint32_t> targets_;
};

// Node s always sends to to_[s].
class Permutation final : public OpenLoopPattern {
 public:
  Permutation(std::vector<uint32_t> to, const PacketSizes& sizes)
      : OpenLoopPattern(Subnet::Request, all_nodes(to.size()), sizes), to_(std::move(to)) {}

 private:
  uint32_t destination(uint32_t src, TrafficRng&) const override { return to_[src]; }
  std::vector<uint32_t> to_;
};

// Destinations drawn by weight.
class Weighted final : public OpenLoopPattern {
 public:
  Weighted(std::vector<uint64_t> weights, const PacketSizes& sizes)
      : OpenLoopPattern(Subnet::Request, all_nodes(weights.size()), sizes), choice_(weights) {}

 private:
  uint32_t destination(uint32_t, TrafficRng& rng) const override { return choice_.pick(rng); }
  WeightedChoice choice_;
};

}  // namespace

std::unique_ptr<TrafficPattern> make_uniform_traffic(const TrafficParams& params,
                                                     std::span<const NodeRole> roles, std::string&) {
  return std::make_unique<UniformAmong>(Subnet::Request, all_nodes(roles.size()), all_nodes(roles.size()),
                                        params.sizes);
}

std::unique_ptr<TrafficPattern> make_transpose_traffic(const TrafficParams& params,
                                                       std::span<const NodeRole> roles, std::string& error) {
  const uint32_t n = static_cast<uint32_t>(roles.size());
  uint32_t k = 0;
  while ((k + 1) * (k + 1) <= n) ++k;
  if (k * k != n) {
    error = fmt::format("transpose needs a square number of nodes (a k x k grid); {} is not a square", n);
    return nullptr;
  }
  std::vector<uint32_t> to(n);
  for (uint32_t y = 0; y < k; ++y)
    for (uint32_t x = 0; x < k; ++x) to[y * k + x] = x * k + y;
  return std::make_unique<Permutation>(std::move(to), params.sizes);
}

std::unique_ptr<TrafficPattern> make_bitcomp_traffic(const TrafficParams& params,
                                                     std::span<const NodeRole> roles, std::string& error) {
  const uint32_t n = static_cast<uint32_t>(roles.size());
  if (!std::has_single_bit(n)) {
    error = fmt::format("bitcomp needs a power-of-2 number of nodes; {} is not", n);
    return nullptr;
  }
  std::vector<uint32_t> to(n);
  for (uint32_t s = 0; s < n; ++s) to[s] = ~s & (n - 1);
  return std::make_unique<Permutation>(std::move(to), params.sizes);
}

std::unique_ptr<TrafficPattern> make_hotspot_traffic(const TrafficParams& params,
                                                     std::span<const NodeRole> roles, std::string& error) {
  if (params.hotspot.empty()) {
    error = "the hotspot pattern needs a hotspot list: the destination nodes and their weights "
            "(e.g. 27, or 27:16,*:1)";
    return nullptr;
  }
  auto weights = parse_hotspot(params.hotspot, static_cast<uint32_t>(roles.size()), error);
  if (!weights) return nullptr;
  return std::make_unique<Weighted>(std::move(*weights), params.sizes);
}

namespace {

// from -> to uniformly, both by role; nullptr when either role is absent.
std::unique_ptr<TrafficPattern> between_roles(const char* name, Subnet subnet, NodeRole from, NodeRole to,
                                              const TrafficParams& params, std::span<const NodeRole> roles,
                                              std::string& error) {
  auto sources = nodes_with_role(roles, from);
  auto targets = nodes_with_role(roles, to);
  if (sources.empty() || targets.empty()) {
    error = fmt::format("{} needs Core and Memory nodes; these {} nodes have {} Core and {} Memory", name,
                        roles.size(), nodes_with_role(roles, NodeRole::Core).size(),
                        nodes_with_role(roles, NodeRole::Memory).size());
    return nullptr;
  }
  return std::make_unique<UniformAmong>(subnet, std::move(sources), std::move(targets), params.sizes);
}

}  // namespace

std::unique_ptr<TrafficPattern> make_many_to_few_traffic(const TrafficParams& params,
                                                         std::span<const NodeRole> roles, std::string& error) {
  return between_roles("many-to-few", Subnet::Request, NodeRole::Core, NodeRole::Memory, params, roles, error);
}

std::unique_ptr<TrafficPattern> make_few_to_many_traffic(const TrafficParams& params,
                                                         std::span<const NodeRole> roles, std::string& error) {
  return between_roles("few-to-many", Subnet::Reply, NodeRole::Memory, NodeRole::Core, params, roles, error);
}

}  // namespace warpsim::interconnect
