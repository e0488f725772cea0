// "lrr": loose round-robin - each cycle, start after the warp that issued
// last.
#include "timing/sm/warp_policy.h"

namespace warpsim::timing {
namespace {

class LooseRoundRobin final : public WarpSchedulerPolicy {
 public:
  void order(std::span<const uint32_t> warps, const WarpViews&, std::vector<uint32_t>& order) override {
    rotate_after(warps, last_, order);
  }
  void issued(uint32_t warp) override { last_ = warp; }

 private:
  uint32_t last_ = UINT32_MAX;
};

}  // namespace

std::unique_ptr<WarpSchedulerPolicy> make_lrr_warp_policy(const SmConfig&, uint32_t) {
  return std::make_unique<LooseRoundRobin>();
}

}  // namespace warpsim::timing
