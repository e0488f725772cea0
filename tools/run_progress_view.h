#pragma once
// `warpsim run`'s view of a running program: the page shared with its
// runtime (libcudart_shim/run_progress.h) and the progress it draws from it -
// a live line on a terminal, or a line every N seconds for logs and batch
// jobs (`--progress=N`).
#include <chrono>
#include <string>

#include "libcudart_shim/run_progress.h"
#include "tools/status_line.h"

namespace warpsim::tools {

using cudart::RunProgressPage;

class RunProgressView {
 public:
  // `live`: draw the live line (stderr is a terminal, not --quiet);
  // `interval`: seconds between printed lines (0: none).
  RunProgressView(bool live, double interval);
  ~RunProgressView();
  RunProgressView(const RunProgressView&) = delete;
  RunProgressView& operator=(const RunProgressView&) = delete;

  // The descriptor the program inherits (WARPSIM_PROGRESS_FD); -1 when the
  // page could not be made (the run goes on without progress).
  int fd() const { return fd_; }
  RunProgressPage* page() { return page_; }
  // A few times a second while the program runs.
  void poll();
  // The program has ended: clears the live line.
  void finish();
  // What the page says now, as one line ("" outside launches).
  std::string describe() const;

 private:
  int fd_ = -1;
  RunProgressPage* page_ = nullptr;
  bool live_;
  double interval_;
  StatusLine line_;
  using Clock = std::chrono::steady_clock;
  Clock::time_point start_ = Clock::now();
  Clock::time_point launch_seen_{};  // when the current launch was first seen
  uint64_t launch_ = 0;              // its number
  Clock::time_point last_print_ = Clock::now();
  Clock::time_point last_draw_{};
};

}  // namespace warpsim::tools
