#pragma once
// The CTA scheduler: which CTA of a kernel goes to which SM, and when.
//
// The GPU is C clusters of S SMs (flat SM index = cluster * S + sm_in_cluster);
// each SM holds up to M CTAs of the running kernel (M from occupancy). CTAs
// are numbered 0..N-1 in linear (x fastest) order. Each core cycle the SMs
// report their free CTA slots and the policy hands out CTAs, at most
// `issue_per_cluster` per cluster per cycle (GPGPU-Sim issues at most one CTA
// per cluster per cycle).
//
// Policies (Wang et al., IEEE TC 2019, sec. 4.1 and 5, Fig. 6), chosen by
// name:
//   two-level-rr       clusters first, then SMs within a cluster; one global pool
//   global-rr          SMs of a cluster first (flat SM order); one global pool
//   greedy-clustering  fill one cluster's SMs up to M before the next cluster
//   distributed        contiguous per-cluster pools (ceil(N/C) CTAs each), RR
//                      over the cluster's SMs, refills from the cluster's own pool
//   distributed-block  distributed pools; an SM gets `block_size` consecutive
//                      CTAs at once and only when it has block_size free slots
//                      (delayed launch); falls back to 1 when M < block_size
// Adding a policy: one new file with its class and factory, one line in
// cta_policies.def and one in timing/CMakeLists.txt.
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/registry.h"

namespace warpsim::timing {

struct CtaSchedulerConfig {
  std::string policy = "two-level-rr";
  uint32_t block_size = 2;         // distributed-block: CTAs per group
  // distributed-block: when a pool holds fewer CTAs than block_size, hand the
  // remainder to an SM with that many free slots (false: the paper's literal
  // rule, wait for block_size free slots).
  bool block_partial_tail = false;
  uint32_t issue_per_cluster = 1;  // CTAs a cluster may receive per core cycle
};

struct CtaAssignment {
  uint32_t sm = 0;   // flat SM index
  uint64_t cta = 0;  // linear CTA index
  friend bool operator==(const CtaAssignment&, const CtaAssignment&) = default;
};

struct CtaGridShape {
  uint64_t num_ctas = 0;
  uint32_t clusters = 1;
  uint32_t sms_per_cluster = 1;
  uint32_t max_ctas_per_sm = 1;  // M
};

class CtaScheduler {
 public:
  virtual ~CtaScheduler() = default;
  // Starts a kernel; every SM is empty.
  virtual void start(const CtaGridShape& shape) = 0;
  // One core cycle: `free_slots[sm]` is the number of free CTA slots of each
  // SM (size clusters * sms_per_cluster). Appends the CTAs to launch this
  // cycle to `out` (in the order they are handed out). Never hands a CTA to
  // an SM without a free slot; each CTA is handed out exactly once.
  virtual void schedule(std::span<const uint32_t> free_slots, std::vector<CtaAssignment>& out) = 0;
  // Every CTA has been handed out.
  virtual bool done() const = 0;
  // CTAs not handed out yet.
  virtual uint64_t remaining() const = 0;
};

using CtaPolicyRegistry = Registry<std::unique_ptr<CtaScheduler> (*)(const CtaSchedulerConfig&)>;
// The policies, in the order the docs list them (cta_policies.def).
const CtaPolicyRegistry& cta_policies();
// The policy of `config` (config.policy must be one of cta_policies()).
std::unique_ptr<CtaScheduler> make_cta_scheduler(const CtaSchedulerConfig& config);

}  // namespace warpsim::timing
