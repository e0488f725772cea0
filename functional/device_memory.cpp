#include "functional/device_memory.h"

#include <fmt/format.h>
#include <sys/mman.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "common/invariant.h"

namespace warpsim::functional {

namespace {

bool is_pow2(uint64_t v) { return v != 0 && (v & (v - 1)) == 0; }

// The first multiple of `align` (a power of two) at or above `v`; false on overflow.
bool align_up(uint64_t v, uint64_t align, uint64_t& out) {
  if (__builtin_add_overflow(v, align - 1, &out)) return false;
  out &= ~(align - 1);
  return true;
}

std::string format_allocation(const AllocationInfo& a) {
  const std::string name = a.label.empty() ? fmt::format("#{}", a.id) : fmt::format("'{}'", a.label);
  return fmt::format("{}allocation {} [{:#x}, +{}) ({})", a.live ? "" : "freed ", name, a.start,
                     a.size, to_string(a.kind));
}

// Where `addr` lies relative to `a`, phrased to follow "lies" or a colon:
// "4 bytes past the end of allocation 'x' [...]".
std::string position_text(uint64_t addr, uint64_t size, const AllocationInfo& a) {
  const uint64_t end = a.start + a.size;
  if (addr >= end) return fmt::format("{} bytes past the end of {}", addr - end, format_allocation(a));
  if (addr < a.start)
    return fmt::format("{} bytes before the start of {}", a.start - addr, format_allocation(a));
  return fmt::format("the access overruns the end of {} by {} bytes (it starts at offset {})",
                     format_allocation(a), addr + size - end, addr - a.start);
}

}  // namespace

std::string describe(const Fault& f) {
  if (!f) return {};
  const std::string what = fmt::format("{} of {} byte{} at {:#x}", to_string(f.access), f.size,
                                       f.size == 1 ? "" : "s", f.address);
  const bool inside = f.nearest && f.address - f.nearest->start < f.nearest->size;
  std::string s;
  switch (f.kind) {
    case FaultKind::None: return {};
    case FaultKind::OutOfBounds:
      s = fmt::format("out-of-bounds {}: {}", what,
                      f.nearest ? position_text(f.address, f.size, *f.nearest)
                                : std::string("there are no allocations"));
      if (f.address < 0x10000) s += "; the address is near null (a null or uninitialised pointer?)";
      break;
    case FaultKind::Misaligned:
      s = fmt::format("misaligned {}: the address is not a multiple of {}", what, f.size);
      if (inside)
        s += fmt::format(" (offset {} in {})", f.address - f.nearest->start,
                         format_allocation(*f.nearest));
      else if (f.nearest)
        s += fmt::format("; it also lies {}", position_text(f.address, f.size, *f.nearest));
      break;
    case FaultKind::UseAfterFree:
      s = fmt::format("use-after-free {}: ", what);
      s += inside ? fmt::format("the address is at offset {} in {}", f.address - f.nearest->start,
                                format_allocation(*f.nearest))
                  : std::string("the address lies in a freed allocation");
      break;
    case FaultKind::ReadOnly:
      s = fmt::format("{} to read-only memory", what);
      if (inside)
        s += fmt::format(": {} is not writable by device code (offset {})",
                         format_allocation(*f.nearest), f.address - f.nearest->start);
      break;
    case FaultKind::InvalidFree:
      if (!f.nearest)
        s = fmt::format("invalid free of {:#x}: there are no allocations", f.address);
      else if (f.nearest->start == f.address && !f.nearest->live)
        s = fmt::format("double free of {:#x}: {} was already freed", f.address,
                        format_allocation(*f.nearest));
      else if (inside)
        s = fmt::format("invalid free of {:#x}: the address is {} bytes inside {}, not its start",
                        f.address, f.address - f.nearest->start, format_allocation(*f.nearest));
      else
        s = fmt::format("invalid free of {:#x}: no allocation starts there (it lies {})",
                        f.address, position_text(f.address, 0, *f.nearest));
      break;
    case FaultKind::OutOfMemory: return fmt::format("out of memory: {}", f.detail);
    case FaultKind::Overlap:
      return fmt::format("cannot register [{:#x}, +{}): {}", f.address, f.size, f.detail);
    case FaultKind::InvalidValue: return fmt::format("invalid argument: {}", f.detail);
    case FaultKind::StackOverflow:
    case FaultKind::Trap:
    case FaultKind::BarrierDeadlock:
    case FaultKind::Unsupported:
    case FaultKind::IllegalInstruction:
    case FaultKind::Timeout:
    case FaultKind::AssertFailed:
    case FaultKind::Interrupted:
      return fmt::format("{}: {}", to_string(f.kind), f.detail);
  }
  if (!f.detail.empty()) s += fmt::format(" ({})", f.detail);
  return s;
}

void DeviceMemory::HostBlockDeleter::operator()(uint8_t* p) const {
  if (mapped_len == kNotOwned) return;
  if (mapped_len != 0)
    munmap(p, mapped_len);
  else
    std::free(p);
}

DeviceMemory::DeviceMemory(DeviceMemoryConfig config)
    : config_(config), next_(config.base), next_host_visible_(config.host_visible_base) {
  WARPSIM_INVARIANT(is_pow2(config_.alignment) && config_.alignment >= 256,
                    "DeviceMemory alignment must be a power of two of at least 256");
  WARPSIM_INVARIANT(is_pow2(config_.granule), "DeviceMemory granule must be a power of two");
  WARPSIM_INVARIANT(config_.base != 0 && config_.base % config_.alignment == 0,
                    "DeviceMemory base must be non-null and aligned");
  WARPSIM_INVARIANT(config_.host_visible_base % config_.alignment == 0,
                    "DeviceMemory host-visible window must be aligned");
  WARPSIM_INVARIANT(config_.host_visible_base == 0 ||
                        config_.host_visible_base + config_.host_visible_size <= config_.base ||
                        config_.host_visible_base >= config_.base + config_.address_space,
                    "DeviceMemory host-visible window must not overlap the device range");
  // Gpu mode starts at a granule even when `base` is only `alignment`-aligned.
  const bool aligned = align_up(config_.base, start_alignment(), next_);
  WARPSIM_INVARIANT(aligned, "DeviceMemory base overflows when aligned to the granule");
}

DeviceMemory::~DeviceMemory() = default;

uint64_t DeviceMemory::allocate(uint64_t bytes, AllocationKind kind, std::string_view label,
                                Fault* error) {
  auto fail = [&](const std::string& why) -> uint64_t {
    if (error)
      *error = make_fault(FaultKind::OutOfMemory, 0, bytes, AccessKind::Write, nullptr,
                          fmt::format("cannot allocate {} bytes for '{}' ({}): {}", bytes, label,
                                      to_string(kind), why));
    return 0;
  };
  // Pinned host memory is the host's, not the GPU's.
  const bool counted = kind != AllocationKind::HostPinned && kind != AllocationKind::HostRegistered;
  if (counted && bytes > config_.capacity - std::min(used_, config_.capacity))
    return fail(fmt::format("{} of {} bytes of device memory in use", used_, config_.capacity));

  if (host_visible(kind)) {
    uint64_t start = 0;
    std::string why;
    HostBlock host = map_host_visible(bytes, start, why);
    if (!host) return fail(why);
    Record r;
    r.start = start;
    r.size = bytes;
    r.mapped = bytes;  // strict bounds in both modes
    r.host = std::move(host);
    r.kind = kind;
    r.id = next_id_++;
    r.label = std::string(label);
    insert_record(std::move(r));
    if (counted) used_ += bytes;
    return start;
  }

  // Reserve [start, start + max(bytes, 1) + guard) and round up. In Strict
  // mode the guard gap is what makes an access just past the end hit no
  // allocation; in Gpu mode there is none and the reservation is whole
  // granules, all mapped but for a zero-byte allocation.
  const bool gpu = gpu_mode();
  const uint64_t start = next_;
  const uint64_t align = start_alignment();
  uint64_t end = 0;
  if (__builtin_add_overflow(start, std::max<uint64_t>(bytes, 1), &end) ||
      __builtin_add_overflow(end, (gpu ? 0 : config_.guard) + (align - 1), &end) ||
      end - config_.base > config_.address_space)
    return fail("the simulated address space is exhausted");
  const uint64_t next = end & ~(align - 1);
  uint64_t mapped = bytes;
  if (gpu && bytes > 0) {
    uint64_t mapped_end = 0;
    (void)align_up(start + bytes, config_.granule, mapped_end);  // <= next: no overflow
    mapped = mapped_end - start;
  }

  // Gpu mode: room past the data for the tail of an access straddling the end.
  const uint64_t host_bytes = gpu && bytes > 0 ? bytes + TranslationCache::kScratch : bytes;
  HostBlock host;
  if (bytes > 0 && bytes >= config_.mmap_threshold) {
    void* p = mmap(nullptr, host_bytes, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED)
      return fail(fmt::format("host mmap failed: {}", std::strerror(errno)));
    host = HostBlock(static_cast<uint8_t*>(p), HostBlockDeleter{host_bytes});
  } else if (bytes > 0) {
    void* p = std::calloc(host_bytes, 1);
    if (p == nullptr) return fail("host calloc failed");
    host = HostBlock(static_cast<uint8_t*>(p), HostBlockDeleter{0});
  }

  Record r;
  r.start = start;
  r.size = bytes;
  r.mapped = mapped;
  r.host = std::move(host);
  r.kind = kind;
  r.id = next_id_++;
  r.label = std::string(label);
  insert_record(std::move(r));
  next_ = next;
  if (counted) used_ += bytes;
  return start;
}

void DeviceMemory::insert_record(Record r) {
  auto it = std::upper_bound(records_.begin(), records_.end(), r.start,
                             [](uint64_t a, const Record& x) { return a < x.start; });
  records_.insert(it, std::move(r));
}

DeviceMemory::HostBlock DeviceMemory::map_host_visible(uint64_t bytes, uint64_t& start,
                                                        std::string& why) {
  // A zero-byte allocation still gets its own page, so its address is unique.
  const uint64_t page = 4096;
  const uint64_t len = (std::max<uint64_t>(bytes, 1) + page - 1) & ~(page - 1);
  const uint64_t window_end = config_.host_visible_base + config_.host_visible_size;
  // Another mapping of the process may already sit where the next one would
  // go: skip past it (a few times) instead of failing.
  for (int attempt = 0; attempt < 64; ++attempt) {
    uint64_t end = 0;
    if (__builtin_add_overflow(next_host_visible_, len + config_.guard, &end) || end > window_end) {
      why = "the host-visible address window is exhausted";
      return HostBlock(nullptr, HostBlockDeleter{0});
    }
    void* want = reinterpret_cast<void*>(next_host_visible_);
    void* p = mmap(want, len, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE, -1, 0);
    const uint64_t step = (end + config_.alignment - 1) & ~(config_.alignment - 1);
    if (p == want) {
      start = next_host_visible_;
      next_host_visible_ = step;
      return HostBlock(static_cast<uint8_t*>(p), HostBlockDeleter{len});
    }
    // Old kernels ignore MAP_FIXED_NOREPLACE and map elsewhere: undo that.
    if (p != MAP_FAILED) munmap(p, len);
    else if (errno != EEXIST) {
      why = fmt::format("host mmap failed: {}", std::strerror(errno));
      return HostBlock(nullptr, HostBlockDeleter{0});
    }
    next_host_visible_ = step + (uint64_t{1} << 30);  // skip the occupied range
  }
  why = "no free host address range in the host-visible window";
  return HostBlock(nullptr, HostBlockDeleter{0});
}

Fault DeviceMemory::register_host(void* host, uint64_t bytes, std::string_view label) {
  const auto start = reinterpret_cast<uint64_t>(host);
  uint64_t end = 0;
  if (host == nullptr || bytes == 0 || __builtin_add_overflow(start, bytes, &end))
    return make_fault(FaultKind::InvalidValue, start, bytes, AccessKind::Write, nullptr,
                      fmt::format("cannot register host range {:#x} of {} bytes", start, bytes));
  // Freed records in the range are only diagnostics: they give way. A live
  // allocation's mapped slack (Gpu mode) is the device's too.
  auto overlaps = [&](const Record& r) {
    return r.start < end && start < r.start + std::max<uint64_t>({r.size, r.mapped, 1});
  };
  std::erase_if(records_, [&](const Record& r) { return !r.live && overlaps(r); });
  for (const Record& r : records_)
    if (r.live && overlaps(r))
      return make_fault(FaultKind::Overlap, start, bytes, AccessKind::Write, &r,
                        "the range overlaps memory the device already knows");
  Record r;
  r.start = start;
  r.size = bytes;
  r.mapped = bytes;
  r.host = HostBlock(static_cast<uint8_t*>(host), HostBlockDeleter{kNotOwned});
  r.kind = AllocationKind::HostRegistered;
  r.id = next_id_++;
  r.label = std::string(label);
  insert_record(std::move(r));
  cache_ = {};
  return {};
}

Fault DeviceMemory::unregister_host(uint64_t addr) {
  const size_t i = find_index(addr);
  if (i == records_.size() || records_[i].start != addr || !records_[i].live ||
      records_[i].kind != AllocationKind::HostRegistered)
    return make_fault(FaultKind::InvalidFree, addr, 0, AccessKind::Write, nearest_record(addr),
                      "not the start of a registered host range");
  // Registered memory stays the program's: forget it entirely rather than
  // keep a freed record, so the host can register the range again.
  records_.erase(records_.begin() + static_cast<std::ptrdiff_t>(i));
  cache_ = {};
  return {};
}

std::optional<AllocationInfo> DeviceMemory::allocation_at(uint64_t addr) const {
  const size_t i = find_index(addr);
  if (i == records_.size()) return std::nullopt;
  const Record& r = records_[i];
  if (!r.live || addr - r.start >= std::max<uint64_t>(r.size, 1)) return std::nullopt;
  return info(r);
}

Fault DeviceMemory::free(uint64_t addr) {
  if (addr == 0) return {};
  const size_t i = find_index(addr);
  if (i == records_.size() || records_[i].start != addr || !records_[i].live)
    return make_fault(FaultKind::InvalidFree, addr, 0, AccessKind::Write, nearest_record(addr));
  if (records_[i].kind == AllocationKind::HostRegistered)
    return make_fault(FaultKind::InvalidFree, addr, 0, AccessKind::Write, &records_[i],
                      "registered host memory is unregistered, not freed");
  Record& r = records_[i];
  r.host.reset();
  r.live = false;
  r.freed_seq = ++free_seq_;
  ++freed_in_records_;
  if (r.kind != AllocationKind::HostPinned && r.kind != AllocationKind::HostRegistered)
    used_ -= r.size;
  cache_ = {};
  drop_old_freed_records();
  return {};
}

void DeviceMemory::drop_old_freed_records() {
  // Compact only once twice the quota has accumulated, so the O(n) erase is
  // amortised over `freed_records_kept` frees; the newest ones always survive.
  const size_t keep = config_.freed_records_kept;
  if (freed_in_records_ <= keep || freed_in_records_ - keep <= keep) return;
  const uint64_t last_dropped = free_seq_ - keep;
  std::erase_if(records_, [&](const Record& r) { return !r.live && r.freed_seq <= last_dropped; });
  freed_in_records_ = keep;
}

size_t DeviceMemory::find_index(uint64_t addr) const {
  auto it = std::upper_bound(records_.begin(), records_.end(), addr,
                             [](uint64_t a, const Record& r) { return a < r.start; });
  if (it == records_.begin()) return records_.size();
  return static_cast<size_t>(it - records_.begin()) - 1;
}

const DeviceMemory::Record* DeviceMemory::nearest_record(uint64_t addr) const {
  if (records_.empty()) return nullptr;
  const size_t i = find_index(addr);
  if (i == records_.size()) return &records_.front();  // below every allocation
  const Record& below = records_[i];
  if (addr - below.start < below.size || i + 1 == records_.size()) return &below;
  const Record& above = records_[i + 1];
  const uint64_t past_below = addr - (below.start + below.size);
  const uint64_t before_above = above.start - addr;
  return before_above < past_below ? &above : &below;
}

std::optional<AllocationInfo> DeviceMemory::find_allocation(uint64_t addr) const {
  const Record* r = nearest_record(addr);
  if (r == nullptr) return std::nullopt;
  return info(*r);
}

std::vector<AllocationInfo> DeviceMemory::allocations() const {
  std::vector<AllocationInfo> out;
  for (const Record& r : records_)
    if (r.live) out.push_back(info(r));
  return out;
}

AllocationInfo DeviceMemory::info(const Record& r) {
  return AllocationInfo{r.start, r.size, r.kind, r.label, r.live, r.id};
}

Fault DeviceMemory::make_fault(FaultKind kind, uint64_t addr, uint64_t size, AccessKind access,
                               const Record* nearest, std::string detail) {
  Fault f;
  f.kind = kind;
  f.address = addr;
  f.size = size;
  f.access = access;
  if (nearest != nullptr) f.nearest = info(*nearest);
  f.detail = std::move(detail);
  return f;
}

const DeviceMemory::Record* DeviceMemory::resolve(uint64_t addr, uint64_t size, AccessKind access,
                                                  std::string_view op, Fault& fault) const {
  const size_t i = find_index(addr);
  const Record* r = i < records_.size() ? &records_[i] : nullptr;
  if (r != nullptr && addr - r->start < r->size) {
    if (!r->live) {
      fault = make_fault(FaultKind::UseAfterFree, addr, size, access, r, std::string(op));
      return nullptr;
    }
    if (size <= r->size - (addr - r->start)) return r;
  } else {
    r = nearest_record(addr);
  }
  fault = make_fault(FaultKind::OutOfBounds, addr, size, access, r, std::string(op));
  return nullptr;
}

uint8_t* DeviceMemory::translate_slow(uint64_t addr, uint32_t size, AccessKind access,
                                      Fault& fault, TranslationCache& cache) const {
  if (size == 0) {
    fault = make_fault(FaultKind::InvalidValue, addr, 0, access, nullptr,
                       fmt::format("zero-byte {} at {:#x}", to_string(access), addr));
    return nullptr;
  }
  if (is_pow2(size) && (addr & (size - 1)) != 0) {
    fault = make_fault(FaultKind::Misaligned, addr, size, access, nearest_record(addr));
    return nullptr;
  }
  // One lookup: the allocation below `addr`, whose mapped extent is its
  // size except for ordinary allocations in Gpu mode.
  const size_t i = find_index(addr);
  if (i < records_.size() && records_[i].live) {
    const Record* r = &records_[i];
    const uint64_t off = addr - r->start;
    if (off < r->mapped && size <= r->mapped - off) {
      if (off >= r->size || size > r->size - off)
        return translate_slack(*r, off, size, access, fault, cache);
      const bool writable = r->kind != AllocationKind::Const;
      if (access != AccessKind::Read && !writable) {
        fault = make_fault(FaultKind::ReadOnly, addr, size, access, r);
        return nullptr;
      }
      // Field by field: the scratch may hold what an earlier access still uses.
      cache.start = r->start;
      cache.size = r->size;
      cache.host = r->host.get();
      cache.writable = writable;
      return r->host.get() + off;
    }
  }
  (void)resolve(addr, size, access, {}, fault);  // faults: the report's lookup
  return nullptr;
}

uint8_t* DeviceMemory::translate_slack(const Record& r, uint64_t off, uint32_t size,
                                       AccessKind access, Fault& fault,
                                       TranslationCache& cache) const {
  const uint64_t addr = r.start + off;
  if (access != AccessKind::Read && r.kind == AllocationKind::Const) {
    fault = make_fault(FaultKind::ReadOnly, addr, size, access, &r);
    return nullptr;
  }
  if (size > TranslationCache::kScratch) {  // no instruction accesses this much at once
    fault = make_fault(FaultKind::OutOfBounds, addr, size, access, &r,
                       fmt::format("accesses of more than {} bytes to the mapped slack past an "
                                   "allocation are not simulated",
                                   TranslationCache::kScratch));
    return nullptr;
  }
  if (off >= r.size) {
    // Wholly in the slack: zeros to read (an atomic reads zero too), a sink
    // whose contents nobody reads to write.
    if (access != AccessKind::Write) std::memset(cache.scratch, 0, size);
    return cache.scratch;
  }
  const uint64_t inside = r.size - off;  // < size: the access straddles the end
  uint8_t* p = r.host.get() + off;
  if (access == AccessKind::Read) {
    std::memcpy(cache.scratch, p, inside);
    std::memset(cache.scratch + inside, 0, size - inside);
    return cache.scratch;
  }
  // A write keeps its in-bounds bytes; its tail lands in the block's padding,
  // cleared first so that an atomic reads zero there.
  std::memset(p + inside, 0, size - inside);
  return p;
}

uint8_t* DeviceMemory::host_range(uint64_t addr, uint64_t size, AccessKind access,
                                  std::string_view op, Fault& fault) const {
  const Record* r = resolve(addr, size, access, op, fault);
  return r == nullptr ? nullptr : r->host.get() + (addr - r->start);
}

bool DeviceMemory::check_pitch(uint64_t width, uint64_t pitch, std::string_view op, Fault& fault) {
  if (width <= pitch) return true;
  fault = make_fault(FaultKind::InvalidValue, 0, width, AccessKind::Write, nullptr,
                     fmt::format("{}: width {} exceeds pitch {}", op, width, pitch));
  return false;
}

uint8_t* DeviceMemory::host_range_2d(uint64_t addr, uint64_t pitch, uint64_t width,
                                     uint64_t height, AccessKind access, std::string_view op,
                                     Fault& fault) const {
  // Rows 0..height-2 span whole pitches; the last row only `width` bytes.
  uint64_t extent = 0;
  if (__builtin_mul_overflow(pitch, height - 1, &extent) ||
      __builtin_add_overflow(extent, width, &extent)) {
    fault = make_fault(FaultKind::InvalidValue, addr, width, access, nullptr,
                       fmt::format("{}: {} rows of pitch {} at {:#x} overflow the address space",
                                   op, height, pitch, addr));
    return nullptr;
  }
  return host_range(addr, extent, access, op, fault);
}

Fault DeviceMemory::copy_from_host(uint64_t dst, const void* src, uint64_t size) {
  Fault f;
  if (size == 0) return f;
  if (uint8_t* d = host_range(dst, size, AccessKind::Write, "copy_from_host destination", f))
    std::memcpy(d, src, size);
  return f;
}

Fault DeviceMemory::copy_to_host(void* dst, uint64_t src, uint64_t size) const {
  Fault f;
  if (size == 0) return f;
  if (const uint8_t* s = host_range(src, size, AccessKind::Read, "copy_to_host source", f))
    std::memcpy(dst, s, size);
  return f;
}

Fault DeviceMemory::copy_device(uint64_t dst, uint64_t src, uint64_t size) {
  Fault f;
  if (size == 0) return f;
  const uint8_t* s = host_range(src, size, AccessKind::Read, "copy_device source", f);
  if (s == nullptr) return f;
  uint8_t* d = host_range(dst, size, AccessKind::Write, "copy_device destination", f);
  if (d != nullptr) std::memmove(d, s, size);
  return f;
}

Fault DeviceMemory::memset(uint64_t addr, int value, uint64_t size) {
  Fault f;
  if (size == 0) return f;
  if (uint8_t* d = host_range(addr, size, AccessKind::Write, "memset", f))
    std::memset(d, value, size);
  return f;
}

Fault DeviceMemory::memset2d(uint64_t addr, uint64_t pitch, int value, uint64_t width,
                             uint64_t height) {
  Fault f;
  if (!check_pitch(width, pitch, "memset2d", f) || width == 0 || height == 0) return f;
  uint8_t* d = host_range_2d(addr, pitch, width, height, AccessKind::Write, "memset2d", f);
  if (d == nullptr) return f;
  for (uint64_t y = 0; y < height; ++y) std::memset(d + y * pitch, value, width);
  return f;
}

Fault DeviceMemory::copy2d_from_host(uint64_t dst, uint64_t dpitch, const void* src,
                                     uint64_t spitch, uint64_t width, uint64_t height) {
  Fault f;
  if (!check_pitch(width, dpitch, "copy2d_from_host destination", f) ||
      !check_pitch(width, spitch, "copy2d_from_host source", f) || width == 0 || height == 0)
    return f;
  uint8_t* d = host_range_2d(dst, dpitch, width, height, AccessKind::Write,
                             "copy2d_from_host destination", f);
  if (d == nullptr) return f;
  const auto* s = static_cast<const uint8_t*>(src);
  for (uint64_t y = 0; y < height; ++y) std::memcpy(d + y * dpitch, s + y * spitch, width);
  return f;
}

Fault DeviceMemory::copy2d_to_host(void* dst, uint64_t dpitch, uint64_t src, uint64_t spitch,
                                   uint64_t width, uint64_t height) const {
  Fault f;
  if (!check_pitch(width, dpitch, "copy2d_to_host destination", f) ||
      !check_pitch(width, spitch, "copy2d_to_host source", f) || width == 0 || height == 0)
    return f;
  const uint8_t* s =
      host_range_2d(src, spitch, width, height, AccessKind::Read, "copy2d_to_host source", f);
  if (s == nullptr) return f;
  auto* d = static_cast<uint8_t*>(dst);
  for (uint64_t y = 0; y < height; ++y) std::memcpy(d + y * dpitch, s + y * spitch, width);
  return f;
}

Fault DeviceMemory::copy2d_device(uint64_t dst, uint64_t dpitch, uint64_t src, uint64_t spitch,
                                  uint64_t width, uint64_t height) {
  Fault f;
  if (!check_pitch(width, dpitch, "copy2d_device destination", f) ||
      !check_pitch(width, spitch, "copy2d_device source", f) || width == 0 || height == 0)
    return f;
  const uint8_t* s =
      host_range_2d(src, spitch, width, height, AccessKind::Read, "copy2d_device source", f);
  if (s == nullptr) return f;
  uint8_t* d = host_range_2d(dst, dpitch, width, height, AccessKind::Write,
                             "copy2d_device destination", f);
  if (d == nullptr) return f;
  for (uint64_t y = 0; y < height; ++y) std::memmove(d + y * dpitch, s + y * spitch, width);
  return f;
}

}  // namespace warpsim::functional
