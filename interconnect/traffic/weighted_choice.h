#pragma once
// A random pick among indices 0..n-1 with integer weights: the packet-size
// mixes and the hotspot destinations. Integer weights keep the choice exact
// (and the same on every platform): index i is picked when a uniform draw
// below the total weight falls in i's share of the running sum.
#include <algorithm>
#include <cstdint>
#include <span>
#include <vector>

#include "common/invariant.h"
#include "interconnect/traffic/traffic_rng.h"

namespace warpsim::interconnect {

class WeightedChoice {
 public:
  WeightedChoice() = default;
  // weights[i] >= 0, at least one > 0.
  explicit WeightedChoice(std::span<const uint64_t> weights) {
    uint64_t sum = 0;
    for (uint64_t w : weights) cumulative_.push_back(sum += w);
    WARPSIM_INVARIANT(sum > 0, "a weighted choice needs a positive total weight");
  }

  uint64_t total() const { return cumulative_.empty() ? 0 : cumulative_.back(); }
  size_t size() const { return cumulative_.size(); }

  // An index, with probability weight / total (one draw).
  uint32_t pick(TrafficRng& rng) const {
    const uint64_t r = rng.below(total());
    // The first running sum above r: indices of weight 0 are never picked.
    return static_cast<uint32_t>(std::upper_bound(cumulative_.begin(), cumulative_.end(), r) -
                                 cumulative_.begin());
  }

 private:
  std::vector<uint64_t> cumulative_;  // running sums of the weights
};

}  // namespace warpsim::interconnect
