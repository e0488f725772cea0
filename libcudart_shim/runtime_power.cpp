// The runtime's part of the energy model: per-kernel counters, the run's
// power.* figures in the statistics, and the power trace.
#include <cstdio>

#include <nlohmann/json.hpp>

#include "libcudart_shim/runtime.h"
#include "power/energy_model.h"
#include "timing/power_machine.h"

namespace warpsim::cudart {

power::Activity Runtime::power_activity(const timing::LaunchActivity& a) {
  StatsRegistry one;
  timing::publish(one, a, timing::PublishDetail::Totals);
  return power::Activity::from_registry(one, power::input_names());
}

void Runtime::start_power_trace() {
  power_trace_ = std::make_unique<power::PowerTrace>(options_.power_trace, config_.power, power_machine_);
  if (!power_trace_->ok()) {
    std::fprintf(stderr, "warpsim: %s\n", power_trace_->error().c_str());
    power_trace_.reset();
    return;
  }
  timing_->set_sampler(config_.power.trace_interval, [this](const timing::LaunchActivity& so_far) {
    power_trace_->sample(power_activity(so_far));
  });
}

void Runtime::publish_power(nlohmann::json& j) {
  if (!timing_ || !config_.power.enabled) return;
  const power::Machine& machine = power_machine_;
  StatsRegistry out = power_parameters_;
  machine.publish(out);
  const power::Activity run = power::Activity::from_registry(stats_, power::input_names());
  power::estimate(config_.power, machine, run).publish(out);
  j["power"] = out.to_json()["power"];
  // Each kernel: its energy, and the counters it was priced from (so that
  // `warpsim power` can price it again).
  size_t i = 0;
  for (const KernelEntry& k : registry_.kernels()) {
    if (k.stats.launches == 0) continue;
    if (i >= j["kernels"].size()) break;
    nlohmann::json& entry = j["kernels"][i++];
    entry["power"] = power::estimate(config_.power, machine, k.stats.power_inputs).to_json();
    entry["power_inputs"] = k.stats.power_inputs.to_flat_json();
  }
}

}  // namespace warpsim::cudart
