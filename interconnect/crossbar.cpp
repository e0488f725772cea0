// The `crossbar` network (see crossbar.h for the model and its timing).
//
// One tick, per subnet: collect the requests of the inputs that hold no
// connection (the oldest packet per destination, to outputs that are free
// and have room), run the allocator and connect the pairs it grants, in the
// order it grants them, then move up to output_speedup flits
// over every connection; a connection whose tail flit moved hands its packet
// to the output's delivery ring and is released, so the input and the
// output can be allocated again in the next cycle.
#include "interconnect/crossbar.h"

#include <algorithm>
#include <memory>
#include <string>

#include "common/invariant.h"

namespace warpsim::interconnect {
const config::Table<CrossbarConfig>& crossbar_config_table() {
  static const config::Table<CrossbarConfig> table = [] {
    using X = CrossbarConfig;
    config::Table<X> t(
        "The `crossbar` topology: one switch per subnet over all nodes, with input and output "
        "buffers, a switch allocator and output speedup");
    t.integer("latency", &X::latency, "cycles", "switch pipeline, tail flit to ejectable")
        .range(0, 10000);
    t.integer("input_buffer_flits", &X::input_buffer_flits, "flits",
              "input buffer per node and subnet (whole packets; full: back-pressure)")
        .range(1, 65536);
    t.integer("output_buffer_flits", &X::output_buffer_flits, "flits",
              "output (ejection) buffer per node and subnet, freed at ejection")
        .range(1, 65536);
    t.string("allocator", &X::allocator,
             "switch allocator, one per subnet (" + allocators().described() + ")")
        .one_of(allocators());
    t.integer("islip_iterations", &X::islip_iterations, "",
              "islip: request-grant-accept iterations per cycle")
        .range(1, 16);
    t.integer("output_speedup", &X::output_speedup, "flits/cycle",
              "flits an output accepts per cycle")
        .range(1, 16);
    return t;
  }();
  return table;
}

Crossbar::Crossbar(const NetworkConfig& config, std::span<const NodeRole> roles)
    : Network(config, roles),
      xbar_(config.topologies.get<CrossbarConfig>("crossbar")),
      in_cap_(xbar_.input_buffer_flits),
      out_cap_(xbar_.output_buffer_flits) {
  // The config table validates all of these; a bad value here is a bug.
  WARPSIM_INVARIANT(in_cap_ >= 1 && out_cap_ >= 1, "crossbar buffers hold at least one flit");
  WARPSIM_INVARIANT(xbar_.output_speedup >= 1 && xbar_.islip_iterations >= 1,
                    "output_speedup and islip_iterations are at least 1");
  const uint32_t nodes = nodes_;
  for (int s = 0; s < kSubnets; ++s) {
    Plane& p = planes_[s];
    p.inputs.resize(nodes);
    p.in_slots.resize(size_t{nodes} * in_cap_);
    p.outputs.resize(nodes);
    p.out_slots.resize(size_t{nodes} * out_cap_);
    p.active.reserve(nodes);
    p.connected.reserve(nodes);
    // The config table validated the name (an unknown one is a bug: factory()).
    p.allocator =
        allocators().make(xbar_.allocator, AllocatorConfig{nodes, nodes, xbar_.islip_iterations});
    p.activity = &activity_[s];
  }
  // Each input asks for at most one output per buffered packet.
  requests_.reserve(size_t{nodes} * std::min(in_cap_, nodes));
  request_slots_.reserve(requests_.capacity());
  grants_.reserve(nodes);
  seen_.assign(nodes, 0);
}

bool Crossbar::can_inject(Subnet subnet, uint32_t node, uint32_t bytes) const {
  WARPSIM_INVARIANT(node < nodes_ && bytes > 0, "can_inject: node in range, packet not empty");
  const Input& in = planes_[int(subnet)].inputs[node];
  // An oversized packet enters an empty buffer (crossbar.h).
  return in.used + flits(bytes) <= in_cap_ || in.count == 0;
}

void Crossbar::inject(Subnet subnet, uint32_t node, Packet packet) {
  WARPSIM_INVARIANT(node == packet.src && packet.src < nodes_ && packet.dst < nodes_,
                    "inject: the packet's source is the injecting node; both nodes in range");
  WARPSIM_INVARIANT(can_inject(subnet, node, packet.bytes),
                    "inject without room (the source must check can_inject)");
  Plane& p = planes_[int(subnet)];
  Input& in = p.inputs[node];
  packet.flits = flits(packet.bytes);
  packet.injected = cycle_;
  *in_slot(p, node, in.count++) = packet;
  in.used += packet.flits;
  p.activity->buffer_writes += packet.flits;
  if (in.active_at == kNone) {
    in.active_at = static_cast<uint32_t>(p.active.size());
    p.active.push_back(node);
  }
  ++in_network_;
  record_inject(subnet, packet);
}

bool Crossbar::has_delivery(Subnet subnet, uint32_t node) const {
  const Plane& p = planes_[int(subnet)];
  return p.outputs[node].count != 0 && out_head(p, node)->ready <= cycle_;
}

bool Crossbar::eject(Subnet subnet, uint32_t node, Packet& out) {
  if (!has_delivery(subnet, node)) return false;
  Plane& p = planes_[int(subnet)];
  Output& o = p.outputs[node];
  out = out_head(p, node)->packet;
  o.head = (o.head + 1) % out_cap_;
  o.count--;
  o.used -= out.flits;
  p.activity->buffer_reads += out.flits;
  --in_network_;
  record_eject(subnet, out);
  return true;
}

void Crossbar::collect_requests(Plane& p) {
  requests_.clear();
  request_slots_.clear();
  for (uint32_t i : p.active) {
    const Input& in = p.inputs[i];
    if (in.out != kNone) continue;
    ++stamp_;
    for (uint32_t k = 0; k < in.count; ++k) {
      const uint32_t dst = in_slot(p, i, k)->dst;
      // Only the oldest packet per destination asks (per-pair order).
      if (seen_[dst] == stamp_) continue;
      seen_[dst] = stamp_;
      const Output& o = p.outputs[dst];
      if (o.in == kNone && output_room(o, 0)) {
        requests_.push_back({i, dst});
        request_slots_.push_back(k);
      }
    }
  }
}

void Crossbar::connect(Plane& p, uint32_t i, uint32_t out, uint32_t slot) {
  Input& in = p.inputs[i];
  in.out = out;
  in.sending = slot;
  in.sent = 0;
  p.outputs[out].in = i;
  p.connected.push_back(i);
  p.activity->switch_allocations++;
}

bool Crossbar::advance(Plane& p, uint32_t i) {
  Input& in = p.inputs[i];
  Output& o = p.outputs[in.out];
  const uint32_t flits = in_slot(p, i, in.sending)->flits;
  uint32_t moved = 0;
  while (moved < xbar_.output_speedup && in.sent < flits && output_room(o, in.sent)) {
    ++in.sent;
    --in.used;
    ++o.used;
    ++moved;
  }
  // Each moved flit is read out of the input buffer, crosses the switch and
  // is written into the output buffer.
  p.activity->buffer_reads += moved;
  p.activity->switch_traversals += moved;
  p.activity->buffer_writes += moved;
  if (moved == 0) p.activity->stalled_cycles++;
  if (in.sent < flits) return false;
  finish_packet(p, i);
  return true;
}

void Crossbar::finish_packet(Plane& p, uint32_t i) {
  Input& in = p.inputs[i];
  Output& o = p.outputs[in.out];
  WARPSIM_INVARIANT(o.count < out_cap_, "crossbar output ring overflow");
  Delivered* d = out_slot(p, in.out, o.count++);
  d->packet = *in_slot(p, i, in.sending);
  d->ready = cycle_ + 1 + xbar_.latency;
  d->packet.arrived = d->ready;
  d->packet.hops = 1;
  if (ready_times_.empty() || ready_times_.back() != d->ready) ready_times_.push(d->ready);
  // Close the gap in the input's arrival-ordered slots.
  Packet* slots = in_slot(p, i, 0);
  std::copy(slots + in.sending + 1, slots + in.count, slots + in.sending);
  in.count--;
  o.in = kNone;
  in.out = kNone;
  if (in.count == 0) {
    const uint32_t last = p.active.back();
    p.active[in.active_at] = last;
    p.inputs[last].active_at = in.active_at;
    p.active.pop_back();
    in.active_at = kNone;
  }
}

void Crossbar::transfer(Plane& p) {
  for (size_t k = 0; k < p.connected.size();) {
    if (advance(p, p.connected[k])) {
      p.connected[k] = p.connected.back();
      p.connected.pop_back();
    } else {
      ++k;
    }
  }
}

void Crossbar::drop_past_ready() {
  while (!ready_times_.empty() && ready_times_.front() < cycle_) ready_times_.pop();
}

void Crossbar::tick() {
  for (Plane& p : planes_) {
    if (p.active.empty()) continue;
    collect_requests(p);
    if (!requests_.empty()) {
      p.allocator->allocate(requests_, cycle_, grants_);
      for (uint32_t r : grants_)
        connect(p, requests_[r].input, requests_[r].output, request_slots_[r]);
    }
    transfer(p);
  }
  ++cycle_;
  drop_past_ready();
}

uint64_t Crossbar::next_event() const {
  for (const Plane& p : planes_)
    if (!p.active.empty()) return cycle_;
  return ready_times_.empty() ? UINT64_MAX : ready_times_.front();
}

void Crossbar::skip_to(uint64_t cycle) {
  WARPSIM_INVARIANT(cycle >= cycle_ && next_event() >= cycle,
                    "skip_to: only forward, and not past next_event()");
  cycle_ = cycle;
  drop_past_ready();
}

std::unique_ptr<Network> make_crossbar_network(const NetworkConfig& config,
                                               std::span<const NodeRole> roles) {
  return std::make_unique<Crossbar>(config, roles);
}

}  // namespace warpsim::interconnect
