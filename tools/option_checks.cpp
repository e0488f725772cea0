#include "tools/option_checks.h"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <cstdlib>

namespace warpsim::tools {

std::string check_whole_number(const std::string& text, uint64_t min, uint64_t max) {
  uint64_t v = 0;
  const char* end = text.data() + text.size();
  // from_chars takes no sign for an unsigned type, so "-5" fails here
  // instead of wrapping around.
  const auto [stop, ec] = std::from_chars(text.data(), end, v);
  if (text.empty() || ec != std::errc() || stop != end || v < min || v > max)
    return fmt::format("{} is not a whole number from {} to {}", text.empty() ? "''" : text, min, max);
  return {};
}

std::string check_seconds(const std::string& text, double min, double max) {
  char* stop = nullptr;
  const double v = text.empty() ? 0 : std::strtod(text.c_str(), &stop);
  // !(v >= min): NaN fails too.
  if (text.empty() || stop != text.c_str() + text.size() || !std::isfinite(v) || !(v >= min) || v > max)
    return fmt::format("{} is not a number of seconds from {:g} to {:.0f}", text.empty() ? "''" : text, min, max);
  return {};
}

CLI::Validator whole_number(uint64_t min, uint64_t max) {
  return CLI::Validator([min, max](std::string& text) { return check_whole_number(text, min, max); },
                        fmt::format("{}..{}", min, max), "WHOLE_NUMBER");
}

CLI::Validator seconds(double min, double max) {
  return CLI::Validator([min, max](std::string& text) { return check_seconds(text, min, max); },
                        fmt::format("SECONDS {:g}..{:.0f}", min, max), "SECONDS");
}

}  // namespace warpsim::tools
