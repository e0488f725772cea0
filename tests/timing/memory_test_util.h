#pragma once
// What the memory-system unit tests share: every clock at 1 GHz, and a
// small L2 slice cache whose sets tests can reason about.
#include <cstdint>

#include "timing/cache/sectored_cache.h"

namespace warpsim::timing::testing {

inline constexpr uint64_t kP = 1000;  // every clock 1 GHz: one cycle = 1000 ps

// 4 sets of 2 ways of 128-B lines (lines 0, 512, 1024 share set 0), 32-B
// sectors, write-back, allocate on miss, 4 MSHRs of 2 requests, a 3-cycle hit.
inline CacheConfig small_l2() {
  CacheConfig c;
  c.size = 1024;
  c.line_bytes = 128;
  c.sector_bytes = 32;
  c.ways = 2;
  c.write_policy = WritePolicy::WriteBack;
  c.allocate_on = AllocateOn::Miss;
  c.mshr_entries = 4;
  c.mshr_max_merge = 2;
  c.miss_queue = 0;
  c.hit_latency = 3;
  return c;
}

}  // namespace warpsim::timing::testing
