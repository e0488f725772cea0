#pragma once
// How `warpsim` reports a command line it cannot parse: one message naming
// the command and what is wrong, and exit status 2 for every usage error
// (CLI11's own codes, 105-109, are an implementation detail nobody should
// have to look up). --help and --version keep their status 0.
#include <CLI/CLI.hpp>

namespace warpsim::tools {

// The exit status of every usage or configuration error (README.md, "Exit
// status").
inline constexpr int kUsageError = 2;

// Prints what was wrong with `argv` - for an unknown subcommand, the word
// and the commands there are - and returns the process exit status.
int report_parse_error(CLI::App& app, const CLI::ParseError& error, int argc, const char* const* argv);

}  // namespace warpsim::tools
