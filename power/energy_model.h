#pragma once
// The energy model: every component's energy over a stretch of simulated
// time (a launch, a kernel's launches, a whole run, one row of a power
// trace), from that stretch's counters alone.
//
//   dynamic energy of a component = sum over its events of count x energy per event
//   static energy                 = static power x time (x instances; power gating
//                                   counts idle SMs and idle DRAM channels apart)
//   DRAM                          = IDD-current model (activate, read and write
//                                   bursts, refresh, background by state)
//   constant                      = constant power x time
//
// Components are rows of one table (energy_model.cpp): a name, a group, and
// a function of the configuration, the machine and the activity. Adding a
// component is one row there (and its coefficients in power_config), its
// counters' names in the row's inputs. docs/power.md has the equations.
#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "common/stats.h"
#include "power/activity.h"
#include "power/machine.h"
#include "power/power_config.h"

namespace warpsim::power {

// The groups a report sums components into (GPUWattch's breakdown, with
// the network and the memory controller apart, as Wang et al., IEEE TC 2019, and
// Pattnaik et al., ISCA 2019, report them).
enum class Group : uint8_t { Sm, L2, Noc, Mc, Dram, Constant, Count };
inline constexpr size_t kGroups = static_cast<size_t>(Group::Count);
inline constexpr std::array<std::string_view, kGroups> kGroupNames = {"sm", "l2", "noc", "mc", "dram",
                                                                        "constant"};

struct ComponentEnergy {
  std::string_view name;    // "sm.register_file"
  Group group = Group::Sm;
  bool is_static = false;   // static (time-based) rather than event-based
  double joules = 0;
};

struct EnergyReport {
  uint64_t cycles = 0;               // core cycles priced
  double seconds = 0;                // their simulated time
  uint64_t thread_instructions = 0;
  std::vector<ComponentEnergy> components;  // in the table's order
  std::array<double, kGroups> group_joules{};
  double dynamic_joules = 0, static_joules = 0, total_joules = 0;
  // Sampled simulation: the factor the counters of the simulated part were
  // scaled by to stand for every instruction (warp instructions over the
  // simulated ones); 1 for a run simulated whole.
  double sampled_scale = 1.0;

  double average_watts() const { return seconds > 0 ? total_joules / seconds : 0.0; }
  double edp() const { return total_joules * seconds; }               // J*s
  double ed2p() const { return total_joules * seconds * seconds; }    // J*s^2
  // Performance per watt: (instructions / s) / W = instructions / J.
  double instructions_per_joule() const { return total_joules > 0 ? thread_instructions / total_joules : 0.0; }
  double group_watts(Group g) const {
    return seconds > 0 ? group_joules[static_cast<size_t>(g)] / seconds : 0.0;
  }

  // power.* under `prefix` ("power"): totals, groups, components, metrics.
  void publish(StatsRegistry& stats, std::string_view prefix = "power") const;
  // The same figures as one JSON object (kernels[].power).
  nlohmann::json to_json() const;
};

// One component: its row of the table.
struct Component {
  std::string_view name;
  Group group;
  bool is_static;
  std::string_view description;  // docs/power.md
};
std::span<const Component> components();

// Every counter the model reads (published statistic names, docs/statistics.md).
std::span<const std::string_view> input_names();

// Prices `activity` (counters of one stretch of time) on `machine` with `config`.
EnergyReport estimate(const PowerConfig& config, const Machine& machine, const Activity& activity);

}  // namespace warpsim::power
