#pragma once
// What the energy model prices: counters of the timing model by their
// published statistic names (docs/statistics.md), taken from the run's
// statistics registry, from one launch's, or from a `--stats` JSON file.
// The energy model reads nothing else of a run, so a stats file priced
// offline (`warpsim power`) gives the in-run result exactly.
#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <string_view>

#include <nlohmann/json_fwd.hpp>

#include "common/stats.h"

namespace warpsim::power {

class Activity {
 public:
  // The value of counter `name`; 0 when absent (a component the run did not
  // have, such as a network without routers).
  uint64_t operator[](std::string_view name) const;
  void set(std::string name, uint64_t value) { values_[std::move(name)] = value; }
  const std::map<std::string, uint64_t, std::less<>>& values() const { return values_; }
  bool empty() const { return values_.empty(); }

  // this += other; this -= other (counters only grow: clamps at 0).
  void add(const Activity& other);
  Activity minus(const Activity& earlier) const;

  // The counters `names` of a registry (absent ones are left out).
  static Activity from_registry(const StatsRegistry& stats, std::span<const std::string_view> names);
  // The counters `names` of a nested statistics JSON object (as `--stats`
  // writes it: dots are levels, a prefix's own value under "value").
  static Activity from_json(const nlohmann::json& stats, std::span<const std::string_view> names);
  // A flat {"name": value} object (as kernels[].power_inputs holds).
  static Activity from_flat_json(const nlohmann::json& flat);
  nlohmann::json to_flat_json() const;

 private:
  std::map<std::string, uint64_t, std::less<>> values_;
};

}  // namespace warpsim::power
