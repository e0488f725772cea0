// "gto": greedy-then-oldest - keep issuing from the warp that issued last;
// when it cannot, the oldest warp that can (Rogers et al., MICRO 2012).
#include "timing/sm/warp_policy.h"

namespace warpsim::timing {
namespace {

constexpr uint32_t kNone = UINT32_MAX;

class GreedyThenOldest final : public WarpSchedulerPolicy {
 public:
  void order(std::span<const uint32_t> warps, const WarpViews&, std::vector<uint32_t>& order) override {
    order.clear();
    bool present = false;
    for (uint32_t w : warps) present |= w == last_;
    if (present) order.push_back(last_);
    for (uint32_t w : warps)
      if (w != last_ || !present) order.push_back(w);
  }
  void issued(uint32_t warp) override { last_ = warp; }
  void removed(uint32_t warp) override {
    if (warp == last_) last_ = kNone;
  }

 private:
  uint32_t last_ = kNone;
};

}  // namespace

std::unique_ptr<WarpSchedulerPolicy> make_gto_warp_policy(const SmConfig&, uint32_t) {
  return std::make_unique<GreedyThenOldest>();
}

}  // namespace warpsim::timing
