// The CUDA 12 layouts of cuda_abi.h, pinned at compile time. No CUDA 12
// toolkit can be installed on warpsim's machines, so these sizes and offsets
// are the documented 12.x (12.8/12.9) ones: x86-64 offsets of the 12.x
// headers' cudaDeviceProp and friends as recorded in docs/runtime-shim.md
// ("How the CUDA 12 ABI was checked"). The 11 and 13 layouts are checked
// against real headers by abi_layout_test.cpp.
#define WARPSIM_CUDA_MAJOR 12
#include <cstddef>

#include "libcudart_shim/cuda_abi.h"

static_assert(sizeof(cudaDeviceProp) == 1032);
static_assert(offsetof(cudaDeviceProp, totalGlobalMem) == 288);
static_assert(offsetof(cudaDeviceProp, clockRate) == 348);
static_assert(offsetof(cudaDeviceProp, totalConstMem) == 352);
static_assert(offsetof(cudaDeviceProp, major) == 360);
static_assert(offsetof(cudaDeviceProp, deviceOverlap) == 384);
static_assert(offsetof(cudaDeviceProp, multiProcessorCount) == 388);
static_assert(offsetof(cudaDeviceProp, maxTexture1DLinear) == 416);
static_assert(offsetof(cudaDeviceProp, surfaceAlignment) == 568);
static_assert(offsetof(cudaDeviceProp, memoryClockRate) == 608);
static_assert(offsetof(cudaDeviceProp, sharedMemPerMultiprocessor) == 640);
static_assert(offsetof(cudaDeviceProp, singleToDoublePrecisionPerfRatio) == 668);
static_assert(offsetof(cudaDeviceProp, cooperativeMultiDeviceLaunch) == 692);
static_assert(offsetof(cudaDeviceProp, sharedMemPerBlockOptin) == 696);
static_assert(offsetof(cudaDeviceProp, reservedSharedMemPerBlock) == 720);
// The 11.x struct ends here: the plain cudaGetDeviceProperties symbol fills this prefix.
static_assert(offsetof(cudaDeviceProp, hostRegisterSupported) == 728);
static_assert(offsetof(cudaDeviceProp, unifiedFunctionPointers) == 776);
static_assert(offsetof(cudaDeviceProp, reserved) == 780);

static_assert(sizeof(cudaPointerAttributes) == 24);
static_assert(sizeof(cudaResourceDesc) == 64);
static_assert(sizeof(cudaResourceViewDesc) == 48);
static_assert(sizeof(cudaFuncAttributes) == 144);
static_assert(sizeof(cudaTextureDesc) == 72);
static_assert(sizeof(cudaLaunchAttributeValue) == 64);
static_assert(sizeof(cudaLaunchAttribute) == 72);
static_assert(sizeof(cudaLaunchConfig_t) == 56);
static_assert(sizeof(cudaMemcpy3DParms) == 160);
static_assert(sizeof(cudaMemLocation) == 8);

// Memory pools (cuda_abi_pool.h): the 12.2+ cudaMemPoolProps with maxSize
// and usage in what 11.x and 12.0 kept as reserved bytes.
#include "libcudart_shim/cuda_abi_pool.h"
static_assert(sizeof(cudaMemPoolProps) == 88);
static_assert(offsetof(cudaMemPoolProps, location) == 8);
static_assert(offsetof(cudaMemPoolProps, win32SecurityAttributes) == 16);
static_assert(offsetof(cudaMemPoolProps, maxSize) == 24);
static_assert(offsetof(cudaMemPoolProps, usage) == 32);
static_assert(offsetof(cudaMemPoolProps, reserved) == 34);
static_assert(sizeof(cudaMemAccessDesc) == 12);
