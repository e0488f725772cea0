#pragma once
// Memory pools of the stream-ordered allocator (cudaMallocAsync,
// cudaFreeAsync, cudaMemPool*), independent of any CUDA major's ABI.
//
// The model is the one CUDA documents for its driver: a pool reserves device
// memory in chunks (each chunk is one functional::DeviceMemory allocation, so
// reserved memory is what cudaMemGetInfo sees as used) and carves blocks out
// of them. The chunk granularity is what an H100 with CUDA 13 showed: 32 MiB
// (a 1 MiB block reserves 32 MiB, cudaMemGetInfo's free memory drops by as
// much; a 3 MiB block after it fits in the same chunk), and a pool's maxSize
// is rounded up to it (a 4 MiB pool served 25 MiB of blocks, then refused
// 10 MiB more). A block freed
// with cudaFreeAsync goes back to the pool, not to the device, and a later
// allocation reuses it - the same address comes back - when CUDA's reuse
// rules allow (below). Chunks whose blocks are all free go back to the
// device when the pool trims: cudaMemPoolTrimTo, and the synchronisation
// points (stream, event, device synchronize), where a pool holding more than
// its release threshold trims down to it.
//
// Reuse follows the stream order on the simulated timeline (streams.h). Every
// allocation and free is an operation of its stream; a free block remembers
// the stream that freed it and when that free completes. An allocation on
// stream S may take it when
//  - S freed it (stream order), or
//  - cudaMemPoolReuseFollowEventDependencies is on and S has already reached
//    the free's completion (an event or the legacy stream ordered them), or
//  - cudaMemPoolReuseAllowOpportunistic is on and the free is complete as
//    far as the host has seen, or
//  - cudaMemPoolReuseAllowInternalDependencies is on: the allocation then
//    makes S wait for the free (the caller moves S's clock).
//
// Limitation: a kernel's accesses are checked against DeviceMemory
// allocations, i.e. chunks. An access to a freed block, or past a block's end,
// that stays inside a chunk the pool still holds is not reported; once the
// chunk has gone back to the device (release threshold 0, the default, does
// that at the next synchronisation) a use after free is reported as for
// cudaFree'd memory. The device-side malloc heap has the same property.
#include <cstdint>
#include <map>
#include <memory>
#include <vector>

#include "functional/device_memory.h"
#include "libcudart_shim/errors.h"

namespace warpsim::cudart {

// cudaMemPoolAttr values.
enum class PoolAttribute : int {
  ReuseFollowEventDependencies = 1,
  ReuseAllowOpportunistic = 2,
  ReuseAllowInternalDependencies = 3,
  ReleaseThreshold = 4,
  ReservedMemCurrent = 5,
  ReservedMemHigh = 6,
  UsedMemCurrent = 7,
  UsedMemHigh = 8,
};

// Where an allocation happens: the allocating stream (Stream::id), the time
// the allocation operation has on the timeline, and how far the host has
// seen the device's work complete.
struct PoolRequest {
  uint64_t stream = 0;
  double at_ns = 0;
  double host_ns = 0;
};

struct PoolAllocation {
  uint64_t address = 0;
  double wait_ns = 0;  // the stream must not run on before this (an inserted dependency)
};

class MemPool {
 public:
  static constexpr uint64_t kChunkGranularity = uint64_t{32} << 20;  // measured on an H100
  static constexpr uint64_t kBlockAlignment = 256;  // what every CUDA allocation promises
  static constexpr uint64_t kNoStream = ~uint64_t{0};  // a free block merged from several streams

  // `max_size`: cudaMemPoolProps::maxSize (rounded up to the chunk
  // granularity), 0 = the device's memory.
  explicit MemPool(uint64_t max_size = 0);
  MemPool(const MemPool&) = delete;
  MemPool& operator=(const MemPool&) = delete;

  // A block of at least `bytes` (> 0); MemoryAllocation when neither a free
  // block fits nor a new chunk can be reserved, even after releasing the
  // pool's idle chunks.
  Error allocate(functional::DeviceMemory& memory, uint64_t bytes, const PoolRequest& at,
                 PoolAllocation* out);
  // Returns the live block starting at `address` to the pool, freed on
  // `stream` and complete at `done_ns`. False when there is none (a double
  // free, an interior pointer).
  bool free(uint64_t address, uint64_t stream, double done_ns);

  // Gives chunks whose blocks are all free, and whose frees completed by
  // `completed_ns`, back to the device while the pool keeps at least
  // `keep_bytes` reserved (cudaMemPoolTrimTo's guarantee). Highest
  // addresses first.
  void trim(functional::DeviceMemory& memory, uint64_t keep_bytes, double completed_ns);
  // Gives every chunk back, live blocks or not (the pool is gone).
  void release_all(functional::DeviceMemory& memory);

  // True when `address` lies in one of the pool's chunks.
  bool holds(uint64_t address) const;
  // The size (rounded to kBlockAlignment) of the live block at `address`, or 0.
  uint64_t live_block_size(uint64_t address) const;
  size_t live_blocks() const { return live_blocks_; }

  // cudaMemPoolSetAttribute / GetAttribute. The reuse switches are ints, the
  // rest 64-bit. The *Current ones are read-only, the *High ones can only be
  // reset (to the current value) by setting 0: InvalidValue otherwise.
  Error set_attribute(PoolAttribute attribute, uint64_t value);
  Error get_attribute(PoolAttribute attribute, uint64_t* value) const;

  uint64_t reserved() const { return reserved_; }
  uint64_t used() const { return used_; }
  uint64_t release_threshold() const { return release_threshold_; }

 private:
  // A piece of a chunk: a live block or free space.
  struct Piece {
    uint64_t size = 0;
    bool live = false;
    uint64_t stream = kNoStream;  // free space: the stream that freed it
    double freed_ns = 0;          // free space: when that free completes
    bool fresh = false;           // free space never handed out: any stream may take it
  };
  struct Chunk {
    uint64_t size = 0;
    std::map<uint64_t, Piece> pieces;  // start -> piece; they tile the chunk
  };

  // The free piece a request may take, in address order: first those needing
  // no new dependency, then (internal dependencies allowed) any.
  bool find_free(uint64_t bytes, const PoolRequest& at, uint64_t* start, double* wait_ns) const;
  bool reusable_without_wait(const Piece& p, const PoolRequest& at) const;
  bool reserve_chunk(functional::DeviceMemory& memory, uint64_t bytes);
  // Makes a live block of `bytes` at the start of the free piece at `start`
  // (false, changing nothing, when there is no such piece).
  bool take(uint64_t start, uint64_t bytes);
  Chunk* chunk_of(uint64_t address);
  const Chunk* chunk_of(uint64_t address) const;
  static bool idle(const Chunk& c, double completed_ns);

  uint64_t max_size_;
  std::map<uint64_t, Chunk> chunks_;  // start -> chunk
  uint64_t reserved_ = 0, reserved_high_ = 0;
  uint64_t used_ = 0, used_high_ = 0;
  size_t live_blocks_ = 0;
  uint64_t release_threshold_ = 0;
  bool follow_event_dependencies_ = true;
  bool allow_opportunistic_ = true;
  bool allow_internal_dependencies_ = true;
};

// The pools of the (one) device: its default pool, the current pool
// (cudaDeviceSetMemPool), pools the program created, and destroyed pools that
// still have live blocks (CUDA releases those when the last block is freed).
// Handles are the MemPool addresses; a handle is valid while it is in the
// table and not destroyed.
class MemPoolTable {
 public:
  MemPoolTable();

  MemPool* default_pool() { return default_.get(); }
  MemPool* current() { return current_; }
  void set_current(MemPool* pool) { current_ = pool; }
  // The live (not destroyed) pool a handle names, or nullptr.
  MemPool* find(const void* handle);
  MemPool* create(uint64_t max_size);
  // InvalidValue for the default pool or an unknown handle. A pool with live
  // blocks lingers until they are freed; its chunks go back to the device
  // then. The current pool becomes the default one again.
  Error destroy(functional::DeviceMemory& memory, const void* handle);

  // The pool (live or destroyed) whose chunk holds `address`, or nullptr.
  MemPool* owner(uint64_t address);
  // Frees a pool block (after owner() found its pool); drops a destroyed
  // pool whose last block this was. False when `address` is not a live block.
  bool free(functional::DeviceMemory& memory, MemPool* pool, uint64_t address, uint64_t stream,
            double done_ns);

  // At a synchronisation point: every pool above its release threshold
  // trims down to it.
  void release_above_thresholds(functional::DeviceMemory& memory, double completed_ns);
  // Every pool's idle chunks go back (before an allocation is refused).
  void trim_all(functional::DeviceMemory& memory, double completed_ns);
  // cudaDeviceReset: the device memory is gone; only the default pool
  // remains, empty.
  void clear();

 private:
  std::unique_ptr<MemPool> default_;
  MemPool* current_ = nullptr;
  std::map<MemPool*, std::unique_ptr<MemPool>> created_;    // live handles
  std::map<MemPool*, std::unique_ptr<MemPool>> destroyed_;  // waiting for their blocks
};

}  // namespace warpsim::cudart
