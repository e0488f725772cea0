#pragma once
// DeviceMemory: the simulated GPU's global memory, a sparse 64-bit address
// space that knows every allocation, for the functional executor (every
// ld/st/atom goes through translate()) and the CUDA runtime shim (cudaMalloc,
// cudaMemcpy*, cudaMemset*, module globals and constants).
//
// Address layout (deterministic: it depends only on the sequence of calls,
// never on host pointers). Allocations are laid out upwards from `base`
// (default 0x7f0000000000) by a bump pointer. Where a kernel access faults
// depends on the memory-check mode (DeviceMemoryConfig::check):
//  - Strict (compute-sanitizer's view): each start is aligned to `alignment`
//    (64 KiB, so also to the 256 bytes cudaMalloc promises) and is followed by
//    at least `guard` (64 KiB) unmapped bytes, so an access just past an
//    allocation, or just below the next one, hits no allocation and faults.
//  - Gpu (the default; a real GPU's view): the CUDA runtime maps device
//    memory in `granule`s (2 MiB) and a GPU faults only at unmapped ones. Each
//    start is aligned to the granule and allocations follow each other
//    granule after granule with no guard, so an allocation's mapped extent is
//    [start, align_up(start + size, granule)) and the bytes just below an
//    allocation are the mapped tail of the one before. A kernel access in the
//    slack past an allocation's data does not fault; it is approximated (a GPU
//    would touch whatever lies there): reads of slack return zeros, writes to
//    it are dropped. An access straddling the end keeps its in-bounds bytes
//    (its out-of-bounds bytes read as zero, and are written to padding no
//    read sees). Anything outside every live allocation's mapped extent
//    faults as in Strict mode; a zero-byte allocation maps nothing.
//  Only ordinary allocations change with the mode: host-visible mappings
//  (below) and registered host memory keep their own placement and strict
//  bounds for kernel accesses, and the host-side helpers (copies, memsets)
//  check strict allocation bounds in both modes.
// Addresses are never reused within one DeviceMemory: a freed allocation
// keeps its record (the most recent `freed_records_kept` of them), so a later
// access to it is reported as use-after-free, naming it (in Gpu mode too:
// freeing unmaps its granules).
//
// Backing storage: one host block per allocation, so an allocation is
// contiguous in host memory and translate() is one subtraction. Blocks of
// `mmap_threshold` bytes or more are mmap(MAP_PRIVATE | MAP_ANONYMOUS |
// MAP_NORESERVE): zero-filled and lazily committed page by page by the host
// kernel, so a 16 GiB cudaMalloc costs no host memory until touched (reads of
// untouched pages return zeros without committing memory either). Smaller
// blocks come from calloc, so thousands of small allocations neither use one
// mapping each (vm.max_map_count) nor a whole host page each. Freeing returns
// the host block at once.
//
// Contract: allocate/free and the host-side helpers are not thread-safe, and
// neither is translate() with the built-in cache. Several threads may
// translate concurrently (the parallel grid executor does) when each passes
// its own TranslationCache and no allocate/free runs meanwhile; a free makes
// every external cache stale, so callers reset theirs after one. A host
// pointer from translate() stays valid until that allocation is freed or the
// DeviceMemory is destroyed. Host pointers are only as aligned as the device
// offset and 16 bytes allow; copy through them with memcpy.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "functional/fault.h"

namespace warpsim::functional {

// Where kernel accesses fault (see the header comment).
enum class MemoryCheck : uint8_t {
  Gpu,     // at unmapped granules only, like a GPU
  Strict,  // outside an allocation's bytes, like compute-sanitizer
};

struct DeviceMemoryConfig {
  MemoryCheck check = MemoryCheck::Gpu;
  uint64_t capacity = uint64_t{80} << 30;  // bytes of device memory (HostPinned not counted)
  uint64_t base = 0x7f0000000000;          // first allocation's address
  uint64_t alignment = 64 << 10;           // start alignment; power of two, >= 256
  uint64_t guard = 64 << 10;               // minimum unallocated gap after each allocation
  uint64_t granule = 2 << 20;              // Gpu mode: mapping unit; power of two
  uint64_t mmap_threshold = 64 << 10;      // blocks this large or larger are lazily mmap'ed
  size_t freed_records_kept = 1 << 16;     // freed allocations remembered for diagnostics
  // Device addresses stay within [base, base + address_space): addresses are
  // never reused, so this bounds the bytes (plus guards, or whole granules in
  // Gpu mode) a process may ever allocate; 16 TiB by default.
  uint64_t address_space = uint64_t{1} << 44;
  // Host-visible allocations (Managed, HostPinned): when non-zero, each is a
  // host mapping placed at an address of its own in the window
  // [host_visible_base, + host_visible_size), so that its device address IS
  // its host pointer - what unified addressing promises a CUDA program for
  // managed and pinned memory. 0 places them like every other allocation
  // (device address != host pointer; enough for tests of the executor).
  uint64_t host_visible_base = 0;
  uint64_t host_visible_size = uint64_t{1} << 44;
};

// The last allocation a translate() resolved: a warp's lanes usually hit the
// same one, so the next access costs a few compares. Size 0 means empty.
// `scratch` serves Gpu-mode accesses to the slack past an allocation's data
// (zeros to read, a sink to write): a pointer into it stays valid until the
// next translate() with the same cache.
struct TranslationCache {
  static constexpr uint32_t kScratch = 64;  // largest slack access; ld/st.v8 is 32 bytes
  uint64_t start = 0;
  uint64_t size = 0;
  uint8_t* host = nullptr;
  bool writable = false;
  alignas(16) uint8_t scratch[kScratch] = {};
};

class DeviceMemory {
 public:
  explicit DeviceMemory(DeviceMemoryConfig config = {});
  ~DeviceMemory();
  DeviceMemory(const DeviceMemory&) = delete;
  DeviceMemory& operator=(const DeviceMemory&) = delete;
  // Not movable either: hold it by reference or unique_ptr (the cache holds
  // host pointers that a moved-from object must not hand out).
  DeviceMemory(DeviceMemory&&) = delete;
  DeviceMemory& operator=(DeviceMemory&&) = delete;

  // --- allocations -------------------------------------------------------

  // Allocates `bytes` of zero-filled memory (cudaMalloc semantics) and returns
  // its address. A zero-byte allocation gets a unique non-null address that
  // no access can use. Returns 0 and fills `error` (OutOfMemory) when the
  // capacity, the address space or host memory is exhausted.
  uint64_t allocate(uint64_t bytes, AllocationKind kind, std::string_view label,
                    Fault* error = nullptr);

  // Frees the live allocation starting exactly at `addr`. free(0) does
  // nothing (like cudaFree(nullptr)). Anything else (an address inside an
  // allocation, a double free, an unknown address) is an InvalidFree fault
  // and changes nothing.
  Fault free(uint64_t addr);

  // cudaHostRegister: makes the program's own host memory [host, host + bytes)
  // an allocation whose device address is `host` itself (no copy, no
  // ownership). Fails with an Overlap fault when the range overlaps a live
  // allocation, or InvalidValue for a null or zero-sized range.
  Fault register_host(void* host, uint64_t bytes, std::string_view label);
  // cudaHostUnregister: `addr` must be the start of a HostRegistered range.
  Fault unregister_host(uint64_t addr);

  uint64_t used_bytes() const { return used_; }  // requested bytes of live, counted allocations
  uint64_t capacity() const { return config_.capacity; }
  const DeviceMemoryConfig& config() const { return config_; }

  // The allocation (live or freed) containing `addr`, else the nearest one
  // (by distance to its ends; ties go to the one below). nullopt when no
  // allocation was ever made (or all records were dropped).
  std::optional<AllocationInfo> find_allocation(uint64_t addr) const;
  // Live allocations, in address order.
  std::vector<AllocationInfo> allocations() const;

  // --- device accesses (the executor's hot path) ---------------------------

  // Host pointer for the device range [addr, addr + size), or nullptr with
  // `fault` filled in. Checks, in order: size != 0 (InvalidValue), natural
  // alignment for power-of-two sizes (Misaligned), the range lies in one
  // allocation (UseAfterFree if it is freed, else OutOfBounds; in Gpu mode
  // one allocation's mapped extent, the slack served from cache.scratch),
  // and Write / Atomic to a Const allocation (ReadOnly). `fault` is untouched on success.
  // The last allocation hit is cached, so repeated accesses to one allocation
  // (a warp's lanes) cost a few compares and no lookup.
  uint8_t* translate(uint64_t addr, uint32_t size, AccessKind access, Fault& fault) {
    return translate(addr, size, access, fault, cache_);
  }
  // The same with a caller-owned cache (one per executing thread).
  uint8_t* translate(uint64_t addr, uint32_t size, AccessKind access, Fault& fault,
                     TranslationCache& cache) const {
    const uint64_t off = addr - cache.start;
    if ((size - 1u) < kFastMaxSize && (addr & (size - 1u)) == 0 && off < cache.size &&
        size <= cache.size - off && (access == AccessKind::Read || cache.writable))
        [[likely]] {
      return cache.host + off;
    }
    return translate_slow(addr, size, access, fault, cache);
  }

  // Device-side read/write of `size` bytes with the checks of translate().
  Fault read(uint64_t addr, void* dst, uint32_t size) {
    Fault fault;
    if (const uint8_t* p = translate(addr, size, AccessKind::Read, fault)) std::memcpy(dst, p, size);
    return fault;
  }
  Fault write(uint64_t addr, const void* src, uint32_t size) {
    Fault fault;
    if (uint8_t* p = translate(addr, size, AccessKind::Write, fault)) std::memcpy(p, src, size);
    return fault;
  }

  // --- host-side helpers (the runtime shim) --------------------------------

  // Host pointer for [addr, addr + size) when it lies in one live allocation
  // (size > 0), else nullptr with an OutOfBounds / UseAfterFree fault. For the
  // runtime's copies between memories of different kinds.
  uint8_t* host_pointer(uint64_t addr, uint64_t size, Fault& fault) const {
    return host_range(addr, size, AccessKind::Write, "host access", fault);
  }
  // The live allocation containing `addr`, if any (no nearest-match).
  std::optional<AllocationInfo> allocation_at(uint64_t addr) const;

  // Each validates every device range first (it must lie in one live
  // allocation) and writes nothing on failure. No alignment requirement; Const
  // allocations are writable from the host. Size 0 succeeds without checks.

  Fault copy_from_host(uint64_t dst, const void* src, uint64_t size);
  Fault copy_to_host(void* dst, uint64_t src, uint64_t size) const;
  Fault copy_device(uint64_t dst, uint64_t src, uint64_t size);  // ranges may overlap
  Fault memset(uint64_t addr, int value, uint64_t size);         // low 8 bits of value

  // Pitched 2D forms (cudaMemset2D / cudaMemcpy2D): `height` rows of `width`
  // bytes, rows `pitch` bytes apart. width > pitch is InvalidValue.
  Fault memset2d(uint64_t addr, uint64_t pitch, int value, uint64_t width, uint64_t height);
  Fault copy2d_from_host(uint64_t dst, uint64_t dpitch, const void* src, uint64_t spitch,
                         uint64_t width, uint64_t height);
  Fault copy2d_to_host(void* dst, uint64_t dpitch, uint64_t src, uint64_t spitch, uint64_t width,
                       uint64_t height) const;
  Fault copy2d_device(uint64_t dst, uint64_t dpitch, uint64_t src, uint64_t spitch, uint64_t width,
                      uint64_t height);

 private:
  static constexpr uint32_t kFastMaxSize = 16;  // largest access size the inline path handles

  // Frees a host block: munmap when it was mapped (len != 0), else
  // std::free; kNotOwned (registered host memory) leaves it alone.
  static constexpr uint64_t kNotOwned = ~uint64_t{0};
  struct HostBlockDeleter {
    uint64_t mapped_len;  // 0: calloc block (no initialiser: see unique_ptr in a nested class)
    void operator()(uint8_t* p) const;
  };
  using HostBlock = std::unique_ptr<uint8_t, HostBlockDeleter>;

  struct Record {
    uint64_t start = 0;
    uint64_t size = 0;
    // Bytes from `start` that kernel accesses may touch: `size`, or in Gpu
    // mode the allocation's whole granules (0 for a zero-byte allocation).
    uint64_t mapped = 0;
    // Gpu mode: host blocks are kScratch bytes longer than `size`, so an
    // access straddling the end can write its tail there.
    HostBlock host;  // null for zero-byte and freed allocations
    AllocationKind kind = AllocationKind::Device;
    bool live = true;
    uint64_t id = 0;
    uint64_t freed_seq = 0;  // order of freeing, for dropping the oldest freed records
    std::string label;
  };

  uint8_t* translate_slow(uint64_t addr, uint32_t size, AccessKind access, Fault& fault,
                          TranslationCache& cache) const;
  // Gpu mode: an access to live `r` that lies in its mapped extent but not
  // wholly in its data, at offset `off`.
  uint8_t* translate_slack(const Record& r, uint64_t off, uint32_t size, AccessKind access,
                           Fault& fault, TranslationCache& cache) const;
  // Index of the record with the greatest start <= addr, or records_.size().
  size_t find_index(uint64_t addr) const;
  const Record* nearest_record(uint64_t addr) const;
  static AllocationInfo info(const Record& r);
  static Fault make_fault(FaultKind kind, uint64_t addr, uint64_t size, AccessKind access,
                          const Record* nearest, std::string detail = {});
  // The live allocation holding all of [addr, addr + size), or nullptr with an
  // OutOfBounds / UseAfterFree fault (`op`, when given, becomes its detail).
  const Record* resolve(uint64_t addr, uint64_t size, AccessKind access, std::string_view op,
                        Fault& fault) const;
  // Host pointer for a host-side operation on [addr, addr + size) (size > 0).
  uint8_t* host_range(uint64_t addr, uint64_t size, AccessKind access, std::string_view op,
                      Fault& fault) const;
  // The same for a pitched 2D range (width > 0, height > 0).
  uint8_t* host_range_2d(uint64_t addr, uint64_t pitch, uint64_t width, uint64_t height,
                         AccessKind access, std::string_view op, Fault& fault) const;
  static bool check_pitch(uint64_t width, uint64_t pitch, std::string_view op, Fault& fault);
  void drop_old_freed_records();
  // The host block of a host-visible allocation, mapped at its own address in
  // the host-visible window; null with `why` on failure.
  HostBlock map_host_visible(uint64_t bytes, uint64_t& start, std::string& why);
  // Inserts a record keeping records_ sorted by start.
  void insert_record(Record r);
  bool gpu_mode() const { return config_.check == MemoryCheck::Gpu; }
  // Start alignment of ordinary allocations: Gpu mode starts at granules.
  uint64_t start_alignment() const {
    return gpu_mode() ? std::max(config_.alignment, config_.granule) : config_.alignment;
  }
  bool host_visible(AllocationKind kind) const {
    return config_.host_visible_base != 0 &&
           (kind == AllocationKind::Managed || kind == AllocationKind::HostPinned);
  }

  DeviceMemoryConfig config_;
  std::vector<Record> records_;  // sorted by start
  uint64_t next_;                // next allocation's start
  uint64_t next_host_visible_;   // next host-visible allocation's start
  uint64_t used_ = 0;
  uint64_t next_id_ = 0;
  uint64_t free_seq_ = 0;
  size_t freed_in_records_ = 0;
  TranslationCache cache_;  // used by the single-threaded translate()
};

}  // namespace warpsim::functional
