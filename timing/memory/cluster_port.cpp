// ClusterPort: the shared injection and ejection path of a cluster.
#include "timing/memory/cluster_port.h"

#include <algorithm>
#include <functional>

#include "common/invariant.h"

namespace warpsim::timing {

using interconnect::Packet;
using interconnect::Subnet;

ClusterPort::ClusterPort(uint32_t node, uint32_t first_sm, uint32_t sms, const ClusterPortConfig& config,
                         RequestPool& pool, uint64_t network_period_ps)
    : node_(node),
      first_sm_(first_sm),
      network_period_ps_(network_period_ps),
      pool_(&pool),
      sm_queues_(sms, TimedQueue<uint32_t>(config.sm_queue)),
      inject_(config.inject_buffer),
      response_(config.response_fifo) {}

ClusterPort::~ClusterPort() = default;

void ClusterPort::add_mechanism(std::unique_ptr<ClusterPortMechanism> mechanism) {
  mechanisms_.push_back(std::move(mechanism));
}

void ClusterPort::begin_launch(uint64_t now_ps) {
  for (auto& m : mechanisms_) m->on_launch(now_ps);
}

void ClusterPort::add_mechanism_counters(std::vector<MechanismCounters>& sums) const {
  size_t k = 0;
  for (const auto& m : mechanisms_) {
    std::optional<MechanismCounters> c = m->counters();
    if (!c) continue;
    if (k == sums.size())
      sums.push_back(std::move(*c));
    else
      add(sums[k], *c);
    ++k;
  }
}

void ClusterPort::send(uint32_t sm, uint32_t id, uint64_t now_ps) {
  sm_queues_[sm - first_sm_].push(id, now_ps);
  ++pending_;
}

PortDecision ClusterPort::decide(uint32_t id, uint64_t now_ps) {
  // The mechanisms look up in parallel: a forwarded request waits for the
  // slowest lookup.
  uint64_t ready_ps = now_ps;
  for (auto& m : mechanisms_) {
    const PortDecision d = m->on_request(id, (*pool_)[id], now_ps);
    if (d.kind != PortDecision::Kind::Forward) return d;
    ready_ps = std::max(ready_ps, d.ready_ps);
  }
  return PortDecision::forward(ready_ps);
}

uint32_t ClusterPort::chain_length(uint32_t head) const {
  uint32_t n = 0;
  for (uint32_t x = head; x != kNoRequest; x = (*pool_)[x].next_waiter) ++n;
  return n;
}

void ClusterPort::push_served(Served s) {
  served_.push_back(s);
  std::push_heap(served_.begin(), served_.end(), std::greater<>());
}

void ClusterPort::pop_served() {
  std::pop_heap(served_.begin(), served_.end(), std::greater<>());
  served_.pop_back();
}

ClusterPort::TickResult ClusterPort::tick(uint64_t now_ps, interconnect::Network& network) {
  TickResult result;
  RequestPool& pool = *pool_;
  // Ejection: one reply from the network into the response FIFO.
  if (network.has_delivery(Subnet::Reply, node_)) {
    if (response_.full()) {
      ++stats_.response_full_cycles;
    } else {
      Packet p;
      network.eject(Subnet::Reply, node_, p);
      const uint32_t id = static_cast<uint32_t>(p.payload);
      for (auto& m : mechanisms_) m->on_reply(id, pool[id], now_ps);
      response_.push(id, now_ps);
      result.ejected = true;
      result.replies_ready += chain_length(id);
    }
  }
  // A reply a mechanism served, once it is due.
  if (!served_.empty() && served_.front().ready_ps <= now_ps && !response_.full()) {
    const uint32_t id = served_.front().id;
    pop_served();
    response_.push(id, now_ps);
    result.replies_ready += chain_length(id);
  }
  // Injection: the head of the injection buffer into the request subnet.
  if (inject_.ready(now_ps)) {
    const uint32_t id = inject_.front();
    const InFlight& r = pool[id];
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
      if (r.request.kind == MemKind::Load || r.request.kind == MemKind::Instruction ||
          r.request.kind == MemKind::Constant)
        ++stats_.read_requests;
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
      const uint32_t id = sm_queues_[i].front();
      sm_queues_[i].pop();
      --pending_;
      next_sm_ = (i + 1) % n;
      const PortDecision d = decide(id, now_ps);
      switch (d.kind) {
        case PortDecision::Kind::Forward:
          // The bus moves a request after this cycle's injection step, so it
          // is injectable from the next edge; a lookup ending at ready_ps
          // makes that the first edge after ready_ps.
          inject_.push(id, d.ready_ps > now_ps ? d.ready_ps + 1 : now_ps);
          break;
        case PortDecision::Kind::Merge: {
          WARPSIM_INVARIANT(d.into != id && d.into != kNoRequest && pool[d.into].cluster == pool[id].cluster,
                            "a request merges into another request of its own cluster");
          // Last in the chain: waiters are delivered in the order they came.
          uint32_t tail = d.into;
          while (pool[tail].next_waiter != kNoRequest) tail = pool[tail].next_waiter;
          pool[tail].next_waiter = id;
          ++stats_.merged;
          break;
        }
        case PortDecision::Kind::Serve:
          push_served({std::max(d.ready_ps, now_ps), served_order_++, id});
          ++stats_.served;
          break;
      }
      break;
    }
  }
  return result;
}

bool ClusterPort::receive(uint32_t sm, uint64_t core_cycle, uint64_t now_ps, uint32_t& id) {
  if (!response_.ready(now_ps)) return false;
  if (last_delivery_ == core_cycle && !delivering_chain_) return false;
  // The head's chain: the head and the requests merged into it, each for its
  // own SM.
  RequestPool& pool = *pool_;
  uint32_t& head = response_.front();
  uint32_t prev = kNoRequest, x = head;
  while (x != kNoRequest && pool[x].request.sm != sm) {
    prev = x;
    x = pool[x].next_waiter;
  }
  if (x == kNoRequest) return false;
  if (prev == kNoRequest)
    head = pool[x].next_waiter;
  else
    pool[prev].next_waiter = pool[x].next_waiter;
  pool[x].next_waiter = kNoRequest;
  delivering_chain_ = head != kNoRequest;
  if (!delivering_chain_) response_.pop();
  last_delivery_ = core_cycle;
  ++stats_.replies;
  id = x;
  return true;
}

uint64_t ClusterPort::next_work(uint64_t now_ps, const interconnect::Network& network) const {
  if (pending_ != 0 || !inject_.empty()) return now_ps;
  if (!response_.full() && network.has_delivery(Subnet::Reply, node_)) return now_ps;
  if (!served_.empty() && !response_.full()) return std::max(now_ps, served_.front().ready_ps);
  return UINT64_MAX;
}

bool ClusterPort::idle() const {
  return pending_ == 0 && inject_.empty() && response_.empty() && served_.empty();
}

const stats::StatTable<ClusterPortStats>& cluster_port_stats_table() {
  static const stats::StatTable<ClusterPortStats> table = [] {
    using P = ClusterPortStats;
    stats::StatTable<P> t("The clusters' network ports (summed over the clusters)");
    t.counter("requests", &P::requests, "requests", "requests that entered the network");
    t.counter("read_requests", &P::read_requests, "requests",
              "of them, reads: loads, instruction and constant fetches (the NoC read requests of Wang et al., "
              "IEEE TC 2019)");
    t.counter("replies", &P::replies, "replies", "replies delivered to SMs");
    t.counter("merged", &P::merged, "requests", "requests a port mechanism merged into another's reply");
    t.counter("served", &P::served, "requests", "requests a port mechanism answered at the port");
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
