// Machine: recorded as power.machine.* and read back.
#include "power/machine.h"

#include <nlohmann/json.hpp>

namespace warpsim::power {
namespace {

// Every field once: its name under power.machine and its place.
template <class F>
void for_each_field(Machine& m, F&& f) {
  f("core_clock_mhz", m.core_clock_mhz);
  f("sms", m.sms);
  f("l2_slices", m.l2_slices);
  f("channels", m.channels);
  f("switches", m.switches);
  f("switch_ports", m.switch_ports);
  f("flit_bits", m.flit_bits);
  f("dram_clock_mhz", m.dram_clock_mhz);
  f("dram_tRC", m.dram_tRC);
  f("dram_tRAS", m.dram_tRAS);
  f("dram_burst_bytes", m.dram_burst_bytes);
  f("dram_burst_cycles", m.dram_burst_cycles);
}

}  // namespace

void Machine::publish(StatsRegistry& stats) const {
  Machine copy = *this;
  for_each_field(copy, [&](const char* name, auto& v) {
    const std::string key = std::string("power.machine.") + name;
    if constexpr (std::is_same_v<std::decay_t<decltype(v)>, double>) stats.set(key, v);
    else stats.set(key, static_cast<uint64_t>(v));
  });
}

std::optional<Machine> Machine::from_json(const nlohmann::json& stats, std::string& error) {
  auto power = stats.find("power");
  if (power == stats.end() || !power->is_object() || !power->contains("machine")) {
    error = "the statistics have no power.machine section (a functional-mode run, or one with "
            "power.enabled = false)";
    return std::nullopt;
  }
  const nlohmann::json& j = (*power)["machine"];
  Machine m;
  bool ok = true;
  for_each_field(m, [&](const char* name, auto& v) {
    auto it = j.find(name);
    if (it == j.end() || !it->is_number()) {
      ok = false;
      error = std::string("power.machine.") + name + " is missing";
      return;
    }
    v = it->get<std::decay_t<decltype(v)>>();
  });
  if (!ok) return std::nullopt;
  return m;
}

}  // namespace warpsim::power
