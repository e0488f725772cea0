// Entry points: kernel attributes and occupancy.
#include <algorithm>
#include <cstring>

#include "libcudart_shim/api.h"

using namespace warpsim::cudart;
using warpsim::cudart::api::entry;
using warpsim::cudart::api::kContext;

extern "C" {

cudaError_t cudaFuncGetAttributes(cudaFuncAttributes* attr, const void* func) {
  return entry(kContext, [&](Runtime& r) {
    if (attr == nullptr) return Error::InvalidValue;
    KernelAttributes a;
    if (Error e = r.kernel_attributes(func, &a); e != Error::Success) return e;
    std::memset(attr, 0, sizeof *attr);
    attr->sharedSizeBytes = a.shared_bytes;
    attr->constSizeBytes = a.const_bytes;
    attr->localSizeBytes = a.local_bytes;
    attr->maxThreadsPerBlock = static_cast<int>(a.max_threads_per_block);
    attr->numRegs = static_cast<int>(a.registers);
    attr->ptxVersion = static_cast<int>(a.ptx_version);
    attr->binaryVersion = static_cast<int>(a.binary_version);
    attr->cacheModeCA = 0;
    attr->maxDynamicSharedSizeBytes = static_cast<int>(a.max_dynamic_shared);
    attr->preferredShmemCarveout = a.carveout;
#if WARPSIM_CUDA_MAJOR >= 12
    attr->clusterDimMustBeSet = 0;
    attr->requiredClusterWidth = static_cast<int>(a.cluster_dims[0]);
    attr->requiredClusterHeight = static_cast<int>(a.cluster_dims[1]);
    attr->requiredClusterDepth = static_cast<int>(a.cluster_dims[2]);
    attr->clusterSchedulingPolicyPreference = 0;
    attr->nonPortableClusterSizeAllowed = a.non_portable_cluster_size ? 1 : 0;
#endif
    return Error::Success;
  });
}

cudaError_t cudaFuncSetAttribute(const void* func, int attribute, int value) {
  return entry(kContext, [&](Runtime& r) { return r.set_kernel_attribute(func, attribute, value); });
}

cudaError_t cudaKernelSetAttributeForDevice(cudaKernel_t kernel, int attribute, int value,
                                            int device) {
  return entry(kContext, [&](Runtime& r) {
    if (device != 0) return Error::InvalidDevice;
    return r.set_kernel_attribute(kernel, attribute, value);
  });
}

cudaError_t cudaFuncSetCacheConfig(const void* func, int config) {
  return entry(kContext, [&](Runtime& r) { return r.set_kernel_cache_config(func, config); });
}

cudaError_t cudaFuncSetSharedMemConfig(const void* func, int config) {
  return entry(kContext, [&](Runtime& r) {
    if (config < 0 || config > 2) return Error::InvalidValue;
    KernelEntry* k = nullptr;
    return r.load_kernel(func, &k);  // bank size is fixed at four bytes: accepted, no effect
  });
}

cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int* blocks, const void* func,
                                                          int block_size, size_t dynamic_shared) {
  return entry(kContext, [&](Runtime& r) {
    return r.occupancy(blocks, func, block_size, dynamic_shared, 0);
  });
}

cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int* blocks, const void* func,
                                                                   int block_size,
                                                                   size_t dynamic_shared,
                                                                   unsigned flags) {
  return entry(kContext, [&](Runtime& r) {
    return r.occupancy(blocks, func, block_size, dynamic_shared, flags);
  });
}

cudaError_t cudaOccupancyAvailableDynamicSMemPerBlock(size_t* bytes, const void* func, int blocks,
                                                      int block_size) {
  return entry(kContext, [&](Runtime& r) {
    uint64_t b = 0;
    if (bytes == nullptr) return Error::InvalidValue;
    Error e = r.available_dynamic_shared(&b, func, blocks, block_size);
    if (e == Error::Success) *bytes = b;
    return e;
  });
}

#if WARPSIM_CUDA_MAJOR >= 12
// Clusters: the largest cluster a launch of `config` could use (portable
// limit unless the kernel allows non-portable sizes), and how many such
// clusters fit on the GPU at once.
cudaError_t cudaOccupancyMaxPotentialClusterSize(int* size, const void* func,
                                                 const cudaLaunchConfig_t* config) {
  return entry(kContext, [&](Runtime& r) {
    if (size == nullptr || config == nullptr) return Error::InvalidValue;
    KernelAttributes a;
    if (Error e = r.kernel_attributes(func, &a); e != Error::Success) return e;
    if (r.config().gpu.cc() < 90) {
      *size = 0;
      return Error::Success;
    }
    *size = static_cast<int>(a.non_portable_cluster_size ? r.config().gpu.max_cluster_size_nonportable
                                                         : r.config().gpu.max_cluster_size);
    return Error::Success;
  });
}

cudaError_t cudaOccupancyMaxActiveClusters(int* clusters, const void* func,
                                           const cudaLaunchConfig_t* config) {
  return entry(kContext, [&](Runtime& r) {
    if (clusters == nullptr || config == nullptr) return Error::InvalidValue;
    unsigned cluster = 1;
    for (unsigned i = 0; i < config->numAttrs && config->attrs; ++i)
      if (config->attrs[i].id == cudaLaunchAttributeClusterDimension) {
        const auto& c = config->attrs[i].val.clusterDim;
        cluster = c.x * c.y * c.z;
      }
    if (cluster == 0) return Error::InvalidValue;
    int per_sm = 0;
    const uint32_t threads = config->blockDim.x * config->blockDim.y * config->blockDim.z;
    if (Error e = r.occupancy(&per_sm, func, static_cast<int>(threads), config->dynamicSmemBytes, 0);
        e != Error::Success)
      return e;
    *clusters = static_cast<int>(uint64_t{static_cast<uint32_t>(per_sm)} * r.config().gpu.num_sms /
                                 cluster);
    return Error::Success;
  });
}
#endif

}  // extern "C"
