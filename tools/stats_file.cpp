#include "tools/stats_file.h"

#include <cxxabi.h>

#include <cstdlib>
#include <fstream>

namespace warpsim::tools {
namespace {

const nlohmann::json* find(const nlohmann::json& stats, std::string_view name) {
  const nlohmann::json* n = &stats;
  size_t start = 0;
  for (;;) {
    const size_t dot = name.find('.', start);
    const std::string key(name.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start));
    if (!n->is_object() || !n->contains(key)) return nullptr;
    n = &(*n)[key];
    if (dot == std::string_view::npos) break;
    start = dot + 1;
  }
  if (n->is_object() && n->contains("value")) n = &(*n)["value"];
  return n;
}

}  // namespace

nlohmann::json read_stats_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) return nullptr;
  nlohmann::json j = nlohmann::json::parse(in, nullptr, false);
  return j.is_discarded() ? nlohmann::json(nullptr) : j;
}

uint64_t stat_u64(const nlohmann::json& stats, std::string_view name) {
  const nlohmann::json* n = find(stats, name);
  return n != nullptr && n->is_number_integer() ? n->get<uint64_t>() : 0;
}

double stat_double(const nlohmann::json& stats, std::string_view name) {
  const nlohmann::json* n = find(stats, name);
  return n != nullptr && n->is_number() ? n->get<double>() : 0;
}

std::string demangle(const std::string& name) {
  int status = 0;
  char* d = abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status);
  std::string out = status == 0 && d ? d : name;
  std::free(d);
  return out;
}

}  // namespace warpsim::tools
