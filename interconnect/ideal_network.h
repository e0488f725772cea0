#pragma once
// The `ideal` network: every packet arrives exactly `latency` network cycles
// after injection, with unlimited bandwidth and buffering (can_inject is
// always true). It isolates the memory system from interconnect contention:
// the reference point the real topologies are compared against.
//
// Its one key is [interconnect.ideal] latency (IdealConfig).
//
// Timing: a packet injected in cycle t (before tick) can be ejected from
// cycle t + latency (latency >= 1, as the Network contract requires).
// Each destination and subnet has one delivery FIFO in arrival order; since
// the latency is fixed, arrival order is injection order.
#include <cstdint>
#include <span>
#include <vector>

#include "common/config.h"
#include "interconnect/network.h"
#include "interconnect/ring_queue.h"

namespace warpsim::interconnect {

// [interconnect.ideal]
struct IdealConfig {
  uint32_t latency = 4;  // cycles from injection to ejection
};

const config::Table<IdealConfig>& ideal_config_table();

class IdealNetwork final : public Network {
 public:
  IdealNetwork(const NetworkConfig& config, std::span<const NodeRole> roles);

  bool can_inject(Subnet subnet, uint32_t node, uint32_t bytes) const override;
  void inject(Subnet subnet, uint32_t node, Packet packet) override;
  bool eject(Subnet subnet, uint32_t node, Packet& out) override;
  bool has_delivery(Subnet subnet, uint32_t node) const override;
  void tick() override;
  uint64_t next_event() const override;
  void skip_to(uint64_t cycle) override;
  bool idle() const override { return in_network_ == 0; }
  std::string_view name() const override { return "ideal"; }

 private:
  void drop_past_arrivals();

  uint32_t latency_;
  std::vector<RingQueue<Packet>> deliveries_[kSubnets];  // per destination, arrival order
  // The distinct arrival cycles of packets injected so far, ascending (the
  // latency is fixed, so injection order is arrival order); entries before
  // cycle() are dropped as time passes: the front is next_event().
  RingQueue<uint64_t> arrivals_;
  uint64_t in_network_ = 0;  // injected, not yet ejected
};

}  // namespace warpsim::interconnect
