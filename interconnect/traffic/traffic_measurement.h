#pragma once
// One point of a latency-throughput curve, measured the way BookSim 2 does
// (Jiang et al., ISPASS 2013; its "latency" simulation):
//
//   1. warm-up: warmup_periods x sample_period cycles, then the statistics
//      start over;
//   2. measurement: sample periods until `converge_periods` successive
//      periods each change the average packet latency and the accepted
//      throughput (both over every packet delivered since the measurement
//      began) by less than `stopping_threshold` relative to the period
//      before - the first measured period is compared with the end of the
//      warm-up - with at most max_samples periods in all, warm-up included.
//      Packets created during measurement are the measured packets;
//   3. drain: the sources keep creating (the load stays the same) until
//      every measured packet has arrived.
// The point is unstable when, at the end of any period (warm-up, measurement
// or drain), the average latency of the packets delivered since the last
// reset counting those still outstanding at their age exceeds
// latency_threshold, or when the measurement does not converge within
// max_samples periods.
//
// Reported (PointResult): the averages over the measured packets - packet
// latency (creation to tail arrival, so source queueing included), network
// latency (injection to tail arrival), hops (routers visited) - and the
// accepted throughput: flits delivered (every packet) per node per cycle
// during the measurement periods, averaged over all nodes as BookSim does.
// The speed figure is flits x hops of every packet delivered in the whole
// run, warm-up and drain included, per second of wall-clock time.
#include <cstdint>
#include <span>
#include <string>

#include "interconnect/network.h"
#include "interconnect/traffic/traffic_pattern.h"

namespace warpsim::interconnect {

struct MeasurementConfig {
  uint32_t warmup_periods = 3;
  uint64_t sample_period = 5000;   // cycles
  uint32_t max_samples = 20;       // periods in all, warm-up included
  double latency_threshold = 500;  // cycles
  double stopping_threshold = 0.05;
  uint32_t converge_periods = 3;
};

// "" when usable, else what is wrong.
std::string check_measurement_config(const MeasurementConfig& m);

struct PointResult {
  double rate = 0;     // packets per source node per cycle
  double offered = 0;  // flits per node per cycle the sources create, averaged over all nodes
  bool stable = false;
  std::string unstable_reason;  // when not stable
  // Measured packets (stable); for an unstable point, the last values:
  // packet_latency then counts the packets still outstanding (the figure
  // that crossed the threshold) and the rest cover the packets delivered
  // since the measurement (or the run) began.
  double packet_latency = 0, network_latency = 0, hops = 0;
  double accepted = 0;     // flits per node per cycle
  double round_trip = 0;   // closed loop: request created to its answer's arrival
  uint64_t max_latency = 0;
  uint64_t packets = 0;    // measured packets delivered
  uint64_t periods = 0;    // sample periods run, warm-up included (not the drain)
  uint64_t cycles = 0;     // simulated cycles in all
  uint64_t flit_hops = 0;  // of every packet delivered
  double wall_seconds = 0;
  double flit_hops_per_second() const { return wall_seconds > 0 ? double(flit_hops) / wall_seconds : 0; }
};

// Builds the network `config` over `roles` and measures `pattern` at `rate`
// (0 < rate <= 1) from `seed`; the same arguments give the same result.
PointResult measure_point(const NetworkConfig& config, std::span<const NodeRole> roles,
                          const TrafficPattern& pattern, double rate, uint64_t seed,
                          const MeasurementConfig& method);

}  // namespace warpsim::interconnect
