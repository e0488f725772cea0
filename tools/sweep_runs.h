#pragma once
// The runs of a sweep (point x program), as the sweep's output folder
// records them: sweep.json lists every run with its content hash, and each
// finished run leaves runs/<point>/<suite>_<name>.result.json beside its
// logs and statistics. A run whose result file carries the same hash is
// done and is skipped by --resume; Slurm tasks read their runs from a task
// file and write the same result files (docs/sweep.md).
#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

#include "tools/interrupts.h"
#include "tools/program_run.h"

namespace warpsim::tools {

struct SweepRun {
  size_t point = 0;     // index into the sweep's points
  std::string program;  // the results' program column ("rodinia/bfs")
  ProgramRun run;
  // What makes the result: the warpsim build, the effective configuration,
  // the mode, the program binary and its arguments.
  std::string hash;
  std::string result_path() const { return run.log_base + ".result.json"; }
};

// A recorded outcome: the result file of a run.
struct RunRecord {
  std::string hash;
  RunOutcome outcome;
  std::string host;      // where it ran
  std::string finished;  // UTC time, ISO 8601
};

// A stable 128-bit content hash as 32 hex digits (FNV-1a, two seeds).
class ContentHash {
 public:
  void add(std::string_view bytes);
  // Adds a file's bytes; false when it cannot be read.
  bool add_file(const std::string& path);
  std::string hex() const;

 private:
  uint64_t a_ = 0xcbf29ce484222325ull, b_ = 0x84222325cbf29ce4ull;
};

// The identity of this warpsim build: the executable and the runtime shims.
std::string build_identity();

nlohmann::json run_to_json(const SweepRun& r);
std::optional<SweepRun> run_from_json(const nlohmann::json& j);

// Writes `r`'s result file (atomically: a file that exists is complete).
bool write_run_record(const SweepRun& r, const RunOutcome& outcome, std::string& why);
std::optional<RunRecord> read_run_record(const SweepRun& r);

// Runs `runs` (indices `order`) `jobs` at a time, writing each one's result
// file. `announce(i, outcome)` after each. Stops early when `stop()` (the
// running ones are recorded as interrupted). Returns false when stopped.
bool execute_runs(const std::vector<SweepRun>& runs, const std::vector<size_t>& order, unsigned jobs,
                  const std::function<void(size_t, const RunOutcome&)>& announce,
                  const std::function<void(const std::vector<RunningProgram>&)>& tick,
                  const std::function<bool()>& stop);

}  // namespace warpsim::tools
