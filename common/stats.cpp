#include "common/stats.h"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>

namespace warpsim {

void StatsRegistry::add(std::string_view name, uint64_t delta) {
  auto it = values_.find(name);
  if (it == values_.end()) it = values_.emplace(std::string(name), uint64_t{0}).first;
  if (auto* v = std::get_if<uint64_t>(&it->second))
    *v += delta;
  else
    it->second = delta;
}

void StatsRegistry::set(std::string_view name, uint64_t value) {
  values_.insert_or_assign(std::string(name), value);
}
void StatsRegistry::set(std::string_view name, double value) {
  values_.insert_or_assign(std::string(name), value);
}
void StatsRegistry::set(std::string_view name, std::string value) {
  values_.insert_or_assign(std::string(name), std::move(value));
}

bool StatsRegistry::has(std::string_view name) const { return values_.find(name) != values_.end(); }

uint64_t StatsRegistry::counter(std::string_view name) const {
  auto it = values_.find(name);
  if (it == values_.end()) return 0;
  const auto* v = std::get_if<uint64_t>(&it->second);
  return v ? *v : 0;
}

namespace {

nlohmann::json to_json_value(const StatsRegistry::Value& v) {
  return std::visit([](const auto& x) { return nlohmann::json(x); }, v);
}

}  // namespace

nlohmann::json StatsRegistry::to_json() const {
  nlohmann::json root = nlohmann::json::object();
  for (const auto& [name, value] : values_) {
    nlohmann::json* node = &root;
    size_t start = 0;
    while (true) {
      const size_t dot = name.find('.', start);
      const std::string key = name.substr(start, dot == std::string::npos ? dot : dot - start);
      if (dot == std::string::npos) {
        nlohmann::json& leaf = (*node)[key];
        if (leaf.is_object())
          leaf["value"] = to_json_value(value);
        else
          leaf = to_json_value(value);
        break;
      }
      nlohmann::json& child = (*node)[key];
      if (!child.is_object()) {
        nlohmann::json old = child;
        child = nlohmann::json::object();
        if (!old.is_null()) child["value"] = old;
      }
      node = &child;
      start = dot + 1;
    }
  }
  return root;
}

std::string StatsRegistry::to_text() const {
  size_t width = 0;
  for (const auto& [name, value] : values_) width = std::max(width, name.size());
  std::string out;
  for (const auto& [name, value] : values_) {
    std::string v = std::visit(
        [](const auto& x) -> std::string {
          using T = std::decay_t<decltype(x)>;
          if constexpr (std::is_same_v<T, double>)
            return fmt::format("{:.6g}", x);
          else
            return fmt::format("{}", x);
        },
        value);
    out += fmt::format("{:<{}}  {}\n", name, width, v);
  }
  return out;
}

}  // namespace warpsim
