#pragma once
// The `crossbar` network: one N x N crossbar switch per subnet, any node to
// any node in one hop, with input and output buffers counted in flits of
// config.flit_bytes, a switch allocator, output speedup and back-pressure.
// Its keys are in [interconnect.crossbar] (CrossbarConfig).
//
// Input buffers (per input and subnet, input_buffer_flits): hold whole
// packets. can_inject() is false when the packet's flits do not fit in the
// free space; the source keeps the packet (back-pressure). The buffer is
// shared by all destinations but read as virtual output queues, as iSLIP
// assumes: the oldest packet for each destination may request that output,
// so a packet for a busy output does not block one for a free output, and
// packets of one (source, destination) pair leave in injection order.
//
// Switch allocation, each cycle, between the inputs that hold no connection
// and the outputs that hold none and have room for a flit: the allocator
// named by `allocator` (interconnect/allocators/: islip with
// islip_iterations rounds, or round-robin), one per subnet, over N inputs
// and N outputs.
// A grant connects input -> output until the packet's tail flit has moved
// (wormhole: packets never interleave at an output). Per cycle a connection
// moves up to output_speedup flits, each only if the output buffer has room
// for it; otherwise the transfer stalls (back-pressure). Input buffer space
// is freed flit by flit as flits leave; output buffer space is freed when
// the packet is ejected.
//
// Timing (the switch pipeline is a delay on the output side): allocation and
// transfer happen in tick(); a flit moved by tick() of cycle c is in the
// output buffer at cycle c + 1. A packet whose tail flit moved in cycle c
// becomes ejectable in cycle c + 1 + latency. Uncontended, a packet of F
// flits injected in cycle t is granted in t, its tail moves in
// t + ceil(F / output_speedup) - 1, and it is ejectable from
//     t + ceil(F / output_speedup) + latency
// (latency 0, one flit: t + 1, the earliest the Network contract allows).
//
// A packet larger than a buffer would deadlock it; instead such a packet is
// admitted into an empty input buffer, and its flits may fill an output
// buffer past its capacity while no other packet is in it.
//
// Per-cycle work is proportional to the busy inputs and connections, not to
// N: the network keeps lists of inputs with packets and of connections, and
// nothing is allocated per packet after construction. Results do not depend
// on the order of those lists (an allocator's matching does not depend on
// the order of the requests: allocators/allocator.h).
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/config.h"
#include "interconnect/allocators/allocator.h"
#include "interconnect/network.h"
#include "interconnect/ring_queue.h"

namespace warpsim::interconnect {

// [interconnect.crossbar]
struct CrossbarConfig {
  uint32_t latency = 4;               // switch pipeline: tail flit's move to ejectable, cycles
  uint32_t input_buffer_flits = 16;   // per input and subnet
  uint32_t output_buffer_flits = 16;  // per output and subnet (ejection queue)
  std::string allocator = "islip";    // a name of the allocator registry
  uint32_t islip_iterations = 1;      // islip: request-grant-accept iterations
  uint32_t output_speedup = 1;        // flits an output accepts per cycle
};

const config::Table<CrossbarConfig>& crossbar_config_table();

// Activity (Network::activity): switch_allocations are the allocator's
// grants, switch_traversals the flits moved, stalled_cycles the
// connection-cycles that moved no flit (output buffer full). buffer_writes
// count flits into the input buffers at injection and into the output
// buffers as they move; buffer_reads flits out of the input buffers as they
// move and out of the output buffers at ejection.
class Crossbar final : public Network {
 public:
  Crossbar(const NetworkConfig& config, std::span<const NodeRole> roles);

  bool can_inject(Subnet subnet, uint32_t node, uint32_t bytes) const override;
  void inject(Subnet subnet, uint32_t node, Packet packet) override;
  bool eject(Subnet subnet, uint32_t node, Packet& out) override;
  bool has_delivery(Subnet subnet, uint32_t node) const override;
  void tick() override;
  uint64_t next_event() const override;
  void skip_to(uint64_t cycle) override;
  bool idle() const override { return in_network_ == 0; }
  std::string_view name() const override { return "crossbar"; }

 private:
  static constexpr uint32_t kNone = UINT32_MAX;

  struct Input {
    uint32_t count = 0;          // packets buffered (slots [0, count) in arrival order)
    uint32_t used = 0;           // flits buffered
    uint32_t out = kNone;        // output of the held connection
    uint32_t sending = 0;        // with a connection: slot of the packet in transfer
    uint32_t sent = 0;           // with a connection: its flits already moved
    uint32_t active_at = kNone;  // index in Plane::active, kNone when empty
  };
  struct Delivered {
    Packet packet;
    uint64_t ready = 0;  // first cycle it can be ejected
  };
  struct Output {
    uint32_t used = 0;             // flits in the buffer (delivered or arriving)
    uint32_t in = kNone;           // input of the held connection
    uint32_t head = 0, count = 0;  // ring of delivered packets
  };
  // One subnet's switch.
  struct Plane {
    std::vector<Input> inputs;
    std::vector<Packet> in_slots;  // inputs x input_buffer_flits, per input in arrival order
    std::vector<Output> outputs;
    std::vector<Delivered> out_slots;  // outputs x output_buffer_flits rings
    std::vector<uint32_t> active;      // inputs holding packets
    std::vector<uint32_t> connected;   // inputs holding a connection
    std::unique_ptr<Allocator> allocator;
    NetworkActivity* activity = nullptr;  // the base class's counters of this subnet
  };

  Packet* in_slot(Plane& p, uint32_t input, uint32_t slot) {
    return &p.in_slots[size_t(input) * in_cap_ + slot];
  }
  Delivered* out_slot(Plane& p, uint32_t output, uint32_t k) {
    return &p.out_slots[size_t(output) * out_cap_ + (p.outputs[output].head + k) % out_cap_];
  }
  const Delivered* out_head(const Plane& p, uint32_t output) const {
    return &p.out_slots[size_t(output) * out_cap_ + p.outputs[output].head];
  }
  // Whether the output buffer takes one more flit of a packet of which
  // `sent` flits are already in it.
  bool output_room(const Output& o, uint32_t sent) const {
    return o.used < out_cap_ || o.used == sent;
  }

  void collect_requests(Plane& p);
  void connect(Plane& p, uint32_t in, uint32_t out, uint32_t slot);
  void transfer(Plane& p);
  // Moves the flits of input `in`'s connection; true when the tail moved.
  bool advance(Plane& p, uint32_t in);
  void finish_packet(Plane& p, uint32_t in);
  void drop_past_ready();

  CrossbarConfig xbar_;  // [interconnect.crossbar]
  uint32_t in_cap_, out_cap_;
  Plane planes_[kSubnets];
  // The distinct ready cycles of delivered packets, ascending (tails move in
  // cycle order and the pipeline delay is fixed); past ones are dropped.
  RingQueue<uint64_t> ready_times_;
  uint64_t in_network_ = 0;  // injected, not yet ejected

  // Allocation scratch, reused every cycle.
  std::vector<AllocatorRequest> requests_;
  std::vector<uint32_t> request_slots_;  // per request: the slot of the packet asking
  std::vector<uint32_t> grants_;
  std::vector<uint64_t> seen_;  // per output: stamp of the last input that asked
  uint64_t stamp_ = 0;
};

}  // namespace warpsim::interconnect
