// The runtime's memory pools: cudaMallocAsync / cudaMallocFromPoolAsync /
// cudaFreeAsync as operations of their stream, pool creation and
// destruction, the current pool of the device, attributes, trimming and
// access. The pool model itself is in mem_pool.h; this file checks
// arguments the way the real runtime does and places the operations on the
// simulated timeline (allocation and free cost nothing there).
#include <cstring>

#include "libcudart_shim/runtime.h"

namespace warpsim::cudart {

namespace {

uint64_t addr(const void* p) { return reinterpret_cast<uint64_t>(p); }

// cudaMemLocationType / cudaMemAllocationType / cudaMemAccessFlags values.
constexpr int kLocationDevice = 1;
constexpr int kLocationHost = 2;
constexpr int kLocationHostNuma = 3;
constexpr int kAllocPinned = 1;
constexpr int kAllocManaged = 2;
constexpr int kAccessReadWrite = 3;
// cudaMemAllocationHandleType bits: POSIX fd 1, Win32 2, Win32 KMT 4, fabric 8.
constexpr int kHandlePosixFd = 0x1;
constexpr int kHandleKnown = 0xF;

bool is_reuse_switch(int attribute) { return attribute >= 1 && attribute <= 3; }

}  // namespace

Error Runtime::pool_malloc(void** ptr, uint64_t bytes, const void* pool_handle, bool use_current,
                           const void* stream, bool per_thread) {
  if (ptr == nullptr) return Error::InvalidValue;
  MemPool* pool = use_current ? pools_.current() : pools_.find(pool_handle);
  if (pool == nullptr) return Error::InvalidValue;
  Stream* s = streams_.resolve(stream, per_thread);
  if (s == nullptr) return Error::InvalidResourceHandle;
  *ptr = nullptr;
  bool record = false;
  if (Error e = capture_gate(*s, false, &record); e != Error::Success) return e;
  if (record) {
    // Captured: an allocation node, whose address is valid from now on.
    if (bytes == 0) return Error::Success;
    std::shared_ptr<GraphAllocation> g;
    if (Error e = graph_memory_allocate(bytes, &g); e != Error::Success) return e;
    *ptr = reinterpret_cast<void*>(g->address);
    capture_node(*s, NodeType::MemAlloc)->alloc = std::move(g);
    return Error::Success;
  }
  if (bytes == 0) return Error::Success;  // like cudaMalloc(&p, 0): success, NULL

  PoolRequest at;
  at.stream = s->id;
  at.at_ns = streams_.schedule(*s, 0);
  at.host_ns = streams_.host_ns();
  PoolAllocation a;
  functional::DeviceMemory& memory = device_->memory();
  Error e = pool->allocate(memory, bytes, at, &a);
  if (e == Error::MemoryAllocation) {
    // Before failing, every pool's idle memory goes back to the device.
    pools_.trim_all(memory, at.host_ns);
    e = pool->allocate(memory, bytes, at, &a);
  }
  if (e != Error::Success) return e;
  // Reusing memory freed in another stream made this one wait for that free.
  s->ready_ns = std::max(s->ready_ns, a.wait_ns);
  *ptr = reinterpret_cast<void*>(a.address);
  stats_.add("runtime.malloc.pool_calls");
  stats_.add("runtime.malloc.pool_bytes", bytes);
  return Error::Success;
}

Error Runtime::pool_free(void* ptr, const void* stream, bool per_thread) {
  Stream* s = streams_.resolve(stream, per_thread);
  if (s == nullptr) return Error::InvalidResourceHandle;
  bool record = false;
  if (Error e = capture_gate(*s, false, &record); e != Error::Success) return e;
  if (record) {
    // Captured: a free node, of graph memory only.
    if (ptr == nullptr) return Error::Success;
    if (graph_allocation(addr(ptr)) == nullptr) return Error::InvalidValue;
    capture_node(*s, NodeType::MemFree)->free_address = addr(ptr);
    return Error::Success;
  }
  if (ptr == nullptr) return Error::Success;
  if (graph_allocation(addr(ptr)) != nullptr)
    return free_graph_memory(addr(ptr)) ? Error::Success : Error::InvalidValue;
  MemPool* pool = pools_.owner(addr(ptr));
  // cudaFreeAsync of cudaMalloc'ed memory is allowed: it frees it (without
  // waiting: the free is ordered in the stream, and work runs at submission).
  if (pool == nullptr) return free_device(ptr, false);
  const double done = streams_.schedule(*s, 0);
  if (!pools_.free(device_->memory(), pool, addr(ptr), s->id, done)) return Error::InvalidValue;
  stats_.add("runtime.free.pool_calls");
  return Error::Success;
}

Error Runtime::pool_create(void** pool, const PoolProps& p) {
  if (pool == nullptr) return Error::InvalidValue;
  if (p.alloc_type == kAllocManaged && abi_major_ >= 13) return Error::NotSupported;
  if (p.alloc_type != kAllocPinned) return Error::InvalidValue;
  if ((p.handle_types & ~kHandleKnown) != 0 || p.win32_security) return Error::InvalidValue;
  // Only POSIX file descriptors exist on Linux; fabric handles need IMEX.
  if ((p.handle_types & ~kHandlePosixFd) != 0) return Error::NotSupported;
  switch (p.location_type) {
    case kLocationDevice:
      // A device that does not exist in the properties is an invalid
      // argument (measured on an H100), not cudaErrorInvalidDevice.
      if (p.location_id != 0) return Error::InvalidValue;
      break;
    case kLocationHost:
    case kLocationHostNuma:
      // Host-memory pools (CUDA 12.6+) are real but not modelled here.
      return abi_major_ >= 12 ? Error::NotSupported : Error::InvalidValue;
    default:  // invalid, or HostNumaCurrent (documented as invalid)
      return Error::InvalidValue;
  }
  *pool = pools_.create(p.max_size);
  stats_.add("runtime.pools_created");
  return Error::Success;
}

Error Runtime::pool_destroy(const void* pool) {
  return pools_.destroy(device_->memory(), pool);
}

Error Runtime::default_pool(void** pool, int device) {
  if (pool == nullptr) return Error::InvalidValue;
  if (device != 0) return Error::InvalidDevice;
  *pool = pools_.default_pool();
  return Error::Success;
}

Error Runtime::current_pool(void** pool, int device) {
  if (pool == nullptr) return Error::InvalidValue;
  if (device != 0) return Error::InvalidDevice;
  *pool = pools_.current();
  return Error::Success;
}

Error Runtime::set_current_pool(int device, const void* pool) {
  if (device != 0) return Error::InvalidValue;  // as an H100 measured reports it
  MemPool* p = pools_.find(pool);
  if (p == nullptr) return Error::InvalidValue;
  pools_.set_current(p);
  return Error::Success;
}

Error Runtime::pool_set_attribute(const void* pool, int attribute, const void* value) {
  MemPool* p = pools_.find(pool);
  if (p == nullptr || value == nullptr) return Error::InvalidValue;
  uint64_t v = 0;
  if (is_reuse_switch(attribute)) {
    int i = 0;
    std::memcpy(&i, value, sizeof i);
    v = i != 0;
  } else {
    std::memcpy(&v, value, sizeof v);
  }
  return p->set_attribute(static_cast<PoolAttribute>(attribute), v);
}

Error Runtime::pool_get_attribute(const void* pool, int attribute, void* value) {
  MemPool* p = pools_.find(pool);
  if (p == nullptr || value == nullptr) return Error::InvalidValue;
  uint64_t v = 0;
  if (Error e = p->get_attribute(static_cast<PoolAttribute>(attribute), &v); e != Error::Success)
    return e;
  if (is_reuse_switch(attribute)) {
    const int i = static_cast<int>(v);
    std::memcpy(value, &i, sizeof i);
  } else {
    std::memcpy(value, &v, sizeof v);
  }
  return Error::Success;
}

Error Runtime::pool_trim(const void* pool, uint64_t keep_bytes) {
  MemPool* p = pools_.find(pool);
  if (p == nullptr) return Error::InvalidValue;
  // Frees the host has not yet seen complete still count as outstanding.
  p->trim(device_->memory(), keep_bytes, streams_.host_ns());
  return Error::Success;
}

Error Runtime::pool_set_access(const void* pool, const PoolAccess* list, uint64_t count) {
  MemPool* p = pools_.find(pool);
  if (p == nullptr || (list == nullptr && count != 0)) return Error::InvalidValue;
  // The whole list is checked before anything changes, as the driver does.
  // The owning device always has read-write access: anything else for it
  // is refused with cudaErrorInvalidDevice; there is no other device.
  for (uint64_t i = 0; i < count; ++i) {
    const PoolAccess& a = list[i];
    if (a.location_type != kLocationDevice) return Error::InvalidValue;
    if (a.id != 0) return Error::InvalidDevice;
    if (a.flags != 0 && a.flags != 1 && a.flags != kAccessReadWrite) return Error::InvalidValue;
    if (a.flags != kAccessReadWrite) return Error::InvalidDevice;
  }
  return Error::Success;
}

Error Runtime::pool_get_access(int* flags, const void* pool, int location_type, int id) {
  MemPool* p = pools_.find(pool);
  if (p == nullptr || flags == nullptr) return Error::InvalidValue;
  if (location_type != kLocationDevice) return Error::InvalidValue;
  if (id != 0) return Error::InvalidDevice;
  *flags = kAccessReadWrite;
  return Error::Success;
}

void Runtime::release_pool_memory() {
  pools_.release_above_thresholds(device_->memory(), streams_.host_ns());
}

}  // namespace warpsim::cudart
