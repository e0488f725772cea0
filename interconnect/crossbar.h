#pragma once
// The `crossbar` network: one N x N crossbar switch per subnet, any node to
// any node in one hop, with input and output buffers counted in flits of
// config.flit_bytes, a switch allocator, output speedup and back-pressure.
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
// and the outputs that hold none and have room for a flit:
//   islip        McKeown's iSLIP, islip_iterations request-grant-accept
//                rounds; an output grants the requesting input at or after
//                its grant pointer, an input accepts the granting output at
//                or after its accept pointer; both pointers move one past
//                the partner only for grants accepted in the first round.
//   round-robin  the requested outputs are walked in a rotating order
//                (starting at output cycle % N); each grants the first
//                requesting, still unmatched input at or after its pointer,
//                which then moves one past that input. An input is granted
//                by one output at most.
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
// on the order of those lists (allocation picks by pointer distance).
#include <array>
#include <cstdint>
#include <string_view>
#include <vector>

#include "interconnect/network.h"
#include "interconnect/ring_queue.h"

namespace warpsim::interconnect {

// The allocator names [interconnect] allocator accepts.
inline constexpr std::array<std::string_view, 2> kCrossbarAllocators = {"islip", "round-robin"};

// Switch activity per subnet (for statistics and, later, the energy model).
struct CrossbarActivity {
  uint64_t grants = 0;          // connections made by the allocator
  uint64_t flits = 0;           // flits through the switch
  uint64_t stalled_cycles = 0;  // connection-cycles that moved no flit (output buffer full)
};

class Crossbar final : public Network {
 public:
  Crossbar(const NetworkConfig& config, uint32_t nodes);

  bool can_inject(Subnet subnet, uint32_t node, uint32_t bytes) const override;
  void inject(Subnet subnet, uint32_t node, Packet packet) override;
  bool eject(Subnet subnet, uint32_t node, Packet& out) override;
  bool has_delivery(Subnet subnet, uint32_t node) const override;
  void tick() override;
  uint64_t next_event() const override;
  void skip_to(uint64_t cycle) override;
  bool idle() const override { return in_network_ == 0; }
  std::string_view name() const override { return "crossbar"; }

  const CrossbarActivity& activity(Subnet subnet) const { return planes_[int(subnet)].activity; }

 private:
  static constexpr uint32_t kNone = UINT32_MAX;

  struct Input {
    uint32_t count = 0;          // packets buffered (slots [0, count) in arrival order)
    uint32_t used = 0;           // flits buffered
    uint32_t out = kNone;        // output of the held connection
    uint32_t sending = 0;        // with a connection: slot of the packet in transfer
    uint32_t sent = 0;           // with a connection: its flits already moved
    uint32_t accept_ptr = 0;     // iSLIP accept pointer
    uint32_t active_at = kNone;  // index in Plane::active, kNone when empty
  };
  struct Delivered {
    Packet packet;
    uint64_t ready = 0;  // first cycle it can be ejected
  };
  struct Output {
    uint32_t used = 0;             // flits in the buffer (delivered or arriving)
    uint32_t in = kNone;           // input of the held connection
    uint32_t grant_ptr = 0;        // allocator grant pointer
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
    CrossbarActivity activity;
  };
  struct Request {
    uint32_t in = 0, out = 0, slot = 0;
    uint64_t key = 0;  // round-robin walk order
  };
  enum class Allocator : uint8_t { Islip, RoundRobin };

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
  void allocate_islip(Plane& p);
  void allocate_round_robin(Plane& p);
  void connect(Plane& p, const Request& r);
  void transfer(Plane& p);
  // Moves the flits of input `in`'s connection; true when the tail moved.
  bool advance(Plane& p, uint32_t in);
  void finish_packet(Plane& p, uint32_t in);
  void drop_past_ready();

  Allocator allocator_;
  uint32_t in_cap_, out_cap_;
  Plane planes_[kSubnets];
  // The distinct ready cycles of delivered packets, ascending (tails move in
  // cycle order and the pipeline delay is fixed); past ones are dropped.
  RingQueue<uint64_t> ready_times_;
  uint64_t in_network_ = 0;  // injected, not yet ejected

  // Allocation scratch, reused every cycle.
  std::vector<Request> requests_;
  std::vector<uint64_t> seen_;  // per output: stamp of the last input that asked
  uint64_t stamp_ = 0;
  std::vector<uint32_t> grant_;   // per output: request granted this round
  std::vector<uint32_t> accept_;  // per input: request accepted this round
  std::vector<uint32_t> granted_outs_, granting_ins_;
};

}  // namespace warpsim::interconnect
