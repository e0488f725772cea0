// The `warpsim` command line: one subcommand per job.
#include <CLI/CLI.hpp>

#include "tools/commands.h"
#include "tools/usage_error.h"

int main(int argc, char** argv) {
  CLI::App app{"warpsim: a GPU architecture simulator for unmodified CUDA programs"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "warpsim 0.1.0");
  warpsim::tools::register_ptx_command(app);
  warpsim::tools::register_config_command(app);
  warpsim::tools::register_run_command(app);
  warpsim::tools::register_bench_command(app);
  warpsim::tools::register_stats_command(app);
  warpsim::tools::register_power_command(app);
  warpsim::tools::register_profile_command(app);
  warpsim::tools::register_noc_command(app);
  warpsim::tools::register_sweep_command(app);
  warpsim::tools::register_python_commands(app);
  warpsim::tools::register_study_command(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return warpsim::tools::report_parse_error(app, e, argc, argv);
  }
  return warpsim::tools::exit_code();
}
