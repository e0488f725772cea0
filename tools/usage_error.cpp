#include "tools/usage_error.h"

#include <fmt/format.h>

#include <cstdio>
#include <string>

namespace warpsim::tools {

namespace {

// The listed subcommands of `app` (internal ones have no group and stay hidden).
std::string command_names(const CLI::App& app) {
  std::string names;
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App* s) { return !s->get_group().empty(); }))
    names += (names.empty() ? "" : ", ") + sub->get_name();
  return names;
}

const CLI::App* find_subcommand(const CLI::App& app, const std::string& word) {
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; }))
    if (sub->check_name(word)) return sub;
  return nullptr;
}

}  // namespace

int report_parse_error(CLI::App& app, const CLI::ParseError& error, int argc, const char* const* argv) {
  // --help and --version arrive as "errors" with status 0; CLI11 prints them.
  if (error.get_exit_code() == static_cast<int>(CLI::ExitCodes::Success))
    return app.exit(error);
  // Follow the leading words down the command tree: the deepest command
  // named prefixes the message, and a word that names none where a command
  // is expected is the error, whatever CLI11 made of it ("A subcommand is
  // required" says neither which word nor which commands).
  const CLI::App* command = &app;
  std::string path = "warpsim";  // not argv[0]: the same text whatever path ran it
  for (int i = 1; i < argc; ++i) {
    const std::string word = argv[i];
    if (command->get_subcommands([](const CLI::App*) { return true; }).empty() || word.empty() ||
        word[0] == '-')
      break;
    const CLI::App* next = find_subcommand(*command, word);
    if (next == nullptr) {
      std::fputs(fmt::format("{}: unknown command '{}' (commands: {})\nRun '{} --help' for more information.\n",
                             path, word, command_names(*command), path)
                     .c_str(),
                 stderr);
      return kUsageError;
    }
    command = next;
    path += " " + next->get_name();
  }
  std::string message = error.what();
  if (command->get_require_subcommand_min() > 0 && dynamic_cast<const CLI::RequiredError*>(&error) &&
      message.find("subcommand") != std::string::npos)
    message = fmt::format("a command is required (commands: {})", command_names(*command));
  std::fputs(fmt::format("{}: {}\nRun '{} --help' for more information.\n", path, message, path).c_str(), stderr);
  return kUsageError;
}

}  // namespace warpsim::tools
