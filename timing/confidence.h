#pragma once
// Student's t for the 95% confidence intervals of sampled simulation.
#include <cstdint>

namespace warpsim::timing {

// Student's t at 97.5% for `df` degrees of freedom (a two-sided 95% interval).
inline double student_t975(uint32_t df) {
  static constexpr double kT[] = {12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
                                  2.201,  2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
                                  2.080,  2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042};
  if (df == 0) return kT[0];
  return df <= 30 ? kT[df - 1] : (df <= 60 ? 2.000 : 1.980);
}

}  // namespace warpsim::timing
