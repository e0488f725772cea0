#pragma once
// The fixed-latency memory below L1 ([timing.memory] model = "fixed-latency",
// for studies of the SM alone; memory_system.h is the full model): every
// request is answered after a fixed latency, and each SM's port moves at most
// `bytes_per_cycle` bytes per cycle with `queue` requests in flight.
//
// Per SM the port serialises requests: a request occupies the port for
// ceil(bytes / bytes_per_cycle) cycles (at least one), starting when both the
// request and the port are ready; its reply arrives `latency` cycles after
// the port finished moving it. Replies therefore come back in order per SM.
#include <cstdint>
#include <vector>

#include "timing/memory/lower_memory.h"
#include "timing/timing_config.h"

namespace warpsim::timing {

class FixedLatencyMemory final : public LowerMemory {
 public:
  FixedLatencyMemory(const FixedLatencyMemoryConfig& config, uint32_t num_sms);

  bool can_accept(uint32_t sm) const override;
  void send(const MemRequest& request, uint64_t now) override;
  bool receive(uint32_t sm, uint64_t now, MemRequest& reply) override;
  uint64_t next_event(uint64_t now) const override;
  bool idle() const override;

  uint64_t requests() const;
  uint64_t bytes() const;

 private:
  struct Pending {
    MemRequest request;
    uint64_t ready = 0;
  };
  // One ring of in-flight requests per SM (capacity config.queue), with its
  // counters: SMs may call from different host threads (lower_memory.h), so
  // nothing is shared, not even a cache line.
  struct alignas(64) Port {
    std::vector<Pending> ring;
    uint32_t head = 0, count = 0;
    uint64_t free_at = 0;  // first cycle the port can start moving another request
    uint64_t requests = 0, bytes = 0;
  };
  FixedLatencyMemoryConfig config_;
  std::vector<Port> ports_;
};

}  // namespace warpsim::timing
