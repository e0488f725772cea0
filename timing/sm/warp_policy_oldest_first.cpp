// "oldest-first": the scheduler's warps in launch order, every cycle.
#include "timing/sm/warp_policy.h"

namespace warpsim::timing {
namespace {

class OldestFirst final : public WarpSchedulerPolicy {
 public:
  void order(std::span<const uint32_t> warps, const WarpViews&, std::vector<uint32_t>& order) override {
    order.assign(warps.begin(), warps.end());
  }
};

}  // namespace

std::unique_ptr<WarpSchedulerPolicy> make_oldest_first_warp_policy(const SmConfig&, uint32_t) {
  return std::make_unique<OldestFirst>();
}

}  // namespace warpsim::timing
