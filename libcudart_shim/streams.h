#pragma once
// Streams and events: the ordering and the simulated clock of the work a
// program submits.
//
// In functional mode every operation executes when it is submitted, in the
// calling thread, in submission order. That is one of the orders a GPU may
// use (work of one stream in order; across streams, whatever events and
// synchronisation allow), so results are those of a real run; what it
// cannot show is overlap, which is the timing model's business.
//
// Each operation also gets a place on a simulated timeline, so that events
// measure simulated GPU time, not host time: an operation starts when its
// stream is free and its dependencies are done - the previous work of its
// stream, events it waits on, the legacy default stream's implicit
// synchronisation with blocking streams - and ends `duration` later. Streams
// therefore overlap on the timeline exactly as far as CUDA's ordering rules
// allow. How long an operation takes is decided by the caller (the runtime's
// cost model in functional mode, simulated cycles in timing mode).
#include <cstdint>
#include <memory>
#include <thread>
#include <unordered_map>
#include <vector>

#include "libcudart_shim/stream_attributes.h"

namespace warpsim::cudart {

struct CaptureSession;  // capture.h
struct GraphNode;       // graph.h

// Stream priorities (cudaDeviceGetStreamPriorityRange): lower is more urgent;
// values outside the range are clamped into it, as by the CUDA runtime.
inline constexpr int kLeastStreamPriority = 0;
inline constexpr int kGreatestStreamPriority = -5;
inline int clamp_stream_priority(int p) {
  return p < kGreatestStreamPriority ? kGreatestStreamPriority
         : p > kLeastStreamPriority  ? kLeastStreamPriority
                                     : p;
}

struct Stream {
  unsigned flags = 0;  // cudaStreamNonBlocking = 1
  int priority = 0;
  uint64_t id = 0;
  bool legacy = false;      // the NULL / cudaStreamLegacy stream
  bool per_thread = false;  // a thread's implicit stream (cudaStreamPerThread)
  double ready_ns = 0;      // when its last operation ends
  uint64_t operations = 0;
  StreamAttributes attributes;  // cudaStreamSetAttribute
  // Stream capture (capture.h): the sequence this stream is capturing into,
  // and the nodes its next captured operation depends on.
  CaptureSession* capture = nullptr;
  std::vector<GraphNode*> capture_deps;
  bool blocking() const { return !legacy && (flags & 1u) == 0; }
};

struct Event {
  unsigned flags = 0;  // cudaEventDisableTiming = 2, ...
  bool recorded = false;
  double time_ns = 0;  // when the recorded work completes
  // Last recorded in a capturing stream: the capture sequence's id and the
  // nodes the record stands for (a wait on it joins that capture).
  uint64_t captured_in = 0;
  std::vector<GraphNode*> captured_nodes;
  bool timing() const { return (flags & 2u) == 0; }
};

class StreamTable {
 public:
  StreamTable();
  StreamTable(const StreamTable&) = delete;
  StreamTable& operator=(const StreamTable&) = delete;

  // nullptr for a handle that is not a live stream. 0 / cudaStreamLegacy is
  // the legacy stream, cudaStreamPerThread the calling thread's stream; with
  // `per_thread_default` (the _ptsz/_ptds entry points), 0 means the calling
  // thread's stream too.
  Stream* resolve(const void* handle, bool per_thread_default);
  Stream* create(unsigned flags, int priority);
  bool destroy(const void* handle);
  Stream& legacy() { return *legacy_; }
  // Every stream the program created, and the threads' implicit streams.
  template <typename F>
  void for_each(F&& f) {
    for (auto& [raw, s] : streams_) f(*s);
    for (auto& [id, s] : per_thread_) f(*s);
  }

  Event* create_event(unsigned flags);
  Event* event(const void* handle);
  bool destroy_event(const void* handle);

  // Places an operation of `duration_ns` on `stream` and returns its end time.
  double schedule(Stream& stream, double duration_ns);
  // Ends `stream`'s work at `end_ns` at the earliest (a graph launch, whose
  // nodes were placed on the timeline by their dependencies).
  void finish_at(Stream& stream, double end_ns);
  // Makes `stream` wait for `event`'s recorded work (cudaStreamWaitEvent).
  void wait(Stream& stream, const Event& event);
  // Records `event` at the point `stream` has reached.
  void record(Event& event, Stream& stream);
  // The host waits: for one stream, an event, or everything.
  void host_waits_for(double time_ns) { host_ns_ = std::max(host_ns_, time_ns); }
  double all_done_ns() const;
  double host_ns() const { return host_ns_; }

  // Forgets every stream and event the program created (cudaDeviceReset);
  // the simulated clock keeps running.
  void reset();
  size_t live_streams() const { return streams_.size(); }

 private:
  Stream& per_thread_stream();

  const uint64_t serial_;  // distinguishes tables for the threads' cached stream pointers
  std::unique_ptr<Stream> legacy_;
  // Created streams, then each host thread's implicit stream (kept for the
  // table's life: a thread may use it again after a reset).
  std::unordered_map<Stream*, std::unique_ptr<Stream>> streams_;
  std::unordered_map<std::thread::id, std::unique_ptr<Stream>> per_thread_;
  std::unordered_map<Event*, std::unique_ptr<Event>> events_;
  uint64_t next_id_ = 1;
  double host_ns_ = 0;
  double latest_ns_ = 0;  // the end of the latest operation, on any stream (destroyed ones too)
};

}  // namespace warpsim::cudart
