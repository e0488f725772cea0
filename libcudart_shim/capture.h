#pragma once
// Stream capture (cudaStreamBeginCapture .. cudaStreamEndCapture): while a
// stream captures, the work submitted to it is not run but becomes nodes of
// a graph. Other streams join a capture by waiting on an event recorded in a
// capturing stream (the fork/join pattern) and must rejoin the origin stream
// before the capture ends. The capture modes decide which "potentially
// unsafe" calls (those that might synchronise with captured work: cudaMalloc,
// synchronous copies, device synchronisation) are refused while a capture is
// active, as CUDA documents for cudaStreamBeginCapture and
// cudaThreadExchangeStreamCaptureMode.
#include <cstdint>
#include <memory>
#include <thread>
#include <unordered_map>
#include <vector>

#include "libcudart_shim/graph.h"
#include "libcudart_shim/streams.h"

namespace warpsim::cudart {

// cudaStreamCaptureMode values.
enum class CaptureMode : int { Global = 0, ThreadLocal = 1, Relaxed = 2 };

struct CaptureSession {
  uint64_t id = 0;
  // The graph being built, live in the runtime's GraphTable (programs may
  // add nodes to it during capture): a new one, or an existing graph
  // (cudaStreamBeginCaptureToGraph, created_by_capture false).
  Graph* graph = nullptr;
  bool created_by_capture = true;
  Stream* origin = nullptr;
  CaptureMode mode = CaptureMode::Global;
  std::thread::id thread;
  bool invalidated = false;
  std::vector<Stream*> streams;  // origin first, then the streams that joined
  // The last captured work of joined streams destroyed before the capture
  // ended: it must still have been joined back into the origin.
  std::vector<GraphNode*> departed_deps;
};

class CaptureTable {
 public:
  // Starts a capture in `origin`, its first nodes depending on `deps`.
  CaptureSession& begin(Stream& origin, CaptureMode mode, Graph& graph, bool created,
                        std::vector<GraphNode*> deps);
  // The session with `id`, or nullptr once it has ended.
  CaptureSession* find(uint64_t id) const;
  // Ends a session: its streams stop capturing.
  void end(CaptureSession& session);
  // `stream` joins `session` with these dependencies.
  void join(CaptureSession& session, Stream& stream, std::vector<GraphNode*> deps);
  // A stream goes away (destroyed): it leaves its capture. Destroying the
  // origin invalidates the capture; a stream that joined it may go (NVIDIA's
  // own samples destroy a forked stream once it is joined back), its last
  // work still checked for the join when the capture ends. A capture left
  // with no stream ends; returns its graph when the capture created it (the
  // caller destroys it), else nullptr.
  Graph* forget(Stream& stream);

  // Whether a potentially unsafe call by this thread is prohibited now, for
  // the thread's capture mode; every session that prohibits it is
  // invalidated (the call fails with cudaErrorStreamCaptureUnsupported).
  bool refuse_unsafe_call();
  // A capture in a blocking stream, which an operation in the legacy stream
  // would implicitly wait for (cudaErrorStreamCaptureImplicit); invalidated.
  bool refuse_legacy_stream_use();

  // The calling thread's mode (cudaThreadExchangeStreamCaptureMode).
  static CaptureMode& thread_mode();

  bool active() const { return !sessions_.empty(); }
  void reset();  // cudaDeviceReset: every capture ends

 private:
  std::unordered_map<uint64_t, std::unique_ptr<CaptureSession>> sessions_;
  uint64_t next_id_ = 1;
};

}  // namespace warpsim::cudart
