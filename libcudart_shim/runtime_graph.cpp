// The runtime's side of CUDA graphs: stream capture (which operations are
// recorded instead of run, fork/join through events, the capture modes'
// prohibitions), instantiation, and graph launches.
//
// A graph launch runs its nodes in a topological order (functional results
// are those of one legal schedule) and places each on the simulated
// timeline at the time its dependencies allow: a node starts when the last
// node it depends on ends, so nodes without a path between them overlap, as
// independent nodes do on a GPU. Each node's duration is what the same
// operation costs in a stream (timing-mode cycles of a kernel, the copy
// model of a memcpy); the graph's stream is busy until its last node ends.
#include <algorithm>
#include <cstring>
#include <unordered_map>
#include <unordered_set>

#include "libcudart_shim/runtime.h"

namespace warpsim::cudart {

// ---- capture -------------------------------------------------------------------------------

Error Runtime::capture_gate(Stream& s, bool synchronous, bool* record) {
  *record = false;
  if (node_timing_ != nullptr) return Error::Success;  // a graph's node runs
  if (s.capture != nullptr) {
    if (synchronous) {
      s.capture->invalidated = true;
      return Error::StreamCaptureUnsupported;
    }
    if (s.capture->invalidated) return Error::StreamCaptureInvalidated;
    *record = true;
    return Error::Success;
  }
  if (!captures_.active()) return Error::Success;
  if (synchronous && captures_.refuse_unsafe_call()) return Error::StreamCaptureUnsupported;
  if (s.legacy && captures_.refuse_legacy_stream_use()) return Error::StreamCaptureImplicit;
  return Error::Success;
}

Error Runtime::capture_forbids_unsafe_call() {
  if (node_timing_ != nullptr || !captures_.active()) return Error::Success;
  return captures_.refuse_unsafe_call() ? Error::StreamCaptureUnsupported : Error::Success;
}

Error Runtime::host_waits_for_event(Event& e) {
  if (CaptureSession* s = e.captured_in ? captures_.find(e.captured_in) : nullptr) {
    if (s->invalidated) return Error::InvalidValue;
    s->invalidated = true;
    return Error::CapturedEvent;
  }
  return capture_forbids_unsafe_call();
}

GraphNode* Runtime::capture_node(Stream& s, NodeType type) {
  GraphNode* n = nullptr;
  // The stream's dependencies are nodes of its capture graph by construction.
  (void)s.capture->graph->add(type, s.capture_deps, &n);
  graphs_.added(n);
  s.capture_deps.assign(1, n);
  stats_.add("runtime.graph.captured_nodes");
  return n;
}

namespace {

uint64_t round_up(uint64_t n, uint64_t to) { return (n + to - 1) / to * to; }

}  // namespace

Error Runtime::record_event(Event& e, Stream& s, unsigned flags) {
  if ((flags & ~1u) != 0) return Error::InvalidValue;  // cudaEventRecordExternal
  bool record = false;
  if (Error err = capture_gate(s, false, &record); err != Error::Success) return err;
  if (record) {
    if (flags & 1u) {
      capture_node(s, NodeType::EventRecord)->event = &e;
      return Error::Success;
    }
    // The event now stands for the stream's captured work: waiting on it
    // forks another stream into the capture.
    e.captured_in = s.capture->id;
    e.captured_nodes = s.capture_deps;
    return Error::Success;
  }
  e.captured_in = 0;
  e.captured_nodes.clear();
  streams_.record(e, s);
  return Error::Success;
}

Error Runtime::wait_event(Stream& s, Event& e, unsigned flags) {
  if ((flags & ~1u) != 0) return Error::InvalidValue;  // cudaEventWaitExternal
  if (CaptureSession* es = e.captured_in ? captures_.find(e.captured_in) : nullptr) {
    if (s.capture == nullptr) {
      captures_.join(*es, s, e.captured_nodes);
      return Error::Success;
    }
    if (s.capture != es) {
      s.capture->invalidated = true;
      es->invalidated = true;
      return Error::StreamCaptureIsolation;
    }
    // The dependencies add up; ones another dependency implies stay (an
    // H100 with CUDA 13 keeps the fork point's edge to the join).
    for (GraphNode* n : e.captured_nodes)
      if (std::find(s.capture_deps.begin(), s.capture_deps.end(), n) == s.capture_deps.end())
        s.capture_deps.push_back(n);
    return Error::Success;
  }
  bool record = false;
  if (Error err = capture_gate(s, false, &record); err != Error::Success) return err;
  if (record) {
    if (flags & 1u) {
      capture_node(s, NodeType::WaitEvent)->event = &e;
      return Error::Success;
    }
    if (!e.recorded) return Error::Success;  // nothing to wait for
    // A dependency on work outside the capture.
    s.capture->invalidated = true;
    return Error::StreamCaptureIsolation;
  }
  streams_.wait(s, e);
  return Error::Success;
}

Error Runtime::begin_capture(Stream& s, int mode, Graph* into, std::vector<GraphNode*> deps) {
  if (mode < 0 || mode > 2) return Error::InvalidValue;
  if (s.legacy) return Error::StreamCaptureUnsupported;
  if (s.capture != nullptr) return Error::IllegalState;
  Graph* g = into;
  if (g != nullptr) {
    if (!graphs_.live(g)) return Error::InvalidValue;
    for (GraphNode* n : deps)
      if (!g->contains(n)) return Error::InvalidValue;
  } else if (!deps.empty()) {
    return Error::InvalidValue;
  } else {
    g = graphs_.create();
  }
  captures_.begin(s, static_cast<CaptureMode>(mode), *g, into == nullptr, std::move(deps));
  stats_.add("runtime.graph.captures");
  return Error::Success;
}

namespace {

// Nodes reachable backwards from `from` (themselves included).
std::unordered_set<const GraphNode*> ancestors(const std::vector<GraphNode*>& from) {
  std::unordered_set<const GraphNode*> seen;
  std::vector<const GraphNode*> todo(from.begin(), from.end());
  while (!todo.empty()) {
    const GraphNode* n = todo.back();
    todo.pop_back();
    if (!seen.insert(n).second) continue;
    for (const GraphNode* d : n->deps) todo.push_back(d);
  }
  return seen;
}

}  // namespace

Error Runtime::end_capture(Stream& s, Graph** graph) {
  if (graph == nullptr) return Error::InvalidValue;
  *graph = nullptr;
  CaptureSession* session = s.capture;
  if (session == nullptr) return Error::IllegalState;
  if (session->mode == CaptureMode::ThreadLocal && session->thread != std::this_thread::get_id())
    return Error::StreamCaptureWrongThread;
  if (session->origin != &s) {
    session->invalidated = true;
    return Error::StreamCaptureUnmatched;
  }
  // Every stream that joined must have been joined back into the origin:
  // its last captured work is among the origin's dependencies' ancestors.
  Error result = session->invalidated ? Error::StreamCaptureInvalidated : Error::Success;
  if (result == Error::Success) {
    const auto joined = ancestors(s.capture_deps);
    for (const Stream* other : session->streams)
      for (const GraphNode* n : other->capture_deps)
        if (!joined.contains(n)) result = Error::StreamCaptureUnjoined;
    for (const GraphNode* n : session->departed_deps)
      if (!joined.contains(n)) result = Error::StreamCaptureUnjoined;
  }
  Graph* g = session->graph;
  const bool created = session->created_by_capture;
  captures_.end(*session);
  if (result != Error::Success) {
    if (created) graphs_.destroy(g);
    return result;
  }
  *graph = g;
  return Error::Success;
}

Error Runtime::update_capture_dependencies(Stream& s, std::vector<GraphNode*> nodes,
                                           unsigned flags) {
  if (flags > 1) return Error::InvalidValue;
  if (s.capture == nullptr) return Error::IllegalState;
  for (GraphNode* n : nodes)
    if (!s.capture->graph->contains(n)) return Error::InvalidValue;
  if (flags == 1) s.capture_deps.clear();
  for (GraphNode* n : nodes)
    if (std::find(s.capture_deps.begin(), s.capture_deps.end(), n) == s.capture_deps.end())
      s.capture_deps.push_back(n);
  return Error::Success;
}

// ---- nodes ---------------------------------------------------------------------------------

Error Runtime::kernel_node_params(const void* function, functional::Dim3 grid,
                                  functional::Dim3 block, uint64_t shared, void** args,
                                  void** extra, KernelParams* out) {
  KernelEntry* k = nullptr;
  if (Error e = load_kernel(function, &k); e != Error::Success) return e;
  LaunchRequest r;
  r.function = function;
  r.grid = grid;
  r.block = block;
  r.shared_bytes = shared;
  uint64_t dynamic = 0;
  if (Error e = check_launch(*k, r, &dynamic); e != Error::Success) return e;

  const auto& slots = k->info->resources.params;
  KernelParams p;
  p.function = function;
  p.grid = grid;
  p.block = block;
  p.shared_bytes = shared;
  p.param_block.assign(k->info->resources.param_bytes, 0);
  for (const auto& slot : slots) p.param_offsets.push_back(slot.offset);
  if (args != nullptr || extra == nullptr) {
    if (Error e = pack_arguments(*k->info, args, &p.param_block); e != Error::Success) return e;
  } else {
    // CU_LAUNCH_PARAM_BUFFER_POINTER (1), CU_LAUNCH_PARAM_BUFFER_SIZE (2),
    // CU_LAUNCH_PARAM_END (0): one packed parameter buffer.
    const void* buffer = nullptr;
    uint64_t size = 0;
    for (size_t i = 0; extra[i] != nullptr; i += 2) {
      const auto key = reinterpret_cast<uintptr_t>(extra[i]);
      if (key == 1)
        buffer = extra[i + 1];
      else if (key == 2 && extra[i + 1] != nullptr)
        size = *static_cast<const size_t*>(extra[i + 1]);
      else
        return Error::InvalidValue;
    }
    if (buffer == nullptr || size < p.param_block.size()) return Error::InvalidValue;
    std::memcpy(p.param_block.data(), buffer, p.param_block.size());
  }
  p.rebuild_pointers();
  *out = std::move(p);
  return Error::Success;
}

Error Runtime::run_memset_node(const MemsetParams& p) {
  const uint64_t row_bytes = p.width * p.element_size;
  functional::DeviceMemory& mem = device_->memory();
  for (uint64_t y = 0; y < p.height; ++y) {
    functional::Fault f;
    const uint64_t a = reinterpret_cast<uintptr_t>(p.dst) + y * p.pitch;
    uint8_t* row = mem.host_pointer(a, row_bytes, f);
    if (row == nullptr) return Error::InvalidValue;
    for (uint64_t x = 0; x < p.width; ++x)
      std::memcpy(row + x * p.element_size, &p.value, p.element_size);  // little-endian low bytes
  }
  stats_.add("runtime.memset_calls");
  stats_.add("runtime.memset_bytes", row_bytes * p.height);
  (void)place(streams_.legacy(), copy_duration_ns(row_bytes * p.height, false) / 2);
  return Error::Success;
}

double Runtime::place(Stream& s, double duration_ns) {
  if (node_timing_ == nullptr) return streams_.schedule(s, duration_ns);
  node_timing_->duration_ns += std::max(duration_ns, 0.0);
  return node_timing_->start_ns + node_timing_->duration_ns;
}

Error Runtime::run_node(const GraphNode& n, double start_ns, double* end_ns) {
  *end_ns = start_ns;
  if (n.type == NodeType::Graph) return run_graph(*n.child, nullptr, start_ns, end_ns);
  NodeTiming timing{start_ns, 0};
  NodeTiming* outer = node_timing_;
  node_timing_ = &timing;
  Error e = Error::Success;
  switch (n.type) {
    case NodeType::Kernel: {
      LaunchRequest r;
      r.function = n.kernel.function;
      r.grid = n.kernel.grid;
      r.block = n.kernel.block;
      r.shared_bytes = n.kernel.shared_bytes;
      r.args = const_cast<void**>(n.kernel.arg_pointers.data());
      e = launch(r);
      break;
    }
    case NodeType::Memcpy: e = memcpy_3d(n.copy, nullptr, /*async=*/true, false); break;
    case NodeType::Memset: e = run_memset_node(n.memset); break;
    case NodeType::Host: e = host_function(nullptr, false, n.host.fn, n.host.user); break;
    case NodeType::EventRecord:
      if (Event* ev = streams_.event(n.event)) {
        ev->time_ns = start_ns;
        ev->recorded = true;
        ev->captured_in = 0;
        ev->captured_nodes.clear();
      }
      break;
    case NodeType::WaitEvent:
      if (Event* ev = streams_.event(n.event); ev && ev->recorded)
        timing.start_ns = std::max(timing.start_ns, ev->time_ns);
      break;
    case NodeType::MemAlloc:
      n.alloc->live = true;
      graph_mem_live_ += n.alloc->bytes;
      if (graph_mem_live_ > graph_mem_mapped_) {
        // The driver maps physical memory for graphs in pool chunks.
        graph_mem_mapped_ = round_up(graph_mem_live_, MemPool::kChunkGranularity);
        graph_mem_used_high_ = std::max(graph_mem_used_high_, graph_mem_mapped_);
        graph_mem_reserved_high_ = std::max(graph_mem_reserved_high_, graph_mem_mapped_);
      }
      break;
    case NodeType::MemFree: (void)free_graph_memory(n.free_address); break;
    case NodeType::Empty:
    case NodeType::Graph: break;
  }
  node_timing_ = outer;
  *end_ns = timing.start_ns + timing.duration_ns;
  stats_.add("runtime.graph.nodes_run");
  return e;
}

Error Runtime::run_graph(const Graph& graph, const GraphExec* exec, double start_ns,
                         double* end_ns) {
  std::vector<const GraphNode*> local;
  if (exec == nullptr) graph.topological_order(local);
  const std::vector<const GraphNode*>& order = exec ? exec->order() : local;
  std::unordered_map<const GraphNode*, double> ends;
  double last = start_ns;
  for (const GraphNode* n : order) {
    double t = start_ns;
    for (const GraphNode* d : n->deps) t = std::max(t, ends[d]);
    double end = t;
    // A fault stops the context: the graph's remaining nodes do not run.
    if (sticky_ == Error::Success && (exec == nullptr || exec->enabled(n))) {
      if (Error e = run_node(*n, t, &end); e != Error::Success) return e;
    }
    ends[n] = end;
    last = std::max(last, end);
  }
  *end_ns = last;
  return Error::Success;
}

// ---- graph memory --------------------------------------------------------------------------
//
// Each allocation node has its own device address range from its creation
// (functional results need nothing more). The attributes follow what an H100
// with CUDA 13 reports (docs/runtime-shim.md, "Graph memory nodes"): nothing
// is reserved when a graph is captured or instantiated; the first launch that
// allocates maps physical memory in 32 MiB chunks (a 4 KiB allocation: 32 MiB,
// 40 MiB: 64 MiB), and it stays mapped - used and reserved alike - after the
// graph frees the allocation, after the graph and its executable are destroyed,
// until cudaDeviceGraphMemTrim gives back what live allocations do not need.

Error Runtime::graph_memory_allocate(uint64_t bytes, std::shared_ptr<GraphAllocation>* out) {
  if (bytes == 0) return Error::InvalidValue;
  functional::Fault f;
  const uint64_t a =
      device_->memory().allocate(bytes, functional::AllocationKind::Device, "graph memory node", &f);
  if (a == 0) return Error::MemoryAllocation;
  auto g = std::make_shared<GraphAllocation>();
  g->address = a;
  g->bytes = bytes;
  g->release = [this](GraphAllocation& m) {
    if (m.live) graph_mem_live_ -= m.bytes;
    graph_allocations_.erase(m.address);
    (void)device_->memory().free(m.address);
  };
  graph_allocations_[a] = g.get();
  stats_.add("runtime.graph.memory_nodes");
  *out = std::move(g);
  return Error::Success;
}

GraphAllocation* Runtime::graph_allocation(uint64_t address) const {
  auto it = graph_allocations_.find(address);
  return it == graph_allocations_.end() ? nullptr : it->second;
}

bool Runtime::free_graph_memory(uint64_t address) {
  GraphAllocation* g = graph_allocation(address);
  if (g == nullptr || !g->live) return false;
  g->live = false;
  graph_mem_live_ -= g->bytes;
  return true;
}

Error Runtime::graph_memory_attribute(int attribute, uint64_t* value, bool set) {
  if (value == nullptr || attribute < 0 || attribute > 3) return Error::InvalidValue;
  // Used and reserved memory are both what is mapped for graphs.
  uint64_t* const highs[] = {nullptr, &graph_mem_used_high_, nullptr, &graph_mem_reserved_high_};
  if (!set) {
    *value = highs[attribute] ? *highs[attribute] : graph_mem_mapped_;
    return Error::Success;
  }
  // Only the high watermarks can be set, and only back to 0 (to the current).
  if (highs[attribute] == nullptr || *value != 0) return Error::InvalidValue;
  *highs[attribute] = graph_mem_mapped_;
  return Error::Success;
}

void Runtime::graph_memory_trim() {
  graph_mem_mapped_ = round_up(graph_mem_live_, MemPool::kChunkGranularity);
}

// ---- instantiate and launch ----------------------------------------------------------------

Error Runtime::instantiate(GraphExec** exec, Graph& graph, uint64_t flags,
                           GraphNode** error_node) {
  if (exec == nullptr) return Error::InvalidValue;
  // AutoFreeOnLaunch, Upload, DeviceLaunch, UseNodePriority.
  if ((flags & ~uint64_t{0xF}) != 0) return Error::InvalidValue;
  if (flags & 4u) return Error::NotSupported;  // graphs launched from the device
  const GraphNode* on_cycle = nullptr;
  if (!graph.acyclic(&on_cycle)) {
    if (error_node) *error_node = const_cast<GraphNode*>(on_cycle);
    return Error::InvalidValue;
  }
  // A graph with allocation nodes has one executable graph at a time
  // (measured on an H100: the second instantiation is cudaErrorNotSupported).
  for (const auto& n : graph.nodes())
    if (n->type == NodeType::MemAlloc && n->alloc->executables > 0) return Error::NotSupported;
  *exec = graphs_.instantiate(graph, flags);
  stats_.add("runtime.graph.instantiations");
  return Error::Success;
}

Error Runtime::launch_graph(GraphExec& exec, const void* stream, bool per_thread) {
  Stream* s = streams_.resolve(stream, per_thread);
  if (s == nullptr) return Error::InvalidResourceHandle;
  bool record = false;
  if (Error e = capture_gate(*s, false, &record); e != Error::Success) return e;
  if (record) {
    // Not captured: an H100 with CUDA 13 refuses a graph launch into a
    // capturing stream and invalidates the capture.
    s->capture->invalidated = true;
    return Error::StreamCaptureUnsupported;
  }
  // An allocation the previous launch made must have been freed, unless the
  // graph was instantiated to free it itself (AutoFreeOnLaunch).
  for (const auto& n : exec.graph().nodes())
    if (n->type == NodeType::MemAlloc && n->alloc->live) {
      if ((exec.flags() & 1u) == 0) return Error::InvalidValue;
      (void)free_graph_memory(n->alloc->address);
    }
  const double start = streams_.schedule(*s, 0);
  double end = start;
  Error e = run_graph(exec.graph(), &exec, start, &end);
  streams_.finish_at(*s, end);
  stats_.add("runtime.graph.launches");
  return e;
}

}  // namespace warpsim::cudart
