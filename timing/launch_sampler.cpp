// LaunchSampler: which launches of a repeated shape are estimated, and how.
#include "timing/launch_sampler.h"

#include <algorithm>
#include <cmath>

#include "functional/launch.h"
#include "functional/program.h"
#include "timing/confidence.h"

namespace warpsim::timing {

LaunchSampler::Key LaunchSampler::key_of(const functional::LaunchContext& ctx) {
  const functional::LaunchConfig& c = ctx.config;
  return {ctx.program ? ctx.program->serial : 0, ctx.kernel, c.grid.x, c.grid.y, c.grid.z, c.block.x,
          c.block.y, c.block.z, c.dynamic_shared_bytes};
}

bool LaunchSampler::estimate(const functional::LaunchContext& ctx) {
  if (max_run_ == 0 || ctx.program == nullptr || ctx.program->serial == 0) return false;
  const auto it = shapes_.find(key_of(ctx));
  if (it == shapes_.end()) return false;
  Shape& s = it->second;
  if (s.estimated >= s.run) return false;
  ++s.estimated;
  return true;
}

void LaunchSampler::simulated(const functional::LaunchContext& ctx, uint64_t warp_instructions, uint64_t cycles) {
  if (max_run_ == 0 || ctx.program == nullptr || ctx.program->serial == 0 || cycles == 0) return;
  Shape& s = shapes_[key_of(ctx)];
  if (s.ipcs.size() == 8) s.ipcs.erase(s.ipcs.begin());
  s.ipcs.push_back(static_cast<double>(warp_instructions) / static_cast<double>(cycles));
  s.estimated = 0;
  // The last two simulated launches agree: estimate twice as many as last
  // time before the next one; they differ: simulate the next one too.
  const size_t n = s.ipcs.size();
  const bool steady = n >= 2 && [&] {
    const double a = s.ipcs[n - 2], b = s.ipcs[n - 1], mean = (a + b) / 2;
    return mean > 0 && std::abs(a - b) <= tolerance_ * mean;
  }();
  s.run = steady ? std::min(max_run_, std::max(1u, s.run * 2)) : 0;
}

LaunchSampler::Estimate LaunchSampler::cycles(const functional::LaunchContext& ctx,
                                              uint64_t warp_instructions) const {
  Estimate e;
  const auto it = shapes_.find(key_of(ctx));
  if (it == shapes_.end() || it->second.ipcs.empty()) return e;
  const std::vector<double>& ipcs = it->second.ipcs;
  const double ipc = ipcs.back();
  const double w = static_cast<double>(warp_instructions);
  e.cycles = std::max<uint64_t>(1, static_cast<uint64_t>(std::llround(w / ipc)));
  // The spread of the shape's simulated IPCs: a prediction interval for one
  // more launch, t * sd * sqrt(1 + 1/n).
  const size_t n = ipcs.size();
  if (n >= 2) {
    double mean = 0;
    for (const double x : ipcs) mean += x;
    mean /= static_cast<double>(n);
    double var = 0;
    for (const double x : ipcs) var += (x - mean) * (x - mean);
    var /= static_cast<double>(n - 1);
    const double half =
        student_t975(static_cast<uint32_t>(n - 1)) * std::sqrt(var * (1 + 1.0 / static_cast<double>(n))) / mean;
    e.ci95 = static_cast<uint64_t>(std::llround(half * static_cast<double>(e.cycles)));
  }
  return e;
}

}  // namespace warpsim::timing
