#pragma once
// The page `warpsim run` shares with the runtime inside the program it runs:
// which kernel is running and how far it has got (drawn as a progress line),
// and the stop request a signal raises. `warpsim run` creates it (an
// anonymous shared file, inherited as WARPSIM_PROGRESS_FD); the runtime maps
// it. Everything in it is a lock-free atomic or guarded by a sequence count,
// so neither side ever waits for the other.
#include <atomic>
#include <cstdint>
#include <cstring>
#include <string>

#include "functional/launch_monitor.h"

namespace warpsim::cudart {

struct RunProgressPage {
  static constexpr uint64_t kMagic = 0x3170726f67727377ull;  // "wsrgorp1"
  uint64_t magic = kMagic;
  std::atomic<uint64_t> launches{0};      // grids begun (device-side launches not included)
  std::atomic<uint32_t> in_launch{0};     // 1 while a grid runs
  std::atomic<uint32_t> line_shown{0};    // a progress line is on the terminal: clear it before output
  std::atomic<uint64_t> name_version{0};  // odd while `kernel` is being written
  char kernel[232] = {};                  // the running grid's kernel (mangled), NUL-terminated
  functional::LaunchMonitor monitor;

  // Writer: the runtime, one thread at a time (under its lock).
  void set_kernel(const std::string& name) {
    name_version.fetch_add(1, std::memory_order_acq_rel);
    const size_t n = std::min(name.size(), sizeof kernel - 1);
    for (size_t i = 0; i < sizeof kernel; ++i)
      reinterpret_cast<volatile char*>(kernel)[i] = i < n ? name[i] : '\0';
    name_version.fetch_add(1, std::memory_order_acq_rel);
  }
  // Reader: `warpsim run`; empty while the name is being written.
  std::string kernel_name() const {
    const uint64_t v = name_version.load(std::memory_order_acquire);
    if (v & 1) return {};
    char copy[sizeof kernel];
    for (size_t i = 0; i < sizeof kernel; ++i) copy[i] = reinterpret_cast<const volatile char*>(kernel)[i];
    copy[sizeof kernel - 1] = '\0';
    std::atomic_thread_fence(std::memory_order_acquire);
    if (name_version.load(std::memory_order_acquire) != v) return {};
    return copy;
  }
};

}  // namespace warpsim::cudart
