#pragma once
// Mechanisms at an L2 slice: what decides how a request is served at the
// memory side and keeps per-line state there (Zhao et al.'s LA-LLC keeps the
// SM that owns each line; Pattnaik et al., ISCA 2019, compute at the slice).
//
// For each request that reaches the head of the slice's pipeline, the
// mechanisms are asked in order before the cache access:
//   access  the request accesses the cache as usual;
//   reply   the mechanism serves it without the cache: its reply leaves
//           `latency_ps` later (no cache state changes, no DRAM traffic).
// The first that does not say access decides; the later ones do not see it.
// After a read, write or atomic accessed the cache, every mechanism sees the
// outcome and the line's metadata word (on_access): one 32-bit word per
// cache line that mechanisms own, zero when a line is allocated (a line
// replaced loses it), absent (null) when the line has no place in the cache
// (a miss of an allocate-on-fill cache, a forwarded write).
// Decisions must depend only on what the mechanism saw (deterministic).
#include <cstdint>

#include "timing/memory/request_pool.h"

namespace warpsim::timing {

struct SliceDecision {
  enum class Kind : uint8_t { Access, Reply };
  Kind kind = Kind::Access;
  uint64_t latency_ps = 0;  // Reply: from now to the reply leaving the slice

  static SliceDecision access() { return {}; }
  static SliceDecision reply(uint64_t latency_ps) { return {Kind::Reply, latency_ps}; }
};

class L2SliceMechanism {
 public:
  virtual ~L2SliceMechanism() = default;
  // Request `id` (pool record `r`) is about to access the cache at now_ps.
  virtual SliceDecision on_request(uint32_t id, const InFlight& r, uint64_t now_ps) = 0;
  // Request `id` accessed the cache: `hit` when every sector it wanted was
  // valid; `metadata` is its line's word (null: the line has no place).
  virtual void on_access(uint32_t /*id*/, const InFlight& /*r*/, bool /*hit*/, uint32_t* /*metadata*/) {}
};

}  // namespace warpsim::timing
