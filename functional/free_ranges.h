#pragma once
// FreeRanges: the free address ranges of one region, for the first-fit
// allocators of the device (DeviceHeap's malloc blocks, DeviceRuntime's
// parameter buffers): taking an aligned piece at the lowest address that
// fits, and giving a piece back merged with its free neighbours. Not
// thread-safe: its owners lock.
#include <cstdint>
#include <map>

namespace warpsim::functional {

class FreeRanges {
 public:
  // The whole region [base, base + size) is free (nothing when size is 0).
  void reset(uint64_t base, uint64_t size);
  void clear() { ranges_.clear(); }

  // Takes `size` bytes aligned to `alignment` (a power of two) from the
  // lowest free range that holds them; 0 when none does.
  uint64_t take(uint64_t size, uint64_t alignment);
  // [start, start + size) is free again (it must have been taken).
  void give_back(uint64_t start, uint64_t size);

 private:
  std::map<uint64_t, uint64_t> ranges_;  // start -> size, coalesced
};

}  // namespace warpsim::functional
