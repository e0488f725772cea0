// distributed and distributed-block: the CTA list split into contiguous
// per-cluster pools, each handed out round-robin over its cluster's SMs
// (Wang et al., IEEE TC 2019, sec. 4.1, 4.2 and 5, Fig. 6). distributed is distributed-block
// with blocks of one CTA.
#include <algorithm>
#include <vector>

#include "common/invariant.h"
#include "timing/cta/cta_scheduler.h"

namespace warpsim::timing {
namespace {

constexpr uint32_t kNone = ~0u;

class PoolScheduler final : public CtaScheduler {
 public:
  PoolScheduler(uint32_t block_size, bool partial_tail, uint32_t issue_per_cluster)
      : block_size_(block_size), partial_tail_(partial_tail),
        issue_per_cluster_(issue_per_cluster) {}

  void start(const CtaGridShape& shape) override {
    WARPSIM_INVARIANT(shape.clusters >= 1 && shape.sms_per_cluster >= 1, "empty GPU");
    shape_ = shape;
    remaining_ = shape.num_ctas;
    // Pools of ceil(N/C) CTAs as in MCM-GPU; the last pools may be short or
    // empty. A cluster never takes CTAs from another pool (static partition:
    // the paper blames SRAD/BP losses on the resulting imbalance).
    const uint64_t n = shape.num_ctas;
    const uint64_t chunk = n / shape.clusters + (n % shape.clusters != 0 ? 1 : 0);
    next_.resize(shape.clusters);
    end_.resize(shape.clusters);
    for (uint32_t c = 0; c < shape.clusters; ++c) {
      next_[c] = std::min(n, c * chunk);
      end_[c] = std::min(n, (c + 1) * chunk);
    }
    // An SM could never hold a block larger than M: fall back to single CTAs.
    block_ = shape.max_ctas_per_sm < block_size_ ? 1 : block_size_;
    free_.assign(shape.clusters * shape.sms_per_cluster, 0);
    last_sm_in_cluster_.assign(shape.clusters, shape.sms_per_cluster - 1);
  }

  void schedule(std::span<const uint32_t> free_slots, std::vector<CtaAssignment>& out) override {
    WARPSIM_INVARIANT(free_slots.size() == free_.size(), "one free-slot count per SM");
    if (remaining_ == 0) return;
    std::copy(free_slots.begin(), free_slots.end(), free_.begin());
    for (uint32_t c = 0; c < shape_.clusters; ++c) {
      // A block counts as ONE issue against issue_per_cluster: the paper
      // hands the pair of CTAs to the SM at once.
      for (uint32_t issue = 0; issue < issue_per_cluster_ && next_[c] < end_[c]; ++issue) {
        const uint32_t count =
            static_cast<uint32_t>(std::min<uint64_t>(block_, end_[c] - next_[c]));
        // Delayed launch: the SM must have room for a whole block, or (with
        // partial_tail) for the short remainder of the pool.
        const uint32_t sm = free_sm_in(c, partial_tail_ ? count : block_);
        if (sm == kNone) break;
        for (uint32_t i = 0; i < count; ++i) out.push_back({sm, next_[c]++});
        free_[sm] -= count;
        remaining_ -= count;
        last_sm_in_cluster_[c] = sm % shape_.sms_per_cluster;
      }
    }
  }

  bool done() const override { return remaining_ == 0; }
  uint64_t remaining() const override { return remaining_; }

 private:
  // The next SM of `cluster` with at least `need` free slots, RR after the
  // last one served; kNone if there is none.
  uint32_t free_sm_in(uint32_t cluster, uint32_t need) const {
    const uint32_t s = shape_.sms_per_cluster;
    for (uint32_t i = 1; i <= s; ++i) {
      const uint32_t sm = cluster * s + (last_sm_in_cluster_[cluster] + i) % s;
      if (free_[sm] >= need) return sm;
    }
    return kNone;
  }

  uint32_t block_size_;
  bool partial_tail_;
  uint32_t issue_per_cluster_;
  CtaGridShape shape_;
  uint32_t block_ = 1;  // block_size_, or 1 when M < block_size_
  uint64_t remaining_ = 0;
  std::vector<uint64_t> next_;  // per cluster: next CTA of its pool
  std::vector<uint64_t> end_;   // per cluster: one past its pool's last CTA
  std::vector<uint32_t> free_;  // this cycle's free slots, minus what it handed out
  std::vector<uint32_t> last_sm_in_cluster_;
};

}  // namespace

std::unique_ptr<CtaScheduler> make_distributed(const CtaSchedulerConfig& config) {
  return std::make_unique<PoolScheduler>(1, false, config.issue_per_cluster);
}
std::unique_ptr<CtaScheduler> make_distributed_block(const CtaSchedulerConfig& config) {
  return std::make_unique<PoolScheduler>(config.block_size, config.block_partial_tail,
                                         config.issue_per_cluster);
}

}  // namespace warpsim::timing
