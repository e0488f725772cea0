#pragma once
// cudaDeviceGetAttribute for the simulated GPU: every cudaDeviceAttr of a
// CUDA major, from the [gpu] configuration where the value describes the
// GPU (SM count, memory, limits, clocks, compute capability) and the values
// every GPU of compute capability 7.0 or later reports otherwise (texture
// and surface limits, feature flags of a discrete Linux GPU with unified
// addressing). cudaGetDeviceProperties is filled from the same values.
#include <optional>

#include "common/gpu_config.h"

namespace warpsim::cudart {

// cudaDeviceAttr values (stable across majors; numbers only ever added).
enum DeviceAttr : int {
  kAttrMaxThreadsPerBlock = 1,
  kAttrMaxBlockDimX = 2,
  kAttrMaxGridDimX = 5,
  kAttrMaxSharedMemoryPerBlock = 8,
  kAttrTotalConstantMemory = 9,
  kAttrWarpSize = 10,
  kAttrMaxPitch = 11,
  kAttrMaxRegistersPerBlock = 12,
  kAttrClockRate = 13,
  kAttrTextureAlignment = 14,
  kAttrGpuOverlap = 15,
  kAttrMultiProcessorCount = 16,
  kAttrKernelExecTimeout = 17,
  kAttrIntegrated = 18,
  kAttrCanMapHostMemory = 19,
  kAttrComputeMode = 20,
  kAttrMaxTexture1DWidth = 21,
  kAttrSurfaceAlignment = 30,
  kAttrConcurrentKernels = 31,
  kAttrEccEnabled = 32,
  kAttrPciBusId = 33,
  kAttrPciDeviceId = 34,
  kAttrTccDriver = 35,
  kAttrMemoryClockRate = 36,
  kAttrGlobalMemoryBusWidth = 37,
  kAttrL2CacheSize = 38,
  kAttrMaxThreadsPerMultiProcessor = 39,
  kAttrAsyncEngineCount = 40,
  kAttrUnifiedAddressing = 41,
  kAttrPciDomainId = 50,
  kAttrTexturePitchAlignment = 51,
  kAttrComputeCapabilityMajor = 75,
  kAttrComputeCapabilityMinor = 76,
  kAttrMaxSharedMemoryPerMultiprocessor = 81,
  kAttrMaxRegistersPerMultiprocessor = 82,
  kAttrManagedMemory = 83,
  kAttrCooperativeLaunch = 95,
  kAttrMaxSharedMemoryPerBlockOptin = 97,
  kAttrMaxBlocksPerMultiprocessor = 106,
  kAttrReservedSharedMemoryPerBlock = 111,
  kAttrClusterLaunch = 120,
};

// The attribute's value, or nullopt when `attribute` is not a
// cudaDeviceAttr of CUDA `major` (the call then fails with
// cudaErrorInvalidValue, as the real runtime's does).
std::optional<int> device_attribute(const GpuConfig& gpu, int attribute, int major);

}  // namespace warpsim::cudart
