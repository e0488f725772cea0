#pragma once
// What a running launch tells the outside world while it runs, and how the
// outside world asks it to stop: `warpsim run` draws a progress line from
// these counters and, on SIGINT/SIGTERM/SIGHUP, sets `stop` so that a long
// launch ends within a fraction of a second with an Interrupted fault
// (instead of running to its end while the user waits).
//
// Updated by the executors at coarse, deterministic points (after each CTA
// in functional mode, every few thousand cycles in timing mode): the cost is
// a few relaxed atomic stores per CTA, nothing per instruction. All members
// are lock-free atomics, so the monitor may live in memory shared with
// another process.
#include <atomic>
#include <cstdint>

namespace warpsim::functional {

struct LaunchMonitor {
  std::atomic<uint64_t> ctas_total{0};           // CTAs of the launch
  std::atomic<uint64_t> ctas_done{0};            // CTAs that have finished
  std::atomic<uint64_t> thread_instructions{0};  // executed so far in this launch
  std::atomic<uint64_t> cycles{0};               // timing mode: core cycles since the launch began
  std::atomic<int32_t> stop{0};                  // nonzero (a signal number): stop the launch

  bool stop_requested() const { return stop.load(std::memory_order_relaxed) != 0; }
  void begin(uint64_t ctas) {
    ctas_total.store(ctas, std::memory_order_relaxed);
    ctas_done.store(0, std::memory_order_relaxed);
    thread_instructions.store(0, std::memory_order_relaxed);
    cycles.store(0, std::memory_order_relaxed);
  }
  void add(uint64_t ctas, uint64_t thread_insts) {
    ctas_done.fetch_add(ctas, std::memory_order_relaxed);
    thread_instructions.fetch_add(thread_insts, std::memory_order_relaxed);
  }
};
static_assert(std::atomic<uint64_t>::is_always_lock_free && std::atomic<int32_t>::is_always_lock_free,
              "the monitor may be shared between processes");

}  // namespace warpsim::functional
