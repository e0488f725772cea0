// The synthetic-traffic driver (traffic_driver.h).
#include "interconnect/traffic/traffic_driver.h"

#include <algorithm>

#include "common/invariant.h"

namespace warpsim::interconnect {
namespace {

// The packet's payload, opaque to the network, carries what the driver
// needs back at delivery: bits 0-1 the kind, bit 2 whether it is measured,
// bits 3.. the creation cycle of the request that began its exchange (its
// own for a request or an open-loop packet), for the round trip.
uint64_t encode(TrafficKind kind, bool measured, uint64_t origin) {
  return uint64_t(kind) | (uint64_t(measured) << 2) | (origin << 3);
}
TrafficKind kind_of(uint64_t payload) { return TrafficKind(payload & 3); }
bool measured_of(uint64_t payload) { return (payload >> 2) & 1; }
uint64_t origin_of(uint64_t payload) { return payload >> 3; }

void add(DeliveredTotals& t, const Packet& p) {
  const uint64_t latency = p.arrived - p.created;
  t.packets++;
  t.flits += p.flits;
  t.latency += latency;
  t.network_latency += p.arrived - p.injected;
  t.hops += p.hops;
  t.min_latency = std::min(t.min_latency, latency);
  t.max_latency = std::max(t.max_latency, latency);
  if (kind_of(p.payload) == TrafficKind::Reply) {
    t.round_trips++;
    t.round_trip += p.arrived - origin_of(p.payload);
  }
}

}  // namespace

TrafficDriver::TrafficDriver(Network& network, const TrafficPattern& pattern, double rate, uint64_t seed)
    : network_(network), pattern_(pattern), rate_(rate), rng_(seed) {
  WARPSIM_INVARIANT(rate >= 0 && rate <= 1, "an injection rate is a probability per cycle");
  used_[int(pattern.subnet())] = true;
  if (pattern.closed_loop()) used_[int(Subnet::Reply)] = true;
  for (auto& q : queues_) q.resize(network.nodes());
  window_start_ = network.cycle();
}

void TrafficDriver::reset_window() {
  window_ = DeliveredTotals{};
  window_start_ = network_.cycle();
}

void TrafficDriver::enqueue(Subnet subnet, uint32_t src, const TrafficPacket& t, bool measured,
                            uint64_t origin) {
  WARPSIM_INVARIANT(t.dst < network_.nodes(), "a pattern's destination is a node of the network");
  const uint64_t now = network_.cycle();
  Packet p;
  p.src = src;
  p.dst = t.dst;
  p.bytes = t.flits * network_.config().flit_bytes;
  p.payload = encode(t.kind, measured, origin);
  p.created = now;
  queues_[int(subnet)][src].push(p);
  queued_++;
  packets_created_++;
  outstanding_.packets++;
  outstanding_.created_sum += now;
  if (measured) {
    measured_created_++;
    measured_outstanding_.packets++;
    measured_outstanding_.created_sum += now;
  }
}

void TrafficDriver::deliver(Subnet subnet, const Packet& p) {
  // The network sets the tail's arrival; the driver ejects every cycle, so
  // it is this cycle.
  WARPSIM_INVARIANT(p.injected <= p.arrived && p.arrived <= network_.cycle(),
                    "a delivered packet arrived after its injection and not after now");
  const bool measured = measured_of(p.payload);
  packets_delivered_++;
  flit_hops_ += uint64_t(p.flits) * p.hops;
  outstanding_.packets--;
  outstanding_.created_sum -= p.created;
  add(window_, p);
  if (measured) {
    add(measured_, p);
    measured_outstanding_.packets--;
    measured_outstanding_.created_sum -= p.created;
  }
  TrafficPacket answer;
  if (subnet == pattern_.subnet() && pattern_.reply(kind_of(p.payload), p.src, p.dst, answer))
    enqueue(Subnet::Reply, p.dst, answer, measured, origin_of(p.payload));
}

void TrafficDriver::step() {
  const uint32_t nodes = network_.nodes();
  Packet p;
  for (int s = 0; s < kSubnets; ++s) {
    if (!used_[s]) continue;
    for (uint32_t n = 0; n < nodes; ++n)
      while (network_.eject(Subnet(s), n, p)) deliver(Subnet(s), p);
  }
  if (creating_) {
    const Subnet subnet = pattern_.subnet();
    for (uint32_t src : pattern_.sources())
      if (rng_.chance(rate_)) {
        const TrafficPacket t = pattern_.make(src, rng_);
        enqueue(subnet, src, t, measuring_, network_.cycle());
      }
  }
  if (queued_ > 0)
    for (int s = 0; s < kSubnets; ++s) {
      if (!used_[s]) continue;
      for (uint32_t n = 0; n < nodes; ++n) {
        RingQueue<Packet>& q = queues_[s][n];
        if (q.empty()) continue;
        if (network_.can_inject(Subnet(s), n, q.front().bytes)) {
          network_.inject(Subnet(s), n, q.front());
          q.pop();
          queued_--;
        } else {
          network_.count_blocked(Subnet(s), n);
        }
      }
    }
  network_.tick();
}

void TrafficDriver::run(uint64_t cycles) {
  for (uint64_t i = 0; i < cycles; ++i) step();
}

void TrafficDriver::run_until_empty() {
  creating_ = false;
  while (queued_ > 0 || !network_.idle()) {
    step();
    // Nothing queued and nothing will be created: jump to the network's
    // next event (a delivery ejectable now makes it the current cycle).
    if (queued_ == 0) {
      const uint64_t next = network_.next_event();
      if (next != UINT64_MAX && next > network_.cycle()) network_.skip_to(next);
    }
  }
}

double TrafficDriver::latency_with_outstanding() const {
  const uint64_t packets = window_.packets + outstanding_.packets;
  if (packets == 0) return 0;
  return double(window_.latency + outstanding_.age_sum(network_.cycle())) / double(packets);
}

}  // namespace warpsim::interconnect
