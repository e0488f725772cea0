// One latency-throughput point, BookSim's way (traffic_measurement.h).
#include "interconnect/traffic/traffic_measurement.h"

#include <fmt/format.h>

#include <chrono>
#include <cmath>

#include "interconnect/traffic/traffic_driver.h"

namespace warpsim::interconnect {
namespace {

// |a - b| relative to the larger; 0 when both are 0.
double relative_change(double a, double b) {
  const double scale = std::max(std::fabs(a), std::fabs(b));
  return scale == 0 ? 0 : std::fabs(a - b) / scale;
}

struct PeriodFigures {
  double latency = 0, accepted = 0;
};

PeriodFigures figures(const TrafficDriver& d) {
  const uint64_t cycles = d.cycle() - d.window_start();
  const double node_cycles = double(d.network().nodes()) * double(cycles);
  return {d.window().average_latency(), node_cycles > 0 ? double(d.window().flits) / node_cycles : 0};
}

}  // namespace

std::string check_measurement_config(const MeasurementConfig& m) {
  if (m.sample_period == 0) return "the sample period must be at least 1 cycle";
  if (m.converge_periods == 0) return "at least one period must be compared for convergence";
  if (m.max_samples < m.warmup_periods + m.converge_periods)
    return fmt::format("max samples ({}) counts the warm-up periods ({}) and must leave room for the {} "
                       "measured periods that show convergence",
                       m.max_samples, m.warmup_periods, m.converge_periods);
  if (!(m.latency_threshold > 0)) return "the latency threshold must be positive";
  if (!(m.stopping_threshold > 0)) return "the stopping threshold must be positive";
  return "";
}

PointResult measure_point(const NetworkConfig& config, std::span<const NodeRole> roles,
                          const TrafficPattern& pattern, double rate, uint64_t seed,
                          const MeasurementConfig& method) {
  WARPSIM_INVARIANT(check_measurement_config(method).empty(), "the measurement method was checked");
  WARPSIM_INVARIANT(rate > 0 && rate <= 1, "an injection rate is in (0, 1]");
  const auto start = std::chrono::steady_clock::now();
  auto network = make_network(config, roles);
  TrafficDriver driver(*network, pattern, rate, seed);

  PointResult r;
  r.rate = rate;
  r.offered = rate * pattern.mean_flits() * double(pattern.sources().size()) / double(roles.size());
  const auto finish = [&](bool stable, std::string why) {
    r.stable = stable;
    r.unstable_reason = std::move(why);
    r.cycles = driver.cycle();
    r.flit_hops = driver.flit_hops();
    r.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return r;
  };
  bool draining = false;  // the measurement periods are over
  // The last values of a point found unstable.
  const auto unstable = [&](std::string why) {
    const DeliveredTotals& w = driver.window();
    r.packet_latency = driver.latency_with_outstanding();
    r.network_latency = w.average_network_latency();
    r.hops = w.average_hops();
    if (!draining) r.accepted = figures(driver).accepted;
    r.round_trip = w.average_round_trip();
    r.max_latency = w.max_latency;
    r.packets = w.packets;
    return finish(false, std::move(why));
  };
  const auto too_slow = [&] { return driver.latency_with_outstanding() > method.latency_threshold; };
  const std::string too_slow_why =
      fmt::format("latency above {:g} cycles counting packets in flight", method.latency_threshold);

  // Warm-up.
  for (uint32_t p = 0; p < method.warmup_periods; ++p) {
    driver.run(method.sample_period);
    r.periods++;
    if (too_slow()) return unstable(too_slow_why);
  }
  PeriodFigures previous = figures(driver);

  // Measurement.
  driver.reset_window();
  driver.set_measuring(true);
  uint32_t converged = 0;
  while (converged < method.converge_periods && r.periods < method.max_samples) {
    driver.run(method.sample_period);
    r.periods++;
    if (too_slow()) return unstable(too_slow_why);
    const PeriodFigures now = figures(driver);
    const bool steady = relative_change(now.latency, previous.latency) < method.stopping_threshold &&
                        relative_change(now.accepted, previous.accepted) < method.stopping_threshold;
    converged = steady ? converged + 1 : 0;
    previous = now;
  }
  if (converged < method.converge_periods)
    return unstable(fmt::format("no convergence in {} sample periods", method.max_samples));
  r.accepted = figures(driver).accepted;
  draining = true;
  driver.set_measuring(false);

  // Drain: the load goes on until every measured packet has arrived; the
  // window keeps counting so that the threshold still sees the latency.
  while (driver.measured_outstanding().packets > 0) {
    const uint64_t period_end = driver.cycle() + method.sample_period;
    while (driver.measured_outstanding().packets > 0 && driver.cycle() < period_end) driver.step();
    if (driver.measured_outstanding().packets > 0 && too_slow())
      return unstable(too_slow_why + " while draining");
  }
  const DeliveredTotals& m = driver.measured();
  r.packet_latency = m.average_latency();
  r.network_latency = m.average_network_latency();
  r.hops = m.average_hops();
  r.round_trip = m.average_round_trip();
  r.max_latency = m.max_latency;
  r.packets = m.packets;
  return finish(true, "");
}

}  // namespace warpsim::interconnect
