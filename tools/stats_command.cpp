// `warpsim stats docs`: the statistics reference (docs/statistics.md).
#include <iostream>

#include "timing/statistics.h"
#include "tools/commands.h"

namespace warpsim::tools {

void register_stats_command(CLI::App& app) {
  CLI::App* stats = app.add_subcommand("stats", "Simulator statistics: docs");
  stats->require_subcommand(1);
  CLI::App* docs = stats->add_subcommand(
      "docs", "Print the statistics reference (docs/statistics.md) as Markdown");
  docs->callback([] {
    std::cout << timing::statistics_markdown();
    set_exit_code(0);
  });
}

}  // namespace warpsim::tools
