#pragma once
// The mechanisms a timing::Gpu is built with besides what its configuration
// names: made once per cluster port, L2 slice and DRAM channel, and asked in
// the order given (cluster_port_mechanism.h, l2_slice_mechanism.h,
// dram_observer.h); and a warp policy that replaces the configured one. A
// study's own mechanism plugs in here without being registered, and tests
// plug in doubles that check the seams.
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "timing/dram/dram_observer.h"
#include "timing/memory/cluster_port_mechanism.h"
#include "timing/memory/l2_slice_mechanism.h"
#include "timing/sm/warp_policy.h"

namespace warpsim::timing {

struct Mechanisms {
  std::vector<std::function<std::unique_ptr<ClusterPortMechanism>(uint32_t cluster)>> cluster_port;
  std::vector<std::function<std::unique_ptr<L2SliceMechanism>(uint32_t slice)>> l2_slice;
  std::vector<std::function<std::unique_ptr<DramObserver>(uint32_t channel)>> dram;
  // Made for every warp scheduler instead of [timing.sm] warp_policy's.
  WarpPolicyMaker warp_policy;
};

}  // namespace warpsim::timing
