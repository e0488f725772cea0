#include "libcudart_shim/streams.h"

#include <algorithm>
#include <atomic>

namespace warpsim::cudart {

namespace {

// The calling thread's implicit stream in the table it last asked (tables are
// told apart by serial number, never by address, which may be reused).
struct PerThreadCache {
  uint64_t serial = 0;
  Stream* stream = nullptr;
};
thread_local PerThreadCache t_cache;
std::atomic<uint64_t> g_next_serial{1};

constexpr uintptr_t kLegacyHandle = 0x1;
constexpr uintptr_t kPerThreadHandle = 0x2;

}  // namespace

StreamTable::StreamTable() : serial_(g_next_serial++), legacy_(std::make_unique<Stream>()) {
  legacy_->legacy = true;
  legacy_->id = 0;
}

Stream& StreamTable::per_thread_stream() {
  if (t_cache.serial == serial_) return *t_cache.stream;
  std::unique_ptr<Stream>& s = per_thread_[std::this_thread::get_id()];
  if (!s) {
    s = std::make_unique<Stream>();
    s->per_thread = true;
    s->id = next_id_++;
    s->ready_ns = host_ns_;
  }
  t_cache = {serial_, s.get()};
  return *s;
}

Stream* StreamTable::resolve(const void* handle, bool per_thread_default) {
  const auto h = reinterpret_cast<uintptr_t>(handle);
  if ((h == 0 && !per_thread_default) || h == kLegacyHandle) return legacy_.get();
  if (h == 0 || h == kPerThreadHandle) return &per_thread_stream();
  auto* s = static_cast<Stream*>(const_cast<void*>(handle));
  return streams_.count(s) ? s : nullptr;
}

Stream* StreamTable::create(unsigned flags, int priority) {
  auto s = std::make_unique<Stream>();
  s->flags = flags;
  s->priority = priority;
  s->id = next_id_++;
  // A new stream starts where the host is: it cannot run earlier work.
  s->ready_ns = host_ns_;
  Stream* raw = s.get();
  streams_.emplace(raw, std::move(s));
  return raw;
}

bool StreamTable::destroy(const void* handle) {
  // Work still pending on a destroyed stream completes normally: nothing to
  // wait for here (it already ran); only the handle goes. The legacy and
  // per-thread streams are not in streams_ and cannot be destroyed.
  return streams_.erase(static_cast<Stream*>(const_cast<void*>(handle))) == 1;
}

Event* StreamTable::create_event(unsigned flags) {
  auto e = std::make_unique<Event>();
  e->flags = flags;
  Event* raw = e.get();
  events_.emplace(raw, std::move(e));
  return raw;
}

Event* StreamTable::event(const void* handle) {
  auto* e = static_cast<Event*>(const_cast<void*>(handle));
  return events_.count(e) ? e : nullptr;
}

bool StreamTable::destroy_event(const void* handle) {
  return events_.erase(static_cast<Event*>(const_cast<void*>(handle))) == 1;
}

double StreamTable::schedule(Stream& s, double duration_ns) {
  double start = std::max(s.ready_ns, host_ns_);
  // The legacy stream waits for all blocking streams; blocking streams wait
  // for the legacy stream (CUDA Runtime API, "Stream synchronization behavior").
  if (s.legacy) {
    for (const auto& [raw, o] : streams_)
      if (o->blocking()) start = std::max(start, o->ready_ns);
    for (const auto& [id, o] : per_thread_) start = std::max(start, o->ready_ns);
  } else if (s.blocking()) {
    start = std::max(start, legacy_->ready_ns);
  }
  s.ready_ns = start + std::max(duration_ns, 0.0);
  latest_ns_ = std::max(latest_ns_, s.ready_ns);
  ++s.operations;
  return s.ready_ns;
}

void StreamTable::finish_at(Stream& s, double end_ns) {
  s.ready_ns = std::max(s.ready_ns, end_ns);
  latest_ns_ = std::max(latest_ns_, s.ready_ns);
  ++s.operations;
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
  // Every stream's work ends by latest_ns_, including that of streams the
  // program has destroyed since (their work still took simulated time).
  return std::max(latest_ns_, host_ns_);
}

void StreamTable::reset() {
  streams_.clear();
  events_.clear();
  legacy_->ready_ns = host_ns_;
  for (auto& [id, s] : per_thread_) s->ready_ns = host_ns_;
}

}  // namespace warpsim::cudart
