#pragma once
// TrafficDriver: drives a Network with synthetic traffic, one network cycle
// per step(), and counts what is delivered.
//
// Each step follows the Network protocol (network.h):
//   1. eject every delivered packet at every node (the driver is an
//      infinitely fast sink, so a packet's ejection cycle is its tail's
//      arrival); a closed-loop pattern's answer to it joins the answering
//      node's source queue;
//   2. create: while creating, each source of the pattern creates a packet
//      with probability `rate` (Bernoulli injection, packets/node/cycle);
//   3. inject: each node offers the head of its source queue on each subnet
//      (at most one packet per node and subnet per cycle); can_inject false
//      leaves it queued (back-pressure, counted as a blocked cycle);
//   4. tick the network.
// Source queues are unbounded, one per node and subnet, in creation order.
// A packet's `created` is its creation cycle, so its latency includes the
// time it queued at the source.
//
// Measurement: packets created while measuring() is on are "measured"; a
// closed-loop answer is measured when its request was. Counters since the
// last reset_window() cover every delivered packet (the accepted throughput
// of a window); the measured counters cover measured packets only.
//
// Nothing is allocated per cycle once the source queues have grown to the
// largest backlog.
#include <cstdint>
#include <vector>

#include "interconnect/network.h"
#include "interconnect/ring_queue.h"
#include "interconnect/traffic/traffic_pattern.h"
#include "interconnect/traffic/traffic_rng.h"

namespace warpsim::interconnect {

// Sums over delivered packets.
struct DeliveredTotals {
  uint64_t packets = 0, flits = 0;
  uint64_t latency = 0;          // sum of arrival - created (packet latency)
  uint64_t network_latency = 0;  // sum of arrival - injected
  uint64_t hops = 0;             // sum of Packet::hops (routers visited)
  uint64_t min_latency = UINT64_MAX, max_latency = 0;
  uint64_t round_trips = 0;      // closed loop: answers delivered ...
  uint64_t round_trip = 0;       // ... and the sum of answer arrival - request created

  double average_latency() const { return packets ? double(latency) / double(packets) : 0; }
  double average_network_latency() const { return packets ? double(network_latency) / double(packets) : 0; }
  double average_hops() const { return packets ? double(hops) / double(packets) : 0; }
  double average_round_trip() const { return round_trips ? double(round_trip) / double(round_trips) : 0; }
};

// Packets created and not yet delivered (queued or in the network).
struct Outstanding {
  uint64_t packets = 0;
  uint64_t created_sum = 0;  // sum of their creation cycles
  // The sum of their ages at `now`.
  uint64_t age_sum(uint64_t now) const { return packets * now - created_sum; }
};

class TrafficDriver {
 public:
  // `network` and `pattern` outlive the driver; 0 <= rate <= 1.
  TrafficDriver(Network& network, const TrafficPattern& pattern, double rate, uint64_t seed);

  // One network cycle (see above).
  void step();
  // `cycles` steps.
  void run(uint64_t cycles);
  // Stops creating packets and runs until every queue and the network are
  // empty, skipping the cycles in which nothing moves (next_event()).
  void run_until_empty();

  // Whether sources create packets (on at construction).
  void set_creating(bool on) { creating_ = on; }
  // Whether packets created from now on are measured (off at construction).
  void set_measuring(bool on) { measuring_ = on; }
  // Starts the window's counters over at the current cycle.
  void reset_window();

  const Network& network() const { return network_; }
  uint64_t cycle() const { return network_.cycle(); }
  // Every packet delivered since the last reset_window(), and the cycle it began.
  const DeliveredTotals& window() const { return window_; }
  uint64_t window_start() const { return window_start_; }
  // Measured packets: delivered, created, and still outstanding.
  const DeliveredTotals& measured() const { return measured_; }
  uint64_t measured_created() const { return measured_created_; }
  const Outstanding& measured_outstanding() const { return measured_outstanding_; }
  // Every packet still outstanding.
  const Outstanding& outstanding() const { return outstanding_; }
  // Since construction: packets created and delivered, and flits x hops of
  // the delivered ones.
  uint64_t packets_created() const { return packets_created_; }
  uint64_t packets_delivered() const { return packets_delivered_; }
  uint64_t flit_hops() const { return flit_hops_; }
  // Packets waiting in the source queues.
  uint64_t queued() const { return queued_; }

  // Average packet latency of the window counting the packets still
  // outstanding at their age now (they would arrive no earlier): what
  // tells a network that cannot keep up from one that merely runs slow.
  double latency_with_outstanding() const;

 private:
  void deliver(Subnet subnet, const Packet& p);
  void enqueue(Subnet subnet, uint32_t src, const TrafficPacket& t, bool measured, uint64_t origin);

  Network& network_;
  const TrafficPattern& pattern_;
  double rate_;
  TrafficRng rng_;
  bool creating_ = true, measuring_ = false;
  bool used_[kSubnets] = {};  // subnets the pattern sends on
  std::vector<RingQueue<Packet>> queues_[kSubnets];  // per node
  uint64_t queued_ = 0;

  DeliveredTotals window_, measured_;
  uint64_t window_start_ = 0;
  uint64_t measured_created_ = 0;
  Outstanding outstanding_, measured_outstanding_;
  uint64_t packets_created_ = 0, packets_delivered_ = 0, flit_hops_ = 0;
};

}  // namespace warpsim::interconnect
