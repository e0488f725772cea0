// The CTA policy registry: one line per policy.
#include "timing/cta/cta_scheduler.h"

#include <array>
#include <cstddef>

#include "common/invariant.h"
#include "timing/cta/cta_policies.h"

namespace warpsim::timing {
namespace {

struct Policy {
  std::string_view name;
  std::unique_ptr<CtaScheduler> (*make)(const CtaSchedulerConfig&);
};

// In the order the docs list them.
constexpr Policy kPolicies[] = {
    {"two-level-rr", make_two_level_rr},
    {"global-rr", make_global_rr},
    {"greedy-clustering", make_greedy_clustering},
    {"distributed", make_distributed},
    {"distributed-block", make_distributed_block},
};

constexpr auto kNames = [] {
  std::array<std::string_view, std::size(kPolicies)> names{};
  for (std::size_t i = 0; i < names.size(); ++i) names[i] = kPolicies[i].name;
  return names;
}();

}  // namespace

std::span<const std::string_view> cta_policy_names() { return kNames; }

std::unique_ptr<CtaScheduler> make_cta_scheduler(const CtaSchedulerConfig& config) {
  // The config layer validates these; a bad value reaching here is a bug.
  // (issue_per_cluster 0 would never launch anything.)
  WARPSIM_INVARIANT(config.issue_per_cluster >= 1, "issue_per_cluster must be at least 1");
  WARPSIM_INVARIANT(config.block_size >= 1, "block_size must be at least 1");
  for (const Policy& policy : kPolicies) {
    if (policy.name == config.policy) return policy.make(config);
  }
  WARPSIM_INVARIANT(false, "unknown CTA scheduling policy (the config layer validates names)");
}

}  // namespace warpsim::timing
