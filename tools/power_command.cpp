// `warpsim power STATS.json`: prices a finished run again with other energy
// coefficients, without simulating again (docs/power.md). The counters, the
// machine (power.machine.*) and, unless --config names another GPU config,
// the coefficients (power.parameters.*) come from the statistics file, so
// with no options the result equals the run's own, bit for bit.
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common/diagnostics.h"
#include "power/energy_model.h"
#include "timing/sim_config.h"
#include "tools/commands.h"
#include "tools/power_report.h"
#include "tools/stats_file.h"

namespace warpsim::tools {
namespace {

struct PowerOptions {
  std::string stats;
  std::string config;
  std::vector<std::string> overrides;
  std::string json;
};

int run_power(const PowerOptions& opt) {
  const nlohmann::json stats = read_stats_file(opt.stats);
  if (stats.is_null()) {
    fmt::print(stderr, "warpsim power: {}: cannot read the statistics (not a file written by warpsim run --stats)\n",
               opt.stats);
    return 2;
  }
  std::string error;
  const std::optional<power::Machine> machine = power::Machine::from_json(stats, error);
  if (!machine) {
    fmt::print(stderr, "warpsim power: {}: {}\n", opt.stats, error);
    return 2;
  }
  for (const std::string& o : opt.overrides)
    if (o.rfind("power.", 0) != 0) {
      fmt::print(stderr,
                 "warpsim power: --set {}: only [power] keys change an estimate made offline (the counters and "
                 "the machine are the run's)\n",
                 o);
      return 2;
    }
  // The run's coefficients, unless another config's are asked for; then
  // the command line's.
  std::vector<std::string> overrides;
  if (opt.config.empty()) overrides = power::parameter_overrides(stats);
  overrides.insert(overrides.end(), opt.overrides.begin(), opt.overrides.end());
  DiagnosticEngine diags;
  const std::optional<SimConfig> config = load_sim_config(opt.config, overrides, diags);
  if (!config) {
    std::cerr << diags.format_all();
    return 2;
  }
  const power::EnergyReport total =
      power::estimate(config->power, *machine, power::Activity::from_json(stats, power::input_names()));
  std::string out = fmt::format("warpsim power: {} ({}), {} cycles, {:.6g} s simulated\n", opt.stats,
                                opt.config.empty() ? "the run's coefficients" : "the coefficients of " + opt.config,
                                total.cycles, total.seconds);
  nlohmann::json report = {{"power", total.to_json()}, {"kernels", nlohmann::json::array()}};
  out += power_summary(report["power"]);
  const auto& run = stats.value("power", nlohmann::json::object());
  if (run.contains("total_energy_J")) {
    const double before = run.value("total_energy_J", 0.0);
    out += before == total.total_joules
               ? "  (the same as the run's own estimate)\n"
               : fmt::format("  (the run's own estimate: {}, {:+.2f}%)\n", energy_text(before),
                             before != 0 ? 100 * (total.total_joules - before) / before : 0.0);
  }
  const auto& kernels = stats.value("kernels", nlohmann::json::array());
  if (!kernels.empty()) out += "  kernels          energy      average power  name\n";
  for (const nlohmann::json& k : kernels) {
    if (!k.contains("power_inputs")) continue;
    const power::EnergyReport e =
        power::estimate(config->power, *machine, power::Activity::from_flat_json(k["power_inputs"]));
    const std::string name = demangle(k.value("name", std::string("?")));
    out += fmt::format("                   {:<10}  {:>9.1f} W    {}\n", energy_text(e.total_joules), e.average_watts(),
                       name.size() > 60 ? name.substr(0, 57) + "..." : name);
    report["kernels"].push_back({{"name", name}, {"power", e.to_json()}});
  }
  std::cout << out;
  if (!opt.json.empty()) {
    std::ofstream f(opt.json);
    f << report.dump(2) << '\n';
    if (!f) {
      fmt::print(stderr, "warpsim power: cannot write {}\n", opt.json);
      return 1;
    }
  }
  return 0;
}

}  // namespace

void register_power_command(CLI::App& app) {
  auto opt = std::make_shared<PowerOptions>();
  CLI::App* cmd = app.add_subcommand(
      "power", "Price a run's statistics again with other energy coefficients, without simulating (docs/power.md)");
  cmd->add_option("stats", opt->stats, "Statistics of a timing-mode run (warpsim run --stats FILE)")->required();
  cmd->add_option("--config", opt->config,
                  "Take the [power] coefficients of this GPU config (default: the ones the run used)");
  cmd->add_option("--set", opt->overrides, "Override a coefficient: power.key=value")->take_all();
  cmd->add_option("--json", opt->json, "Also write the estimate (total and per kernel) as JSON to this file");
  cmd->callback([opt] { set_exit_code(run_power(*opt)); });
}

}  // namespace warpsim::tools
