#pragma once
// The memory-pool part of the CUDA runtime ABI (stream-ordered allocation),
// per CUDA major, in addition to cuda_abi.h (which has cudaMemPool_t,
// cudaMemLocation and cudaMemLocationType): enumerator values and the
// layouts of cudaMemPoolProps and cudaMemAccessDesc, from driver_types.h of
// CUDA 11.8 and 13.0 and the 12.x layouts (docs/runtime-shim.md). The
// layouts are checked by tests/libcudart_shim/abi_layout_test.cpp (11, 13)
// and abi_layout_cuda12.cpp (12). Never include NVIDIA's headers here.
#include "libcudart_shim/cuda_abi.h"

enum cudaMemPoolAttr : int {
  cudaMemPoolReuseFollowEventDependencies = 0x1,
  cudaMemPoolReuseAllowOpportunistic = 0x2,
  cudaMemPoolReuseAllowInternalDependencies = 0x3,
  cudaMemPoolAttrReleaseThreshold = 0x4,
  cudaMemPoolAttrReservedMemCurrent = 0x5,
  cudaMemPoolAttrReservedMemHigh = 0x6,
  cudaMemPoolAttrUsedMemCurrent = 0x7,
  cudaMemPoolAttrUsedMemHigh = 0x8,
};

enum cudaMemAllocationType : int {
  cudaMemAllocationTypeInvalid = 0x0,
  cudaMemAllocationTypePinned = 0x1,
  cudaMemAllocationTypeManaged = 0x2,  // CUDA 13 (managed pools); invalid before
  cudaMemAllocationTypeMax = 0x7FFFFFFF,
};

enum cudaMemAllocationHandleType : int {
  cudaMemHandleTypeNone = 0x0,
  cudaMemHandleTypePosixFileDescriptor = 0x1,
  cudaMemHandleTypeWin32 = 0x2,
  cudaMemHandleTypeWin32Kmt = 0x4,
  cudaMemHandleTypeFabric = 0x8,  // CUDA 12.4+
};

enum cudaMemAccessFlags : int {
  cudaMemAccessFlagsProtNone = 0,
  cudaMemAccessFlagsProtRead = 1,
  cudaMemAccessFlagsProtReadWrite = 3,
};

struct cudaMemAccessDesc {
  cudaMemLocation location;
  cudaMemAccessFlags flags;
};

// 88 bytes in every major. 11.x: reserved[64] after the security
// attributes; 12.2 added maxSize, a later 12.x and 13.0 `usage`.
struct cudaMemPoolProps {
  cudaMemAllocationType allocType;
  cudaMemAllocationHandleType handleTypes;
  cudaMemLocation location;
  void* win32SecurityAttributes;
#if WARPSIM_CUDA_MAJOR >= 12
  size_t maxSize;
  unsigned short usage;
  unsigned char reserved[54];
#else
  unsigned char reserved[64];
#endif
};
