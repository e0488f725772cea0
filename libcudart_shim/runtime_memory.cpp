// The memory half of the runtime: allocation, copies, sets, symbols,
// pointer queries. Device memory is functional::DeviceMemory; managed and
// pinned host memory are DeviceMemory allocations whose device address is
// their host pointer (unified addressing), so host code uses them directly.
#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "libcudart_shim/runtime.h"

namespace warpsim::cudart {

using functional::AllocationInfo;
using functional::AllocationKind;

namespace {

uint64_t addr(const void* p) { return reinterpret_cast<uint64_t>(p); }

bool device_resident(AllocationKind k) {
  return k == AllocationKind::Device || k == AllocationKind::Global ||
         k == AllocationKind::Const || k == AllocationKind::Heap;
}

// What [p, p + n) is, and where the host can touch it.
struct View {
  uint8_t* host = nullptr;
  bool known = false;  // lies in an allocation the device knows
  AllocationKind kind = AllocationKind::Device;
};

}  // namespace

namespace {

// Resolves [p, p + n) (n > 0). Memory the device knows must hold the whole
// range; anything else is the program's own host memory, accepted unless
// `need_device`.
Error view(functional::DeviceMemory& mem, const void* p, uint64_t n, bool need_device, View& out) {
  if (p == nullptr) return Error::InvalidValue;
  if (auto a = mem.allocation_at(addr(p))) {
    functional::Fault f;
    out.host = mem.host_pointer(addr(p), n, f);
    if (out.host == nullptr) return Error::InvalidValue;
    out.known = true;
    out.kind = a->kind;
    return Error::Success;
  }
  if (need_device) return Error::InvalidValue;
  out.host = static_cast<uint8_t*>(const_cast<void*>(p));
  out.known = false;
  return Error::Success;
}

}  // namespace

Error Runtime::malloc_device(void** ptr, uint64_t bytes) {
  if (ptr == nullptr) return Error::InvalidValue;
  *ptr = nullptr;
  if (Error e = capture_forbids_unsafe_call(); e != Error::Success) return e;
  if (bytes == 0) return Error::Success;  // cudaMalloc(&p, 0) succeeds with p == NULL
  functional::Fault f;
  const uint64_t a = device_->memory().allocate(bytes, AllocationKind::Device, "cudaMalloc", &f);
  if (a == 0) return Error::MemoryAllocation;
  *ptr = reinterpret_cast<void*>(a);
  stats_.add("runtime.malloc.device_calls");
  stats_.add("runtime.malloc.device_bytes", bytes);
  return Error::Success;
}

Error Runtime::free_device(void* ptr, bool synchronous) {
  if (ptr == nullptr) return Error::Success;
  // Graph memory: cudaFree ends the allocation a graph launch made.
  if (graph_allocation(addr(ptr)) != nullptr) {
    if (synchronous) synchronize();
    return free_graph_memory(addr(ptr)) ? Error::Success : Error::InvalidValue;
  }
  // cudaFree of stream-ordered (pool) memory is allowed: it waits for the
  // device, then the block goes back to its pool.
  if (MemPool* pool = pools_.owner(addr(ptr))) {
    if (synchronous) synchronize();
    if (!pools_.free(device_->memory(), pool, addr(ptr), MemPool::kNoStream, streams_.host_ns()))
      return Error::InvalidValue;
    return Error::Success;
  }
  auto a = device_->memory().allocation_at(addr(ptr));
  if (!a || a->start != addr(ptr) ||
      (a->kind != AllocationKind::Device && a->kind != AllocationKind::Managed))
    return Error::InvalidValue;
  if (synchronous) synchronize();
  if (a->kind == AllocationKind::Managed) advice_.forget(a->start, a->start + a->size);
  (void)device_->memory().free(addr(ptr));
  return Error::Success;
}

Error Runtime::malloc_host(void** ptr, uint64_t bytes, unsigned flags) {
  if (ptr == nullptr) return Error::InvalidValue;
  if ((flags & ~0x7u) != 0) return Error::InvalidValue;
  *ptr = nullptr;
  if (bytes == 0) return Error::Success;
  functional::Fault f;
  const uint64_t a =
      device_->memory().allocate(bytes, AllocationKind::HostPinned, "cudaMallocHost", &f);
  if (a == 0) return Error::MemoryAllocation;
  host_flags_[a] = flags | 0x2u;  // unified addressing: always mapped and portable
  *ptr = reinterpret_cast<void*>(a);
  stats_.add("runtime.malloc.host_calls");
  stats_.add("runtime.malloc.host_bytes", bytes);
  return Error::Success;
}

Error Runtime::free_host(void* ptr) {
  if (ptr == nullptr) return Error::Success;
  auto a = device_->memory().allocation_at(addr(ptr));
  if (!a || a->start != addr(ptr) || a->kind != AllocationKind::HostPinned)
    return Error::InvalidValue;
  synchronize();
  host_flags_.erase(a->start);
  (void)device_->memory().free(addr(ptr));
  return Error::Success;
}

Error Runtime::malloc_managed(void** ptr, uint64_t bytes, unsigned flags) {
  if (ptr == nullptr) return Error::InvalidValue;
  // Exactly one of cudaMemAttachGlobal (1) and cudaMemAttachHost (2).
  if (flags != 1u && flags != 2u) return Error::InvalidValue;
  if (bytes == 0) return Error::InvalidValue;
  *ptr = nullptr;
  functional::Fault f;
  const uint64_t a =
      device_->memory().allocate(bytes, AllocationKind::Managed, "cudaMallocManaged", &f);
  if (a == 0) return Error::MemoryAllocation;
  *ptr = reinterpret_cast<void*>(a);
  stats_.add("runtime.malloc.managed_calls");
  stats_.add("runtime.malloc.managed_bytes", bytes);
  return Error::Success;
}

Error Runtime::malloc_pitch(void** ptr, uint64_t* pitch, uint64_t width, uint64_t height) {
  if (ptr == nullptr || pitch == nullptr) return Error::InvalidValue;
  // Rows aligned like the texture pitch alignment of real GPUs (512 B).
  const uint64_t p = std::max<uint64_t>(512, (width + 511) / 512 * 512);
  uint64_t bytes = 0;
  if (__builtin_mul_overflow(p, height, &bytes)) return Error::MemoryAllocation;
  *pitch = width == 0 ? 0 : p;
  if (width == 0 || height == 0) {
    *ptr = nullptr;
    return Error::Success;
  }
  return malloc_device(ptr, bytes);
}

Error Runtime::host_register(void* ptr, uint64_t bytes, unsigned flags) {
  if (ptr == nullptr || bytes == 0 || (flags & ~0xFu) != 0) return Error::InvalidValue;
  if (flags & 0x4u) return Error::NotSupported;  // cudaHostRegisterIoMemory: no device I/O space
  functional::Fault f = device_->memory().register_host(ptr, bytes, "cudaHostRegister");
  if (f.kind == functional::FaultKind::Overlap) return Error::HostMemoryAlreadyRegistered;
  if (f) return Error::InvalidValue;
  host_flags_[addr(ptr)] = flags | 0x2u;
  stats_.add("runtime.host_register_calls");
  return Error::Success;
}

Error Runtime::host_unregister(void* ptr) {
  if (ptr == nullptr) return Error::InvalidValue;
  if (device_->memory().unregister_host(addr(ptr))) return Error::HostMemoryNotRegistered;
  host_flags_.erase(addr(ptr));
  return Error::Success;
}

Error Runtime::host_device_pointer(void** device, void* host, unsigned flags) {
  if (device == nullptr || flags != 0) return Error::InvalidValue;
  auto a = device_->memory().allocation_at(addr(host));
  if (!a || (a->kind != AllocationKind::HostPinned && a->kind != AllocationKind::HostRegistered &&
             a->kind != AllocationKind::Managed))
    return Error::InvalidValue;
  *device = host;  // unified addressing: the same address on both sides
  return Error::Success;
}

Error Runtime::host_flags(unsigned* flags, void* host) {
  if (flags == nullptr) return Error::InvalidValue;
  auto a = device_->memory().allocation_at(addr(host));
  if (!a || (a->kind != AllocationKind::HostPinned && a->kind != AllocationKind::HostRegistered))
    return Error::InvalidValue;
  auto it = host_flags_.find(a->start);
  *flags = it == host_flags_.end() ? 0 : it->second;
  return Error::Success;
}

Error Runtime::memory_info(uint64_t* free, uint64_t* total) const {
  if (free == nullptr || total == nullptr) return Error::InvalidValue;
  const auto& mem = device_->memory();
  *total = mem.capacity();
  const uint64_t used = mem.used_bytes() - std::min(own_bytes_, mem.used_bytes());
  *free = mem.capacity() - std::min(used, mem.capacity());
  return Error::Success;
}

Error Runtime::pointer_attributes(const void* ptr, int* type, int* device, void** device_ptr,
                                  void** host_ptr) const {
  auto a = device_->memory().allocation_at(addr(ptr));
  if (!a) {
    *type = 0;  // cudaMemoryTypeUnregistered: CUDA 11+ answers, it does not fail
    *device = -2;
    *device_ptr = nullptr;
    *host_ptr = const_cast<void*>(ptr);
    return Error::Success;
  }
  *device = 0;
  void* p = const_cast<void*>(ptr);
  switch (a->kind) {
    case AllocationKind::Managed:
      *type = 3;
      *device_ptr = p;
      *host_ptr = p;
      break;
    case AllocationKind::HostPinned:
    case AllocationKind::HostRegistered:
      *type = 1;
      *device_ptr = p;
      *host_ptr = p;
      break;
    default:
      *type = 2;
      *device_ptr = p;
      *host_ptr = nullptr;
      break;
  }
  return Error::Success;
}

Error Runtime::memcpy(void* dst, const void* src, uint64_t bytes, int kind, const void* stream,
                      bool async, bool per_thread) {
  if (kind < 0 || kind > 4) return Error::InvalidMemcpyDirection;
  Stream* st = streams_.resolve(stream, per_thread);
  if (st == nullptr) return Error::InvalidResourceHandle;
  bool record = false;
  if (Error e = capture_gate(*st, !async, &record); e != Error::Success) return e;
  if (bytes == 0) return Error::Success;
  const bool dst_device = kind == 1 || kind == 3;
  const bool src_device = kind == 2 || kind == 3;
  View d, s;
  if (Error e = view(device_->memory(), dst, bytes, dst_device, d); e != Error::Success) return e;
  if (Error e = view(device_->memory(), src, bytes, src_device, s); e != Error::Success) return e;
  if (record) {
    capture_node(*st, NodeType::Memcpy)->copy = linear_copy(dst, src, bytes, kind);
    return Error::Success;
  }
  std::memmove(d.host, s.host, bytes);

  const bool d_dev = d.known && device_resident(d.kind);
  const bool s_dev = s.known && device_resident(s.kind);
  const char* dir = d_dev ? (s_dev ? "d2d" : "h2d") : (s_dev ? "d2h" : "h2h");
  stats_.add(fmt::format("runtime.memcpy.{}_calls", dir));
  stats_.add(fmt::format("runtime.memcpy.{}_bytes", dir), bytes);
  const double ns = (d_dev || s_dev) ? copy_duration_ns(bytes, d_dev != s_dev) : 0;
  return enqueue(stream, per_thread, ns, !async);
}

namespace {

// A pitched region resolved to host memory: `rows` x `depth` rows of
// `width` bytes starting at `base`, `pitch` and `slice` bytes apart.
struct ResolvedRegion {
  uint8_t* base = nullptr;
  uint64_t pitch = 0, slice = 0;
  bool device = false;
};

Error resolve_region(Runtime& rt, const PitchedRegion& r, uint64_t width, uint64_t height,
                     uint64_t depth, bool need_device, ResolvedRegion& out) {
  functional::DeviceMemory& mem = rt.device().memory();
  if (r.array != 0) {
    const functional::ArrayInfo* a = rt.array(r.array);
    if (a == nullptr) return Error::InvalidResourceHandle;
    const uint64_t row_bytes = uint64_t{a->desc.width} * a->desc.format.bytes();
    if (r.x > row_bytes || width > row_bytes - r.x || r.y > a->rows || height > a->rows - r.y ||
        r.z > a->slices || depth > a->slices - r.z)
      return Error::InvalidValue;
    functional::Fault f;
    out.base = mem.host_pointer(a->address, a->bytes(), f);
    if (out.base == nullptr) return Error::InvalidValue;
    out.base += r.z * a->slice_pitch + r.y * a->pitch + r.x;
    out.pitch = a->pitch;
    out.slice = a->slice_pitch;
    out.device = true;
    return Error::Success;
  }
  if (r.pitch < width && height > 1) return Error::InvalidPitchValue;
  const uint64_t rows = std::max<uint64_t>(r.rows, r.y + height);
  uint64_t slice = 0, start = 0, extent = 0;
  if (__builtin_mul_overflow(r.pitch, rows, &slice) ||
      __builtin_mul_overflow(r.z, slice, &start) ||
      __builtin_add_overflow(start, r.y * r.pitch + r.x, &start) ||
      __builtin_mul_overflow(depth - 1, slice, &extent) ||
      __builtin_add_overflow(extent, (height - 1) * r.pitch + width, &extent))
    return Error::InvalidValue;
  const auto* p = static_cast<const uint8_t*>(r.ptr);
  if (p == nullptr) return Error::InvalidValue;
  View v;
  if (Error e = view(mem, p + start, extent, need_device, v); e != Error::Success) return e;
  out.base = v.host;
  out.pitch = r.pitch;
  out.slice = slice;
  out.device = v.known && device_resident(v.kind);
  return Error::Success;
}

}  // namespace

Error Runtime::memcpy_3d(const Copy3D& c, const void* stream, bool async, bool per_thread) {
  if (c.kind < 0 || c.kind > 4) return Error::InvalidMemcpyDirection;
  Stream* st = streams_.resolve(stream, per_thread);
  if (st == nullptr) return Error::InvalidResourceHandle;
  bool record = false;
  if (Error e = capture_gate(*st, !async, &record); e != Error::Success) return e;
  if (c.width == 0 || c.height == 0 || c.depth == 0) return Error::Success;
  ResolvedRegion d, s;
  const bool dst_device = c.kind == 1 || c.kind == 3;
  const bool src_device = c.kind == 2 || c.kind == 3;
  if (Error e = resolve_region(*this, c.dst, c.width, c.height, c.depth, dst_device, d);
      e != Error::Success)
    return e;
  if (Error e = resolve_region(*this, c.src, c.width, c.height, c.depth, src_device, s);
      e != Error::Success)
    return e;
  if (record) {
    capture_node(*st, NodeType::Memcpy)->copy = c;
    return Error::Success;
  }
  for (uint64_t z = 0; z < c.depth; ++z)
    for (uint64_t y = 0; y < c.height; ++y)
      std::memmove(d.base + z * d.slice + y * d.pitch, s.base + z * s.slice + y * s.pitch,
                   c.width);
  const uint64_t bytes = c.width * c.height * c.depth;
  const char* dir = d.device ? (s.device ? "d2d" : "h2d") : (s.device ? "d2h" : "h2h");
  stats_.add(fmt::format("runtime.memcpy.{}_calls", dir));
  stats_.add(fmt::format("runtime.memcpy.{}_bytes", dir), bytes);
  const double ns = (d.device || s.device) ? copy_duration_ns(bytes, d.device != s.device) : 0;
  return enqueue(stream, per_thread, ns, !async);
}

Error Runtime::memset_3d(const PitchedRegion& dst, int value, uint64_t width, uint64_t height,
                         uint64_t depth, const void* stream, bool async, bool per_thread) {
  Stream* st = streams_.resolve(stream, per_thread);
  if (st == nullptr) return Error::InvalidResourceHandle;
  bool record = false;
  if (Error e = capture_gate(*st, !async, &record); e != Error::Success) return e;
  if (width == 0 || height == 0 || depth == 0) return Error::Success;
  ResolvedRegion d;
  if (Error e = resolve_region(*this, dst, width, height, depth, true, d); e != Error::Success)
    return e;
  if (record) {
    // A memset node is 2D: a 3D set is one node per slice, in order.
    const uint64_t slice = dst.pitch * std::max<uint64_t>(dst.rows, dst.y + height);
    for (uint64_t z = 0; z < depth; ++z) {
      MemsetParams p;
      p.dst = const_cast<uint8_t*>(static_cast<const uint8_t*>(dst.ptr)) + (dst.z + z) * slice +
              dst.y * dst.pitch + dst.x;
      p.pitch = dst.pitch;
      p.value = static_cast<uint8_t>(value);
      p.element_size = 1;
      p.width = width;
      p.height = height;
      capture_node(*st, NodeType::Memset)->memset = p;
    }
    return Error::Success;
  }
  for (uint64_t z = 0; z < depth; ++z)
    for (uint64_t y = 0; y < height; ++y)
      std::memset(d.base + z * d.slice + y * d.pitch, value, width);
  stats_.add("runtime.memset_calls");
  stats_.add("runtime.memset_bytes", width * height * depth);
  return enqueue(stream, per_thread, copy_duration_ns(width * height * depth, false) / 2, !async);
}

Error Runtime::memcpy_to_symbol(const void* symbol, const void* src, uint64_t bytes,
                                uint64_t offset, int kind, const void* stream, bool async,
                                bool per_thread) {
  if (kind != 1 && kind != 3 && kind != 4) return Error::InvalidMemcpyDirection;
  VarEntry* v = nullptr;
  if (Error e = load_var(symbol, &v); e != Error::Success) return e;
  if (offset > v->size || bytes > v->size - offset) return Error::InvalidValue;
  return memcpy(reinterpret_cast<void*>(v->address + offset), src, bytes, kind, stream, async,
                per_thread);
}

Error Runtime::memcpy_from_symbol(void* dst, const void* symbol, uint64_t bytes, uint64_t offset,
                                  int kind, const void* stream, bool async, bool per_thread) {
  if (kind != 2 && kind != 3 && kind != 4) return Error::InvalidMemcpyDirection;
  VarEntry* v = nullptr;
  if (Error e = load_var(symbol, &v); e != Error::Success) return e;
  if (offset > v->size || bytes > v->size - offset) return Error::InvalidValue;
  return memcpy(dst, reinterpret_cast<const void*>(v->address + offset), bytes, kind, stream,
                async, per_thread);
}

Error Runtime::symbol_address(void** ptr, const void* symbol) {
  if (ptr == nullptr) return Error::InvalidValue;
  VarEntry* v = nullptr;
  if (Error e = load_var(symbol, &v); e != Error::Success) return e;
  *ptr = reinterpret_cast<void*>(v->address);
  return Error::Success;
}

Error Runtime::symbol_size(uint64_t* size, const void* symbol) {
  if (size == nullptr) return Error::InvalidValue;
  VarEntry* v = nullptr;
  if (Error e = load_var(symbol, &v); e != Error::Success) return e;
  *size = v->size;
  return Error::Success;
}

namespace {

// True when [p, p + bytes) lies in one managed allocation (bytes > 0).
bool managed_range(const functional::DeviceMemory& mem, const void* p, uint64_t bytes) {
  if (bytes == 0) return false;
  auto a = mem.allocation_at(addr(p));
  return a && a->kind == AllocationKind::Managed && bytes <= a->size - (addr(p) - a->start);
}

}  // namespace

Error Runtime::prefetch(const void* ptr, uint64_t bytes, int location, const void* stream,
                        bool per_thread) {
  if (!managed_range(device_->memory(), ptr, bytes)) return Error::InvalidValue;
  if (streams_.resolve(stream, per_thread) == nullptr) return Error::InvalidResourceHandle;
  // Migration costs nothing here: managed memory is one copy, visible to
  // both sides; only the location is remembered.
  advice_.prefetched(addr(ptr), addr(ptr) + bytes, location);
  stats_.add("runtime.prefetch_calls");
  return enqueue(stream, per_thread, 0, false);
}

Error Runtime::advise(const void* ptr, uint64_t bytes, int advice, int location) {
  if (advice < 1 || advice > 6) return Error::InvalidValue;
  if (!managed_range(device_->memory(), ptr, bytes)) return Error::InvalidValue;
  advice_.advise(addr(ptr), addr(ptr) + bytes, advice, location);
  stats_.add("runtime.advise_calls");
  return Error::Success;
}

Error Runtime::range_attribute(void* data, uint64_t size, int attribute, const void* ptr,
                               uint64_t bytes) const {
  if (data == nullptr || !managed_range(device_->memory(), ptr, bytes)) return Error::InvalidValue;
  const uint64_t start = addr(ptr), end = start + bytes;
  auto put = [&](int v) {
    if (size != sizeof(int)) return Error::InvalidValue;
    std::memcpy(data, &v, sizeof v);
    return Error::Success;
  };
  // cudaMemLocationType of a location: device 1, host 2, none 0.
  auto type_of = [](int loc) { return loc == 0 ? 1 : loc == kCpuDevice ? 2 : 0; };
  switch (attribute) {
    case 1: return put(advice_.read_mostly(start, end) ? 1 : 0);
    case 2: return put(advice_.preferred(start, end));
    case 3: {  // the devices accessing it, padded with cudaInvalidDeviceId
      if (size == 0 || size % sizeof(int) != 0) return Error::InvalidValue;
      std::vector<int> devices = advice_.accessed_by(start, end);
      auto* out = static_cast<int*>(data);
      for (uint64_t i = 0; i < size / sizeof(int); ++i)
        out[i] = i < devices.size() ? devices[i] : kInvalidDevice;
      return Error::Success;
    }
    case 4: return put(advice_.last_prefetch(start, end));
    case 5: return abi_major_ >= 12 ? put(type_of(advice_.preferred(start, end))) : Error::InvalidValue;
    case 6: return abi_major_ >= 12 ? put(std::max(advice_.preferred(start, end), 0)) : Error::InvalidValue;
    case 7: return abi_major_ >= 12 ? put(type_of(advice_.last_prefetch(start, end))) : Error::InvalidValue;
    case 8: return abi_major_ >= 12 ? put(std::max(advice_.last_prefetch(start, end), 0)) : Error::InvalidValue;
    default: return Error::InvalidValue;
  }
}

}  // namespace warpsim::cudart
