#pragma once
// Reading a statistics file (`warpsim run --stats`): the nested JSON of
// StatsRegistry::to_json, looked up by dotted statistic name. Shared by
// `warpsim run` (its summary) and `warpsim bench` (its results table).
#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace warpsim::tools {

// The file's statistics; null when it is missing or not JSON.
nlohmann::json read_stats_file(const std::string& path);

// The value of the statistic `name` ("timing.dram.read_bytes"): a name that
// is also the prefix of others keeps its value under the key "value". 0 when
// absent or not a number of that kind.
uint64_t stat_u64(const nlohmann::json& stats, std::string_view name);
double stat_double(const nlohmann::json& stats, std::string_view name);

// A kernel's C++ name from its mangled one (kernels[].name), which is
// unreadable in a summary; the name itself when it is not a C++ name.
std::string demangle(const std::string& name);

}  // namespace warpsim::tools
