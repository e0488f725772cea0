#include "libcudart_shim/streams.h"

#include <algorithm>

namespace warpsim::cudart {

namespace {

// The calling thread's implicit stream, created on first use. It outlives a
// reset of the table (threads keep running), so the table only forgets it
// from its set and re-adopts it on next use.
thread_local Stream* t_per_thread = nullptr;
thread_local const StreamTable* t_per_thread_owner = nullptr;

constexpr uintptr_t kLegacyHandle = 0x1;
constexpr uintptr_t kPerThreadHandle = 0x2;

}  // namespace

StreamTable::StreamTable() : legacy_(std::make_unique<Stream>()) {
  legacy_->legacy = true;
  legacy_->id = 0;
}

Stream* StreamTable::resolve(const void* handle, bool per_thread_default) {
  const auto h = reinterpret_cast<uintptr_t>(handle);
  if ((h == 0 && !per_thread_default) || h == kLegacyHandle) return legacy_.get();
  if (h == 0 || h == kPerThreadHandle) {
    if (t_per_thread == nullptr || t_per_thread_owner != this) {
      t_per_thread = new Stream();  // lives as long as the thread may use it (never freed)
      t_per_thread->per_thread = true;
      t_per_thread->id = next_id_++;
      t_per_thread_owner = this;
    }
    streams_.insert(t_per_thread);
    return t_per_thread;
  }
  auto* s = static_cast<Stream*>(const_cast<void*>(handle));
  return streams_.count(s) ? s : nullptr;
}

Stream* StreamTable::create(unsigned flags, int priority) {
  auto* s = new Stream();
  s->flags = flags;
  s->priority = priority;
  s->id = next_id_++;
  // A new stream starts where the host is: it cannot run earlier work.
  s->ready_ns = host_ns_;
  streams_.insert(s);
  return s;
}

bool StreamTable::destroy(const void* handle) {
  auto* s = static_cast<Stream*>(const_cast<void*>(handle));
  if (s == nullptr || s == legacy_.get() || s->per_thread || !streams_.count(s)) return false;
  // Work still pending on a destroyed stream completes normally: nothing to
  // wait for here (it already ran); only the handle goes.
  streams_.erase(s);
  delete s;
  return true;
}

Event* StreamTable::create_event(unsigned flags) {
  auto* e = new Event();
  e->flags = flags;
  events_.insert(e);
  return e;
}

Event* StreamTable::event(const void* handle) {
  auto* e = static_cast<Event*>(const_cast<void*>(handle));
  return events_.count(e) ? e : nullptr;
}

bool StreamTable::destroy_event(const void* handle) {
  auto* e = static_cast<Event*>(const_cast<void*>(handle));
  if (!events_.count(e)) return false;
  events_.erase(e);
  delete e;
  return true;
}

double StreamTable::schedule(Stream& s, double duration_ns) {
  double start = std::max(s.ready_ns, host_ns_);
  // The legacy stream waits for all blocking streams; blocking streams wait
  // for the legacy stream (CUDA Runtime API, "Stream synchronization behavior").
  if (s.legacy) {
    for (Stream* o : streams_)
      if (o->blocking()) start = std::max(start, o->ready_ns);
  } else if (s.blocking()) {
    start = std::max(start, legacy_->ready_ns);
  }
  s.ready_ns = start + std::max(duration_ns, 0.0);
  ++s.operations;
  return s.ready_ns;
}

void StreamTable::wait(Stream& s, const Event& e) {
  if (e.recorded) s.ready_ns = std::max(s.ready_ns, e.time_ns);
}

void StreamTable::record(Event& e, Stream& s) {
  // Recording is itself ordered like an operation of zero duration.
  e.time_ns = schedule(s, 0);
  e.recorded = true;
}

double StreamTable::all_done_ns() const {
  double t = legacy_->ready_ns;
  for (const Stream* s : streams_) t = std::max(t, s->ready_ns);
  return t;
}

void StreamTable::reset() {
  for (Stream* s : streams_)
    if (!s->per_thread) delete s;
  streams_.clear();
  for (Event* e : events_) delete e;
  events_.clear();
  legacy_->ready_ns = host_ns_;
}

}  // namespace warpsim::cudart
