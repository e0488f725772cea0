// The `crossbar` network (see crossbar.h for the model and its timing).
//
// One tick, per subnet: collect the requests of the inputs that hold no
// connection (the oldest packet per destination, to outputs that are free
// and have room), run the allocator, then move up to output_speedup flits
// over every connection; a connection whose tail flit moved hands its packet
// to the output's delivery ring and is released, so the input and the
// output can be allocated again in the next cycle.
#include "interconnect/crossbar.h"

#include <algorithm>
#include <memory>

#include "common/invariant.h"

namespace warpsim::interconnect {
namespace {

// Round-robin distance from `from` to `to` among n ports.
uint32_t distance(uint32_t from, uint32_t to, uint32_t n) { return (to + n - from) % n; }

}  // namespace

Crossbar::Crossbar(const NetworkConfig& config, uint32_t nodes)
    : Network(config, nodes),
      allocator_(config.allocator == "round-robin" ? Allocator::RoundRobin : Allocator::Islip),
      in_cap_(config.input_buffer_flits),
      out_cap_(config.output_buffer_flits) {
  // The config table validates all of these; a bad value here is a bug.
  WARPSIM_INVARIANT(config.allocator == "islip" || config.allocator == "round-robin",
                    "unknown crossbar allocator (the config layer validates names)");
  WARPSIM_INVARIANT(in_cap_ >= 1 && out_cap_ >= 1, "crossbar buffers hold at least one flit");
  WARPSIM_INVARIANT(config.output_speedup >= 1 && config.islip_iterations >= 1,
                    "output_speedup and islip_iterations are at least 1");
  for (Plane& p : planes_) {
    p.inputs.resize(nodes);
    p.in_slots.resize(size_t{nodes} * in_cap_);
    p.outputs.resize(nodes);
    p.out_slots.resize(size_t{nodes} * out_cap_);
    p.active.reserve(nodes);
    p.connected.reserve(nodes);
  }
  // Each input asks for at most one output per buffered packet.
  requests_.reserve(size_t{nodes} * std::min(in_cap_, nodes));
  seen_.assign(nodes, 0);
  grant_.assign(nodes, kNone);
  accept_.assign(nodes, kNone);
  granted_outs_.reserve(nodes);
  granting_ins_.reserve(nodes);
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
  --in_network_;
  record_eject(subnet, out);
  return true;
}

void Crossbar::collect_requests(Plane& p) {
  requests_.clear();
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
      if (o.in == kNone && output_room(o, 0)) requests_.push_back({i, dst, k, 0});
    }
  }
}

void Crossbar::connect(Plane& p, const Request& r) {
  Input& in = p.inputs[r.in];
  in.out = r.out;
  in.sending = r.slot;
  in.sent = 0;
  p.outputs[r.out].in = r.in;
  p.connected.push_back(r.in);
  p.activity.grants++;
}

void Crossbar::allocate_islip(Plane& p) {
  const uint32_t n = nodes_;
  for (uint32_t round = 0; round < config_.islip_iterations; ++round) {
    // Grant: each free output picks the requester nearest its grant pointer.
    granted_outs_.clear();
    for (uint32_t r = 0; r < requests_.size(); ++r) {
      const Request& q = requests_[r];
      if (p.inputs[q.in].out != kNone || p.outputs[q.out].in != kNone) continue;
      uint32_t& g = grant_[q.out];
      const uint32_t ptr = p.outputs[q.out].grant_ptr;
      if (g == kNone) {
        granted_outs_.push_back(q.out);
        g = r;
      } else if (distance(ptr, q.in, n) < distance(ptr, requests_[g].in, n)) {
        g = r;
      }
    }
    if (granted_outs_.empty()) return;
    // Accept: each granted input picks the grant nearest its accept pointer.
    granting_ins_.clear();
    for (uint32_t out : granted_outs_) {
      const uint32_t r = grant_[out];
      grant_[out] = kNone;
      const uint32_t in = requests_[r].in;
      uint32_t& a = accept_[in];
      const uint32_t ptr = p.inputs[in].accept_ptr;
      if (a == kNone) {
        granting_ins_.push_back(in);
        a = r;
      } else if (distance(ptr, out, n) < distance(ptr, requests_[a].out, n)) {
        a = r;
      }
    }
    for (uint32_t in : granting_ins_) {
      const Request& q = requests_[accept_[in]];
      accept_[in] = kNone;
      connect(p, q);
      if (round == 0) {  // McKeown: pointers move only on first-round accepts
        p.inputs[q.in].accept_ptr = (q.out + 1) % n;
        p.outputs[q.out].grant_ptr = (q.in + 1) % n;
      }
    }
  }
}

void Crossbar::allocate_round_robin(Plane& p) {
  const uint32_t n = nodes_;
  // Walk order: outputs from `start` on; within an output, inputs from its
  // pointer on. (cycle % n rather than a counter: skipping idle cycles
  // leaves the order unchanged.)
  const uint32_t start = static_cast<uint32_t>(cycle_ % n);
  for (Request& q : requests_)
    q.key =
        uint64_t{distance(start, q.out, n)} << 32 | distance(p.outputs[q.out].grant_ptr, q.in, n);
  std::sort(requests_.begin(), requests_.end(),
            [](const Request& a, const Request& b) { return a.key < b.key; });
  for (const Request& q : requests_) {
    if (p.inputs[q.in].out != kNone || p.outputs[q.out].in != kNone) continue;
    connect(p, q);
    p.outputs[q.out].grant_ptr = (q.in + 1) % n;
  }
}

bool Crossbar::advance(Plane& p, uint32_t i) {
  Input& in = p.inputs[i];
  Output& o = p.outputs[in.out];
  const uint32_t flits = in_slot(p, i, in.sending)->flits;
  uint32_t moved = 0;
  while (moved < config_.output_speedup && in.sent < flits && output_room(o, in.sent)) {
    ++in.sent;
    --in.used;
    ++o.used;
    ++moved;
  }
  p.activity.flits += moved;
  if (moved == 0) p.activity.stalled_cycles++;
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
  d->ready = cycle_ + 1 + config_.latency;
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
      if (allocator_ == Allocator::Islip)
        allocate_islip(p);
      else
        allocate_round_robin(p);
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

std::unique_ptr<Network> make_crossbar_network(const NetworkConfig& config, uint32_t nodes) {
  return std::make_unique<Crossbar>(config, nodes);
}

}  // namespace warpsim::interconnect
