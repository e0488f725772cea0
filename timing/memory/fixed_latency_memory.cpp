// The fixed-latency, bandwidth-limited placeholder below L1.
#include "timing/memory/fixed_latency_memory.h"

#include <algorithm>

#include "common/invariant.h"

namespace warpsim::timing {

FixedLatencyMemory::FixedLatencyMemory(const FixedLatencyMemoryConfig& config, uint32_t num_sms)
    : config_(config), ports_(num_sms) {
  for (Port& p : ports_) p.ring.resize(config.queue);
}

bool FixedLatencyMemory::can_accept(uint32_t sm) const { return ports_[sm].count < config_.queue; }

void FixedLatencyMemory::send(const MemRequest& request, uint64_t now) {
  Port& p = ports_[request.sm];
  WARPSIM_INVARIANT(p.count < config_.queue, "a request sent to a full placeholder-memory port");
  const uint64_t start = std::max(now, p.free_at);
  const uint64_t transfer =
      std::max<uint64_t>(1, (uint64_t{request.bytes} + config_.bytes_per_cycle - 1) / config_.bytes_per_cycle);
  p.free_at = start + transfer;
  Pending& slot = p.ring[(p.head + p.count) % config_.queue];
  slot.request = request;
  slot.ready = start + transfer + config_.latency;
  ++p.count;
  ++p.requests;
  p.bytes += request.bytes;
}

bool FixedLatencyMemory::receive(uint32_t sm, uint64_t now, MemRequest& reply) {
  Port& p = ports_[sm];
  if (p.count == 0 || p.ring[p.head].ready > now) return false;
  reply = p.ring[p.head].request;
  p.head = (p.head + 1) % config_.queue;
  --p.count;
  return true;
}

uint64_t FixedLatencyMemory::next_event(uint64_t now) const {
  uint64_t next = UINT64_MAX;
  for (const Port& p : ports_)
    if (p.count != 0) next = std::min(next, std::max(now + 1, p.ring[p.head].ready));
  return next;
}

bool FixedLatencyMemory::idle() const {
  for (const Port& p : ports_)
    if (p.count != 0) return false;
  return true;
}

uint64_t FixedLatencyMemory::requests() const {
  uint64_t n = 0;
  for (const Port& p : ports_) n += p.requests;
  return n;
}

uint64_t FixedLatencyMemory::bytes() const {
  uint64_t n = 0;
  for (const Port& p : ports_) n += p.bytes;
  return n;
}

}  // namespace warpsim::timing
