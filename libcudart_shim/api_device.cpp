// Entry points: device management and properties, limits, errors, versions.
#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "libcudart_shim/api.h"
#include "libcudart_shim/device_attributes.h"

using namespace warpsim::cudart;
using warpsim::GpuConfig;
using warpsim::cudart::api::entry;
using warpsim::cudart::api::kContext;
using warpsim::cudart::api::kNoContext;
using warpsim::cudart::api::rt;

namespace {

int attr(Runtime& r, int a) {
  int v = 0;
  (void)r.device_attribute(a, &v);
  return v;
}

void fill_properties(Runtime& r, cudaDeviceProp& p) {
  const GpuConfig& g = r.config().gpu;
  std::memset(&p, 0, sizeof p);
  std::snprintf(p.name, sizeof p.name, "%s", g.name.c_str());
  // A stable UUID derived from the configuration's name.
  uint64_t h = 1469598103934665603ull;
  for (char c : g.name) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull;
  for (int i = 0; i < 16; ++i) p.uuid.bytes[i] = static_cast<char>((h >> (8 * (i % 8))) ^ i);
  p.totalGlobalMem = g.memory_size;
  p.sharedMemPerBlock = g.shared_mem_per_block;
  p.regsPerBlock = attr(r, 12);
  p.warpSize = attr(r, 10);
  p.memPitch = static_cast<size_t>(attr(r, 11));
  p.maxThreadsPerBlock = attr(r, 1);
  for (int i = 0; i < 3; ++i) {
    p.maxThreadsDim[i] = attr(r, 2 + i);
    p.maxGridSize[i] = attr(r, 5 + i);
  }
  p.totalConstMem = g.const_mem;
  p.major = attr(r, 75);
  p.minor = attr(r, 76);
  p.textureAlignment = static_cast<size_t>(attr(r, 14));
  p.texturePitchAlignment = static_cast<size_t>(attr(r, 51));
  p.multiProcessorCount = attr(r, 16);
  p.integrated = attr(r, 18);
  p.canMapHostMemory = attr(r, 19);
  p.maxTexture1D = attr(r, 21);
  p.maxTexture1DMipmap = attr(r, 77);
  p.maxTexture2D[0] = attr(r, 22);
  p.maxTexture2D[1] = attr(r, 23);
  p.maxTexture2DMipmap[0] = attr(r, 73);
  p.maxTexture2DMipmap[1] = attr(r, 74);
  p.maxTexture2DLinear[0] = attr(r, 70);
  p.maxTexture2DLinear[1] = attr(r, 71);
  p.maxTexture2DLinear[2] = attr(r, 72);
  p.maxTexture2DGather[0] = attr(r, 45);
  p.maxTexture2DGather[1] = attr(r, 46);
  for (int i = 0; i < 3; ++i) {
    p.maxTexture3D[i] = attr(r, 24 + i);
    p.maxTexture3DAlt[i] = attr(r, 47 + i);
    p.maxSurface3D[i] = attr(r, 58 + i);
    p.maxTexture2DLayered[i] = attr(r, 27 + i);
    p.maxSurface2DLayered[i] = attr(r, 63 + i);
  }
  p.maxTextureCubemap = attr(r, 52);
  p.maxTexture1DLayered[0] = attr(r, 42);
  p.maxTexture1DLayered[1] = attr(r, 43);
  p.maxTextureCubemapLayered[0] = attr(r, 53);
  p.maxTextureCubemapLayered[1] = attr(r, 54);
  p.maxSurface1D = attr(r, 55);
  p.maxSurface2D[0] = attr(r, 56);
  p.maxSurface2D[1] = attr(r, 57);
  p.maxSurface1DLayered[0] = attr(r, 61);
  p.maxSurface1DLayered[1] = attr(r, 62);
  p.maxSurfaceCubemap = attr(r, 66);
  p.maxSurfaceCubemapLayered[0] = attr(r, 67);
  p.maxSurfaceCubemapLayered[1] = attr(r, 68);
  p.surfaceAlignment = static_cast<size_t>(attr(r, 30));
  p.concurrentKernels = attr(r, 31);
  p.ECCEnabled = attr(r, 32);
  p.pciBusID = attr(r, 33);
  p.pciDeviceID = attr(r, 34);
  p.pciDomainID = attr(r, 50);
  p.tccDriver = attr(r, 35);
  p.asyncEngineCount = attr(r, 40);
  p.unifiedAddressing = attr(r, 41);
  p.memoryBusWidth = attr(r, 37);
  p.l2CacheSize = attr(r, 38);
  p.persistingL2CacheMaxSize = attr(r, 108);
  p.maxThreadsPerMultiProcessor = attr(r, 39);
  p.streamPrioritiesSupported = attr(r, 78);
  p.globalL1CacheSupported = attr(r, 79);
  p.localL1CacheSupported = attr(r, 80);
  p.sharedMemPerMultiprocessor = g.shared_mem_per_sm;
  p.regsPerMultiprocessor = attr(r, 82);
  p.managedMemory = attr(r, 83);
  p.isMultiGpuBoard = attr(r, 84);
  p.multiGpuBoardGroupID = attr(r, 85);
  p.hostNativeAtomicSupported = attr(r, 86);
  p.pageableMemoryAccess = attr(r, 88);
  p.concurrentManagedAccess = attr(r, 89);
  p.computePreemptionSupported = attr(r, 90);
  p.canUseHostPointerForRegisteredMem = attr(r, 91);
  p.cooperativeLaunch = attr(r, 95);
  p.sharedMemPerBlockOptin = g.shared_mem_per_block_optin;
  p.pageableMemoryAccessUsesHostPageTables = attr(r, 100);
  p.directManagedMemAccessFromHost = attr(r, 101);
  p.maxBlocksPerMultiProcessor = attr(r, 106);
  p.accessPolicyMaxWindowSize = attr(r, 109);
  p.reservedSharedMemPerBlock = g.reserved_shared_mem_per_block;
#if WARPSIM_CUDA_MAJOR <= 12
  p.clockRate = attr(r, 13);
  p.deviceOverlap = attr(r, 15);
  p.kernelExecTimeoutEnabled = attr(r, 17);
  p.computeMode = attr(r, 20);
  p.maxTexture1DLinear = attr(r, 69);
  p.memoryClockRate = attr(r, 36);
  p.singleToDoublePrecisionPerfRatio = attr(r, 87);
  p.cooperativeMultiDeviceLaunch = attr(r, 96);
#endif
#if WARPSIM_CUDA_MAJOR >= 12
  p.hostRegisterSupported = attr(r, 99);
  p.sparseCudaArraySupported = attr(r, 112);
  p.hostRegisterReadOnlySupported = attr(r, 113);
  p.timelineSemaphoreInteropSupported = attr(r, 114);
  p.memoryPoolsSupported = attr(r, 115);
  p.gpuDirectRDMASupported = attr(r, 116);
  p.gpuDirectRDMAFlushWritesOptions = static_cast<unsigned>(attr(r, 117));
  p.gpuDirectRDMAWritesOrdering = attr(r, 118);
  p.memoryPoolSupportedHandleTypes = static_cast<unsigned>(attr(r, 119));
  p.deferredMappingCudaArraySupported = attr(r, 121);
  p.ipcEventSupported = attr(r, 125);
  p.clusterLaunch = attr(r, 120);
  p.unifiedFunctionPointers = 1;
#endif
#if WARPSIM_CUDA_MAJOR >= 13
  p.deviceNumaConfig = attr(r, 130);
  p.deviceNumaId = attr(r, 131);
  p.mpsEnabled = attr(r, 133);
  p.hostNumaId = attr(r, 134);
  p.gpuPciDeviceID = static_cast<unsigned>(attr(r, 139));
  p.gpuPciSubsystemID = static_cast<unsigned>(attr(r, 140));
  p.hostNumaMultinodeIpcSupported = attr(r, 143);
#endif
}

cudaError_t get_properties(cudaDeviceProp* prop, int device, size_t bytes) {
  return entry(kNoContext, [&](Runtime& r) {
    if (prop == nullptr) return Error::InvalidValue;
    if (device != 0) return Error::InvalidDevice;
    cudaDeviceProp full;
    fill_properties(r, full);
    std::memcpy(prop, &full, std::min(bytes, sizeof full));
    return Error::Success;
  });
}

}  // namespace

extern "C" {

cudaError_t cudaGetDeviceCount(int* count) {
  return entry(kNoContext, [&](Runtime&) {
    if (count == nullptr) return Error::InvalidValue;
    *count = 1;
    return Error::Success;
  });
}

cudaError_t cudaGetDevice(int* device) {
  return entry(kNoContext, [&](Runtime& r) {
    if (device == nullptr) return Error::InvalidValue;
    *device = r.current_device();
    return Error::Success;
  });
}

cudaError_t cudaSetDevice(int device) {
  return entry(kNoContext, [&](Runtime& r) { return r.set_device(device); });
}

cudaError_t cudaInitDevice(int device, unsigned device_flags, unsigned flags) {
  return entry(kNoContext, [&](Runtime& r) {
    if (flags != 0) return Error::InvalidValue;
    if (Error e = r.set_device(device); e != Error::Success) return e;
    return device_flags ? r.set_device_flags(device_flags) : Error::Success;
  });
}

cudaError_t cudaSetValidDevices(int* devices, int len) {
  return entry(kNoContext, [&](Runtime&) {
    if (len < 0 || (len > 0 && devices == nullptr)) return Error::InvalidValue;
    for (int i = 0; i < len; ++i)
      if (devices[i] != 0) return Error::InvalidDevice;
    return Error::Success;
  });
}

cudaError_t cudaChooseDevice(int* device, const cudaDeviceProp* prop) {
  return entry(kNoContext, [&](Runtime&) {
    if (device == nullptr || prop == nullptr) return Error::InvalidValue;
    *device = 0;  // the only device is the best match
    return Error::Success;
  });
}

#if WARPSIM_CUDA_MAJOR == 12
// 12.x headers call the _v2 symbol with the 12.0 struct; the plain symbol
// keeps the pre-12 contract and fills the 11.x prefix of it (728 bytes).
cudaError_t cudaGetDeviceProperties_v2(cudaDeviceProp* prop, int device) {
  return get_properties(prop, device, sizeof(cudaDeviceProp));
}
cudaError_t cudaGetDeviceProperties(cudaDeviceProp* prop, int device) {
  return get_properties(prop, device, offsetof(cudaDeviceProp, hostRegisterSupported));
}
#else
cudaError_t cudaGetDeviceProperties(cudaDeviceProp* prop, int device) {
  return get_properties(prop, device, sizeof(cudaDeviceProp));
}
#endif

cudaError_t cudaDeviceGetAttribute(int* value, int attribute, int device) {
  return entry(kNoContext, [&](Runtime& r) {
    if (value == nullptr) return Error::InvalidValue;
    if (device != 0) return Error::InvalidDevice;
    return r.device_attribute(attribute, value);
  });
}

// Persisting L2 lines (access policy windows) are a hint the L2 model does
// not act on, so no line is ever persisting and there is nothing to demote.
cudaError_t cudaCtxResetPersistingL2Cache() {
  return entry(kContext, [&](Runtime&) { return Error::Success; });
}

cudaError_t cudaDeviceGetP2PAttribute(int* value, int attribute, int src, int dst) {
  return entry(kNoContext, [&](Runtime&) {
    if (value == nullptr) return Error::InvalidValue;
    // One device, and a device is not its own peer: every pair is invalid.
    (void)attribute, (void)src, (void)dst;
    return Error::InvalidDevice;
  });
}

cudaError_t cudaDeviceCanAccessPeer(int* can_access, int device, int peer) {
  return entry(kNoContext, [&](Runtime&) {
    if (can_access == nullptr) return Error::InvalidValue;
    if (device != 0 || peer != 0) return Error::InvalidDevice;
    *can_access = 0;  // a device is not its own peer
    return Error::Success;
  });
}

cudaError_t cudaDeviceEnablePeerAccess(int peer, unsigned flags) {
  return entry(kContext, [&](Runtime&) {
    if (flags != 0) return Error::InvalidValue;
    (void)peer;
    return Error::InvalidDevice;  // no other device exists
  });
}

cudaError_t cudaDeviceDisablePeerAccess(int peer) {
  return entry(kContext, [&](Runtime&) {
    (void)peer;
    return Error::InvalidDevice;
  });
}

cudaError_t cudaDeviceGetPCIBusId(char* bus_id, int len, int device) {
  return entry(kNoContext, [&](Runtime& r) {
    if (bus_id == nullptr || len <= 0) return Error::InvalidValue;
    if (device != 0) return Error::InvalidDevice;
    const std::string id = fmt::format("0000:{:02x}:00.0", r.config().gpu.pci_bus_id);
    if (static_cast<size_t>(len) < id.size() + 1) return Error::InvalidValue;
    std::memcpy(bus_id, id.c_str(), id.size() + 1);
    return Error::Success;
  });
}

cudaError_t cudaDeviceGetByPCIBusId(int* device, const char* bus_id) {
  return entry(kNoContext, [&](Runtime& r) {
    if (device == nullptr || bus_id == nullptr) return Error::InvalidValue;
    unsigned domain = 0, bus = 0, dev = 0, fn = 0;
    // "domain:bus:device.function", "bus:device.function" or "domain:bus:device"
    if (std::sscanf(bus_id, "%x:%x:%x.%x", &domain, &bus, &dev, &fn) < 3 &&
        std::sscanf(bus_id, "%x:%x.%x", &bus, &dev, &fn) < 2)
      return Error::InvalidValue;
    if (bus != r.config().gpu.pci_bus_id || dev != 0) return Error::InvalidDevice;
    *device = 0;
    return Error::Success;
  });
}

cudaError_t cudaDeviceGetStreamPriorityRange(int* least, int* greatest) {
  return entry(kNoContext, [&](Runtime&) {
    if (least) *least = kLeastStreamPriority;
    if (greatest) *greatest = kGreatestStreamPriority;
    return Error::Success;
  });
}

cudaError_t cudaSetDeviceFlags(unsigned flags) {
  return entry(kNoContext, [&](Runtime& r) { return r.set_device_flags(flags); });
}

cudaError_t cudaGetDeviceFlags(unsigned* flags) {
  return entry(kNoContext, [&](Runtime& r) {
    if (flags == nullptr) return Error::InvalidValue;
    // Host memory mapping is always on with unified addressing.
    *flags = r.device_flags() | cudaDeviceMapHost;
    return Error::Success;
  });
}

cudaError_t cudaDeviceSynchronize() {
  return entry(kContext, [&](Runtime& r) { return r.synchronize(); });
}

cudaError_t cudaDeviceReset() {
  return entry(kNoContext, [&](Runtime& r) { return r.reset(); });
}

cudaError_t cudaDeviceSetLimit(int limit, size_t value) {
  return entry(kContext, [&](Runtime& r) { return r.set_limit(limit, value); });
}

cudaError_t cudaDeviceGetLimit(size_t* value, int limit) {
  return entry(kContext, [&](Runtime& r) {
    uint64_t v = 0;
    if (value == nullptr) return Error::InvalidValue;
    Error e = r.get_limit(limit, &v);
    if (e == Error::Success) *value = v;
    return e;
  });
}

cudaError_t cudaDeviceGetCacheConfig(int* config) {
  return entry(kContext, [&](Runtime& r) {
    if (config == nullptr) return Error::InvalidValue;
    *config = r.cache_config;
    return Error::Success;
  });
}

cudaError_t cudaDeviceSetCacheConfig(int config) {
  return entry(kContext, [&](Runtime& r) {
    if (config < 0 || config > 3) return Error::InvalidValue;
    r.cache_config = config;
    return Error::Success;
  });
}

cudaError_t cudaDeviceGetSharedMemConfig(int* config) {
  return entry(kContext, [&](Runtime& r) {
    if (config == nullptr) return Error::InvalidValue;
    *config = r.shared_mem_config == 0 ? 1 : r.shared_mem_config;  // four-byte banks
    return Error::Success;
  });
}

cudaError_t cudaDeviceSetSharedMemConfig(int config) {
  return entry(kContext, [&](Runtime& r) {
    if (config < 0 || config > 2) return Error::InvalidValue;
    r.shared_mem_config = config;
    return Error::Success;
  });
}

cudaError_t cudaDeviceGetTexture1DLinearMaxWidth(size_t* width, const cudaChannelFormatDesc* desc,
                                                 int device) {
  return entry(kNoContext, [&](Runtime& r) {
    if (width == nullptr || desc == nullptr) return Error::InvalidValue;
    if (device != 0) return Error::InvalidDevice;
    *width = static_cast<size_t>(attr(r, 69));
    return Error::Success;
  });
}

cudaError_t cudaDeviceFlushGPUDirectRDMAWrites(int target, int scope) {
  return entry(kContext, [&](Runtime&) {
    (void)target, (void)scope;
    return Error::Success;  // no RDMA peers: nothing to flush
  });
}

#if WARPSIM_CUDA_MAJOR <= 12
// The pre-CUDA-4 thread names of the device calls.
cudaError_t cudaThreadSynchronize() { return cudaDeviceSynchronize(); }
cudaError_t cudaThreadExit() { return cudaDeviceReset(); }
cudaError_t cudaThreadSetLimit(int limit, size_t value) { return cudaDeviceSetLimit(limit, value); }
cudaError_t cudaThreadGetLimit(size_t* value, int limit) { return cudaDeviceGetLimit(value, limit); }
cudaError_t cudaThreadSetCacheConfig(int config) { return cudaDeviceSetCacheConfig(config); }
cudaError_t cudaThreadGetCacheConfig(int* config) { return cudaDeviceGetCacheConfig(config); }
cudaError_t cudaSetDoubleForDevice(double* d) {
  return entry(kNoContext, [&](Runtime&) { return d ? Error::Success : Error::InvalidValue; });
}
cudaError_t cudaSetDoubleForHost(double* d) {
  return entry(kNoContext, [&](Runtime&) { return d ? Error::Success : Error::InvalidValue; });
}
#endif

// ---- errors and versions ------------------------------------------------------------------

// The thread's last error is what the last failing call returned, a sticky
// error included: cudaGetLastError reports it once and resets it, even while
// the context stays broken (every call that needs the context fails again
// and records the error again). Measured on an H100 with CUDA 13
// (docs/runtime-shim.md, "Behaviour measured on a GPU").
cudaError_t cudaGetLastError() {
  Runtime& r = rt();
  std::lock_guard lock(r.mutex());
  Error e = Runtime::last_error();
  Runtime::last_error() = Error::Success;
  if (e == Error::Success) e = r.init_error();
  return static_cast<cudaError_t>(e);
}

cudaError_t cudaPeekAtLastError() {
  Runtime& r = rt();
  std::lock_guard lock(r.mutex());
  Error e = Runtime::last_error();
  if (e == Error::Success) e = r.init_error();
  return static_cast<cudaError_t>(e);
}

const char* cudaGetErrorName(cudaError_t error) {
  return error_name(error, WARPSIM_CUDA_MAJOR);
}

const char* cudaGetErrorString(cudaError_t error) {
  return error_string(error, WARPSIM_CUDA_MAJOR);
}

cudaError_t cudaRuntimeGetVersion(int* version) {
  if (version == nullptr) return 1;  // no context needed, and no last error either
  *version = rt().runtime_version();
  return 0;
}

cudaError_t cudaDriverGetVersion(int* version) {
  if (version == nullptr) return 1;
  *version = 13000;  // a CUDA 13.0 driver runs programs of every supported runtime
  return 0;
}

#if WARPSIM_CUDA_MAJOR >= 12
cudaError_t cudaGetDriverEntryPoint(const char* symbol, void** function, unsigned long long flags,
                                    cudaDriverEntryPointQueryResult* status) {
  (void)symbol, (void)flags;
  if (function) *function = nullptr;
  if (status) *status = cudaDriverEntryPointSymbolNotFound;
  return warpsim::cudart::api::unsupported("cudaGetDriverEntryPoint");
}
cudaError_t cudaGetDriverEntryPoint_ptsz(const char* symbol, void** function,
                                         unsigned long long flags,
                                         cudaDriverEntryPointQueryResult* status) {
  return cudaGetDriverEntryPoint(symbol, function, flags, status);
}
cudaError_t cudaGetDriverEntryPointByVersion(const char* symbol, void** function, unsigned version,
                                             unsigned long long flags,
                                             cudaDriverEntryPointQueryResult* status) {
  (void)version;
  return cudaGetDriverEntryPoint(symbol, function, flags, status);
}
cudaError_t cudaGetDriverEntryPointByVersion_ptsz(const char* symbol, void** function,
                                                  unsigned version, unsigned long long flags,
                                                  cudaDriverEntryPointQueryResult* status) {
  (void)version;
  return cudaGetDriverEntryPoint(symbol, function, flags, status);
}
#else
cudaError_t cudaGetDriverEntryPoint(const char* symbol, void** function,
                                    unsigned long long flags) {
  (void)symbol, (void)flags;
  if (function) *function = nullptr;
  return warpsim::cudart::api::unsupported("cudaGetDriverEntryPoint");
}
cudaError_t cudaGetDriverEntryPoint_ptsz(const char* symbol, void** function,
                                         unsigned long long flags) {
  return cudaGetDriverEntryPoint(symbol, function, flags);
}
#endif

cudaError_t cudaProfilerStart() {
  return entry(kContext, [&](Runtime&) { return Error::Success; });
}
cudaError_t cudaProfilerStop() {
  return entry(kContext, [&](Runtime&) { return Error::Success; });
}

}  // extern "C"
