#pragma once
// What an interconnect moves: a packet between two numbered nodes.
//
// The network does not know SMs, caches or requests (docs/architecture.md):
// `payload` is the sender's opaque handle (the timing model's request id),
// and the size in bytes decides the flits. Packets are sized the GPGPU-Sim
// way by the sender: control-only read requests and write acknowledgements
// (a header), data replies and writes (header + payload bytes).
#include <cstdint>

namespace warpsim::interconnect {

// The two physical subnets: requests travel on one and replies on the
// other, so replies can never be blocked behind requests (no protocol
// deadlock).
enum class Subnet : uint8_t { Request = 0, Reply = 1 };
inline constexpr int kSubnets = 2;

struct Packet {
  uint32_t src = 0;       // injecting node
  uint32_t dst = 0;       // ejecting node
  uint32_t bytes = 0;     // size on the wire (header included), > 0
  uint32_t flits = 0;     // set by the network at injection: ceil(bytes / flit_bytes)
  uint64_t payload = 0;   // opaque to the network, returned unchanged at ejection
  uint64_t created = 0;   // network cycle the sender first wanted to inject it (for queueing latency)
  uint64_t injected = 0;  // set by the network: cycle it entered the network
  uint64_t arrived = 0;   // set by the network: cycle its tail reached the destination node
  uint32_t hops = 0;      // set by the network: routers it passed (0: ideal, 1: crossbar)
  // Header fields for mechanisms in routers and nodes (a DRAM bank and row for
  // row-aware routers, a slack, a hop index): carried unchanged by the
  // network, which never reads them.
  uint32_t tags[2] = {0, 0};
};

}  // namespace warpsim::interconnect
