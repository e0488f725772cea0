#pragma once
// Clock domains of the memory system (docs/architecture.md, "Clock domains
// in picoseconds"): time is an integer number of picoseconds; each domain is
// a period, and its cycle k starts at k * period. The core clock drives the
// SMs; the interconnect, the L2 slices and the DRAM channels run on their own
// clocks, so that (as in the bottleneck study of Wang et al., IEEE TC 2019,
// sec. 3.1) the NoC and L2 can be scaled separately.
#include <cmath>
#include <cstdint>

namespace warpsim::timing {

enum class Domain : uint8_t { Core, Interconnect, L2, Dram };
inline constexpr int kDomains = 4;

struct ClockDomains {
  uint64_t period_ps[kDomains] = {1000, 1000, 1000, 1000};

  // Periods rounded to whole picoseconds (a 0.03 % error at 700 MHz).
  static uint64_t period_of(double mhz) {
    return mhz > 0 ? static_cast<uint64_t>(std::llround(1e6 / mhz)) : 1000;
  }
  uint64_t period(Domain d) const { return period_ps[int(d)]; }
  // The cycle of domain `d` that starts at or after time `t`.
  uint64_t cycle_at_or_after(Domain d, uint64_t t) const {
    const uint64_t p = period(d);
    return (t + p - 1) / p;
  }
  // The start of cycle `c` of domain `d`.
  uint64_t time(Domain d, uint64_t c) const { return c * period(d); }
  // The first edge of `d` at or after time `t`.
  uint64_t edge_at_or_after(Domain d, uint64_t t) const { return time(d, cycle_at_or_after(d, t)); }
};

}  // namespace warpsim::timing
