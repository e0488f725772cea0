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
#include <cstdint>
#include <exception>
#include <functional>
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
  // and returns when all calls have returned. An exception thrown by a task
  // is rethrown here (the first one caught).
  void run(uint32_t count, const std::function<void(uint32_t)>& task);

 private:
  void work(uint32_t index);  // a worker's loop
  // Claims and runs chunks of run `epoch`: thread `index`'s own first, then
  // any other thread's still unclaimed.
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
  std::atomic<const std::function<void(uint32_t)>*> task_{nullptr};
  std::unique_ptr<std::atomic<uint64_t>[]> claims_;
  uint32_t max_chunks_ = 0;
  std::atomic<uint32_t> done_{0};  // chunks finished in this run
  std::atomic<bool> stop_{false};
  std::atomic<bool> failed_{false};
  std::exception_ptr error_;
};

// Whether handing cycles to the threads pays, found out by timing it: a
// launch alternates `kProbe` cycles on one thread and `kProbe` on all, then
// runs `kRun` cycles the faster way, and probes again (the SMs' work per
// cycle changes as a launch goes on). It decides only speed: the results are
// the same either way.
class ThreadPacer {
 public:
  static constexpr uint32_t kProbe = 64, kRun = 4096;
  bool parallel() const { return phase_ == Phase::ProbeParallel || (phase_ == Phase::Run && parallel_); }
  bool timing() const { return phase_ != Phase::Run; }
  // A timed cycle took `ns` nanoseconds.
  void record(double ns) {
    (phase_ == Phase::ProbeSerial ? serial_ns_ : parallel_ns_) += ns;
    if (++cycles_ < kProbe) return;
    cycles_ = 0;
    if (phase_ == Phase::ProbeSerial) {
      phase_ = Phase::ProbeParallel;
    } else {
      parallel_ = parallel_ns_ < serial_ns_;
      serial_ns_ = parallel_ns_ = 0;
      phase_ = Phase::Run;
    }
  }
  // An untimed cycle ran.
  void count() {
    if (++cycles_ < kRun) return;
    cycles_ = 0;
    phase_ = Phase::ProbeSerial;
  }

 private:
  enum class Phase : uint8_t { ProbeSerial, ProbeParallel, Run };
  Phase phase_ = Phase::ProbeSerial;
  bool parallel_ = false;
  uint32_t cycles_ = 0;
  double serial_ns_ = 0, parallel_ns_ = 0;
};

}  // namespace warpsim::timing
