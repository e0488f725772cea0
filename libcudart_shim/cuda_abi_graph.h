#pragma once
// The graph and stream-capture part of the runtime ABI (cuda_abi.h has the
// rest): handles, node parameter structs, enumerations. Layouts are those of
// the CUDA 11.8 / 12 / 13 headers (driver_types.h); sizes checked below.
#include "libcudart_shim/cuda_abi.h"
#include "libcudart_shim/cuda_abi_pool.h"

typedef struct CUgraph_st* cudaGraph_t;
typedef struct CUgraphNode_st* cudaGraphNode_t;
typedef struct CUgraphExec_st* cudaGraphExec_t;

enum cudaGraphNodeType : int {
  cudaGraphNodeTypeKernel = 0,
  cudaGraphNodeTypeMemcpy = 1,
  cudaGraphNodeTypeMemset = 2,
  cudaGraphNodeTypeHost = 3,
  cudaGraphNodeTypeGraph = 4,
  cudaGraphNodeTypeEmpty = 5,
  cudaGraphNodeTypeWaitEvent = 6,
  cudaGraphNodeTypeEventRecord = 7,
  cudaGraphNodeTypeMemAlloc = 10,
  cudaGraphNodeTypeMemFree = 11,
};

enum cudaGraphMemAttributeType : int {
  cudaGraphMemAttrUsedMemCurrent = 0,
  cudaGraphMemAttrUsedMemHigh = 1,
  cudaGraphMemAttrReservedMemCurrent = 2,
  cudaGraphMemAttrReservedMemHigh = 3,
};

enum cudaGraphExecUpdateResult : int {
  cudaGraphExecUpdateSuccess = 0,
  cudaGraphExecUpdateError = 1,
};

struct cudaKernelNodeParams {
  void* func;
  dim3 gridDim;
  dim3 blockDim;
  unsigned int sharedMemBytes;
  void** kernelParams;
  void** extra;
};
static_assert(sizeof(cudaKernelNodeParams) == 56);

struct cudaMemsetParams {
  void* dst;
  size_t pitch;
  unsigned int value;
  unsigned int elementSize;
  size_t width;
  size_t height;
};
static_assert(sizeof(cudaMemsetParams) == 40);

struct cudaHostNodeParams {
  cudaHostFn_t fn;
  void* userData;
};

// CUDA 11.4+: a graph allocation node's parameters (dptr is an output).
struct cudaMemAllocNodeParams {
  cudaMemPoolProps poolProps;
  const cudaMemAccessDesc* accessDescs;
  size_t accessDescCount;
  size_t bytesize;
  void* dptr;
};
static_assert(sizeof(cudaMemAllocNodeParams) == 120);

// Edge data (CUDA 12.3+) is 8 bytes per edge whose first three (from_port,
// to_port, type) are zero for a full dependency, the only kind warpsim
// models; every major's entry points check it through this.
inline bool warpsim_default_edges(const void* data, size_t count) {
  const auto* b = static_cast<const unsigned char*>(data);
  for (size_t i = 0; data != nullptr && i < count; ++i)
    if ((b[8 * i] | b[8 * i + 1] | b[8 * i + 2]) != 0) return false;
  return true;
}

#if WARPSIM_CUDA_MAJOR >= 12
#include "libcudart_shim/cuda_abi_graph12.h"
#endif
