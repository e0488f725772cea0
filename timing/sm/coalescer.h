#pragma once
// Coalescing of one warp memory instruction's per-lane accesses, and the
// shared-memory bank-conflict count.
//
// Global and local accesses of a warp become one request per `line_bytes`
// line touched, with a mask of the `sector_bytes` sectors touched in it
// (GPGPU-Sim's sectored coalescer for Volta+, and Fermi's 128-byte
// L1-cached segments when sector_bytes == line_bytes). Requests come out in
// the order their line is first touched by increasing lane, so results are
// deterministic.
#include <cstdint>
#include <span>
#include <vector>

namespace warpsim::timing {

// One active lane's access: `size` bytes at `address` (an access never
// crosses a `line_bytes` boundary once naturally aligned; one that does is
// split across both lines).
struct LaneAccess {
  uint64_t address = 0;
  uint32_t size = 0;
  uint32_t lane = 0;
};

struct CoalescerConfig {
  uint32_t line_bytes = 128;   // power of two
  uint32_t sector_bytes = 32;  // power of two, divides line_bytes, at most 32 sectors per line
};

struct CoalescedRequest {
  uint64_t line = 0;         // line-aligned address
  uint32_t sector_mask = 0;  // bit s: sector s of the line is touched
  uint32_t lane_mask = 0;    // lanes served by this request
  uint32_t bytes = 0;        // bytes the touched sectors cover (popcount * sector_bytes)
  uint32_t parts = 0;        // bit k: a byte of the line's k-th 1/32 was accessed (128 B lines: 4-byte words)
};

// Clears `out` and fills it with the requests of one warp instruction.
void coalesce(std::span<const LaneAccess> accesses, const CoalescerConfig& config,
              std::vector<CoalescedRequest>& out);

// Cycles one shared-memory warp instruction occupies the shared-memory
// pipeline: memory is `banks` banks of `bank_width` bytes (bank of byte
// address a = (a / bank_width) % banks); the cycles are the largest number of
// distinct bank_width-byte words any single bank must deliver. Lanes reading
// the same word are served together (broadcast). An access wider than
// bank_width touches every word it covers. Returns 0 for no accesses.
uint32_t shared_access_cycles(std::span<const LaneAccess> accesses, uint32_t banks,
                              uint32_t bank_width);

// Distinct `word_bytes`-aligned words the accesses touch (the constant
// cache serialises a warp access per distinct address).
uint32_t distinct_words(std::span<const LaneAccess> accesses, uint32_t word_bytes);

}  // namespace warpsim::timing
