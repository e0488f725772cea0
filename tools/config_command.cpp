// `warpsim config show|list|docs`: the configuration system on the command line.
#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "common/config.h"
#include "common/diagnostics.h"
#include "timing/sim_config.h"
#include "tools/commands.h"

namespace warpsim::tools {

namespace {

struct ConfigOptions {
  std::string config;
  std::vector<std::string> overrides;
};

// Diagnostics (errors and warnings) go to stderr.
void print_diagnostics(const DiagnosticEngine& diags) {
  std::string out = diags.format_all();
  if (!out.empty()) std::fputs(out.c_str(), stderr);
}

int run_show(const ConfigOptions& opt) {
  DiagnosticEngine diags;
  auto config = load_sim_config(opt.config, opt.overrides, diags);
  print_diagnostics(diags);
  if (!config) return 2;
  std::cout << sim_config_toml(*config);
  return 0;
}

int run_list() {
  const std::vector<std::string> path = config_search_path();
  fmt::print("search path (first match wins):\n");
  for (const auto& dir : path) fmt::print("  {}\n", dir);
  const auto configs = config::list_named_configs(path);
  if (configs.empty()) {
    fmt::print("no configs found\n");
    return 0;
  }
  size_t width = 4;
  for (const auto& c : configs) width = std::max(width, c.name.size());
  fmt::print("\n{:<{}}  {:<5}  {:<40}  {}\n", "name", width, "cc", "gpu", "file");
  int status = 0;
  for (const auto& c : configs) {
    DiagnosticEngine diags;
    auto config = load_sim_config(c.path, {}, path, diags);
    std::string cc = config ? config->gpu.compute_capability : "-";
    std::string gpu = config
                          ? config->gpu.name
                          : fmt::format("(invalid: {} errors; see warpsim config show --config {})",
                                        diags.error_count(), c.path);
    if (!config) status = 2;  // a configuration error, as everywhere
    fmt::print("{:<{}}  {:<5}  {:<40}  {}{}\n", c.name, width, cc, gpu, c.path,
               c.shadowed ? "  (shadowed by an earlier one)" : "");
  }
  return status;
}

int run_docs() {
  std::cout << sim_config_markdown();
  return 0;
}

}  // namespace

void register_config_command(CLI::App& app) {
  auto opt = std::make_shared<ConfigOptions>();
  CLI::App* config = app.add_subcommand("config", "Simulator configuration: show, list, docs");
  config->require_subcommand(1);

  CLI::App* show = config->add_subcommand(
      "show", "Print the effective configuration as TOML, with units and descriptions");
  show->add_option("--config", opt->config,
                   "Named config (NAME.toml on the search path) or a TOML file; default: built-in");
  show->add_option("--set", opt->overrides, "Override one value: section.key=value (repeatable)")
      ->allow_extra_args(false);
  show->callback([opt] { set_exit_code(run_show(*opt)); });

  CLI::App* list =
      config->add_subcommand("list", "List the named configs on the search path (name, CC, GPU)");
  list->callback([] { set_exit_code(run_list()); });

  CLI::App* docs = config->add_subcommand(
      "docs", "Print the configuration reference (docs/config.md) as Markdown");
  docs->callback([] { set_exit_code(run_docs()); });
}

}  // namespace warpsim::tools
