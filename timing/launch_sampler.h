#pragma once
// LaunchSampler: launch-level sampling (timing.sample_launches = K > 0).
//
// Programs launch the same kernel with the same grid over and over (an
// iteration per launch: rodinia/gaussian launches 318 times). Once the last
// two simulated launches of a shape (program, kernel, grid, block, dynamic
// shared memory) ran at IPCs within timing.sample_tolerance of each other,
// the next launches of that shape run in the functional executor and take
// their warp instructions over the last simulated IPC in cycles: first one
// launch, then 2, 4, ... up to K in a row between two simulated ones, and
// back to none as soon as two simulated IPCs differ. The 95% confidence
// interval of an estimated launch is Student's t over the shape's last
// simulated IPCs. The memory below L1 does not see the estimated launches.
#include <cstdint>
#include <map>
#include <tuple>
#include <vector>

#include "functional/grid.h"

namespace warpsim::timing {

class LaunchSampler {
 public:
  // `max_run`: K above (0: every launch is simulated); `tolerance`: how far
  // two IPCs may differ, as a fraction of their mean.
  LaunchSampler(uint32_t max_run, double tolerance) : max_run_(max_run), tolerance_(tolerance) {}

  // Whether the launch of `ctx` may be estimated instead of simulated.
  bool estimate(const functional::LaunchContext& ctx);
  // A simulated launch of `ctx` ran `warp_instructions` in `cycles`.
  void simulated(const functional::LaunchContext& ctx, uint64_t warp_instructions, uint64_t cycles);
  // An estimated launch's cycles and their 95% confidence half-width.
  struct Estimate {
    uint64_t cycles = 0;
    uint64_t ci95 = 0;
  };
  Estimate cycles(const functional::LaunchContext& ctx, uint64_t warp_instructions) const;

 private:
  using Key = std::tuple<uint64_t, const void*, uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, uint32_t>;
  static Key key_of(const functional::LaunchContext& ctx);
  struct Shape {
    std::vector<double> ipcs;  // the last simulated launches' warp IPCs, oldest first (at most 8)
    uint32_t run = 0;          // launches the shape may estimate in a row now
    uint32_t estimated = 0;    // launches estimated since the last simulated one
  };
  uint32_t max_run_;
  double tolerance_;
  std::map<Key, Shape> shapes_;
};

}  // namespace warpsim::timing
