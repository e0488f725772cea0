// The energy lines of a summary.
#include "tools/power_report.h"

#include <cmath>

#include <fmt/format.h>

#include "power/energy_model.h"

namespace warpsim::tools {

std::string energy_text(double joules) {
  // Three significant digits, trailing zeros kept ("2.00 mJ", "850 uJ").
  auto digits = [](double v, const char* unit) {
    const double a = std::fabs(v);
    return fmt::format("{:.{}f} {}", v, a >= 100 ? 0 : a >= 10 ? 1 : 2, unit);
  };
  const double a = std::fabs(joules);
  if (a >= 1) return digits(joules, "J");
  if (a >= 1e-3) return digits(joules * 1e3, "mJ");
  if (a >= 1e-6) return digits(joules * 1e6, "uJ");
  return digits(joules * 1e9, "nJ");
}

std::string power_summary(const nlohmann::json& power) {
  if (!power.is_object() || !power.contains("total_energy_J")) return {};
  const double total = power.value("total_energy_J", 0.0);
  std::string groups;
  const nlohmann::json& g = power.value("group", nlohmann::json::object());
  for (std::string_view name : power::kGroupNames) {
    const double e = g.contains(name) ? g[std::string(name)].value("energy_J", 0.0) : 0.0;
    groups += fmt::format("{}{} {:.1f}%", groups.empty() ? "" : ", ", name, total > 0 ? 100 * e / total : 0.0);
  }
  std::string out = fmt::format("  energy           {} ({} dynamic, {} static): {}\n", energy_text(total),
                                energy_text(power.value("dynamic_energy_J", 0.0)),
                                energy_text(power.value("static_energy_J", 0.0)), groups);
  out += fmt::format("  power            {:.1f} W average; EDP {:.3g} J*s, ED2P {:.3g} J*s^2, {:.3g} G inst/J (perf/W)\n",
                     power.value("average_power_W", 0.0), power.value("edp_Js", 0.0),
                     power.value("ed2p_Js2", 0.0), power.value("instructions_per_joule", 0.0) / 1e9);
  return out;
}

}  // namespace warpsim::tools
