// The CTA policy registry (cta_policies.def, one line per policy).
#include "timing/cta/cta_scheduler.h"

#include "common/invariant.h"

namespace warpsim::timing {

#define WARPSIM_PLUGIN(name, factory, description) \
  std::unique_ptr<CtaScheduler> factory(const CtaSchedulerConfig& config);
#include "timing/cta/cta_policies.def"
#undef WARPSIM_PLUGIN

const CtaPolicyRegistry& cta_policies() {
  static const CtaPolicyRegistry registry("CTA scheduling policy", {
#define WARPSIM_PLUGIN(name, factory, description) {name, description, factory},
#include "timing/cta/cta_policies.def"
#undef WARPSIM_PLUGIN
  });
  return registry;
}

std::unique_ptr<CtaScheduler> make_cta_scheduler(const CtaSchedulerConfig& config) {
  // The config layer validates these; a bad value reaching here is a bug.
  // (issue_per_cluster 0 would never launch anything.)
  WARPSIM_INVARIANT(config.issue_per_cluster >= 1, "issue_per_cluster must be at least 1");
  WARPSIM_INVARIANT(config.block_size >= 1, "block_size must be at least 1");
  return cta_policies().make(config.policy, config);
}

}  // namespace warpsim::timing
