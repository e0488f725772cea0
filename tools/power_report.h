#pragma once
// The energy lines of a run's summary and of `warpsim power`, from the
// power.* statistics (power/energy_model.h).
#include <string>

#include <nlohmann/json.hpp>

namespace warpsim::tools {

// "  energy ..." and "  power ..." lines for `power` (the "power" object of a
// statistics file); "" when it has no total.
std::string power_summary(const nlohmann::json& power);

// "1.23 mJ", "4.5 J": an energy with a readable unit.
std::string energy_text(double joules);

}  // namespace warpsim::tools
