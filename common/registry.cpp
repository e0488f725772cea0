#include "common/registry.h"

#include <algorithm>

namespace warpsim {

std::vector<std::string> name_list(std::string_view list) {
  std::vector<std::string> names;
  if (list == "none") return names;
  size_t start = 0;
  while (start <= list.size()) {
    size_t end = list.find(',', start);
    if (end == std::string_view::npos) end = list.size();
    std::string_view name = list.substr(start, end - start);
    while (!name.empty() && name.front() == ' ') name.remove_prefix(1);
    while (!name.empty() && name.back() == ' ') name.remove_suffix(1);
    if (!name.empty()) names.emplace_back(name);
    start = end + 1;
  }
  return names;
}

bool RegistryNames::contains(std::string_view name) const {
  for (std::string_view n : names_)
    if (n == name) return true;
  return false;
}

std::string RegistryNames::joined() const {
  std::string all;
  for (std::string_view n : names_) {
    if (!all.empty()) all += ", ";
    all += n;
  }
  return all;
}

std::string RegistryNames::check(std::string_view name) const {
  if (contains(name)) return "";
  return "unknown " + what_ + " '" + std::string(name) + "' (one of: " + joined() + ")";
}

std::string RegistryNames::check_list(std::string_view list) const {
  const std::vector<std::string> names = name_list(list);
  for (size_t i = 0; i < names.size(); ++i) {
    const std::string err = check(names[i]);
    if (!err.empty()) return err;
    if (std::find(names.begin(), names.begin() + static_cast<std::ptrdiff_t>(i), names[i]) !=
        names.begin() + static_cast<std::ptrdiff_t>(i))
      return what_ + " '" + names[i] + "' is listed twice";
  }
  return "";
}

}  // namespace warpsim
