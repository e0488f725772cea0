#pragma once
// DeviceHeap: the heap behind device-side malloc/free (the extern functions
// nvcc emits for them). One DeviceMemory allocation of `capacity` bytes
// (cudaLimitMallocHeapSize, 8 MiB by default) is made the first time a
// kernel that calls malloc or free is launched; blocks are carved from it
// first-fit, 16-byte aligned, and coalesced when freed. malloc returns 0 when
// no block fits, as CUDA's does. Safe to call from several executor threads.
#include <cstdint>
#include <map>
#include <mutex>

#include "functional/device_memory.h"

namespace warpsim::functional {

class DeviceHeap {
 public:
  static constexpr uint64_t kDefaultCapacity = 8ull << 20;
  static constexpr uint64_t kAlignment = 16;

  // Sets the heap size; false once the heap exists (CUDA then refuses too).
  bool set_capacity(uint64_t bytes);
  uint64_t capacity() const { return capacity_; }
  bool created() const { return base_ != 0; }

  // Creates the backing allocation (not thread-safe: called before a launch).
  Fault create(DeviceMemory& memory);

  // Device malloc: the address of a block of at least `bytes`, or 0.
  uint64_t malloc(uint64_t bytes);
  // Device free: false when `addr` is not a live block (free(0) is fine).
  bool free(uint64_t addr);

  uint64_t bytes_in_use() const;

 private:
  mutable std::mutex mu_;
  uint64_t capacity_ = kDefaultCapacity;
  uint64_t base_ = 0;
  std::map<uint64_t, uint64_t> free_;  // start -> size, coalesced
  std::map<uint64_t, uint64_t> used_;  // start -> size
};

}  // namespace warpsim::functional
