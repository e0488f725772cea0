#pragma once
// The memory system below L1 (docs/memory-system.md; docs/architecture.md,
// "Clock domains in picoseconds" and "Idle domains sleep"):
//
//   SM -> ClusterPort -> interconnect (request subnet) -> L2 slice -> DRAM
//   SM <- ClusterPort <- interconnect (reply subnet)   <- L2 slice <- DRAM
//
// It implements LowerMemory for the SMs. Clusters are network nodes
// 0..clusters-1 and L2 slices (sub-partitions) the nodes after them. Each
// request is decoded once (address mapping) when the SM sends it, and
// travels as an id into the RequestPool.
//
// Clock domains: the SMs run on the core clock; the network, the L2 slices
// and the DRAM channels each on their own (ClockDomains, in picoseconds).
// advance(core cycle c) runs every domain edge before c's start, in time
// order (at equal times: DRAM, then L2, then the network; an edge at the
// same time as a core edge runs after the SMs' cycle), and only the edges
// at which some component has work: a domain with nothing to do
// sleeps until its next known event, so long DRAM or L2 latencies cost no
// simulation time.
#include <atomic>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "interconnect/network.h"
#include "timing/active_set.h"
#include "timing/memory/address_mapping.h"
#include "timing/clock_domains.h"
#include "timing/memory/cluster_port.h"
#include "timing/memory/lower_memory.h"
#include "timing/memory/memory_activity.h"
#include "timing/memory/memory_partition.h"
#include "timing/mechanisms.h"
#include "timing/memory/request_pool.h"
#include "timing/sim_config.h"
#include "timing/wakeup_queue.h"

namespace warpsim::timing {

class MemorySystem final : public LowerMemory {
 public:
  // `mechanisms`: made for every cluster port, L2 slice and DRAM channel.
  explicit MemorySystem(const SimConfig& config, const Mechanisms& mechanisms = {});
  ~MemorySystem() override;

  bool can_accept(uint32_t sm) const override;
  void send(const MemRequest& request, uint64_t now) override;
  bool receive(uint32_t sm, uint64_t now, MemRequest& reply) override;
  uint64_t next_event(uint64_t now) const override;
  bool idle() const override;
  void advance(uint64_t now) override;
  void end_sm_phase(uint64_t now) override;
  void advance_ahead(uint64_t now) override;

  // A kernel launch begins at core cycle `now` (the port mechanisms are told).
  void begin_launch(uint64_t now);
  // A snapshot of every component's counters (one launch: the difference
  // of two, memory_activity.h).
  MemoryActivity activity() const;
  // The L2's lines holding an address, its lines in all, and the lines it
  // has allocated so far (filled or replaced), over the slices (sampled
  // simulation: whether the L2 still fills or still holds older data).
  struct L2Lines {
    uint64_t in_use = 0;
    uint64_t total = 0;
    uint64_t allocated = 0;
  };
  L2Lines l2_lines() const;
  const ClockDomains& clocks() const { return clocks_; }
  const interconnect::Network& network() const { return *network_; }
  const std::vector<std::unique_ptr<MemoryPartition>>& partitions() const { return partitions_; }
  const std::vector<ClusterPort>& ports() const { return ports_; }
  const AddressMapping& mapping() const { return mapping_; }
  uint32_t clusters() const { return static_cast<uint32_t>(ports_.size()); }

 private:
  void tick_network(uint64_t now_ps);
  void tick_l2(uint64_t now_ps);
  void tick_dram(uint64_t now_ps);
  uint64_t next_network_work(uint64_t now_ps) const;
  uint64_t next_work(Domain d) const;
  uint32_t l1_sector_bytes(MemKind kind) const;
  // Folds what the SMs did this core cycle (cluster_touch_) into the shared
  // state; called before anything reads it.
  void fold_sm_calls();
  // Runs the edges of the domains in `order` (at equal times, in that
  // order) that have work before `before_ps`.
  void run_edges(std::span<const Domain> order, uint64_t before_ps);

  SimConfig config_;
  DramConfig dram_;  // resolved
  ClockDomains clocks_;
  AddressMapping mapping_;
  RequestPool pool_;
  std::unique_ptr<interconnect::Network> network_;
  std::vector<ClusterPort> ports_;
  std::vector<std::unique_ptr<MemoryPartition>> partitions_;
  std::vector<L2Slice*> slices_;  // by sub-partition index (network node clusters() + i)
  uint32_t sms_per_cluster_;
  uint64_t next_edge_[kDomains] = {};  // the first edge of each domain not yet processed
  // Who has work in each domain (only they are ticked and asked for their
  // next event), and the packets under way to each node.
  ActiveSet net_ports_, net_slices_;
  WakeupQueue l2_wakeups_, dram_wakeups_;  // partitions, by when their L2 / DRAM side has work
  std::vector<uint32_t> due_;              // scratch: the partitions due at an edge
  std::vector<uint32_t> replies_to_cluster_, requests_to_slice_;
  uint32_t replies_waiting_ = 0;  // in the clusters' response FIFOs
  // The network's earliest time with work: recomputed (one pass over its
  // active ports and slices) after it ticks, and lowered when an SM or the
  // L2 hands it work. (L2 and DRAM keep theirs in the wake-up queues.)
  uint64_t next_[kDomains] = {UINT64_MAX, UINT64_MAX, UINT64_MAX, UINT64_MAX};
  void wake(Domain d, uint64_t t) { next_[int(d)] = std::min(next_[int(d)], t); }
  MemorySystemStats stats_;
  // What a cluster's SMs did to the shared state during a core cycle, kept
  // per cluster (a cache line each) so that clusters on different host
  // threads never write the same memory; fold_sm_calls applies it in cluster
  // order. The order cannot matter: a set insertion, minimums and sums.
  struct alignas(64) ClusterTouch {
    bool touched = false;  // anything below is set
    bool sent = false;     // a request entered the port (network work)
    bool woke = false;     // a taken reply made room for one waiting in the network
    uint32_t replies = 0;
    uint64_t round_trip_ps = 0;
    uint64_t at_ps = 0;    // when (the cycle's core time)
  };
  std::vector<ClusterTouch> cluster_touch_;
  // Some cluster was touched since the last fold: spares the folds and the
  // idle checks a pass over every cluster's line when none was. Set by the
  // SMs' calls (from any thread: written once per fold, read cheaply).
  std::atomic<bool> any_touch_{false};
  void mark_touched() {
    if (!any_touch_.load(std::memory_order_relaxed)) any_touch_.store(true, std::memory_order_relaxed);
  }
  bool any_touch() const { return any_touch_.load(std::memory_order_relaxed); }
};

}  // namespace warpsim::timing
