// ClusterPort: the shared injection and ejection path of a cluster.
#include "timing/memory/cluster_port.h"

#include <algorithm>

namespace warpsim::timing {

using interconnect::Packet;
using interconnect::Subnet;

ClusterPort::ClusterPort(uint32_t node, uint32_t first_sm, uint32_t sms, const ClusterPortConfig& config,
                         RequestPool& pool, uint64_t network_period_ps)
    : node_(node),
      first_sm_(first_sm),
      network_period_ps_(network_period_ps),
      pool_(pool),
      sm_queues_(sms, TimedQueue<uint32_t>(config.sm_queue)),
      inject_(config.inject_buffer),
      response_(config.response_fifo) {}

void ClusterPort::send(uint32_t sm, uint32_t id, uint64_t now_ps) {
  sm_queues_[sm - first_sm_].push(id, now_ps);
  ++pending_;
}

ClusterPort::TickResult ClusterPort::tick(uint64_t now_ps, interconnect::Network& network) {
  TickResult result;
  // Ejection: one reply from the network into the response FIFO.
  if (network.has_delivery(Subnet::Reply, node_)) {
    if (response_.full()) {
      ++stats_.response_full_cycles;
    } else {
      Packet p;
      network.eject(Subnet::Reply, node_, p);
      response_.push(static_cast<uint32_t>(p.payload), now_ps);
      result.ejected = true;
    }
  }
  // Injection: the head of the injection buffer into the request subnet.
  if (inject_.ready(now_ps)) {
    const uint32_t id = inject_.front();
    const InFlight& r = pool_[id];
    if (network.can_inject(Subnet::Request, node_, r.request_bytes)) {
      Packet p;
      p.src = node_;
      p.dst = r.slice_node;
      p.bytes = r.request_bytes;
      p.payload = id;
      p.created = std::min(network.cycle(), r.sent_ps / network_period_ps_);
      network.inject(Subnet::Request, node_, p);
      inject_.pop();
      ++stats_.requests;
      result.injected = id;
    } else {
      ++stats_.inject_blocked_cycles;
      network.count_blocked(Subnet::Request, node_);
    }
  }
  // The intra-cluster bus: one request per cycle, round-robin over the SMs.
  if (pending_ != 0) {
    if (inject_.full()) {
      ++stats_.bus_full_cycles;
      return result;
    }
    const uint32_t n = static_cast<uint32_t>(sm_queues_.size());
    for (uint32_t k = 0; k < n; ++k) {
      const uint32_t i = (next_sm_ + k) % n;
      if (!sm_queues_[i].ready(now_ps)) continue;
      inject_.push(sm_queues_[i].front(), now_ps);
      sm_queues_[i].pop();
      --pending_;
      next_sm_ = (i + 1) % n;
      break;
    }
  }
  return result;
}

bool ClusterPort::receive(uint32_t sm, uint64_t core_cycle, uint64_t now_ps, uint32_t& id) {
  if (last_delivery_ == core_cycle || !response_.ready(now_ps)) return false;
  const uint32_t head = response_.front();
  if (pool_[head].request.sm != sm) return false;
  response_.pop();
  last_delivery_ = core_cycle;
  ++stats_.replies;
  id = head;
  return true;
}

uint64_t ClusterPort::next_work(uint64_t now_ps, const interconnect::Network& network) const {
  if (pending_ != 0 || !inject_.empty()) return now_ps;
  if (!response_.full() && network.has_delivery(Subnet::Reply, node_)) return now_ps;
  return UINT64_MAX;
}

bool ClusterPort::idle() const { return pending_ == 0 && inject_.empty() && response_.empty(); }

const stats::StatTable<ClusterPortStats>& cluster_port_stats_table() {
  static const stats::StatTable<ClusterPortStats> table = [] {
    using P = ClusterPortStats;
    stats::StatTable<P> t("The clusters' network ports (summed over the clusters)");
    t.counter("requests", &P::requests, "requests", "requests that entered the network");
    t.counter("replies", &P::replies, "replies", "replies delivered to SMs");
    t.counter("inject_blocked_cycles", &P::inject_blocked_cycles, "network cycles",
              "cycles a port's injection-buffer head could not enter the network");
    t.counter("response_full_cycles", &P::response_full_cycles, "network cycles",
              "cycles a reply waited in the network because its cluster's response FIFO was full");
    t.counter("bus_full_cycles", &P::bus_full_cycles, "network cycles",
              "cycles the intra-cluster bus had a request but the injection buffer was full");
    return t;
  }();
  return table;
}

}  // namespace warpsim::timing
