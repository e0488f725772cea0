#pragma once
// The statistics registry: named values with hierarchical dotted names
// ("runtime.memcpy.h2d_bytes", "kernel.3.thread_instructions"), collected by
// each component and written as nested JSON or as a readable two-column
// table. Headline figures keep GPGPU-Sim's names (gpu_sim_insn, gpu_sim_cycle,
// gpu_ipc, ...) so existing scripts and habits carry over.
//
// This is for per-run and per-launch figures, updated a few times per API
// call or launch; hot loops keep their own plain counters and publish them
// here when a launch ends.
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <variant>

#include <nlohmann/json_fwd.hpp>

namespace warpsim {

class StatsRegistry {
 public:
  using Value = std::variant<uint64_t, double, std::string>;

  // Counters: add creates the name at 0 first.
  void add(std::string_view name, uint64_t delta = 1);
  void set(std::string_view name, uint64_t value);
  void set(std::string_view name, double value);
  void set(std::string_view name, std::string value);

  bool has(std::string_view name) const;
  uint64_t counter(std::string_view name) const;  // 0 when absent or not a counter
  const std::map<std::string, Value, std::less<>>& values() const { return values_; }
  void clear() { values_.clear(); }

  // {"runtime": {"memcpy": {"h2d_bytes": 12}}}: a name that is both a value
  // and a prefix of others keeps its value under the key "value".
  nlohmann::json to_json() const;
  // One "name  value" line per entry, names padded to a column.
  std::string to_text() const;

 private:
  std::map<std::string, Value, std::less<>> values_;
};

}  // namespace warpsim
