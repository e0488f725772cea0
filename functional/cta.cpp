// Cta: running warps to completion with CTA barriers and deadlock detection.
#include "functional/cta.h"

#include "common/invariant.h"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cstring>

namespace warpsim::functional {

Cta::Cta(const LaunchContext& launch, Dim3 ctaid, CtaBuffers& buffers, Cluster* cluster,
         uint32_t rank)
    : launch_(launch),
      ctaid_(ctaid),
      buffers_(buffers),
      cluster_(cluster ? cluster : &own_cluster_),
      cluster_rank_(cluster ? rank : 0) {
  if (!cluster) own_cluster_.ctas.push_back(this);
  num_threads_ = static_cast<uint32_t>(launch.config.block.count());
  const Program& program = *launch.program;
  reserved_shared_begin_ =
      (program.dynamic_shared_offset + launch.config.dynamic_shared_bytes + 15) & ~uint64_t{15};
  shared_size_ = program.reserved_shared_bytes != 0
                     ? reserved_shared_begin_ + program.reserved_shared_bytes
                     : program.dynamic_shared_offset + launch.config.dynamic_shared_bytes;
  local_size_ = launch.config.local_bytes_per_thread;
  // Shared memory starts zeroed so runs are reproducible (hardware leaves it
  // undefined); local memory is reused as is, like on hardware.
  if (buffers_.shared.size() < shared_size_) buffers_.shared.resize(shared_size_);
  if (shared_size_ != 0) std::memset(buffers_.shared.data(), 0, shared_size_);
  size_t local_total = size_t{num_threads_} * local_size_;
  buffers_.local.reserve(local_total);
  uint32_t nwarps = (num_threads_ + kWarpSize - 1) / kWarpSize;
  warps_.reserve(nwarps);
  for (uint32_t w = 0; w < nwarps; ++w) {
    uint32_t threads = std::min(kWarpSize, num_threads_ - w * kWarpSize);
    LaneMask valid = threads == kWarpSize ? kFullMask : (1u << threads) - 1;
    std::vector<uint64_t> registers;
    if (!buffers_.spare_registers.empty()) {
      registers = std::move(buffers_.spare_registers.back());
      buffers_.spare_registers.pop_back();
    }
    warps_.push_back(std::make_unique<Warp>(*this, w, valid, std::move(registers)));
  }
}

Cta::~Cta() {
  for (auto& w : warps_)
    if (w) buffers_.spare_registers.push_back(w->take_registers());
}

void HostBuffer::reserve(size_t bytes) {
  if (bytes <= size_) return;
  auto* p = static_cast<uint8_t*>(std::calloc(bytes, 1));
  // Launches are limited to a size calloc can reserve (Device::launch).
  WARPSIM_INVARIANT(p != nullptr, "out of host memory for CTA buffers");
  data_.reset(p);
  size_ = bytes;
}

void Cluster::try_complete_barrier() {
  uint32_t live = 0;
  for (const Cta* c : ctas)
    if (c != nullptr) live += c->live_threads();  // null: finished (timing mode frees it)
  if (barrier_arrived >= live) {
    ++barrier_phase;
    barrier_arrived = 0;
  }
}

uint32_t Cta::live_threads() const {
  uint32_t n = 0;
  for (const auto& w : warps_)
    n += static_cast<uint32_t>(std::popcount(w->valid() & ~w->exited()));
  return n;
}

CtaStatus Cta::run(uint64_t budget, uint32_t quantum) {
  // The warps of one CTA share a program: count offload chains or not, once.
  return !warps_.empty() && warps_.front()->counts_offload() ? run_as<true>(budget, quantum)
                                                              : run_as<false>(budget, quantum);
}

template <bool kCountOffload>
CtaStatus Cta::run_as(uint64_t budget, uint32_t quantum) {
  if (fault_) return CtaStatus::Fault;
  uint64_t executed = 0;
  for (;;) {
    bool any_running = false;
    bool all_yielded = true;   // every warp still running waits for others
    bool any_yielded = false;
    for (auto& w : warps_) {
      // A warp runs until its next global load, or for a quantum at most, and
      // the next warp takes over: the warps of a CTA interleave as on a GPU,
      // where a warp waiting for memory gives way, so all of them read a
      // location before any writes it back in the usual loop (a racy `x +=`
      // loses updates as it would on the GPU, not adds up warp after warp),
      // and warps that wait on each other through memory alternate quickly.
      w->yield_requested = false;
      w->turn_over = false;
      for (uint32_t n = 0; n < quantum && !w->done() && !w->waiting_at_barrier &&
                           !w->yield_requested && !w->turn_over;
           ++n) {
        if (w->template step_as<kCountOffload>() == StepResult::Fault) {
          fault_ = w->fault();
          faulting_warp_ = w->warp_in_cta();
          return CtaStatus::Fault;
        }
        any_running = true;
        ++executed;
      }
      if (w->yield_requested) any_yielded = true;
      else if (!w->done() && !w->waiting_at_barrier) all_yielded = false;
    }
    bool any_waiting = false, released = false;
    for (uint32_t id = 0; id < barriers_.size(); ++id) {
      if (barriers_[id].waiting.empty()) continue;
      any_waiting = true;
      released |= try_release(id);
    }
    if (!any_waiting && !any_running) return CtaStatus::Done;  // every warp is done
    if (executed >= budget) return CtaStatus::Budget;
    // Everyone waits for other CTAs (cluster barrier, mbarrier): let them run.
    if (any_yielded && all_yielded && !released && budget != UINT64_MAX) return CtaStatus::Budget;
    if (released || any_running) continue;
    // Nobody can move: a barrier that can never complete.
    if (raise_barrier_deadlock()) return CtaStatus::Fault;
    return CtaStatus::Done;
  }
}

void Cta::print(std::string_view text, uint64_t record_bytes) {
  if (print_sink_ != nullptr) {
    print_sink_->add(text, record_bytes);
  } else if (launch_.buffer_output) {
    printed_.add(text, record_bytes);
  } else if (launch_.print) {
    launch_.print(text, record_bytes);
  }
}

void Cta::arrive(Warp& warp, uint32_t id, uint32_t expected, bool wait, LaneMask active,
                 LaneMask predicate) {
  BarrierState& b = barriers_[id];
  // Barriers count whole warps (PTX: arrivals are in units of the warp size);
  // a partial last warp counts its existing threads.
  b.arrived += static_cast<uint32_t>(std::popcount(warp.valid() & ~warp.exited()));
  if (expected) b.expected = expected;
  b.reduction.popc += static_cast<uint32_t>(std::popcount(predicate & active));
  b.reduction.all = b.reduction.all && (predicate & active) == active;
  b.reduction.any = b.reduction.any || (predicate & active) != 0;
  if (wait) {
    warp.waiting_at_barrier = true;
    warp.barrier_id = id;
    b.waiting.push_back(&warp);
  }
  try_release(id);
}

bool Cta::release_barriers() {
  bool released = false;
  for (uint32_t id = 0; id < barriers_.size(); ++id)
    if (!barriers_[id].waiting.empty()) released |= try_release(id);
  return released;
}

bool Cta::raise_barrier_deadlock() {
  for (uint32_t id = 0; id < barriers_.size(); ++id) {
    const BarrierState& b = barriers_[id];
    if (b.waiting.empty()) continue;
    Warp* w = b.waiting.front();
    ExecFault f;
    f.fault.kind = FaultKind::BarrierDeadlock;
    f.lane = static_cast<uint32_t>(std::countr_zero(w->valid() & ~w->exited()));
    f.pc = w->pc();
    f.message = fmt::format(
        "barrier {} can never complete: {} of {} participating threads arrived, and no other "
        "thread of the CTA can reach it",
        id, b.arrived, b.expected ? b.expected : live_threads());
    f.fault.detail = f.message;
    fault_ = f;
    faulting_warp_ = w->warp_in_cta();
    return true;
  }
  return false;
}

bool Cta::try_release(uint32_t id) {
  BarrierState& b = barriers_[id];
  // Without a thread count every live thread participates; threads that have
  // exited no longer hold the barrier up (as on sm_70 and later).
  uint32_t expected = b.expected ? b.expected : live_threads();
  if (b.arrived < expected || b.waiting.empty()) {
    if (b.arrived >= expected && b.waiting.empty()) b = BarrierState{};  // only bar.arrive
    return false;
  }
  std::vector<Warp*> waiting = std::move(b.waiting);
  BarrierResult result = b.reduction;
  b = BarrierState{};
  for (Warp* w : waiting) w->release_barrier(result);
  return true;
}

uint64_t Cta::warp_instructions() const {
  uint64_t n = 0;
  for (const auto& w : warps_) n += w->warp_instructions;
  return n;
}

OffloadCounts Cta::offload_counts() const {
  OffloadCounts n;
  for (const auto& w : warps_) n += w->offload;
  return n;
}

uint64_t Cta::thread_instructions() const {
  uint64_t n = 0;
  for (const auto& w : warps_) n += w->thread_instructions;
  return n;
}

}  // namespace warpsim::functional
