#include "common/registry.h"

namespace warpsim {

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

}  // namespace warpsim
