#pragma once
// `warpsim sweep`: runs every point x program of a sweep specification on
// this machine or on a Slurm cluster and writes the results table.
// `warpsim study` runs a study's sweep through the same function.
#include <string>
#include <vector>

#include "tools/sweep_runs.h"
#include "tools/sweep_spec.h"

namespace warpsim::tools {

struct SlurmOptions {
  std::string partition, time, mem, account;
  unsigned runs_per_task = 1;
  unsigned max_running = 0;  // the array's %N; 0: no limit
  unsigned cpus_per_task = 1;
  std::vector<std::string> sbatch_options;  // passed to sbatch as they are
  std::string warpsim;                      // warpsim on the nodes; default: this one
  double poll_seconds = 5;
  bool no_wait = false;  // submit and return; --resume collects later
};

struct SweepOptions {
  std::string backend = "local";  // local or slurm
  unsigned jobs = 1;
  std::string out;  // default: the spec's name
  bool resume = false;
  bool retry_failed = false;
  bool dry_run = false;
  SlurmOptions slurm;
};

// Runs `spec` (whose file text is `spec_text`, copied into the output
// folder). Returns the exit status: 0 all passed, 1 some did not, 2 bad
// input, 128+N interrupted by signal N.
int run_sweep(const SweepSpec& spec, const std::string& spec_text, const SweepOptions& opt);

// The Slurm backend: submits the runs `pending` of `runs` as a job array
// from <out>/slurm/, follows it, and records runs that ended without a
// result. Returns false when it could not submit (message on stderr).
bool run_on_slurm(const std::string& out, const std::vector<SweepRun>& runs, const std::vector<size_t>& pending,
                  const SlurmOptions& opt, const std::function<void(size_t done)>& progress);

}  // namespace warpsim::tools
