// CycleWorkers: spinning hand-off of one cycle's tasks (cycle_workers.h).
#include "timing/cycle_workers.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>

namespace warpsim::timing {

namespace {

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

// How long a worker waits for the next cycle before it sleeps: spinning
// first (a cycle's serial part is microseconds), then yielding the core to
// whatever else wants it (more threads than cores), then a futex.
constexpr uint32_t kSpins = 512;
constexpr auto kYieldFor = std::chrono::milliseconds(2);
constexpr uint32_t kChunksPerThread = 4;

}  // namespace

CycleWorkers::CycleWorkers(uint32_t threads) : owner_(getpid()) {
  const uint32_t n = std::max(threads, 2u);
  max_chunks_ = n * kChunksPerThread;
  claims_ = std::make_unique<std::atomic<uint64_t>[]>(max_chunks_);
  for (uint32_t i = 0; i < max_chunks_; ++i) claims_[i].store(1);  // claimed in run 0
  workers_.reserve(n - 1);
  for (uint32_t i = 1; i < n; ++i) workers_.emplace_back([this, i] { work(i); });
}

bool CycleWorkers::usable() const { return getpid() == owner_; }

CycleWorkers::~CycleWorkers() {
  if (!usable()) {
    // A forked child: the threads are the parent's; joining would wait forever.
    new std::vector<std::thread>(std::move(workers_));  // never destroyed, on purpose
    return;
  }
  stop_.store(true);
  epoch_.fetch_add(1);
  epoch_.notify_all();
  for (std::thread& t : workers_) t.join();
}

void CycleWorkers::run_erased(uint32_t count, TaskRef task, TaskRef lead) {
  if (count == 0) return;
  const uint64_t epoch = epoch_.load(std::memory_order_relaxed) + 1;
  const uint32_t chunks = std::min(count, max_chunks_);
  for (uint32_t i = 0; i < chunks; ++i) claims_[i].store(epoch << 1, std::memory_order_relaxed);
  count_.store(count, std::memory_order_relaxed);
  chunks_.store(chunks, std::memory_order_relaxed);
  task_object_.store(task.object, std::memory_order_relaxed);
  task_call_.store(task.call, std::memory_order_relaxed);
  done_.store(0, std::memory_order_relaxed);
  failed_.store(false, std::memory_order_relaxed);
  error_ = nullptr;
  epoch_.store(epoch);  // publishes the run
  if (sleepers_.load() != 0) epoch_.notify_all();
  try {
    lead(0);
  } catch (...) {
    if (!failed_.exchange(true)) error_ = std::current_exception();
  }
  take_chunks(epoch, 0);
  for (uint32_t i = 0; done_.load(std::memory_order_acquire) != chunks; ++i) {
    if (i < kSpins)
      cpu_relax();
    else
      std::this_thread::yield();  // a worker that claimed a chunk lost its core
  }
  if (error_) std::rethrow_exception(error_);
}

void CycleWorkers::take_chunks(uint64_t epoch, uint32_t index) {
  const uint32_t count = count_.load(std::memory_order_relaxed);
  const uint32_t chunks = chunks_.load(std::memory_order_relaxed);
  const TaskRef task{task_object_.load(std::memory_order_relaxed), task_call_.load(std::memory_order_relaxed)};
  const uint32_t threads = this->threads();
  const auto share = [&](uint32_t t) { return static_cast<uint32_t>(uint64_t{t} * chunks / threads); };
  // Own share first, front to back; then each other thread's, back to front.
  for (uint32_t k = 0; k < threads; ++k) {
    const uint32_t t = (index + k) % threads;
    const uint32_t begin = share(t), end = share(t + 1);
    for (uint32_t j = begin; j < end; ++j) {
      const uint32_t c = k == 0 ? j : end - 1 - (j - begin);
      uint64_t open = epoch << 1;
      // A stale worker (its run over) cannot claim: the chunk is claimed or
      // open for a later run. Nor may it read this run's fields: it returns.
      if (!claims_[c].compare_exchange_strong(open, open | 1, std::memory_order_acquire)) {
        if ((open >> 1) != epoch) return;
        continue;
      }
      const uint32_t first = static_cast<uint32_t>(uint64_t{c} * count / chunks);
      const uint32_t last = static_cast<uint32_t>(uint64_t{c + 1} * count / chunks);
      for (uint32_t i = first; i < last; ++i) {
        try {
          task(i);
        } catch (...) {
          if (!failed_.exchange(true)) error_ = std::current_exception();
        }
      }
      done_.fetch_add(1, std::memory_order_release);
    }
  }
}

bool CycleWorkers::wait_for_epoch(uint64_t seen) {
  const auto yield_until = std::chrono::steady_clock::now() + kYieldFor;
  for (uint32_t i = 0;; ++i) {
    if (epoch_.load(std::memory_order_acquire) != seen) return !stop_.load();
    if (i < kSpins) {
      cpu_relax();
    } else if (i % 64 != 0 || std::chrono::steady_clock::now() < yield_until) {
      std::this_thread::yield();
    } else {
      // Asleep until run() or the destructor moves the epoch on; run()
      // looks at sleepers_ after moving it, so the wake-up cannot be missed.
      sleepers_.fetch_add(1);
      epoch_.wait(seen);
      sleepers_.fetch_sub(1);
    }
  }
}

void CycleWorkers::work(uint32_t index) {
  uint64_t seen = 0;
  for (;;) {
    if (!wait_for_epoch(seen)) return;
    seen = epoch_.load(std::memory_order_acquire);
    take_chunks(seen, index);
  }
}

}  // namespace warpsim::timing
