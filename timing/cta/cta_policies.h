#pragma once
// Factories of the CTA scheduling policies, private to timing/: the registry
// in cta_scheduler.cpp (make_cta_scheduler) is the public entry point.
#include <memory>

#include "timing/cta/cta_scheduler.h"

namespace warpsim::timing {

// cta_policy_round_robin.cpp: one global pool, CTAs handed out in order.
std::unique_ptr<CtaScheduler> make_two_level_rr(const CtaSchedulerConfig& config);
std::unique_ptr<CtaScheduler> make_global_rr(const CtaSchedulerConfig& config);
std::unique_ptr<CtaScheduler> make_greedy_clustering(const CtaSchedulerConfig& config);
// cta_policy_distributed.cpp: contiguous per-cluster pools.
std::unique_ptr<CtaScheduler> make_distributed(const CtaSchedulerConfig& config);
std::unique_ptr<CtaScheduler> make_distributed_block(const CtaSchedulerConfig& config);

}  // namespace warpsim::timing
