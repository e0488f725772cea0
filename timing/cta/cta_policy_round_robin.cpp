// two-level-rr, global-rr and greedy-clustering: one global pool handed out
// in CTA order; the policies differ only in which SM gets the next CTA
// (Wang et al., IEEE TC 2019, sec. 2.3 and 4.1).
#include <algorithm>
#include <vector>

#include "common/invariant.h"
#include "timing/cta/cta_scheduler.h"

namespace warpsim::timing {
namespace {

enum class Order {
  TwoLevel,  // next cluster (RR) with a free SM, then that cluster's next SM (RR)
  Global,    // next SM (RR) with a free slot in flat, cluster-major order
  Greedy,    // lowest cluster with a free SM, then that cluster's next SM (RR)
};

constexpr uint32_t kNone = ~0u;

// The issue limit delays but never reorders: when the next CTA's SM is in a
// cluster that has used up its issues this cycle, the cycle ends. Skipping
// to another cluster instead would change the mapping the policy defines
// (global-rr and greedy-clustering would no longer give the mappings of the
// paper's example, Fig. 6, with issue_per_cluster = 1).
class GlobalPoolScheduler final : public CtaScheduler {
 public:
  GlobalPoolScheduler(Order order, uint32_t issue_per_cluster)
      : order_(order), issue_per_cluster_(issue_per_cluster) {}

  void start(const CtaGridShape& shape) override {
    WARPSIM_INVARIANT(shape.clusters >= 1 && shape.sms_per_cluster >= 1, "empty GPU");
    shape_ = shape;
    next_cta_ = 0;
    sms_ = shape.clusters * shape.sms_per_cluster;
    free_.assign(sms_, 0);
    issued_.assign(shape.clusters, 0);
    // "Last received" pointers start at the end so the first CTA goes to
    // cluster 0, SM 0.
    last_sm_in_cluster_.assign(shape.clusters, shape.sms_per_cluster - 1);
    last_cluster_ = shape.clusters - 1;
    last_sm_ = sms_ - 1;
  }

  void schedule(std::span<const uint32_t> free_slots, std::vector<CtaAssignment>& out) override {
    WARPSIM_INVARIANT(free_slots.size() == free_.size(), "one free-slot count per SM");
    if (next_cta_ == shape_.num_ctas) return;
    std::copy(free_slots.begin(), free_slots.end(), free_.begin());
    std::fill(issued_.begin(), issued_.end(), 0u);
    while (next_cta_ < shape_.num_ctas) {
      const uint32_t sm = pick();
      if (sm == kNone) break;
      const uint32_t cluster = sm / shape_.sms_per_cluster;
      if (issued_[cluster] == issue_per_cluster_) break;
      ++issued_[cluster];
      --free_[sm];
      last_sm_in_cluster_[cluster] = sm % shape_.sms_per_cluster;
      last_cluster_ = cluster;
      last_sm_ = sm;
      out.push_back({sm, next_cta_++});
    }
  }

  bool done() const override { return next_cta_ == shape_.num_ctas; }
  uint64_t remaining() const override { return shape_.num_ctas - next_cta_; }

 private:
  // The SM the next CTA goes to, or kNone when no SM has a free slot.
  uint32_t pick() const {
    switch (order_) {
      case Order::TwoLevel:
        for (uint32_t i = 1; i <= shape_.clusters; ++i) {
          const uint32_t sm = free_sm_in((last_cluster_ + i) % shape_.clusters);
          if (sm != kNone) return sm;
        }
        return kNone;
      case Order::Global:
        for (uint32_t i = 1; i <= sms_; ++i) {
          const uint32_t sm = (last_sm_ + i) % sms_;
          if (free_[sm] > 0) return sm;
        }
        return kNone;
      case Order::Greedy:
        for (uint32_t cluster = 0; cluster < shape_.clusters; ++cluster) {
          const uint32_t sm = free_sm_in(cluster);
          if (sm != kNone) return sm;
        }
        return kNone;
    }
    return kNone;
  }

  // The next SM of `cluster` with a free slot, RR after the last one served.
  uint32_t free_sm_in(uint32_t cluster) const {
    const uint32_t s = shape_.sms_per_cluster;
    for (uint32_t i = 1; i <= s; ++i) {
      const uint32_t sm = cluster * s + (last_sm_in_cluster_[cluster] + i) % s;
      if (free_[sm] > 0) return sm;
    }
    return kNone;
  }

  Order order_;
  uint32_t issue_per_cluster_;
  CtaGridShape shape_;
  uint32_t sms_ = 1;
  uint64_t next_cta_ = 0;
  std::vector<uint32_t> free_;    // this cycle's free slots, minus what it handed out
  std::vector<uint32_t> issued_;  // per cluster, this cycle
  std::vector<uint32_t> last_sm_in_cluster_;
  uint32_t last_cluster_ = 0;
  uint32_t last_sm_ = 0;  // flat
};

}  // namespace

std::unique_ptr<CtaScheduler> make_two_level_rr(const CtaSchedulerConfig& config) {
  return std::make_unique<GlobalPoolScheduler>(Order::TwoLevel, config.issue_per_cluster);
}
std::unique_ptr<CtaScheduler> make_global_rr(const CtaSchedulerConfig& config) {
  return std::make_unique<GlobalPoolScheduler>(Order::Global, config.issue_per_cluster);
}
std::unique_ptr<CtaScheduler> make_greedy_clustering(const CtaSchedulerConfig& config) {
  return std::make_unique<GlobalPoolScheduler>(Order::Greedy, config.issue_per_cluster);
}

}  // namespace warpsim::timing
