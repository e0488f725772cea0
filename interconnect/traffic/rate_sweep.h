#pragma once
// A latency-throughput curve: points at several injection rates
// (traffic_measurement.h), the zero-load latency and the saturation
// throughput:
//   - zero-load latency: the packet latency at the lowest rate;
//   - a point is saturated when it is unstable or its packet latency
//     exceeds kSaturationFactor x the zero-load latency;
//   - saturation throughput: the accepted throughput of the last point
//     (by rate) before the first saturated one.
// The true knee lies between that point and the next, so the automatic
// sweep narrows that bracket by bisection.
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <vector>

#include "interconnect/traffic/traffic_measurement.h"

namespace warpsim::interconnect {

inline constexpr double kSaturationFactor = 3;

struct SweepResult {
  std::vector<PointResult> points;  // ascending rate
  std::vector<bool> saturated;      // per point
  std::optional<double> zero_load_latency;  // when the lowest rate is stable
  std::optional<size_t> knee;  // the last point before the first saturated one, when both exist

  bool saturation_found() const { return knee.has_value(); }
  double saturation_throughput() const { return knee ? points[*knee].accepted : 0; }
};

// Measures one point at a rate.
using MeasurePoint = std::function<PointResult(double rate)>;

// Every rate of `rates` (each in (0, 1]), in ascending order.
SweepResult sweep_rates(std::span<const double> rates, const MeasurePoint& measure);

// From `start` up through the 1-2-5 series (0.001, 0.002, 0.005, 0.01, ...,
// at most 1) until the first saturated point, then `refinements` bisections
// between it and the last point before it.
SweepResult sweep_automatic(double start, uint32_t refinements, const MeasurePoint& measure);

// The automatic sweep's first rate: 0.001 packets/node/cycle, or lower on a
// network where that would not be light load - every source sending to
// one node, whose ejection takes at most one flit per cycle (the 1-2-5 value
// at or below a tenth of that bound).
double automatic_start_rate(uint32_t nodes, double mean_flits);

}  // namespace warpsim::interconnect
