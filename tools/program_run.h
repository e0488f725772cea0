#pragma once
// One program under `warpsim run`, as a child process of a tool that runs
// many (`warpsim bench`, `warpsim sweep`): starting it in its own process
// group with its output in log files, running a list of them N at a time
// with timeouts, and classifying how each ended (pass, fail, crash, timeout).
#include <sys/types.h>

#include <chrono>
#include <functional>
#include <string>
#include <vector>

namespace warpsim::tools {

// What to run: `self run --quiet --mode MODE [--config C] [--set S]...
// --stats LOG.stats.json -- BINARY ARGS...`, output in LOG.out / LOG.err.
struct ProgramRun {
  std::string warpsim;  // the warpsim executable
  std::string mode = "timing";
  std::string config;
  std::vector<std::string> overrides;
  std::string binary;
  std::vector<std::string> arguments;
  std::string log_base;  // <dir>/<name>: .out, .err, .stats.json
  // The line that marks success ("PASS bfs"); empty: exit status 0 passes.
  std::string pass_line;
  double timeout = 0;  // seconds; 0: none
  // Host threads of the simulation (warpsim run --threads); 0: its default.
  // In timing mode run_programs shares the cores among the runs it keeps
  // going at once.
  uint32_t threads = 0;

  std::string stats_path() const { return log_base + ".stats.json"; }
  std::vector<std::string> argv() const;
};

struct RunOutcome {
  std::string status = "error";  // pass, fail, crash, timeout, missing, error, interrupted
  std::string reason;
  int exit_code = -1;
  double wall_seconds = 0;
};

// Starts `run` in its own process group (a timeout or an interrupt kills
// the program too, not only `warpsim run`). Returns the pid, or -1 with
// `why` set.
pid_t start_program_run(const ProgramRun& run, std::string& why);

// How a finished run ended, from its wait status and its logs.
RunOutcome classify_program_run(const ProgramRun& run, int wait_status, bool timed_out, double wall_seconds);

// Runs `runs` (indices into them as they start), at most `jobs` at a time;
// with more than one at a time, each timing simulation ticks its SMs on its
// share of the cores (more threads than cores only slow it down; results are
// the same at any thread count).
// `finished(i, outcome)` is called as each ends; `tick(running)` a few
// times a second with the indices running and their start times. Returns
// false when `stop()` became true (the running ones are killed and reported
// as "interrupted"); runs not started are left alone.
struct RunningProgram {
  size_t index;
  std::chrono::steady_clock::time_point start;
};
bool run_programs(const std::vector<ProgramRun>& runs, const std::vector<size_t>& order, unsigned jobs,
                  const std::function<void(size_t, const RunOutcome&)>& finished,
                  const std::function<void(const std::vector<RunningProgram>&)>& tick,
                  const std::function<bool()>& stop);

// One line of text: newlines and tabs become spaces.
std::string one_line(std::string s);
// A CSV field, quoted when it needs to be.
std::string csv_field(const std::string& s);

}  // namespace warpsim::tools
