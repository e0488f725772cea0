#pragma once
// The synthetic-traffic random numbers: std::mt19937_64 (its output sequence
// is fixed by the C++ standard) with our own mappings to integers and
// probabilities. std::uniform_*_distribution are not used because their
// output is implementation-defined, and a seed must give the same traffic on
// every platform and standard library.
#include <cstdint>
#include <random>

namespace warpsim::interconnect {

class TrafficRng {
 public:
  explicit TrafficRng(uint64_t seed) : engine_(seed) {}

  // Uniform in [0, n), n >= 1: the high word of a 64 x 64-bit product, with
  // rejection of the few values that would bias it (Lemire, "Fast Random
  // Integer Generation in an Interval", ACM TOMACS 2019).
  uint64_t below(uint64_t n) {
    unsigned __int128 m = static_cast<unsigned __int128>(engine_()) * n;
    if (static_cast<uint64_t>(m) < n) {
      const uint64_t threshold = (0 - n) % n;
      while (static_cast<uint64_t>(m) < threshold) m = static_cast<unsigned __int128>(engine_()) * n;
    }
    return static_cast<uint64_t>(m >> 64);
  }

  // Uniform in [0, 1) on a grid of 2^-53: exact in a double.
  double unit() { return static_cast<double>(engine_() >> 11) * 0x1.0p-53; }

  // True with probability p (p <= 0: never; p >= 1: always).
  bool chance(double p) { return unit() < p; }

 private:
  std::mt19937_64 engine_;
};

}  // namespace warpsim::interconnect
