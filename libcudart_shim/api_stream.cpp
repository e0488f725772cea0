// Entry points: streams, events, host callbacks, and stream capture
// (capture.h; the graphs it builds are api_graph.cpp's).
#include <algorithm>

#include "libcudart_shim/api.h"
#include "libcudart_shim/cuda_abi_graph.h"

using namespace warpsim::cudart;
using warpsim::cudart::api::entry;
using warpsim::cudart::api::kContext;
using warpsim::cudart::api::kNoContext;

namespace {

cudaError_t create_stream(cudaStream_t* stream, unsigned flags, int priority) {
  return entry(kContext, [&](Runtime& r) {
    if (stream == nullptr || (flags & ~1u) != 0) return Error::InvalidValue;
    priority = clamp_stream_priority(priority);
    *stream = reinterpret_cast<cudaStream_t>(r.streams().create(flags, priority));
    r.stats().add("runtime.streams_created");
    return Error::Success;
  });
}

cudaError_t stream_sync(cudaStream_t stream, bool pt) {
  return entry(kContext, [&](Runtime& r) { return r.stream_synchronize(stream, pt); });
}

cudaError_t stream_query(cudaStream_t stream, bool pt) {
  // Work runs when it is submitted, so every stream is idle when asked.
  return entry(kContext, [&](Runtime& r) {
    Stream* s = r.stream(stream, pt);
    if (s == nullptr) return Error::InvalidResourceHandle;
    if (s->capture != nullptr) {
      s->capture->invalidated = true;
      return Error::StreamCaptureUnsupported;
    }
    // The legacy stream waits for the blocking streams, and so for the work
    // of a capture in one of them (measured on an H100).
    if (s->legacy && r.captures().refuse_legacy_stream_use()) return Error::StreamCaptureImplicit;
    return Error::Success;
  });
}

cudaError_t stream_wait_event(cudaStream_t stream, cudaEvent_t event, unsigned flags, bool pt) {
  return entry(kContext, [&](Runtime& r) {
    Stream* s = r.stream(stream, pt);
    Event* e = r.streams().event(event);
    if (s == nullptr || e == nullptr) return Error::InvalidResourceHandle;
    return r.wait_event(*s, *e, flags);
  });
}

struct CallbackClosure {
  cudaStreamCallback_t callback;
  cudaStream_t stream;
  cudaError_t status;
  void* user;
};

void run_callback(void* p) {
  auto* c = static_cast<CallbackClosure*>(p);
  c->callback(c->stream, c->status, c->user);
}

cudaError_t add_callback(cudaStream_t stream, cudaStreamCallback_t callback, void* user,
                         unsigned flags, bool pt) {
  return entry(kNoContext, [&](Runtime& r) {
    if (callback == nullptr || flags != 0) return Error::InvalidValue;
    // A callback still runs after a kernel fault, and is told the error.
    CallbackClosure c{callback, stream, static_cast<cudaError_t>(r.sticky_error()), user};
    return r.host_function(stream, pt, run_callback, &c);
  });
}

cudaError_t launch_host_func(cudaStream_t stream, cudaHostFn_t fn, void* user, bool pt) {
  return entry(kContext, [&](Runtime& r) { return r.host_function(stream, pt, fn, user); });
}

template <typename F>
cudaError_t with_stream(cudaStream_t stream, bool pt, F&& f) {
  return entry(kContext, [&](Runtime& r) {
    Stream* s = r.stream(stream, pt);
    if (s == nullptr) return Error::InvalidResourceHandle;
    return f(r, *s);
  });
}

cudaError_t event_record(cudaEvent_t event, cudaStream_t stream, unsigned flags, bool pt) {
  return entry(kContext, [&](Runtime& r) {
    Event* e = r.streams().event(event);
    Stream* s = r.stream(stream, pt);
    if (e == nullptr || s == nullptr) return Error::InvalidResourceHandle;
    return r.record_event(*e, *s, flags);
  });
}

Error r_status(const Stream& s, cudaStreamCaptureStatus* status) {
  if (s.capture == nullptr)
    *status = cudaStreamCaptureStatusNone;
  else if (s.capture->invalidated)
    *status = cudaStreamCaptureStatusInvalidated;
  else
    *status = cudaStreamCaptureStatusActive;
  return Error::Success;
}

cudaError_t is_capturing(cudaStream_t stream, cudaStreamCaptureStatus* status, bool pt) {
  return with_stream(stream, pt, [&](Runtime&, Stream& s) {
    if (status == nullptr) return Error::InvalidValue;
    return r_status(s, status);
  });
}

// The capture-information queries of every major. The dependency array
// stays valid until the stream's capture changes, as CUDA documents; edge
// data is all zero (default edges) and shared.
cudaError_t capture_info(cudaStream_t stream, cudaStreamCaptureStatus* status,
                         unsigned long long* id, void** graph, const void** deps,
                         const void** edges, size_t* count, bool pt) {
  return with_stream(stream, pt, [&](Runtime&, Stream& s) {
    if (status == nullptr) return Error::InvalidValue;
    if (Error e = r_status(s, status); e != Error::Success) return e;
    static const unsigned char kDefaultEdges[64 * 8] = {};  // 64 default cudaGraphEdgeData
    const bool active = s.capture != nullptr;
    if (id) *id = active ? s.capture->id : 0;
    if (graph) *graph = active ? s.capture->graph : nullptr;
    if (deps) *deps = active && !s.capture_deps.empty() ? s.capture_deps.data() : nullptr;
    if (edges) {
      if (active && s.capture_deps.size() > 64) return Error::NotSupported;
      *edges = active && !s.capture_deps.empty() ? kDefaultEdges : nullptr;
    }
    if (count) *count = active ? s.capture_deps.size() : 0;
    return Error::Success;
  });
}

cudaError_t begin_capture(cudaStream_t stream, cudaStreamCaptureMode mode, bool pt) {
  return with_stream(stream, pt, [&](Runtime& r, Stream& s) {
    return r.begin_capture(s, static_cast<int>(mode), nullptr, {});
  });
}

#if WARPSIM_CUDA_MAJOR >= 12
cudaError_t begin_capture_to_graph(cudaStream_t stream, cudaGraph_t graph,
                                   const cudaGraphNode_t* deps, const void* edges, size_t count,
                                   cudaStreamCaptureMode mode, bool pt) {
  return with_stream(stream, pt, [&](Runtime& r, Stream& s) {
    std::vector<GraphNode*> nodes;
    if (count != 0 && deps == nullptr) return Error::InvalidValue;
    if (!warpsim_default_edges(edges, count)) return Error::NotSupported;  // programmatic edges
    for (size_t i = 0; i < count; ++i) {
      GraphNode* n = r.graphs().node(deps[i]);
      if (n == nullptr) return Error::InvalidValue;
      nodes.push_back(n);
    }
    Graph* g = reinterpret_cast<Graph*>(graph);
    if (g == nullptr || !r.graphs().live(g)) return Error::InvalidValue;
    return r.begin_capture(s, static_cast<int>(mode), g, std::move(nodes));
  });
}
#endif

cudaError_t end_capture(cudaStream_t stream, cudaGraph_t* graph, bool pt) {
  return with_stream(stream, pt, [&](Runtime& r, Stream& s) {
    Graph* g = nullptr;
    Error e = r.end_capture(s, graph ? &g : nullptr);
    if (graph) *graph = reinterpret_cast<cudaGraph_t>(g);
    return e;
  });
}

cudaError_t update_capture_deps(cudaStream_t stream, cudaGraphNode_t* deps, const void* edges,
                                size_t count, unsigned flags, bool pt) {
  return with_stream(stream, pt, [&](Runtime& r, Stream& s) {
    if (count != 0 && deps == nullptr) return Error::InvalidValue;
    if (!warpsim_default_edges(edges, count)) return Error::NotSupported;  // programmatic edges
    std::vector<GraphNode*> nodes;
    for (size_t i = 0; i < count; ++i) {
      GraphNode* n = r.graphs().node(deps[i]);
      if (n == nullptr) return Error::InvalidValue;
      nodes.push_back(n);
    }
    return r.update_capture_dependencies(s, std::move(nodes), flags);
  });
}

}  // namespace

extern "C" {

// ---- streams ------------------------------------------------------------------------------

cudaError_t cudaStreamCreate(cudaStream_t* stream) { return create_stream(stream, 0, 0); }
cudaError_t cudaStreamCreateWithFlags(cudaStream_t* stream, unsigned flags) {
  return create_stream(stream, flags, 0);
}
cudaError_t cudaStreamCreateWithPriority(cudaStream_t* stream, unsigned flags, int priority) {
  return create_stream(stream, flags, priority);
}

cudaError_t cudaStreamDestroy(cudaStream_t stream) {
  return entry(kContext, [&](Runtime& r) {
    Stream* s = r.stream(stream, false);
    if (s != nullptr && !s->legacy && !s->per_thread)
      if (Graph* orphan = r.captures().forget(*s)) r.graphs().destroy(orphan);
    return r.streams().destroy(stream) ? Error::Success : Error::InvalidResourceHandle;
  });
}

cudaError_t cudaStreamSynchronize(cudaStream_t stream) { return stream_sync(stream, false); }
cudaError_t cudaStreamSynchronize_ptsz(cudaStream_t stream) { return stream_sync(stream, true); }
cudaError_t cudaStreamQuery(cudaStream_t stream) { return stream_query(stream, false); }
cudaError_t cudaStreamQuery_ptsz(cudaStream_t stream) { return stream_query(stream, true); }

cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned flags) {
  return stream_wait_event(stream, event, flags, false);
}
cudaError_t cudaStreamWaitEvent_ptsz(cudaStream_t stream, cudaEvent_t event, unsigned flags) {
  return stream_wait_event(stream, event, flags, true);
}

cudaError_t cudaStreamAddCallback(cudaStream_t stream, cudaStreamCallback_t callback, void* user,
                                  unsigned flags) {
  return add_callback(stream, callback, user, flags, false);
}
cudaError_t cudaStreamAddCallback_ptsz(cudaStream_t stream, cudaStreamCallback_t callback,
                                       void* user, unsigned flags) {
  return add_callback(stream, callback, user, flags, true);
}
cudaError_t cudaLaunchHostFunc(cudaStream_t stream, cudaHostFn_t fn, void* user) {
  return launch_host_func(stream, fn, user, false);
}
cudaError_t cudaLaunchHostFunc_ptsz(cudaStream_t stream, cudaHostFn_t fn, void* user) {
  return launch_host_func(stream, fn, user, true);
}

cudaError_t cudaStreamGetFlags(cudaStream_t stream, unsigned* flags) {
  return with_stream(stream, false, [&](Runtime&, Stream& s) {
    if (flags == nullptr) return Error::InvalidValue;
    *flags = s.flags;
    return Error::Success;
  });
}
cudaError_t cudaStreamGetFlags_ptsz(cudaStream_t stream, unsigned* flags) {
  return with_stream(stream, true, [&](Runtime&, Stream& s) {
    if (flags == nullptr) return Error::InvalidValue;
    *flags = s.flags;
    return Error::Success;
  });
}
cudaError_t cudaStreamGetPriority(cudaStream_t stream, int* priority) {
  return with_stream(stream, false, [&](Runtime&, Stream& s) {
    if (priority == nullptr) return Error::InvalidValue;
    *priority = s.priority;
    return Error::Success;
  });
}
cudaError_t cudaStreamGetPriority_ptsz(cudaStream_t stream, int* priority) {
  return with_stream(stream, true, [&](Runtime&, Stream& s) {
    if (priority == nullptr) return Error::InvalidValue;
    *priority = s.priority;
    return Error::Success;
  });
}
cudaError_t cudaStreamGetId(cudaStream_t stream, unsigned long long* id) {
  return with_stream(stream, false, [&](Runtime&, Stream& s) {
    if (id == nullptr) return Error::InvalidValue;
    *id = s.id;
    return Error::Success;
  });
}
cudaError_t cudaStreamGetId_ptsz(cudaStream_t stream, unsigned long long* id) {
  return with_stream(stream, true, [&](Runtime&, Stream& s) {
    if (id == nullptr) return Error::InvalidValue;
    *id = s.id;
    return Error::Success;
  });
}
cudaError_t cudaStreamGetDevice(cudaStream_t stream, int* device) {
  return with_stream(stream, false, [&](Runtime&, Stream&) {
    if (device == nullptr) return Error::InvalidValue;
    *device = 0;
    return Error::Success;
  });
}
cudaError_t cudaStreamGetDevice_ptsz(cudaStream_t stream, int* device) {
  return with_stream(stream, true, [&](Runtime&, Stream&) {
    if (device == nullptr) return Error::InvalidValue;
    *device = 0;
    return Error::Success;
  });
}

cudaError_t cudaStreamAttachMemAsync(cudaStream_t stream, void* ptr, size_t length,
                                     unsigned flags) {
  return with_stream(stream, false, [&](Runtime&, Stream&) {
    if (ptr == nullptr || (flags != 1 && flags != 2 && flags != 4)) return Error::InvalidValue;
    (void)length;  // visibility of managed memory is not restricted here
    return Error::Success;
  });
}
cudaError_t cudaStreamAttachMemAsync_ptsz(cudaStream_t stream, void* ptr, size_t length,
                                          unsigned flags) {
  return with_stream(stream, true, [&](Runtime&, Stream&) {
    if (ptr == nullptr || (flags != 1 && flags != 2 && flags != 4)) return Error::InvalidValue;
    (void)length;
    return Error::Success;
  });
}

cudaError_t cudaStreamIsCapturing(cudaStream_t stream, cudaStreamCaptureStatus* status) {
  return is_capturing(stream, status, false);
}
cudaError_t cudaStreamIsCapturing_ptsz(cudaStream_t stream, cudaStreamCaptureStatus* status) {
  return is_capturing(stream, status, true);
}

#if WARPSIM_CUDA_MAJOR >= 13
cudaError_t cudaStreamGetCaptureInfo(cudaStream_t stream, cudaStreamCaptureStatus* status,
                                     unsigned long long* id, void** graph, const void** deps,
                                     const void** edges, size_t* count) {
  return capture_info(stream, status, id, graph, deps, edges, count, false);
}
cudaError_t cudaStreamGetCaptureInfo_ptsz(cudaStream_t stream, cudaStreamCaptureStatus* status,
                                          unsigned long long* id, void** graph, const void** deps,
                                          const void** edges, size_t* count) {
  return capture_info(stream, status, id, graph, deps, edges, count, true);
}
#else
cudaError_t cudaStreamGetCaptureInfo(cudaStream_t stream, cudaStreamCaptureStatus* status,
                                     unsigned long long* id) {
  return capture_info(stream, status, id, nullptr, nullptr, nullptr, nullptr, false);
}
cudaError_t cudaStreamGetCaptureInfo_ptsz(cudaStream_t stream, cudaStreamCaptureStatus* status,
                                          unsigned long long* id) {
  return capture_info(stream, status, id, nullptr, nullptr, nullptr, nullptr, true);
}
cudaError_t cudaStreamGetCaptureInfo_v2(cudaStream_t stream, cudaStreamCaptureStatus* status,
                                        unsigned long long* id, void** graph, const void** deps,
                                        size_t* count) {
  return capture_info(stream, status, id, graph, deps, nullptr, count, false);
}
cudaError_t cudaStreamGetCaptureInfo_v2_ptsz(cudaStream_t stream, cudaStreamCaptureStatus* status,
                                             unsigned long long* id, void** graph,
                                             const void** deps, size_t* count) {
  return capture_info(stream, status, id, graph, deps, nullptr, count, true);
}
#endif
#if WARPSIM_CUDA_MAJOR == 12
cudaError_t cudaStreamGetCaptureInfo_v3(cudaStream_t stream, cudaStreamCaptureStatus* status,
                                        unsigned long long* id, void** graph, const void** deps,
                                        const void** edges, size_t* count) {
  return capture_info(stream, status, id, graph, deps, edges, count, false);
}
cudaError_t cudaStreamGetCaptureInfo_v3_ptsz(cudaStream_t stream, cudaStreamCaptureStatus* status,
                                             unsigned long long* id, void** graph,
                                             const void** deps, const void** edges,
                                             size_t* count) {
  return capture_info(stream, status, id, graph, deps, edges, count, true);
}
#endif

cudaError_t cudaThreadExchangeStreamCaptureMode(cudaStreamCaptureMode* mode) {
  return entry(kNoContext, [&](Runtime&) {
    if (mode == nullptr || *mode < cudaStreamCaptureModeGlobal ||
        *mode > cudaStreamCaptureModeRelaxed)
      return Error::InvalidValue;
    CaptureMode& current = CaptureTable::thread_mode();
    const CaptureMode wanted = static_cast<CaptureMode>(*mode);
    *mode = static_cast<cudaStreamCaptureMode>(current);
    current = wanted;
    return Error::Success;
  });
}

cudaError_t cudaStreamBeginCapture(cudaStream_t stream, cudaStreamCaptureMode mode) {
  return begin_capture(stream, mode, false);
}
cudaError_t cudaStreamBeginCapture_ptsz(cudaStream_t stream, cudaStreamCaptureMode mode) {
  return begin_capture(stream, mode, true);
}
cudaError_t cudaStreamEndCapture(cudaStream_t stream, cudaGraph_t* graph) {
  return end_capture(stream, graph, false);
}
cudaError_t cudaStreamEndCapture_ptsz(cudaStream_t stream, cudaGraph_t* graph) {
  return end_capture(stream, graph, true);
}
#if WARPSIM_CUDA_MAJOR >= 12
cudaError_t cudaStreamBeginCaptureToGraph(cudaStream_t stream, cudaGraph_t graph,
                                          const cudaGraphNode_t* deps,
                                          const cudaGraphEdgeData* edges, size_t count,
                                          cudaStreamCaptureMode mode) {
  return begin_capture_to_graph(stream, graph, deps, edges, count, mode, false);
}
cudaError_t cudaStreamBeginCaptureToGraph_ptsz(cudaStream_t stream, cudaGraph_t graph,
                                               const cudaGraphNode_t* deps,
                                               const cudaGraphEdgeData* edges, size_t count,
                                               cudaStreamCaptureMode mode) {
  return begin_capture_to_graph(stream, graph, deps, edges, count, mode, true);
}
#endif
#if WARPSIM_CUDA_MAJOR >= 13
cudaError_t cudaStreamUpdateCaptureDependencies(cudaStream_t stream, cudaGraphNode_t* deps,
                                                const cudaGraphEdgeData* edges, size_t count,
                                                unsigned flags) {
  return update_capture_deps(stream, deps, edges, count, flags, false);
}
cudaError_t cudaStreamUpdateCaptureDependencies_ptsz(cudaStream_t stream, cudaGraphNode_t* deps,
                                                     const cudaGraphEdgeData* edges,
                                                     size_t count, unsigned flags) {
  return update_capture_deps(stream, deps, edges, count, flags, true);
}
#else
cudaError_t cudaStreamUpdateCaptureDependencies(cudaStream_t stream, cudaGraphNode_t* deps,
                                                size_t count, unsigned flags) {
  return update_capture_deps(stream, deps, nullptr, count, flags, false);
}
cudaError_t cudaStreamUpdateCaptureDependencies_ptsz(cudaStream_t stream, cudaGraphNode_t* deps,
                                                     size_t count, unsigned flags) {
  return update_capture_deps(stream, deps, nullptr, count, flags, true);
}
#endif
#if WARPSIM_CUDA_MAJOR == 12
cudaError_t cudaStreamUpdateCaptureDependencies_v2(cudaStream_t stream, cudaGraphNode_t* deps,
                                                   const cudaGraphEdgeData* edges, size_t count,
                                                   unsigned flags) {
  return update_capture_deps(stream, deps, edges, count, flags, false);
}
cudaError_t cudaStreamUpdateCaptureDependencies_v2_ptsz(cudaStream_t stream,
                                                        cudaGraphNode_t* deps,
                                                        const cudaGraphEdgeData* edges,
                                                        size_t count, unsigned flags) {
  return update_capture_deps(stream, deps, edges, count, flags, true);
}
#endif

// ---- events -------------------------------------------------------------------------------

cudaError_t cudaEventCreate(cudaEvent_t* event) {
  return entry(kContext, [&](Runtime& r) {
    if (event == nullptr) return Error::InvalidValue;
    *event = reinterpret_cast<cudaEvent_t>(r.streams().create_event(0));
    return Error::Success;
  });
}

cudaError_t cudaEventCreateWithFlags(cudaEvent_t* event, unsigned flags) {
  return entry(kContext, [&](Runtime& r) {
    if (event == nullptr || (flags & ~0x7u) != 0) return Error::InvalidValue;
    // Interprocess events must not time (cudaEventCreateWithFlags).
    if ((flags & cudaEventInterprocess) && !(flags & cudaEventDisableTiming))
      return Error::InvalidValue;
    *event = reinterpret_cast<cudaEvent_t>(r.streams().create_event(flags));
    return Error::Success;
  });
}

cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream) {
  return event_record(event, stream, 0, false);
}
cudaError_t cudaEventRecord_ptsz(cudaEvent_t event, cudaStream_t stream) {
  return event_record(event, stream, 0, true);
}
cudaError_t cudaEventRecordWithFlags(cudaEvent_t event, cudaStream_t stream, unsigned flags) {
  return event_record(event, stream, flags, false);
}
cudaError_t cudaEventRecordWithFlags_ptsz(cudaEvent_t event, cudaStream_t stream, unsigned flags) {
  return event_record(event, stream, flags, true);
}

cudaError_t cudaEventQuery(cudaEvent_t event) {
  return entry(kContext, [&](Runtime& r) {
    Event* e = r.streams().event(event);
    if (e == nullptr) return Error::InvalidResourceHandle;
    return r.host_waits_for_event(*e);
  });
}

cudaError_t cudaEventSynchronize(cudaEvent_t event) {
  return entry(kContext, [&](Runtime& r) { return r.event_synchronize(event); });
}

cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t end) {
  return entry(kContext, [&](Runtime& r) { return r.event_elapsed(ms, start, end); });
}
#if WARPSIM_CUDA_MAJOR == 12
cudaError_t cudaEventElapsedTime_v2(float* ms, cudaEvent_t start, cudaEvent_t end) {
  return cudaEventElapsedTime(ms, start, end);
}
#endif

cudaError_t cudaEventDestroy(cudaEvent_t event) {
  return entry(kContext, [&](Runtime& r) {
    return r.streams().destroy_event(event) ? Error::Success : Error::InvalidResourceHandle;
  });
}

}  // extern "C"
