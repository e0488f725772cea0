// Latency-throughput curves (rate_sweep.h).
#include "interconnect/traffic/rate_sweep.h"

#include <algorithm>
#include <vector>

#include "common/invariant.h"

namespace warpsim::interconnect {
namespace {

// Sorts the points by rate and marks the zero-load latency, the saturated
// points and the knee.
void classify(SweepResult& s) {
  std::sort(s.points.begin(), s.points.end(),
            [](const PointResult& a, const PointResult& b) { return a.rate < b.rate; });
  s.saturated.assign(s.points.size(), false);
  s.zero_load_latency.reset();
  s.knee.reset();
  if (s.points.empty()) return;
  if (s.points.front().stable) s.zero_load_latency = s.points.front().packet_latency;
  for (size_t i = 0; i < s.points.size(); ++i) {
    const PointResult& p = s.points[i];
    s.saturated[i] = !p.stable || !s.zero_load_latency ||
                     p.packet_latency > kSaturationFactor * *s.zero_load_latency;
  }
  for (size_t i = 1; i < s.points.size(); ++i)
    if (s.saturated[i]) {
      if (!s.saturated[i - 1]) s.knee = i - 1;
      break;
    }
}

// The 1-2-5 series from 1e-15 up to 1, ascending. Each value is m / 10^k
// with 10^k an exact double, so it is the correctly rounded decimal on every
// platform (std::pow and std::log10 need not be).
const std::vector<double>& series_125() {
  static const std::vector<double> series = [] {
    std::vector<double> v;
    for (int k = 15; k >= 1; --k) {
      double power = 1;
      for (int i = 0; i < k; ++i) power *= 10;
      for (double m : {1.0, 2.0, 5.0}) v.push_back(m / power);
    }
    v.push_back(1.0);
    return v;
  }();
  return series;
}

// The first value of the series above `rate` (1 at most).
double next_125(double rate) {
  for (double v : series_125())
    if (v > rate * (1 + 1e-9)) return v;
  return 1.0;
}

}  // namespace

SweepResult sweep_rates(std::span<const double> rates, const MeasurePoint& measure) {
  SweepResult s;
  std::vector<double> sorted(rates.begin(), rates.end());
  std::sort(sorted.begin(), sorted.end());
  for (double r : sorted) s.points.push_back(measure(r));
  classify(s);
  return s;
}

SweepResult sweep_automatic(double start, uint32_t refinements, const MeasurePoint& measure) {
  WARPSIM_INVARIANT(start > 0 && start <= 1, "a sweep starts at a rate in (0, 1]");
  SweepResult s;
  for (double rate = start;; rate = std::min(1.0, next_125(rate))) {
    s.points.push_back(measure(rate));
    classify(s);
    if (s.saturated.back() || rate >= 1) break;
  }
  if (!s.knee) return s;  // saturated from the first rate, or never
  double below = s.points[*s.knee].rate, above = s.points[*s.knee + 1].rate;
  for (uint32_t i = 0; i < refinements; ++i) {
    const double mid = (below + above) / 2;
    s.points.push_back(measure(mid));
    classify(s);
    const auto it = std::find_if(s.points.begin(), s.points.end(),
                                 [&](const PointResult& p) { return p.rate == mid; });
    (s.saturated[size_t(it - s.points.begin())] ? above : below) = mid;
  }
  return s;
}

double automatic_start_rate(uint32_t nodes, double mean_flits) {
  const double bound = std::min(0.001, 0.1 / (double(std::max(nodes, 1u)) * std::max(mean_flits, 1.0)));
  double start = series_125().front();
  for (double v : series_125())
    if (v <= bound * (1 + 1e-9)) start = v;
  return start;
}

}  // namespace warpsim::interconnect
