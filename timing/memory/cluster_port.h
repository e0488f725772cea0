#pragma once
// The network port of a cluster of SMs (Wang et al., IEEE TC 2019, sec. 2.2):
//
//   SM -> per-SM queue --intra-cluster bus--> [mechanisms] -> shared injection buffer -> network
//   network -> shared response FIFO -> the requesting SM(s)
//
// Per interconnect cycle the port ejects at most one packet from the reply
// subnet into its response FIFO (if it has room), moves at most one reply a
// mechanism served into it (likewise), injects at most one packet from its
// injection buffer into the request subnet (if the network accepts it;
// otherwise the cycle counts as blocked), and the intra-cluster bus moves one
// request from the SMs' queues toward the injection buffer, round-robin over
// the SMs (not while the buffer is full). The head of the response FIFO
// reaches its SM, one reply per core cycle; the requests merged into it
// (cluster_port_mechanism.h) reach theirs in the same cycle. A cluster of one
// SM is the degenerate case (GPGPU-Sim's default).
//
// Mechanisms (cluster_port_mechanism.h) see every request that crosses the
// bus and every reply that leaves the network; without any, every request is
// forwarded.
#include <cstdint>
#include <memory>
#include <vector>

#include "common/stat_table.h"
#include "interconnect/network.h"
#include "timing/memory/cluster_port_mechanism.h"
#include "timing/memory/memory_system_config.h"
#include "timing/memory/request_pool.h"
#include "timing/timed_queue.h"

namespace warpsim::timing {

struct ClusterPortStats {
  uint64_t requests = 0;               // requests that entered the network
  uint64_t read_requests = 0;          // of them, reads (loads, instruction and constant fetches)
  uint64_t replies = 0;                // replies delivered to SMs
  uint64_t merged = 0;                 // requests a mechanism merged into another's reply
  uint64_t served = 0;                 // requests a mechanism answered at the port
  uint64_t inject_blocked_cycles = 0;  // interconnect cycles the head could not enter the network
  uint64_t response_full_cycles = 0;   // interconnect cycles a reply waited because the response FIFO was full
  uint64_t bus_full_cycles = 0;        // interconnect cycles the bus had a request but the injection buffer was full
};

// Published summed over the clusters at "timing.cluster". Table:
// cluster_port.cpp.
const stats::StatTable<ClusterPortStats>& cluster_port_stats_table();

class ClusterPort {
 public:
  // `network_period_ps`: the interconnect clock, to stamp when a packet was
  // first ready (its queueing latency counts from the SM's send).
  ClusterPort(uint32_t node, uint32_t first_sm, uint32_t sms, const ClusterPortConfig& config,
              RequestPool& pool, uint64_t network_period_ps = 1000);
  ClusterPort(ClusterPort&&) = default;
  ~ClusterPort();

  // Asked, in order, about every request that crosses the bus.
  void add_mechanism(std::unique_ptr<ClusterPortMechanism> mechanism);
  // A kernel launch begins: the mechanisms are told.
  void begin_launch(uint64_t now_ps);
  // Adds the mechanisms' counters, in order, to `sums` (one entry per
  // mechanism that has counters; the same mechanisms at every port).
  void add_mechanism_counters(std::vector<MechanismCounters>& sums) const;

  uint32_t node() const { return node_; }
  bool can_accept(uint32_t sm) const { return !sm_queues_[sm - first_sm_].full(); }
  void send(uint32_t sm, uint32_t id, uint64_t now_ps);
  // What one interconnect cycle did (the memory system tracks which nodes
  // have work from it).
  struct TickResult {
    bool ejected = false;            // a reply packet left the network
    uint32_t replies_ready = 0;      // SM replies that entered the response FIFO (a chain counts each)
    uint32_t injected = kNoRequest;  // the request id that entered the network
  };
  // One interconnect cycle (at `now_ps`).
  TickResult tick(uint64_t now_ps, interconnect::Network& network);
  // A reply for `sm` from the head of the response FIFO, if the cluster has
  // not delivered another reply in core cycle `core_cycle` (the head's merged
  // waiters go in the same cycle as the head).
  bool receive(uint32_t sm, uint64_t core_cycle, uint64_t now_ps, uint32_t& id);
  // The earliest time >= now_ps at which tick() has work (UINT64_MAX: none;
  // replies waiting in the network count only with room in the FIFO).
  uint64_t next_work(uint64_t now_ps, const interconnect::Network& network) const;
  // A reply waits in the response FIFO (the core domain must run).
  bool reply_waiting() const { return !response_.empty(); }
  // Requests wait in the SM queues or the injection buffer.
  bool sending() const { return pending_ != 0 || !inject_.empty(); }
  // Replies a mechanism served wait to enter the response FIFO.
  bool serving() const { return !served_.empty(); }
  bool idle() const;
  const ClusterPortStats& stats() const { return stats_; }

 private:
  struct Served {
    uint64_t ready_ps = 0;
    uint64_t order = 0;  // ties resolve in serving order
    uint32_t id = 0;
    bool operator>(const Served& o) const { return ready_ps != o.ready_ps ? ready_ps > o.ready_ps : order > o.order; }
  };
  PortDecision decide(uint32_t id, uint64_t now_ps);
  uint32_t chain_length(uint32_t head) const;
  void push_served(Served s);
  void pop_served();

  uint32_t node_, first_sm_;
  uint64_t network_period_ps_;
  RequestPool* pool_;
  std::vector<TimedQueue<uint32_t>> sm_queues_;
  uint32_t pending_ = 0;        // requests in the SM queues
  uint32_t next_sm_ = 0;        // the bus's round-robin pointer
  TimedQueue<uint32_t> inject_;
  TimedQueue<uint32_t> response_;  // chain heads
  std::vector<Served> served_;     // a min-heap by ready time
  uint64_t served_order_ = 0;
  std::vector<std::unique_ptr<ClusterPortMechanism>> mechanisms_;
  uint64_t last_delivery_ = UINT64_MAX;  // core cycle of the last delivery
  bool delivering_chain_ = false;        // the head's waiters may still go in that cycle
  ClusterPortStats stats_;
};

}  // namespace warpsim::timing
