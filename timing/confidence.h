#pragma once
// Student's t for the 95% confidence intervals of sampled simulation.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <span>
#include <utility>

namespace warpsim::timing {

// Student's t at 97.5% for `df` degrees of freedom (a two-sided 95% interval).
inline double student_t975(uint32_t df) {
  static constexpr double kT[] = {12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
                                  2.201,  2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
                                  2.080,  2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042};
  if (df == 0) return kT[0];
  return df <= 30 ? kT[df - 1] : (df <= 60 ? 2.000 : 1.980);
}

// A rate (instructions per cycle) over consecutive stretches of (instructions,
// cycles), and the 95% half-width of the stretches' rates about it.
struct RateInterval {
  double rate = 0;
  double half = 0;
};

inline RateInterval rate_interval(std::span<const std::pair<double, double>> stretches) {
  double instructions = 0, cycles = 0;
  for (const auto& [i, c] : stretches) {
    instructions += i;
    cycles += c;
  }
  RateInterval r;
  r.rate = cycles > 0 ? instructions / cycles : 0.0;
  const size_t k = stretches.size();
  if (k < 2) return r;
  double var = 0;
  for (const auto& [i, c] : stretches) {
    const double d = i / c - r.rate;
    var += d * d;
  }
  var /= static_cast<double>(k - 1);
  r.half = student_t975(static_cast<uint32_t>(k - 1)) * std::sqrt(var / static_cast<double>(k));
  return r;
}

}  // namespace warpsim::timing
