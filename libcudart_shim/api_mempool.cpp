// Entry points: stream-ordered allocation and memory pools -
// cudaMallocAsync / cudaMallocFromPoolAsync / cudaFreeAsync (with their
// _ptsz per-thread-default-stream forms), cudaMemPool*, the device's default
// and current pool, and CUDA 13's location-based cudaMem{Get,Set}*MemPool.
// They convert the ABI structs of cuda_abi_pool.h and call the runtime's
// pool methods (runtime_pool.cpp).
#include <vector>

#include "libcudart_shim/api.h"
#include "libcudart_shim/cuda_abi_pool.h"

using namespace warpsim::cudart;
using warpsim::cudart::api::entry;
using warpsim::cudart::api::kContext;

namespace {

cudaError_t malloc_async(void** ptr, size_t size, cudaMemPool_t pool, bool use_current,
                         cudaStream_t stream, bool pt) {
  return entry(kContext, [&](Runtime& r) {
    return r.pool_malloc(ptr, size, pool, use_current, stream, pt);
  });
}

cudaError_t free_async(void* ptr, cudaStream_t stream, bool pt) {
  return entry(kContext, [&](Runtime& r) { return r.pool_free(ptr, stream, pt); });
}

Runtime::PoolProps props_of(const cudaMemPoolProps& p) {
  Runtime::PoolProps out;
  out.alloc_type = p.allocType;
  out.handle_types = p.handleTypes;
  out.location_type = p.location.type;
  out.location_id = p.location.id;
  out.win32_security = p.win32SecurityAttributes != nullptr;
#if WARPSIM_CUDA_MAJOR >= 12
  out.max_size = p.maxSize;
#endif
  return out;
}

// CUDA 13's location + allocation type naming the device's pinned pool:
// only device 0 and pinned memory exist here; host and managed pools are
// valid requests warpsim does not model.
[[maybe_unused]] Error check_pool_location(const cudaMemLocation* location,
                                           cudaMemAllocationType type) {
  if (location == nullptr) return Error::InvalidValue;
  if (type != cudaMemAllocationTypePinned && type != cudaMemAllocationTypeManaged)
    return Error::InvalidValue;
  switch (location->type) {
    case cudaMemLocationTypeDevice:
      if (location->id != 0) return Error::InvalidValue;  // measured on an H100
      return type == cudaMemAllocationTypePinned ? Error::Success : Error::NotSupported;
    case cudaMemLocationTypeHost:
    case cudaMemLocationTypeHostNuma:
      return Error::NotSupported;
    case cudaMemLocationTypeInvalid:  // cudaMemLocationTypeNone: managed pools only
      return type == cudaMemAllocationTypeManaged ? Error::NotSupported : Error::InvalidValue;
    default:
      return Error::InvalidValue;
  }
}

}  // namespace

extern "C" {

// ---- stream-ordered allocation -------------------------------------------------------------

cudaError_t cudaMallocAsync(void** ptr, size_t size, cudaStream_t stream) {
  return malloc_async(ptr, size, nullptr, true, stream, false);
}
cudaError_t cudaMallocAsync_ptsz(void** ptr, size_t size, cudaStream_t stream) {
  return malloc_async(ptr, size, nullptr, true, stream, true);
}
cudaError_t cudaMallocFromPoolAsync(void** ptr, size_t size, cudaMemPool_t pool,
                                    cudaStream_t stream) {
  return malloc_async(ptr, size, pool, false, stream, false);
}
cudaError_t cudaMallocFromPoolAsync_ptsz(void** ptr, size_t size, cudaMemPool_t pool,
                                         cudaStream_t stream) {
  return malloc_async(ptr, size, pool, false, stream, true);
}
cudaError_t cudaFreeAsync(void* ptr, cudaStream_t stream) { return free_async(ptr, stream, false); }
cudaError_t cudaFreeAsync_ptsz(void* ptr, cudaStream_t stream) {
  return free_async(ptr, stream, true);
}

// ---- pools ---------------------------------------------------------------------------------

cudaError_t cudaMemPoolCreate(cudaMemPool_t* pool, const cudaMemPoolProps* props) {
  return entry(kContext, [&](Runtime& r) {
    if (pool == nullptr || props == nullptr) return Error::InvalidValue;
    void* handle = nullptr;
    Error e = r.pool_create(&handle, props_of(*props));
    if (e == Error::Success) *pool = static_cast<cudaMemPool_t>(handle);
    return e;
  });
}

cudaError_t cudaMemPoolDestroy(cudaMemPool_t pool) {
  return entry(kContext, [&](Runtime& r) { return r.pool_destroy(pool); });
}

cudaError_t cudaDeviceGetDefaultMemPool(cudaMemPool_t* pool, int device) {
  return entry(kContext, [&](Runtime& r) {
    return r.default_pool(reinterpret_cast<void**>(pool), device);
  });
}

cudaError_t cudaDeviceGetMemPool(cudaMemPool_t* pool, int device) {
  return entry(kContext, [&](Runtime& r) {
    return r.current_pool(reinterpret_cast<void**>(pool), device);
  });
}

cudaError_t cudaDeviceSetMemPool(int device, cudaMemPool_t pool) {
  return entry(kContext, [&](Runtime& r) { return r.set_current_pool(device, pool); });
}

cudaError_t cudaMemPoolSetAttribute(cudaMemPool_t pool, cudaMemPoolAttr attr, void* value) {
  return entry(kContext, [&](Runtime& r) { return r.pool_set_attribute(pool, attr, value); });
}

cudaError_t cudaMemPoolGetAttribute(cudaMemPool_t pool, cudaMemPoolAttr attr, void* value) {
  return entry(kContext, [&](Runtime& r) { return r.pool_get_attribute(pool, attr, value); });
}

cudaError_t cudaMemPoolTrimTo(cudaMemPool_t pool, size_t min_bytes_to_keep) {
  return entry(kContext, [&](Runtime& r) { return r.pool_trim(pool, min_bytes_to_keep); });
}

cudaError_t cudaMemPoolSetAccess(cudaMemPool_t pool, const cudaMemAccessDesc* list,
                                 size_t count) {
  return entry(kContext, [&](Runtime& r) {
    if (list == nullptr && count != 0) return Error::InvalidValue;
    std::vector<Runtime::PoolAccess> access(count);
    for (size_t i = 0; i < count; ++i)
      access[i] = Runtime::PoolAccess{list[i].location.type, list[i].location.id, list[i].flags};
    return r.pool_set_access(pool, access.data(), count);
  });
}

cudaError_t cudaMemPoolGetAccess(cudaMemAccessFlags* flags, cudaMemPool_t pool,
                                 cudaMemLocation* location) {
  return entry(kContext, [&](Runtime& r) {
    if (flags == nullptr || location == nullptr) return Error::InvalidValue;
    int f = 0;
    Error e = r.pool_get_access(&f, pool, location->type, location->id);
    if (e == Error::Success) *flags = static_cast<cudaMemAccessFlags>(f);
    return e;
  });
}

// ---- CUDA 13: pools by location and allocation type ----------------------------------------

#if WARPSIM_CUDA_MAJOR >= 13
cudaError_t cudaMemGetDefaultMemPool(cudaMemPool_t* pool, cudaMemLocation* location,
                                     cudaMemAllocationType type) {
  return entry(kContext, [&](Runtime& r) {
    if (Error e = check_pool_location(location, type); e != Error::Success) return e;
    return r.default_pool(reinterpret_cast<void**>(pool), location->id);
  });
}

cudaError_t cudaMemGetMemPool(cudaMemPool_t* pool, cudaMemLocation* location,
                              cudaMemAllocationType type) {
  return entry(kContext, [&](Runtime& r) {
    if (Error e = check_pool_location(location, type); e != Error::Success) return e;
    return r.current_pool(reinterpret_cast<void**>(pool), location->id);
  });
}

cudaError_t cudaMemSetMemPool(cudaMemLocation* location, cudaMemAllocationType type,
                              cudaMemPool_t pool) {
  return entry(kContext, [&](Runtime& r) {
    if (Error e = check_pool_location(location, type); e != Error::Success) return e;
    return r.set_current_pool(location->id, pool);
  });
}
#endif

}  // extern "C"
