#pragma once
// The graph ABI records that CUDA 12 introduced (cuda_abi_graph.h has the
// rest): edge data, instantiation parameters, update results and the
// generic node parameters of cudaGraphAddNode (12.2+). Layouts are those of
// the CUDA 12 / 13 headers; checked by tests/libcudart_shim/abi_layout_test.
#include "libcudart_shim/cuda_abi_graph.h"

struct cudaGraphEdgeData_st {
  unsigned char from_port;
  unsigned char to_port;
  unsigned char type;
  unsigned char reserved[5];
};
typedef cudaGraphEdgeData_st cudaGraphEdgeData;
static_assert(sizeof(cudaGraphEdgeData) == 8);

struct cudaGraphExecUpdateResultInfo_st {
  cudaGraphExecUpdateResult result;
  cudaGraphNode_t errorNode;
  cudaGraphNode_t errorFromNode;
};
typedef cudaGraphExecUpdateResultInfo_st cudaGraphExecUpdateResultInfo;

struct cudaGraphInstantiateParams_st {
  unsigned long long flags;
  cudaStream_t uploadStream;
  cudaGraphNode_t errNode_out;
  int result_out;  // cudaGraphInstantiateResult
};
typedef cudaGraphInstantiateParams_st cudaGraphInstantiateParams;
enum : int {
  cudaGraphInstantiateSuccess = 0,
  cudaGraphInstantiateError = 1,
  cudaGraphInstantiateInvalidStructure = 2,
  cudaGraphInstantiateNodeOperationNotSupported = 3,
};

// cudaGraphAddNode's generic parameters; the V2 node structs have the
// layouts of the plain ones.
struct cudaMemcpyNodeParams {
  int flags;
  int reserved[3];
  cudaMemcpy3DParms copyParams;
};
struct cudaChildGraphNodeParams {
  cudaGraph_t graph;
#if WARPSIM_CUDA_MAJOR >= 13
  int ownership;  // cudaGraphChildGraphNodeOwnership: 0 clone, 1 move
#endif
};
struct cudaEventRecordNodeParams {
  cudaEvent_t event;
};
struct cudaEventWaitNodeParams {
  cudaEvent_t event;
};
struct cudaMemAllocNodeParamsV2 {
  cudaMemPoolProps poolProps;
  const cudaMemAccessDesc* accessDescs;
  size_t accessDescCount;
  size_t bytesize;
  void* dptr;
};
struct cudaMemFreeNodeParams {
  void* dptr;
};
struct cudaGraphNodeParams {
  cudaGraphNodeType type;
  int reserved0[3];
  union {
    long long reserved1[29];
    cudaKernelNodeParams kernel;
    cudaMemcpyNodeParams memcpy;
    cudaMemsetParams memset;
    cudaHostNodeParams host;
    cudaChildGraphNodeParams graph;
    cudaEventWaitNodeParams eventWait;
    cudaEventRecordNodeParams eventRecord;
    cudaMemAllocNodeParamsV2 alloc;
    cudaMemFreeNodeParams free;
  };
  long long reserved2;
};
static_assert(sizeof(cudaGraphNodeParams) == 256);
