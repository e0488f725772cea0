#pragma once
// A power trace: average power per component group over consecutive
// stretches of simulated time, one CSV row each, for power-over-time plots
// (`warpsim run --power-trace FILE.csv`; [power] trace_interval).
//
// The timing model hands a launch's counters so far every trace_interval
// core cycles (and at the launch's end); each row prices what happened since
// the previous sample. Cycles are counted from the run's first launch; time
// between launches (host work, copies) is not in the trace. A row can span
// more than the interval when the GPU skipped idle cycles past a sample
// point: its cycle range says so.
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

#include "power/activity.h"
#include "power/energy_model.h"

namespace warpsim::power {

class PowerTrace {
 public:
  // Opens (truncates) `path`; error() says why when it could not.
  PowerTrace(const std::string& path, const PowerConfig& config, const Machine& machine);
  ~PowerTrace();
  PowerTrace(const PowerTrace&) = delete;
  PowerTrace& operator=(const PowerTrace&) = delete;

  bool ok() const { return file_ != nullptr; }
  const std::string& error() const { return error_; }

  // A launch of `kernel` starts at run cycle `first_cycle`.
  void begin_launch(std::string_view kernel, uint64_t first_cycle);
  // The launch's counters so far (since its start); writes a row for what
  // changed since the previous sample, if any cycles passed.
  void sample(const Activity& launch_so_far);
  void end_launch(const Activity& launch_total) { sample(launch_total); }

  uint64_t rows() const { return rows_; }

 private:
  std::FILE* file_ = nullptr;
  std::string error_;
  PowerConfig config_;
  Machine machine_;
  std::string kernel_;
  uint64_t launch_ = 0, first_cycle_ = 0, rows_ = 0;
  Activity previous_;
};

}  // namespace warpsim::power
