// Stream capture bookkeeping (capture.h). The runtime decides, per
// operation, whether it runs or is recorded (runtime_graph.cpp).
#include "libcudart_shim/capture.h"

#include <algorithm>

namespace warpsim::cudart {

CaptureSession& CaptureTable::begin(Stream& origin, CaptureMode mode, Graph& graph, bool created,
                                    std::vector<GraphNode*> deps) {
  auto s = std::make_unique<CaptureSession>();
  s->id = next_id_++;
  s->graph = &graph;
  s->created_by_capture = created;
  s->origin = &origin;
  s->mode = mode;
  s->thread = std::this_thread::get_id();
  s->streams.push_back(&origin);
  origin.capture = s.get();
  origin.capture_deps = std::move(deps);
  CaptureSession& ref = *s;
  sessions_.emplace(ref.id, std::move(s));
  return ref;
}

CaptureSession* CaptureTable::find(uint64_t id) const {
  auto it = sessions_.find(id);
  return it == sessions_.end() ? nullptr : it->second.get();
}

void CaptureTable::end(CaptureSession& session) {
  for (Stream* s : session.streams) {
    s->capture = nullptr;
    s->capture_deps.clear();
  }
  sessions_.erase(session.id);
}

void CaptureTable::join(CaptureSession& session, Stream& stream, std::vector<GraphNode*> deps) {
  stream.capture = &session;
  stream.capture_deps = std::move(deps);
  if (std::find(session.streams.begin(), session.streams.end(), &stream) == session.streams.end())
    session.streams.push_back(&stream);
}

Graph* CaptureTable::forget(Stream& stream) {
  if (stream.capture == nullptr) return nullptr;
  CaptureSession& s = *stream.capture;
  std::erase(s.streams, &stream);
  if (s.origin == &stream) {
    s.invalidated = true;
    s.origin = nullptr;
  } else {
    s.departed_deps.insert(s.departed_deps.end(), stream.capture_deps.begin(),
                           stream.capture_deps.end());
  }
  stream.capture = nullptr;
  stream.capture_deps.clear();
  if (!s.streams.empty()) return nullptr;
  Graph* orphan = s.created_by_capture ? s.graph : nullptr;
  sessions_.erase(s.id);
  return orphan;
}

CaptureMode& CaptureTable::thread_mode() {
  thread_local CaptureMode mode = CaptureMode::Global;
  return mode;
}

bool CaptureTable::refuse_unsafe_call() {
  const CaptureMode mine = thread_mode();
  if (mine == CaptureMode::Relaxed) return false;
  const auto self = std::this_thread::get_id();
  bool refused = false;
  for (auto& [id, s] : sessions_) {
    // This thread's own non-relaxed captures prohibit it in the global and
    // thread-local modes; other threads' global-mode captures in the
    // global mode only.
    const bool own = s->thread == self && s->mode != CaptureMode::Relaxed;
    const bool others_global = mine == CaptureMode::Global && s->thread != self &&
                               s->mode == CaptureMode::Global;
    if (own || others_global) {
      s->invalidated = true;
      refused = true;
    }
  }
  return refused;
}

bool CaptureTable::refuse_legacy_stream_use() {
  bool refused = false;
  for (auto& [id, s] : sessions_)
    for (Stream* st : s->streams)
      if (st->blocking()) {
        s->invalidated = true;
        refused = true;
      }
  return refused;
}

void CaptureTable::reset() {
  for (auto& [id, s] : sessions_)
    for (Stream* st : s->streams) {
      st->capture = nullptr;
      st->capture_deps.clear();
    }
  sessions_.clear();
}

}  // namespace warpsim::cudart
