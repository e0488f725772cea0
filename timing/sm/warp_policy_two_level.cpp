// "two-level": an active pool of `two_level_active` warps, served
// round-robin; a warp stalled on a long-latency result (or waiting at a
// barrier or fence) leaves the pool for the back of the pending queue, and
// pending warps fill free places in order (Narasimhan et al., "Improving GPU
// performance via large warps and two-level warp scheduling", MICRO 2011;
// GPGPU-Sim's two_level_active scheduler).
#include <algorithm>

#include "timing/sm/warp_policy.h"

namespace warpsim::timing {
namespace {

constexpr uint32_t kNone = UINT32_MAX;

class TwoLevel final : public WarpSchedulerPolicy {
 public:
  TwoLevel(uint32_t active_size, uint32_t max_warps)
      : active_size_(active_size), state_(max_warps, State::Unseen) {
    active_.reserve(active_size);
    pending_.reserve(max_warps);
  }
  void order(std::span<const uint32_t> warps, const WarpViews&, std::vector<uint32_t>& order) override {
    // New warps join the pending queue in age order.
    for (uint32_t w : warps)
      if (state_[w] == State::Unseen) {
        state_[w] = State::Pending;
        pending_.push_back(w);
      }
    while (active_.size() < active_size_ && !pending_.empty()) {
      const uint32_t w = pending_.front();
      pending_.erase(pending_.begin());
      state_[w] = State::Active;
      active_.push_back(w);
    }
    rotate_after(active_, last_, order);
  }
  void issued(uint32_t warp) override { last_ = warp; }
  bool long_latency_stall(uint32_t warp) override {
    if (state_[warp] != State::Active) return false;
    active_.erase(std::find(active_.begin(), active_.end(), warp));
    state_[warp] = State::Pending;
    pending_.push_back(warp);
    return true;
  }
  void removed(uint32_t warp) override {
    if (state_[warp] == State::Active) active_.erase(std::find(active_.begin(), active_.end(), warp));
    if (state_[warp] == State::Pending) pending_.erase(std::find(pending_.begin(), pending_.end(), warp));
    state_[warp] = State::Unseen;
  }

 private:
  enum class State : uint8_t { Unseen, Pending, Active };
  uint32_t active_size_;
  std::vector<State> state_;
  std::vector<uint32_t> active_;   // served round-robin
  std::vector<uint32_t> pending_;  // FIFO
  uint32_t last_ = kNone;
};

}  // namespace

std::unique_ptr<WarpSchedulerPolicy> make_two_level_warp_policy(const SmConfig& config, uint32_t max_warps) {
  return std::make_unique<TwoLevel>(config.two_level_active, max_warps);
}

}  // namespace warpsim::timing
