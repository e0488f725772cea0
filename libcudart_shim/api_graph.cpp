// Entry points: CUDA graphs - construction, queries, instantiation, update
// and launch (graph.h, runtime_graph.cpp). Handles are the core's objects:
// cudaGraph_t is a Graph*, cudaGraphNode_t a GraphNode*, cudaGraphExec_t a
// GraphExec*; every handle is checked against the runtime's GraphTable.
#include <cstdio>
#include <cstring>

#include "libcudart_shim/api.h"
#include "libcudart_shim/cuda_abi_graph.h"

using namespace warpsim::cudart;
using warpsim::cudart::api::entry;
using warpsim::cudart::api::from_parms;
using warpsim::cudart::api::kContext;
using warpsim::cudart::api::to_dim3;

namespace {

Graph* graph_of(Runtime& r, cudaGraph_t g) {
  auto* p = reinterpret_cast<Graph*>(g);
  return p != nullptr && r.graphs().live(p) ? p : nullptr;
}
GraphNode* node_of(Runtime& r, cudaGraphNode_t n) { return r.graphs().node(n); }
GraphNode* node_of(Runtime& r, cudaGraphNode_t n, NodeType type) {
  GraphNode* p = r.graphs().node(n);
  return p != nullptr && p->type == type ? p : nullptr;
}
cudaGraphNode_t handle(const GraphNode* n) {
  return reinterpret_cast<cudaGraphNode_t>(const_cast<GraphNode*>(n));
}

// Runs `f` on a live node of `type` (else cudaErrorInvalidValue).
template <typename F>
cudaError_t with_node(cudaGraphNode_t node, NodeType type, F&& f) {
  return entry(kContext, [&](Runtime& r) {
    GraphNode* n = node_of(r, node, type);
    return n == nullptr ? Error::InvalidValue : f(r, *n);
  });
}

// Fills a caller's array of `*count` entries (or reports the size when the
// array is null), as every graph query does.
template <typename T, typename F>
Error fill(T* out, size_t* count, size_t actual, F&& at) {
  if (count == nullptr) return Error::InvalidValue;
  if (out == nullptr) {
    *count = actual;
    return Error::Success;
  }
  for (size_t i = 0; i < *count; ++i) out[i] = i < actual ? at(i) : T{};
  *count = std::min(*count, actual);
  return Error::Success;
}

// Adds a node of `type` to `graph` after `deps`; `set` fills its parameters
// and may refuse them. The node is only kept when `set` succeeds.
template <typename F>
cudaError_t add_node(cudaGraphNode_t* out, cudaGraph_t graph, const cudaGraphNode_t* deps,
                     size_t count, NodeType type, F&& set) {
  return entry(kContext, [&](Runtime& r) {
    Graph* g = graph_of(r, graph);
    if (out == nullptr || g == nullptr || (count != 0 && deps == nullptr))
      return Error::InvalidValue;
    std::vector<GraphNode*> ds;
    for (size_t i = 0; i < count; ++i) {
      GraphNode* d = node_of(r, deps[i]);
      if (d == nullptr) return Error::InvalidValue;
      ds.push_back(d);
    }
    GraphNode tmp;
    if (Error e = set(r, tmp); e != Error::Success) return e;
    GraphNode* n = nullptr;
    if (Error e = g->add(type, ds, &n); e != Error::Success) return e;
    n->kernel = std::move(tmp.kernel);
    n->kernel.rebuild_pointers();
    n->copy = tmp.copy;
    n->memset = tmp.memset;
    n->host = tmp.host;
    n->event = tmp.event;
    n->child = std::move(tmp.child);
    n->alloc = std::move(tmp.alloc);
    n->free_address = tmp.free_address;
    r.graphs().added(n);
    *out = handle(n);
    return Error::Success;
  });
}

Error kernel_params(Runtime& r, const cudaKernelNodeParams* p, KernelParams* out) {
  if (p == nullptr) return Error::InvalidValue;
  return r.kernel_node_params(p->func, to_dim3(p->gridDim), to_dim3(p->blockDim),
                              p->sharedMemBytes, p->kernelParams, p->extra, out);
}

Error copy_params(Runtime& r, const cudaMemcpy3DParms* p, Copy3D* out) {
  if (p == nullptr) return Error::InvalidValue;
  Error e = Error::Success;
  *out = from_parms(*p, r, e);
  return e;
}

Error linear_params(void* dst, const void* src, size_t count, int kind, Copy3D* out) {
  if (dst == nullptr || src == nullptr || count == 0) return Error::InvalidValue;
  if (kind < 0 || kind > 4) return Error::InvalidMemcpyDirection;
  *out = linear_copy(dst, src, count, kind);
  return Error::Success;
}

// A copy to or from a __device__ variable: its address plus `offset`.
Error symbol_params(Runtime& r, const void* symbol, size_t count, size_t offset, void** address) {
  uint64_t size = 0;
  if (Error e = r.symbol_size(&size, symbol); e != Error::Success) return e;
  if (offset > size || count > size - offset) return Error::InvalidValue;
  void* base = nullptr;
  if (Error e = r.symbol_address(&base, symbol); e != Error::Success) return e;
  *address = static_cast<char*>(base) + offset;
  return Error::Success;
}

Error memset_params(Runtime& r, const cudaMemsetParams* p, MemsetParams* out) {
  if (p == nullptr || p->dst == nullptr) return Error::InvalidValue;
  if (p->elementSize != 1 && p->elementSize != 2 && p->elementSize != 4) return Error::InvalidValue;
  if (p->width == 0 || p->height == 0) return Error::InvalidValue;
  const uint64_t row = uint64_t{p->width} * p->elementSize;
  if (p->height > 1 && p->pitch < row) return Error::InvalidValue;
  // The whole region must be device memory.
  warpsim::functional::Fault f;
  const uint64_t extent = (p->height - 1) * p->pitch + row;
  if (r.device().memory().host_pointer(reinterpret_cast<uintptr_t>(p->dst), extent, f) == nullptr)
    return Error::InvalidValue;
  *out = MemsetParams{p->dst, p->pitch, p->value, p->elementSize, p->width, p->height};
  return Error::Success;
}

Error host_params(const cudaHostNodeParams* p, HostParams* out) {
  if (p == nullptr || p->fn == nullptr) return Error::InvalidValue;
  *out = HostParams{p->fn, p->userData};
  return Error::Success;
}

Error event_param(Runtime& r, cudaEvent_t event, const void** out) {
  if (r.streams().event(event) == nullptr) return Error::InvalidResourceHandle;
  *out = event;
  return Error::Success;
}

Error child_param(Runtime& r, cudaGraph_t child, std::unique_ptr<Graph>* out) {
  Graph* g = graph_of(r, child);
  if (g == nullptr) return Error::InvalidValue;
  if (g->has_memory_nodes()) return Error::NotSupported;  // not in child graphs
  *out = g->clone();
  return Error::Success;
}

// A graph allocation: pinned device memory of device 0, readable and
// writable by it (the only device); the address goes back in *dptr.
Error alloc_params(Runtime& r, const cudaMemPoolProps& props, const cudaMemAccessDesc* access,
                   size_t access_count, size_t bytes, void** dptr, GraphNode& n) {
  // Measured on an H100: host memory is not supported, any other location
  // that is not device 0 is an invalid argument.
  if (props.allocType != cudaMemAllocationTypePinned) return Error::InvalidValue;
  if (props.location.type == cudaMemLocationTypeHost) return Error::NotSupported;
  if (props.location.type != cudaMemLocationTypeDevice) return Error::InvalidValue;
  if (props.location.id != 0) return Error::InvalidValue;
  if (access_count != 0 && access == nullptr) return Error::InvalidValue;
  for (size_t i = 0; i < access_count; ++i) {
    if (access[i].location.type != cudaMemLocationTypeDevice) return Error::InvalidValue;
    if (access[i].location.id != 0) return Error::InvalidDevice;
    if (access[i].flags != cudaMemAccessFlagsProtReadWrite) return Error::InvalidValue;
  }
  if (Error e = r.graph_memory_allocate(bytes, &n.alloc); e != Error::Success) return e;
  *dptr = reinterpret_cast<void*>(n.alloc->address);
  return Error::Success;
}

Error free_param(Runtime& r, void* dptr, GraphNode& n) {
  if (r.graph_allocation(reinterpret_cast<uintptr_t>(dptr)) == nullptr) return Error::InvalidValue;
  n.free_address = reinterpret_cast<uintptr_t>(dptr);
  return Error::Success;
}

// cudaMemcpy3DParms of a memcpy node (the inverse of from_parms).
cudaMemcpy3DParms to_parms(Runtime& r, const Copy3D& c) {
  cudaMemcpy3DParms p{};
  uint64_t elem = 1;
  for (uint64_t a : {c.src.array, c.dst.array})
    if (a != 0)
      if (const auto* info = r.array(a)) elem = info->desc.format.bytes();
  auto side = [&](const PitchedRegion& reg, cudaArray_t* array, cudaPos* pos,
                  cudaPitchedPtr* ptr) {
    if (reg.array != 0) {
      *array = reinterpret_cast<cudaArray_t>(reg.array);
      *pos = cudaPos{reg.x / elem, reg.y, reg.z};
    } else {
      *ptr = cudaPitchedPtr{const_cast<void*>(reg.ptr), reg.pitch, c.width, reg.rows};
      *pos = cudaPos{reg.x, reg.y, reg.z};
    }
  };
  side(c.src, &p.srcArray, &p.srcPos, &p.srcPtr);
  side(c.dst, &p.dstArray, &p.dstPos, &p.dstPtr);
  const bool arrays = c.src.array != 0 || c.dst.array != 0;
  p.extent = cudaExtent{arrays ? c.width / elem : c.width, c.height, c.depth};
  p.kind = static_cast<cudaMemcpyKind>(c.kind);
  return p;
}

// A node of an instantiated graph, named by the node of the graph it was
// instantiated from, and of the wanted type.
template <typename F>
cudaError_t exec_node_set(cudaGraphExec_t exec, cudaGraphNode_t node, NodeType type, F&& set) {
  return entry(kContext, [&](Runtime& r) {
    GraphExec* x = r.graphs().exec(exec);
    GraphNode* original = node_of(r, node);
    if (x == nullptr || original == nullptr) return Error::InvalidValue;
    GraphNode* n = x->node_for(original);
    if (n == nullptr || n->type != type) return Error::InvalidValue;
    return set(r, *n);
  });
}

// cudaGraphAddDependencies / RemoveDependencies, with or without edge data.
cudaError_t edges(cudaGraph_t graph, const cudaGraphNode_t* from, const cudaGraphNode_t* to,
                  const void* data, size_t count, bool add) {
  return entry(kContext, [&](Runtime& r) {
    Graph* g = graph_of(r, graph);
    if (g == nullptr || (count != 0 && (from == nullptr || to == nullptr)))
      return Error::InvalidValue;
    if (!warpsim_default_edges(data, count)) return Error::NotSupported;  // programmatic edges
    std::vector<GraphNode*> f, t;
    for (size_t i = 0; i < count; ++i) {
      GraphNode* a = node_of(r, from[i]);
      GraphNode* b = node_of(r, to[i]);
      if (a == nullptr || b == nullptr) return Error::InvalidValue;
      f.push_back(a);
      t.push_back(b);
    }
    return add ? g->add_edges(f, t) : g->remove_edges(f, t);
  });
}

// Edge data out: 8 zero bytes per edge (a full dependency).
void clear_edge_data(void* data, size_t count) {
  if (data != nullptr) std::memset(data, 0, 8 * count);
}

cudaError_t get_edges(cudaGraph_t graph, cudaGraphNode_t* from, cudaGraphNode_t* to, void* data,
                      size_t* count) {
  return entry(kContext, [&](Runtime& r) {
    Graph* g = graph_of(r, graph);
    if (g == nullptr || count == nullptr || ((from == nullptr) != (to == nullptr)))
      return Error::InvalidValue;
    std::vector<std::pair<const GraphNode*, const GraphNode*>> all;
    for (const auto& n : g->nodes())
      for (const GraphNode* d : n->deps) all.emplace_back(d, n.get());
    if (from == nullptr) {
      *count = all.size();
      return Error::Success;
    }
    for (size_t i = 0; i < *count; ++i) {
      from[i] = i < all.size() ? handle(all[i].first) : nullptr;
      to[i] = i < all.size() ? handle(all[i].second) : nullptr;
    }
    clear_edge_data(data, *count);
    *count = std::min(*count, all.size());
    return Error::Success;
  });
}

cudaError_t node_links(cudaGraphNode_t node, cudaGraphNode_t* out, void* data, size_t* count,
                       bool dependencies) {
  return entry(kContext, [&](Runtime& r) {
    GraphNode* n = node_of(r, node);
    if (n == nullptr) return Error::InvalidValue;
    const auto& v = dependencies ? n->deps : n->dependents;
    if (out != nullptr && count != nullptr) clear_edge_data(data, *count);
    return fill(out, count, v.size(), [&](size_t i) { return handle(v[i]); });
  });
}

Error instantiate_into(Runtime& r, cudaGraphExec_t* exec, cudaGraph_t graph,
                       unsigned long long flags, cudaGraphNode_t* error_node) {
  Graph* g = graph_of(r, graph);
  if (exec == nullptr || g == nullptr) return Error::InvalidValue;
  GraphExec* x = nullptr;
  GraphNode* bad = nullptr;
  Error e = r.instantiate(&x, *g, flags, &bad);
  if (error_node) *error_node = handle(bad);
  if (e == Error::Success) *exec = reinterpret_cast<cudaGraphExec_t>(x);
  return e;
}

cudaError_t graph_launch(cudaGraphExec_t exec, cudaStream_t stream, bool pt) {
  return entry(kContext, [&](Runtime& r) {
    GraphExec* x = r.graphs().exec(exec);
    if (x == nullptr) return Error::InvalidValue;
    return r.launch_graph(*x, stream, pt);
  });
}

cudaError_t graph_upload(cudaGraphExec_t exec, cudaStream_t stream, bool pt) {
  // Uploading prepares device resources ahead of a launch: nothing to do.
  return entry(kContext, [&](Runtime& r) {
    if (r.graphs().exec(exec) == nullptr) return Error::InvalidValue;
    return r.stream(stream, pt) ? Error::Success : Error::InvalidResourceHandle;
  });
}

// cudaGraphExecUpdate of every major: the result, the node that prevented it.
Error exec_update(Runtime& r, cudaGraphExec_t exec, cudaGraph_t graph, int* result,
                  cudaGraphNode_t* error_node) {
  GraphExec* x = r.graphs().exec(exec);
  Graph* g = graph_of(r, graph);
  if (x == nullptr || g == nullptr) return Error::InvalidValue;
  const GraphNode* bad = nullptr;
  const UpdateResult u = x->update(*g, &bad);
  if (result) *result = static_cast<int>(u);
  if (error_node) *error_node = handle(bad);
  return u == UpdateResult::Success ? Error::Success : Error::GraphExecUpdateFailure;
}

#if WARPSIM_CUDA_MAJOR >= 12
// cudaGraphAddNode / cudaGraphNodeSetParams / cudaGraphExecNodeSetParams:
// the generic parameters, converted into `n` (which has `p->type`).
Error generic_params(Runtime& r, cudaGraphNodeParams* p, GraphNode& n) {
  switch (p->type) {
    case cudaGraphNodeTypeKernel: return kernel_params(r, &p->kernel, &n.kernel);
    case cudaGraphNodeTypeMemcpy: return copy_params(r, &p->memcpy.copyParams, &n.copy);
    case cudaGraphNodeTypeMemset: return memset_params(r, &p->memset, &n.memset);
    case cudaGraphNodeTypeHost: return host_params(&p->host, &n.host);
    case cudaGraphNodeTypeGraph:
#if WARPSIM_CUDA_MAJOR >= 13
      if (p->graph.ownership != 0) return Error::NotSupported;  // moving a graph in
#endif
      return child_param(r, p->graph.graph, &n.child);
    case cudaGraphNodeTypeEmpty: return Error::Success;
    case cudaGraphNodeTypeWaitEvent: return event_param(r, p->eventWait.event, &n.event);
    case cudaGraphNodeTypeEventRecord: return event_param(r, p->eventRecord.event, &n.event);
    case cudaGraphNodeTypeMemAlloc:
      return alloc_params(r, p->alloc.poolProps, p->alloc.accessDescs, p->alloc.accessDescCount,
                          p->alloc.bytesize, &p->alloc.dptr, n);
    case cudaGraphNodeTypeMemFree: return free_param(r, p->free.dptr, n);
  }
  return Error::NotSupported;  // allocation, semaphore and conditional nodes
}

cudaError_t add_generic(cudaGraphNode_t* out, cudaGraph_t graph, const cudaGraphNode_t* deps,
                        const cudaGraphEdgeData* data, size_t count, cudaGraphNodeParams* p) {
  if (p == nullptr) return entry(kContext, [](Runtime&) { return Error::InvalidValue; });
  if (!warpsim_default_edges(data, count))
    return entry(kContext, [](Runtime&) { return Error::NotSupported; });
  return add_node(out, graph, deps, count, static_cast<NodeType>(p->type),
                  [&](Runtime& r, GraphNode& n) { return generic_params(r, p, n); });
}
#endif

}  // namespace

extern "C" {

// ---- graphs and nodes ----------------------------------------------------------------------

cudaError_t cudaGraphCreate(cudaGraph_t* graph, unsigned flags) {
  return entry(kContext, [&](Runtime& r) {
    if (graph == nullptr || flags != 0) return Error::InvalidValue;
    *graph = reinterpret_cast<cudaGraph_t>(r.graphs().create());
    return Error::Success;
  });
}

cudaError_t cudaGraphDestroy(cudaGraph_t graph) {
  return entry(kContext, [&](Runtime& r) {
    return r.graphs().destroy(reinterpret_cast<Graph*>(graph)) ? Error::Success
                                                               : Error::InvalidValue;
  });
}

cudaError_t cudaGraphClone(cudaGraph_t* clone, cudaGraph_t original) {
  return entry(kContext, [&](Runtime& r) {
    Graph* g = graph_of(r, original);
    if (clone == nullptr || g == nullptr) return Error::InvalidValue;
    *clone = reinterpret_cast<cudaGraph_t>(r.graphs().adopt(g->clone()));
    return Error::Success;
  });
}

cudaError_t cudaGraphNodeFindInClone(cudaGraphNode_t* node, cudaGraphNode_t original,
                                     cudaGraph_t clone) {
  return entry(kContext, [&](Runtime& r) {
    Graph* g = graph_of(r, clone);
    GraphNode* o = node_of(r, original);
    if (node == nullptr || g == nullptr || o == nullptr) return Error::InvalidValue;
    GraphNode* n = g->find_clone_of(o);
    if (n == nullptr) return Error::InvalidValue;
    *node = handle(n);
    return Error::Success;
  });
}

cudaError_t cudaGraphAddKernelNode(cudaGraphNode_t* node, cudaGraph_t graph,
                                   const cudaGraphNode_t* deps, size_t count,
                                   const cudaKernelNodeParams* params) {
  return add_node(node, graph, deps, count, NodeType::Kernel, [&](Runtime& r, GraphNode& n) {
    return kernel_params(r, params, &n.kernel);
  });
}

cudaError_t cudaGraphAddMemcpyNode(cudaGraphNode_t* node, cudaGraph_t graph,
                                   const cudaGraphNode_t* deps, size_t count,
                                   const cudaMemcpy3DParms* params) {
  return add_node(node, graph, deps, count, NodeType::Memcpy, [&](Runtime& r, GraphNode& n) {
    return copy_params(r, params, &n.copy);
  });
}

cudaError_t cudaGraphAddMemcpyNode1D(cudaGraphNode_t* node, cudaGraph_t graph,
                                     const cudaGraphNode_t* deps, size_t count, void* dst,
                                     const void* src, size_t bytes, cudaMemcpyKind kind) {
  return add_node(node, graph, deps, count, NodeType::Memcpy, [&](Runtime&, GraphNode& n) {
    return linear_params(dst, src, bytes, kind, &n.copy);
  });
}

cudaError_t cudaGraphAddMemcpyNodeToSymbol(cudaGraphNode_t* node, cudaGraph_t graph,
                                           const cudaGraphNode_t* deps, size_t count,
                                           const void* symbol, const void* src, size_t bytes,
                                           size_t offset, cudaMemcpyKind kind) {
  return add_node(node, graph, deps, count, NodeType::Memcpy, [&](Runtime& r, GraphNode& n) {
    if (kind != cudaMemcpyHostToDevice && kind != cudaMemcpyDeviceToDevice &&
        kind != cudaMemcpyDefault)
      return Error::InvalidMemcpyDirection;
    void* dst = nullptr;
    if (Error e = symbol_params(r, symbol, bytes, offset, &dst); e != Error::Success) return e;
    return linear_params(dst, src, bytes, kind, &n.copy);
  });
}

cudaError_t cudaGraphAddMemcpyNodeFromSymbol(cudaGraphNode_t* node, cudaGraph_t graph,
                                             const cudaGraphNode_t* deps, size_t count,
                                             void* dst, const void* symbol, size_t bytes,
                                             size_t offset, cudaMemcpyKind kind) {
  return add_node(node, graph, deps, count, NodeType::Memcpy, [&](Runtime& r, GraphNode& n) {
    if (kind != cudaMemcpyDeviceToHost && kind != cudaMemcpyDeviceToDevice &&
        kind != cudaMemcpyDefault)
      return Error::InvalidMemcpyDirection;
    void* src = nullptr;
    if (Error e = symbol_params(r, symbol, bytes, offset, &src); e != Error::Success) return e;
    return linear_params(dst, src, bytes, kind, &n.copy);
  });
}

cudaError_t cudaGraphAddMemsetNode(cudaGraphNode_t* node, cudaGraph_t graph,
                                   const cudaGraphNode_t* deps, size_t count,
                                   const cudaMemsetParams* params) {
  return add_node(node, graph, deps, count, NodeType::Memset, [&](Runtime& r, GraphNode& n) {
    return memset_params(r, params, &n.memset);
  });
}

cudaError_t cudaGraphAddHostNode(cudaGraphNode_t* node, cudaGraph_t graph,
                                 const cudaGraphNode_t* deps, size_t count,
                                 const cudaHostNodeParams* params) {
  return add_node(node, graph, deps, count, NodeType::Host,
                  [&](Runtime&, GraphNode& n) { return host_params(params, &n.host); });
}

cudaError_t cudaGraphAddChildGraphNode(cudaGraphNode_t* node, cudaGraph_t graph,
                                       const cudaGraphNode_t* deps, size_t count,
                                       cudaGraph_t child) {
  return add_node(node, graph, deps, count, NodeType::Graph, [&](Runtime& r, GraphNode& n) {
    return child_param(r, child, &n.child);
  });
}

cudaError_t cudaGraphAddEmptyNode(cudaGraphNode_t* node, cudaGraph_t graph,
                                  const cudaGraphNode_t* deps, size_t count) {
  return add_node(node, graph, deps, count, NodeType::Empty,
                  [](Runtime&, GraphNode&) { return Error::Success; });
}

cudaError_t cudaGraphAddEventRecordNode(cudaGraphNode_t* node, cudaGraph_t graph,
                                        const cudaGraphNode_t* deps, size_t count,
                                        cudaEvent_t event) {
  return add_node(node, graph, deps, count, NodeType::EventRecord,
                  [&](Runtime& r, GraphNode& n) { return event_param(r, event, &n.event); });
}

cudaError_t cudaGraphAddEventWaitNode(cudaGraphNode_t* node, cudaGraph_t graph,
                                      const cudaGraphNode_t* deps, size_t count,
                                      cudaEvent_t event) {
  return add_node(node, graph, deps, count, NodeType::WaitEvent,
                  [&](Runtime& r, GraphNode& n) { return event_param(r, event, &n.event); });
}

#if WARPSIM_CUDA_MAJOR >= 13
cudaError_t cudaGraphAddNode(cudaGraphNode_t* node, cudaGraph_t graph, const cudaGraphNode_t* deps,
                             const cudaGraphEdgeData* data, size_t count,
                             cudaGraphNodeParams* params) {
  return add_generic(node, graph, deps, data, count, params);
}
#elif WARPSIM_CUDA_MAJOR == 12
cudaError_t cudaGraphAddNode(cudaGraphNode_t* node, cudaGraph_t graph, const cudaGraphNode_t* deps,
                             size_t count, cudaGraphNodeParams* params) {
  return add_generic(node, graph, deps, nullptr, count, params);
}
cudaError_t cudaGraphAddNode_v2(cudaGraphNode_t* node, cudaGraph_t graph,
                                const cudaGraphNode_t* deps, const cudaGraphEdgeData* data,
                                size_t count, cudaGraphNodeParams* params) {
  return add_generic(node, graph, deps, data, count, params);
}
#endif

#if WARPSIM_CUDA_MAJOR >= 12
cudaError_t cudaGraphNodeSetParams(cudaGraphNode_t node, cudaGraphNodeParams* params) {
  return entry(kContext, [&](Runtime& r) {
    GraphNode* n = node_of(r, node);
    if (n == nullptr || params == nullptr || static_cast<int>(n->type) != params->type)
      return Error::InvalidValue;
    // Child graphs and memory nodes cannot change.
    if (n->type == NodeType::Graph || n->type == NodeType::MemAlloc ||
        n->type == NodeType::MemFree)
      return Error::InvalidValue;
    GraphNode tmp;
    if (Error e = generic_params(r, params, tmp); e != Error::Success) return e;
    n->kernel = std::move(tmp.kernel);
    n->kernel.rebuild_pointers();
    n->copy = tmp.copy;
    n->memset = tmp.memset;
    n->host = tmp.host;
    n->event = tmp.event;
    return Error::Success;
  });
}

cudaError_t cudaGraphExecNodeSetParams(cudaGraphExec_t exec, cudaGraphNode_t node,
                                       cudaGraphNodeParams* params) {
  return entry(kContext, [&](Runtime& r) {
    GraphExec* x = r.graphs().exec(exec);
    GraphNode* original = node_of(r, node);
    if (x == nullptr || original == nullptr || params == nullptr) return Error::InvalidValue;
    GraphNode* n = x->node_for(original);
    if (n == nullptr || static_cast<int>(n->type) != params->type) return Error::InvalidValue;
    if (n->type == NodeType::MemAlloc || n->type == NodeType::MemFree) return Error::InvalidValue;
    GraphNode tmp;
    if (Error e = generic_params(r, params, tmp); e != Error::Success) return e;
    if (n->type == NodeType::Graph) {
      std::unique_ptr<Graph> probe = n->child->clone();
      GraphExec check(*probe, 0);
      const GraphNode* bad = nullptr;
      if (check.update(*tmp.child, &bad) != UpdateResult::Success) return Error::InvalidValue;
    }
    n->kernel = std::move(tmp.kernel);
    n->kernel.rebuild_pointers();
    n->copy = tmp.copy;
    n->memset = tmp.memset;
    n->host = tmp.host;
    n->event = tmp.event;
    if (tmp.child) n->child = std::move(tmp.child);
    return Error::Success;
  });
}
#endif

cudaError_t cudaGraphAddMemAllocNode(cudaGraphNode_t* node, cudaGraph_t graph,
                                     const cudaGraphNode_t* deps, size_t count,
                                     cudaMemAllocNodeParams* p) {
  return add_node(node, graph, deps, count, NodeType::MemAlloc, [&](Runtime& r, GraphNode& n) {
    if (p == nullptr) return Error::InvalidValue;
    return alloc_params(r, p->poolProps, p->accessDescs, p->accessDescCount, p->bytesize, &p->dptr,
                        n);
  });
}

cudaError_t cudaGraphAddMemFreeNode(cudaGraphNode_t* node, cudaGraph_t graph,
                                    const cudaGraphNode_t* deps, size_t count, void* dptr) {
  return add_node(node, graph, deps, count, NodeType::MemFree,
                  [&](Runtime& r, GraphNode& n) { return free_param(r, dptr, n); });
}

cudaError_t cudaGraphMemAllocNodeGetParams(cudaGraphNode_t node, cudaMemAllocNodeParams* p) {
  return with_node(node, NodeType::MemAlloc, [&](Runtime& r, GraphNode& n) {
    if (p == nullptr) return Error::InvalidValue;
    *p = cudaMemAllocNodeParams{};
    p->poolProps.allocType = cudaMemAllocationTypePinned;
    p->poolProps.location = cudaMemLocation{cudaMemLocationTypeDevice, 0};
    p->bytesize = n.alloc->bytes;
    p->dptr = reinterpret_cast<void*>(n.alloc->address);
    return Error::Success;
  });
}

cudaError_t cudaGraphMemFreeNodeGetParams(cudaGraphNode_t node, void* dptr_out) {
  return with_node(node, NodeType::MemFree, [&](Runtime& r, GraphNode& n) {
    if (dptr_out == nullptr) return Error::InvalidValue;
    *static_cast<void**>(dptr_out) = reinterpret_cast<void*>(n.free_address);
    return Error::Success;
  });
}

cudaError_t cudaDeviceGetGraphMemAttribute(int device, cudaGraphMemAttributeType attr,
                                           void* value) {
  return entry(kContext, [&](Runtime& r) {
    if (device != 0) return Error::InvalidDevice;
    return r.graph_memory_attribute(attr, static_cast<uint64_t*>(value), false);
  });
}
cudaError_t cudaDeviceSetGraphMemAttribute(int device, cudaGraphMemAttributeType attr,
                                           void* value) {
  return entry(kContext, [&](Runtime& r) {
    if (device != 0) return Error::InvalidDevice;
    return r.graph_memory_attribute(attr, static_cast<uint64_t*>(value), true);
  });
}
cudaError_t cudaDeviceGraphMemTrim(int device) {
  return entry(kContext, [&](Runtime& r) {
    if (device != 0) return Error::InvalidDevice;
    r.graph_memory_trim();
    return Error::Success;
  });
}

cudaError_t cudaGraphDestroyNode(cudaGraphNode_t node) {
  return entry(kContext, [&](Runtime& r) {
    GraphNode* n = node_of(r, node);
    if (n == nullptr) return Error::InvalidValue;
    r.graphs().removed(n);
    return n->owner->destroy(n);
  });
}

cudaError_t cudaGraphNodeGetType(cudaGraphNode_t node, cudaGraphNodeType* type) {
  return entry(kContext, [&](Runtime& r) {
    GraphNode* n = node_of(r, node);
    if (n == nullptr || type == nullptr) return Error::InvalidValue;
    *type = static_cast<cudaGraphNodeType>(n->type);
    return Error::Success;
  });
}

cudaError_t cudaGraphGetNodes(cudaGraph_t graph, cudaGraphNode_t* nodes, size_t* count) {
  return entry(kContext, [&](Runtime& r) {
    Graph* g = graph_of(r, graph);
    if (g == nullptr) return Error::InvalidValue;
    return fill(nodes, count, g->nodes().size(),
                [&](size_t i) { return handle(g->nodes()[i].get()); });
  });
}

cudaError_t cudaGraphGetRootNodes(cudaGraph_t graph, cudaGraphNode_t* nodes, size_t* count) {
  return entry(kContext, [&](Runtime& r) {
    Graph* g = graph_of(r, graph);
    if (g == nullptr) return Error::InvalidValue;
    const std::vector<GraphNode*> roots = g->roots();
    return fill(nodes, count, roots.size(), [&](size_t i) { return handle(roots[i]); });
  });
}

#if WARPSIM_CUDA_MAJOR >= 13
cudaError_t cudaGraphAddDependencies(cudaGraph_t graph, const cudaGraphNode_t* from,
                                     const cudaGraphNode_t* to, const cudaGraphEdgeData* data,
                                     size_t count) {
  return edges(graph, from, to, data, count, true);
}
cudaError_t cudaGraphRemoveDependencies(cudaGraph_t graph, const cudaGraphNode_t* from,
                                        const cudaGraphNode_t* to, const cudaGraphEdgeData* data,
                                        size_t count) {
  return edges(graph, from, to, data, count, false);
}
cudaError_t cudaGraphGetEdges(cudaGraph_t graph, cudaGraphNode_t* from, cudaGraphNode_t* to,
                              cudaGraphEdgeData* data, size_t* count) {
  return get_edges(graph, from, to, data, count);
}
cudaError_t cudaGraphNodeGetDependencies(cudaGraphNode_t node, cudaGraphNode_t* deps,
                                         cudaGraphEdgeData* data, size_t* count) {
  return node_links(node, deps, data, count, true);
}
cudaError_t cudaGraphNodeGetDependentNodes(cudaGraphNode_t node, cudaGraphNode_t* deps,
                                           cudaGraphEdgeData* data, size_t* count) {
  return node_links(node, deps, data, count, false);
}
#else
cudaError_t cudaGraphAddDependencies(cudaGraph_t graph, const cudaGraphNode_t* from,
                                     const cudaGraphNode_t* to, size_t count) {
  return edges(graph, from, to, nullptr, count, true);
}
cudaError_t cudaGraphRemoveDependencies(cudaGraph_t graph, const cudaGraphNode_t* from,
                                        const cudaGraphNode_t* to, size_t count) {
  return edges(graph, from, to, nullptr, count, false);
}
cudaError_t cudaGraphGetEdges(cudaGraph_t graph, cudaGraphNode_t* from, cudaGraphNode_t* to,
                              size_t* count) {
  return get_edges(graph, from, to, nullptr, count);
}
cudaError_t cudaGraphNodeGetDependencies(cudaGraphNode_t node, cudaGraphNode_t* deps,
                                         size_t* count) {
  return node_links(node, deps, nullptr, count, true);
}
cudaError_t cudaGraphNodeGetDependentNodes(cudaGraphNode_t node, cudaGraphNode_t* deps,
                                           size_t* count) {
  return node_links(node, deps, nullptr, count, false);
}
#endif
#if WARPSIM_CUDA_MAJOR == 12
cudaError_t cudaGraphAddDependencies_v2(cudaGraph_t graph, const cudaGraphNode_t* from,
                                        const cudaGraphNode_t* to, const cudaGraphEdgeData* data,
                                        size_t count) {
  return edges(graph, from, to, data, count, true);
}
cudaError_t cudaGraphRemoveDependencies_v2(cudaGraph_t graph, const cudaGraphNode_t* from,
                                           const cudaGraphNode_t* to,
                                           const cudaGraphEdgeData* data, size_t count) {
  return edges(graph, from, to, data, count, false);
}
cudaError_t cudaGraphGetEdges_v2(cudaGraph_t graph, cudaGraphNode_t* from, cudaGraphNode_t* to,
                                 cudaGraphEdgeData* data, size_t* count) {
  return get_edges(graph, from, to, data, count);
}
cudaError_t cudaGraphNodeGetDependencies_v2(cudaGraphNode_t node, cudaGraphNode_t* deps,
                                            cudaGraphEdgeData* data, size_t* count) {
  return node_links(node, deps, data, count, true);
}
cudaError_t cudaGraphNodeGetDependentNodes_v2(cudaGraphNode_t node, cudaGraphNode_t* deps,
                                              cudaGraphEdgeData* data, size_t* count) {
  return node_links(node, deps, data, count, false);
}
#endif

// ---- node parameters -----------------------------------------------------------------------

cudaError_t cudaGraphKernelNodeGetParams(cudaGraphNode_t node, cudaKernelNodeParams* p) {
  return with_node(node, NodeType::Kernel, [&](Runtime& r, GraphNode& n) {
    if (p == nullptr) return Error::InvalidValue;
    const KernelParams& k = n.kernel;
    p->func = const_cast<void*>(k.function);
    p->gridDim = dim3{k.grid.x, k.grid.y, k.grid.z};
    p->blockDim = dim3{k.block.x, k.block.y, k.block.z};
    p->sharedMemBytes = static_cast<unsigned>(k.shared_bytes);
    p->kernelParams = const_cast<void**>(k.arg_pointers.data());
    p->extra = nullptr;
    return Error::Success;
  });
}
cudaError_t cudaGraphKernelNodeSetParams(cudaGraphNode_t node, const cudaKernelNodeParams* p) {
  return with_node(node, NodeType::Kernel, [&](Runtime& r, GraphNode& n) {
    return kernel_params(r, p, &n.kernel);
  });
}

cudaError_t cudaGraphMemcpyNodeGetParams(cudaGraphNode_t node, cudaMemcpy3DParms* p) {
  return with_node(node, NodeType::Memcpy, [&](Runtime& r, GraphNode& n) {
    if (p == nullptr) return Error::InvalidValue;
    *p = to_parms(r, n.copy);
    return Error::Success;
  });
}
cudaError_t cudaGraphMemcpyNodeSetParams(cudaGraphNode_t node, const cudaMemcpy3DParms* p) {
  return with_node(node, NodeType::Memcpy, [&](Runtime& r, GraphNode& n) {
    return copy_params(r, p, &n.copy);
  });
}
cudaError_t cudaGraphMemcpyNodeSetParams1D(cudaGraphNode_t node, void* dst, const void* src,
                                           size_t bytes, cudaMemcpyKind kind) {
  return with_node(node, NodeType::Memcpy, [&](Runtime& r, GraphNode& n) {
    return linear_params(dst, src, bytes, kind, &n.copy);
  });
}

cudaError_t cudaGraphMemsetNodeGetParams(cudaGraphNode_t node, cudaMemsetParams* p) {
  return with_node(node, NodeType::Memset, [&](Runtime& r, GraphNode& n) {
    if (p == nullptr) return Error::InvalidValue;
    const MemsetParams& m = n.memset;
    *p = cudaMemsetParams{m.dst, m.pitch, m.value, m.element_size, m.width, m.height};
    return Error::Success;
  });
}
cudaError_t cudaGraphMemsetNodeSetParams(cudaGraphNode_t node, const cudaMemsetParams* p) {
  return with_node(node, NodeType::Memset, [&](Runtime& r, GraphNode& n) {
    return memset_params(r, p, &n.memset);
  });
}

cudaError_t cudaGraphHostNodeGetParams(cudaGraphNode_t node, cudaHostNodeParams* p) {
  return with_node(node, NodeType::Host, [&](Runtime& r, GraphNode& n) {
    if (p == nullptr) return Error::InvalidValue;
    *p = cudaHostNodeParams{n.host.fn, n.host.user};
    return Error::Success;
  });
}
cudaError_t cudaGraphHostNodeSetParams(cudaGraphNode_t node, const cudaHostNodeParams* p) {
  return with_node(node, NodeType::Host, [&](Runtime& r, GraphNode& n) {
    return host_params(p, &n.host);
  });
}

cudaError_t cudaGraphChildGraphNodeGetGraph(cudaGraphNode_t node, cudaGraph_t* graph) {
  return with_node(node, NodeType::Graph, [&](Runtime& r, GraphNode& n) {
    if (graph == nullptr) return Error::InvalidValue;
    *graph = reinterpret_cast<cudaGraph_t>(n.child.get());
    return Error::Success;
  });
}

cudaError_t cudaGraphEventRecordNodeGetEvent(cudaGraphNode_t node, cudaEvent_t* event) {
  return with_node(node, NodeType::EventRecord, [&](Runtime& r, GraphNode& n) {
    if (event == nullptr) return Error::InvalidValue;
    *event = static_cast<cudaEvent_t>(const_cast<void*>(n.event));
    return Error::Success;
  });
}
cudaError_t cudaGraphEventRecordNodeSetEvent(cudaGraphNode_t node, cudaEvent_t event) {
  return with_node(node, NodeType::EventRecord, [&](Runtime& r, GraphNode& n) {
    return event_param(r, event, &n.event);
  });
}
cudaError_t cudaGraphEventWaitNodeGetEvent(cudaGraphNode_t node, cudaEvent_t* event) {
  return with_node(node, NodeType::WaitEvent, [&](Runtime& r, GraphNode& n) {
    if (event == nullptr) return Error::InvalidValue;
    *event = static_cast<cudaEvent_t>(const_cast<void*>(n.event));
    return Error::Success;
  });
}
cudaError_t cudaGraphEventWaitNodeSetEvent(cudaGraphNode_t node, cudaEvent_t event) {
  return with_node(node, NodeType::WaitEvent, [&](Runtime& r, GraphNode& n) {
    return event_param(r, event, &n.event);
  });
}

cudaError_t cudaGraphDebugDotPrint(cudaGraph_t graph, const char* path, unsigned flags) {
  (void)flags;  // every level of detail prints the same summary here
  return entry(kContext, [&](Runtime& r) {
    Graph* g = graph_of(r, graph);
    if (g == nullptr || path == nullptr) return Error::InvalidValue;
    std::FILE* f = std::fopen(path, "w");
    if (f == nullptr) return Error::OperatingSystem;
    const std::string dot = g->to_dot("cudaGraph");
    const bool ok = std::fwrite(dot.data(), 1, dot.size(), f) == dot.size();
    return std::fclose(f) == 0 && ok ? Error::Success : Error::OperatingSystem;
  });
}

// ---- instantiated graphs -------------------------------------------------------------------

#if WARPSIM_CUDA_MAJOR >= 12
cudaError_t cudaGraphInstantiate(cudaGraphExec_t* exec, cudaGraph_t graph,
                                 unsigned long long flags) {
  return entry(kContext,
               [&](Runtime& r) { return instantiate_into(r, exec, graph, flags, nullptr); });
}
cudaError_t cudaGraphInstantiateWithParams(cudaGraphExec_t* exec, cudaGraph_t graph,
                                           cudaGraphInstantiateParams* p) {
  return entry(kContext, [&](Runtime& r) {
    if (p == nullptr) return Error::InvalidValue;
    if (p->uploadStream != nullptr && r.stream(p->uploadStream, false) == nullptr)
      return Error::InvalidResourceHandle;
    Error e = instantiate_into(r, exec, graph, p->flags, &p->errNode_out);
    p->result_out = e == Error::Success                 ? cudaGraphInstantiateSuccess
                    : p->errNode_out != nullptr         ? cudaGraphInstantiateInvalidStructure
                    : e == Error::NotSupported          ? cudaGraphInstantiateNodeOperationNotSupported
                                                        : cudaGraphInstantiateError;
    return e;
  });
}
cudaError_t cudaGraphInstantiateWithParams_ptsz(cudaGraphExec_t* exec, cudaGraph_t graph,
                                                cudaGraphInstantiateParams* p) {
  return cudaGraphInstantiateWithParams(exec, graph, p);
}
cudaError_t cudaGraphExecGetFlags(cudaGraphExec_t exec, unsigned long long* flags) {
  return entry(kContext, [&](Runtime& r) {
    GraphExec* x = r.graphs().exec(exec);
    if (x == nullptr || flags == nullptr) return Error::InvalidValue;
    *flags = x->flags();
    return Error::Success;
  });
}
cudaError_t cudaGraphExecUpdate(cudaGraphExec_t exec, cudaGraph_t graph,
                                cudaGraphExecUpdateResultInfo* info) {
  return entry(kContext, [&](Runtime& r) {
    if (info == nullptr) return Error::InvalidValue;
    int result = 0;
    cudaGraphNode_t bad = nullptr;
    Error e = exec_update(r, exec, graph, &result, &bad);
    info->result = static_cast<cudaGraphExecUpdateResult>(result);
    info->errorNode = bad;
    info->errorFromNode = nullptr;
    return e;
  });
}
#else
cudaError_t cudaGraphInstantiate(cudaGraphExec_t* exec, cudaGraph_t graph,
                                 cudaGraphNode_t* error_node, char* log, size_t log_size) {
  return entry(kContext, [&](Runtime& r) {
    Error e = instantiate_into(r, exec, graph, 0, error_node);
    if (e != Error::Success && log != nullptr && log_size > 0)
      std::snprintf(log, log_size, "%s",
                    error_node && *error_node ? "the graph has a cycle" : "instantiation failed");
    return e;
  });
}
cudaError_t cudaGraphExecUpdate(cudaGraphExec_t exec, cudaGraph_t graph,
                                cudaGraphNode_t* error_node, cudaGraphExecUpdateResult* result) {
  return entry(kContext, [&](Runtime& r) {
    if (error_node == nullptr || result == nullptr) return Error::InvalidValue;
    int res = 0;
    Error e = exec_update(r, exec, graph, &res, error_node);
    *result = static_cast<cudaGraphExecUpdateResult>(res);
    return e;
  });
}
#endif

cudaError_t cudaGraphInstantiateWithFlags(cudaGraphExec_t* exec, cudaGraph_t graph,
                                          unsigned long long flags) {
  return entry(kContext,
               [&](Runtime& r) { return instantiate_into(r, exec, graph, flags, nullptr); });
}

cudaError_t cudaGraphExecDestroy(cudaGraphExec_t exec) {
  return entry(kContext, [&](Runtime& r) {
    GraphExec* x = r.graphs().exec(exec);
    return x != nullptr && r.graphs().destroy_exec(x) ? Error::Success : Error::InvalidValue;
  });
}

cudaError_t cudaGraphLaunch(cudaGraphExec_t exec, cudaStream_t stream) {
  return graph_launch(exec, stream, false);
}
cudaError_t cudaGraphLaunch_ptsz(cudaGraphExec_t exec, cudaStream_t stream) {
  return graph_launch(exec, stream, true);
}
cudaError_t cudaGraphUpload(cudaGraphExec_t exec, cudaStream_t stream) {
  return graph_upload(exec, stream, false);
}
cudaError_t cudaGraphUpload_ptsz(cudaGraphExec_t exec, cudaStream_t stream) {
  return graph_upload(exec, stream, true);
}

cudaError_t cudaGraphExecKernelNodeSetParams(cudaGraphExec_t exec, cudaGraphNode_t node,
                                             const cudaKernelNodeParams* p) {
  return exec_node_set(exec, node, NodeType::Kernel,
                       [&](Runtime& r, GraphNode& n) { return kernel_params(r, p, &n.kernel); });
}
cudaError_t cudaGraphExecMemcpyNodeSetParams(cudaGraphExec_t exec, cudaGraphNode_t node,
                                             const cudaMemcpy3DParms* p) {
  return exec_node_set(exec, node, NodeType::Memcpy,
                       [&](Runtime& r, GraphNode& n) { return copy_params(r, p, &n.copy); });
}
cudaError_t cudaGraphExecMemcpyNodeSetParams1D(cudaGraphExec_t exec, cudaGraphNode_t node,
                                               void* dst, const void* src, size_t bytes,
                                               cudaMemcpyKind kind) {
  return exec_node_set(exec, node, NodeType::Memcpy, [&](Runtime&, GraphNode& n) {
    return linear_params(dst, src, bytes, kind, &n.copy);
  });
}
cudaError_t cudaGraphExecMemsetNodeSetParams(cudaGraphExec_t exec, cudaGraphNode_t node,
                                             const cudaMemsetParams* p) {
  return exec_node_set(exec, node, NodeType::Memset,
                       [&](Runtime& r, GraphNode& n) { return memset_params(r, p, &n.memset); });
}
cudaError_t cudaGraphExecHostNodeSetParams(cudaGraphExec_t exec, cudaGraphNode_t node,
                                           const cudaHostNodeParams* p) {
  return exec_node_set(exec, node, NodeType::Host,
                       [&](Runtime&, GraphNode& n) { return host_params(p, &n.host); });
}
cudaError_t cudaGraphExecChildGraphNodeSetParams(cudaGraphExec_t exec, cudaGraphNode_t node,
                                                 cudaGraph_t child) {
  return exec_node_set(exec, node, NodeType::Graph, [&](Runtime& r, GraphNode& n) {
    Graph* g = graph_of(r, child);
    if (g == nullptr) return Error::InvalidValue;
    // Only parameters may change: the child must have the same shape.
    GraphExec check(*n.child, 0);
    const GraphNode* bad = nullptr;
    if (check.update(*g, &bad) != UpdateResult::Success) return Error::InvalidValue;
    n.child = g->clone();
    return Error::Success;
  });
}
cudaError_t cudaGraphExecEventRecordNodeSetEvent(cudaGraphExec_t exec, cudaGraphNode_t node,
                                                 cudaEvent_t event) {
  return exec_node_set(exec, node, NodeType::EventRecord,
                       [&](Runtime& r, GraphNode& n) { return event_param(r, event, &n.event); });
}
cudaError_t cudaGraphExecEventWaitNodeSetEvent(cudaGraphExec_t exec, cudaGraphNode_t node,
                                               cudaEvent_t event) {
  return exec_node_set(exec, node, NodeType::WaitEvent,
                       [&](Runtime& r, GraphNode& n) { return event_param(r, event, &n.event); });
}

cudaError_t cudaGraphNodeSetEnabled(cudaGraphExec_t exec, cudaGraphNode_t node, unsigned on) {
  return entry(kContext, [&](Runtime& r) {
    GraphExec* x = r.graphs().exec(exec);
    GraphNode* original = node_of(r, node);
    if (x == nullptr || original == nullptr) return Error::InvalidValue;
    GraphNode* n = x->node_for(original);
    if (n == nullptr) return Error::InvalidValue;
    // Only kernel, memcpy and memset nodes can be disabled.
    if (n->type != NodeType::Kernel && n->type != NodeType::Memcpy &&
        n->type != NodeType::Memset)
      return Error::InvalidValue;
    x->set_enabled(n, on != 0);
    return Error::Success;
  });
}
cudaError_t cudaGraphNodeGetEnabled(cudaGraphExec_t exec, cudaGraphNode_t node, unsigned* on) {
  return entry(kContext, [&](Runtime& r) {
    GraphExec* x = r.graphs().exec(exec);
    GraphNode* original = node_of(r, node);
    if (x == nullptr || original == nullptr || on == nullptr) return Error::InvalidValue;
    GraphNode* n = x->node_for(original);
    if (n == nullptr) return Error::InvalidValue;
    if (n->type != NodeType::Kernel && n->type != NodeType::Memcpy &&
        n->type != NodeType::Memset)
      return Error::InvalidValue;
    *on = x->enabled(n) ? 1 : 0;
    return Error::Success;
  });
}

}  // extern "C"
