// graph_compat.h - the graph and capture calls whose signatures differ between CUDA 11, 12 and
// 13, as functions of one signature, so that the graph test programs build with every nvcc
// (tests/cuda/README.md): CUDA 13 added edge data to the edge queries, CUDA 12 changed
// cudaGraphInstantiate and cudaGraphExecUpdate, CUDA 11 names the full capture query _v2.
#pragma once

#include <cuda_runtime.h>

#if CUDART_VERSION >= 13000
#define GRAPH_EDGE_DATA nullptr,
#else
#define GRAPH_EDGE_DATA
#endif

inline cudaError_t graph_edges(cudaGraph_t g, cudaGraphNode_t* from, cudaGraphNode_t* to,
                               size_t* count) {
  return cudaGraphGetEdges(g, from, to, GRAPH_EDGE_DATA count);
}
inline cudaError_t node_dependencies(cudaGraphNode_t n, cudaGraphNode_t* out, size_t* count) {
  return cudaGraphNodeGetDependencies(n, out, GRAPH_EDGE_DATA count);
}
inline cudaError_t node_dependents(cudaGraphNode_t n, cudaGraphNode_t* out, size_t* count) {
  return cudaGraphNodeGetDependentNodes(n, out, GRAPH_EDGE_DATA count);
}
inline cudaError_t add_edges(cudaGraph_t g, const cudaGraphNode_t* from,
                             const cudaGraphNode_t* to, size_t n) {
  return cudaGraphAddDependencies(g, from, to, GRAPH_EDGE_DATA n);
}
inline cudaError_t remove_edges(cudaGraph_t g, const cudaGraphNode_t* from,
                                const cudaGraphNode_t* to, size_t n) {
  return cudaGraphRemoveDependencies(g, from, to, GRAPH_EDGE_DATA n);
}

// cudaGraphInstantiate as each major declares it (no flags).
inline cudaError_t instantiate(cudaGraphExec_t* exec, cudaGraph_t g) {
#if CUDART_VERSION >= 12000
  return cudaGraphInstantiate(exec, g, 0);
#else
  return cudaGraphInstantiate(exec, g, nullptr, nullptr, 0);
#endif
}

// cudaGraphExecUpdate: the result and the node that prevented the update.
inline cudaError_t exec_update(cudaGraphExec_t exec, cudaGraph_t g,
                               cudaGraphExecUpdateResult* result, cudaGraphNode_t* error_node) {
#if CUDART_VERSION >= 12000
  cudaGraphExecUpdateResultInfo info = {};
  cudaError_t e = cudaGraphExecUpdate(exec, g, &info);
  *result = info.result;
  *error_node = info.errorNode;
  return e;
#else
  return cudaGraphExecUpdate(exec, g, error_node, result);
#endif
}

inline cudaError_t capture_info(cudaStream_t s, cudaStreamCaptureStatus* status,
                                unsigned long long* id, cudaGraph_t* graph,
                                const cudaGraphNode_t** deps, size_t* count) {
#if CUDART_VERSION >= 13000
  return cudaStreamGetCaptureInfo(s, status, id, graph, deps, nullptr, count);
#elif CUDART_VERSION >= 12000
  return cudaStreamGetCaptureInfo(s, status, id, graph, deps, count);
#else
  return cudaStreamGetCaptureInfo_v2(s, status, id, graph, deps, count);
#endif
}

inline cudaError_t update_capture_dependencies(cudaStream_t s, cudaGraphNode_t* nodes, size_t n,
                                               unsigned flags) {
  return cudaStreamUpdateCaptureDependencies(s, nodes, GRAPH_EDGE_DATA n, flags);
}
