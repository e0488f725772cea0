// Activity: named counters from a registry or a statistics JSON file.
#include "power/activity.h"

#include <nlohmann/json.hpp>

namespace warpsim::power {

uint64_t Activity::operator[](std::string_view name) const {
  auto it = values_.find(name);
  return it == values_.end() ? 0 : it->second;
}

void Activity::add(const Activity& other) {
  for (const auto& [name, v] : other.values_) values_[name] += v;
}

Activity Activity::minus(const Activity& earlier) const {
  Activity d = *this;
  for (auto& [name, v] : d.values_) {
    const uint64_t e = earlier[name];
    v = v > e ? v - e : 0;
  }
  return d;
}

Activity Activity::from_registry(const StatsRegistry& stats, std::span<const std::string_view> names) {
  Activity a;
  for (std::string_view name : names) {
    auto it = stats.values().find(name);
    if (it == stats.values().end()) continue;
    if (const uint64_t* v = std::get_if<uint64_t>(&it->second)) a.values_.emplace(name, *v);
  }
  return a;
}

Activity Activity::from_json(const nlohmann::json& stats, std::span<const std::string_view> names) {
  Activity a;
  for (std::string_view name : names) {
    const nlohmann::json* node = &stats;
    size_t start = 0;
    while (node != nullptr && start <= name.size()) {
      const size_t dot = name.find('.', start);
      const std::string part(name.substr(start, dot == std::string_view::npos ? dot : dot - start));
      if (!node->is_object()) {
        node = nullptr;
        break;
      }
      auto it = node->find(part);
      node = it == node->end() ? nullptr : &*it;
      if (dot == std::string_view::npos) break;
      start = dot + 1;
    }
    if (node != nullptr && node->is_object()) {
      auto it = node->find("value");
      node = it == node->end() ? nullptr : &*it;
    }
    if (node != nullptr && node->is_number_unsigned()) a.values_.emplace(name, node->get<uint64_t>());
  }
  return a;
}

Activity Activity::from_flat_json(const nlohmann::json& flat) {
  Activity a;
  if (!flat.is_object()) return a;
  for (const auto& [name, v] : flat.items())
    if (v.is_number_unsigned()) a.values_.emplace(name, v.get<uint64_t>());
  return a;
}

nlohmann::json Activity::to_flat_json() const {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [name, v] : values_) j[name] = v;
  return j;
}

}  // namespace warpsim::power
