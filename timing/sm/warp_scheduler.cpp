// The warp scheduling policies and their registry (make_warp_policy).
#include "timing/sm/warp_scheduler.h"

#include <algorithm>

namespace warpsim::timing {
namespace {

// Rotation of `warps` starting after `last` (or at the front when `last` is
// no longer among them).
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

constexpr uint32_t kNone = UINT32_MAX;

class LooseRoundRobin final : public WarpSchedulerPolicy {
 public:
  void order(std::span<const uint32_t> warps, std::vector<uint32_t>& order) override {
    rotate_after(warps, last_, order);
  }
  void issued(uint32_t warp) override { last_ = warp; }

 private:
  uint32_t last_ = kNone;
};

class GreedyThenOldest final : public WarpSchedulerPolicy {
 public:
  void order(std::span<const uint32_t> warps, std::vector<uint32_t>& order) override {
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

class OldestFirst final : public WarpSchedulerPolicy {
 public:
  void order(std::span<const uint32_t> warps, std::vector<uint32_t>& order) override {
    order.assign(warps.begin(), warps.end());
  }
};

class TwoLevel final : public WarpSchedulerPolicy {
 public:
  TwoLevel(uint32_t active_size, uint32_t max_warps)
      : active_size_(active_size), state_(max_warps, State::Unseen) {
    active_.reserve(active_size);
    pending_.reserve(max_warps);
  }
  void order(std::span<const uint32_t> warps, std::vector<uint32_t>& order) override {
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

std::unique_ptr<WarpSchedulerPolicy> make_warp_policy(const SmConfig& config, uint32_t max_warps) {
  switch (config.warp_policy) {
    case WarpPolicy::Lrr: return std::make_unique<LooseRoundRobin>();
    case WarpPolicy::Gto: return std::make_unique<GreedyThenOldest>();
    case WarpPolicy::OldestFirst: return std::make_unique<OldestFirst>();
    case WarpPolicy::TwoLevel: return std::make_unique<TwoLevel>(config.two_level_active, max_warps);
  }
  return std::make_unique<LooseRoundRobin>();
}

}  // namespace warpsim::timing
