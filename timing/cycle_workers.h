#pragma once
// Host threads that share the SMs' work of one core cycle (timing.threads).
//
// A cycle's SM work is tens of microseconds, so handing it out must cost far
// less: waking a sleeping thread (a futex) costs about as much as the work.
// The workers therefore spin between cycles, then yield, and sleep only once
// the GPU has left its cycle loop for a while (between launches, host code).
// The caller is one of the threads. Which thread runs which task never
// matters to the results: tasks touch disjoint state (docs/timing.md,
// "Parallel timing simulation").
#include <atomic>
#include <chrono>
#include <cstdint>
#include <exception>
#include <memory>
#include <thread>
#include <vector>

namespace warpsim::timing {

class CycleWorkers {
 public:
  // `threads`: host threads in all, the caller included (>= 2).
  explicit CycleWorkers(uint32_t threads);
  ~CycleWorkers();
  CycleWorkers(const CycleWorkers&) = delete;
  CycleWorkers& operator=(const CycleWorkers&) = delete;

  uint32_t threads() const { return static_cast<uint32_t>(workers_.size()) + 1; }
  // False in a forked child: its threads stayed with the parent (the
  // destructor then leaves them alone; make a new set).
  bool usable() const;
  // Calls task(i) once for every i in [0, count), spread over the threads,
  // and returns when all calls have returned; the caller first calls
  // lead() (work of its own, at the same time as the others' tasks). An
  // exception thrown by a task or by lead() is rethrown here (the first one
  // caught). Neither is copied: nothing is allocated per run.
  template <class Task, class Lead>
  void run(uint32_t count, const Task& task, const Lead& lead) {
    run_erased(count, {&task, [](const void* f, uint32_t i) { (*static_cast<const Task*>(f))(i); }},
               {&lead, [](const void* f, uint32_t) { (*static_cast<const Lead*>(f))(); }});
  }
  template <class Task>
  void run(uint32_t count, const Task& task) {
    run(count, task, [] {});
  }
  // A fast clock in arbitrary units (the processor's time-stamp counter).
  static uint64_t ticks() {
#if defined(__x86_64__) || defined(__i386__)
    return __builtin_ia32_rdtsc();
#else
    return static_cast<uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
#endif
  }

 private:
  struct TaskRef {  // a callable by reference, without std::function's allocation
    const void* object;
    void (*call)(const void*, uint32_t);
    void operator()(uint32_t i) const { call(object, i); }
  };
  void run_erased(uint32_t count, TaskRef task, TaskRef lead);
  void work(uint32_t index);  // a worker's loop
  // Claims and runs chunks of run `epoch`: thread `index`'s own first, then
  // any other thread's still unclaimed, from the end of its share (the
  // owner, late because of lead() or without a core, works from the start).
  void take_chunks(uint64_t epoch, uint32_t index);
  bool wait_for_epoch(uint64_t seen);  // false: stop

  std::vector<std::thread> workers_;
  int owner_ = 0;  // the process that made the threads
  // One run: the tasks are cut into chunks, each owned by one thread (the
  // same SMs stay in the same core's cache from cycle to cycle); a thread
  // that is done takes the unclaimed chunks of others, so a worker without
  // a core (more threads than cores) delays nothing. A chunk's claim holds
  // epoch << 1 while open and epoch << 1 | 1 once claimed: a worker that
  // wakes after its run ended finds no chunk to claim.
  std::atomic<uint64_t> epoch_{0};
  std::atomic<uint32_t> sleepers_{0};
  std::atomic<uint32_t> count_{0}, chunks_{0};
  // The run's task, published by the epoch's store (atomic: a stale worker
  // may read it while the next run is being set up; it then claims nothing).
  std::atomic<const void*> task_object_{nullptr};
  std::atomic<void (*)(const void*, uint32_t)> task_call_{nullptr};
  std::unique_ptr<std::atomic<uint64_t>[]> claims_;
  uint32_t max_chunks_ = 0;
  std::atomic<uint32_t> done_{0};  // chunks finished in this run
  std::atomic<bool> stop_{false};
  std::atomic<bool> failed_{false};
  std::exception_ptr error_;
};

// Whether handing cycles to the threads pays. Handing a cycle out costs a
// microsecond or two, and the SMs it hands out may run slower on another
// core (their state moves between caches): with little work per cycle, one
// thread is faster. A probe of kBlocks blocks of kBlock cycles alternates
// the threads and one thread, block by block, and times both (a block's
// first kWarm cycles pay for the switch and are not timed); the next kRun
// cycles go the faster way; then it probes again. The blocks interleave
// because a launch's work per cycle changes 2-4x from one hundred cycles to
// the next: timed one after the other, the two halves of a probe would
// compare different work. The choice decides only speed: the results are
// the same either way.
class ThreadPacer {
 public:
  static constexpr uint32_t kBlock = 8, kWarm = 2, kBlocks = 16, kRun = 4096;
  bool parallel() const { return probing_ ? block_ % 2 == 0 : parallel_; }
  // Whether the cycle about to run is timed (cycle()'s `wall` is read).
  bool timing() const { return probing_ && in_block_ >= kWarm; }
  // A cycle ran, in `wall` time units when it was timed.
  void cycle(uint64_t wall) {
    if (!probing_) {
      if (++cycles_ < kRun) return;
      cycles_ = 0;
      probing_ = true;
      return;
    }
    if (in_block_ >= kWarm) (block_ % 2 == 0 ? parallel_wall_ : serial_wall_) += wall;
    if (++in_block_ < kBlock) return;
    in_block_ = 0;
    if (++block_ < kBlocks) return;
    parallel_ = parallel_wall_ < serial_wall_;
    probing_ = false;
    block_ = 0;
    parallel_wall_ = serial_wall_ = 0;
  }

 private:
  bool probing_ = true, parallel_ = false;
  uint32_t block_ = 0, in_block_ = 0, cycles_ = 0;
  uint64_t parallel_wall_ = 0, serial_wall_ = 0;
};

}  // namespace warpsim::timing
