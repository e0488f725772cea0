#pragma once
// DeviceHeap: the heap behind device-side malloc/free (the extern functions
// nvcc emits for them, also for new/delete). One DeviceMemory allocation of
// `capacity` bytes (cudaLimitMallocHeapSize, 8 MiB by default) is made the
// first time a kernel that calls malloc or free is launched; from then on the
// size is fixed, as CUDA fixes it. Blocks are carved from it first-fit,
// 16-byte aligned (CUDA guarantees 16), and coalesced when freed; they live
// until freed or the device is reset, across launches. malloc returns 0 when
// no block fits, as CUDA's does; malloc(0) returns a distinct minimal block.
// Safe to call from several executor threads.
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>

#include "functional/device_memory.h"
#include "functional/free_ranges.h"

namespace warpsim::functional {

class DeviceHeap {
 public:
  static constexpr uint64_t kDefaultCapacity = 8ull << 20;
  // The smallest heap the CUDA runtime makes (measured on an H100: 1 and
  // 3 MiB requests read back as 4 MiB); the runtime shim applies it.
  static constexpr uint64_t kMinCapacity = 4ull << 20;
  static constexpr uint64_t kAlignment = 16;

  // Sets the heap size; false once a kernel that uses the heap was launched
  // (create() was called), when CUDA refuses too.
  bool set_capacity(uint64_t bytes);
  uint64_t capacity() const;
  bool created() const;

  // Makes the backing allocation and fixes the size (called before a launch
  // whose program calls malloc or free). If the allocation fails, every
  // malloc returns 0.
  Fault create(DeviceMemory& memory);

  // Device malloc: the address of a block of at least `bytes`, or 0.
  uint64_t malloc(uint64_t bytes);
  // Device free: false when `addr` is not a live block (free(0) is fine).
  bool free(uint64_t addr);
  // Why free(addr) failed, as a fault whose `nearest` is the block involved
  // (freed already, or containing addr) or else the heap itself.
  Fault invalid_free(uint64_t addr) const;
  // A free() that failed: undefined behaviour, which a GPU ignores (an H100
  // with CUDA 13 freed a cudaMalloc pointer without error, and the heap went
  // on working). The heap counts them and describes the first one since
  // take_invalid_frees(), which returns the count and resets it.
  void note_invalid_free(uint64_t addr);
  uint64_t take_invalid_frees(std::string* first);

  uint64_t bytes_in_use() const;

 private:
  mutable std::mutex mu_;
  uint64_t capacity_ = kDefaultCapacity;
  bool created_ = false;
  uint64_t base_ = 0;                   // 0 when the allocation failed
  FreeRanges free_;
  std::map<uint64_t, uint64_t> used_;   // start -> size
  std::map<uint64_t, uint64_t> freed_;  // blocks freed and not reused: start -> size
  uint64_t invalid_frees_ = 0;
  std::string first_invalid_free_;
};

}  // namespace warpsim::functional
