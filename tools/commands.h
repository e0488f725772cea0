#pragma once
// Subcommand registration for the `warpsim` tool. Each subcommand lives in
// its own file and sets the process exit code through set_exit_code().
#include <CLI/CLI.hpp>

namespace warpsim::tools {

void register_ptx_command(CLI::App& app);
void register_config_command(CLI::App& app);
void register_ptx_extract_command(CLI::App& ptx);
void register_ptx_pass_commands(CLI::App& ptx);
void register_run_command(CLI::App& app);
// `profile`: kernel times on a real GPU (libwarpsim_profile.so).
void register_profile_command(CLI::App& app);
void register_bench_command(CLI::App& app);
void register_stats_command(CLI::App& app);
void register_power_command(CLI::App& app);
// `noc`, a group: its studies register as subcommands in noc_command.cpp.
void register_noc_command(CLI::App& app);
void register_noc_area_command(CLI::App& noc);
// `sweep` (and the internal `sweep-task` its Slurm jobs run).
void register_sweep_command(CLI::App& app);
// `plot` and `report`: the Python program installed with warpsim.
void register_python_commands(CLI::App& app);
void register_study_command(CLI::App& app);

void set_exit_code(int code);
int exit_code();

}  // namespace warpsim::tools
