// The warp policy registry (warp_policies.def) and what policies share.
#include "timing/sm/warp_policy.h"

namespace warpsim::timing {

#define WARPSIM_PLUGIN(name, factory, description) \
  std::unique_ptr<WarpSchedulerPolicy> factory(const SmConfig& config, uint32_t max_warps);
#include "timing/sm/warp_policies.def"
#undef WARPSIM_PLUGIN

const WarpPolicyRegistry& warp_policies() {
  static const WarpPolicyRegistry registry("warp scheduling policy", {
#define WARPSIM_PLUGIN(name, factory, description) {name, description, factory},
#include "timing/sm/warp_policies.def"
#undef WARPSIM_PLUGIN
  });
  return registry;
}

void rotate_after(std::span<const uint32_t> warps, uint32_t last, std::vector<uint32_t>& order) {
  order.clear();
  const size_t n = warps.size();
  size_t start = 0;
  for (size_t i = 0; i < n; ++i)
    if (warps[i] == last) {
      start = i + 1;
      break;
    }
  for (size_t i = 0; i < n; ++i) order.push_back(warps[(start + i) % n]);
}

}  // namespace warpsim::timing
