// `warpsim ptx check|print|info|...`: the PTX front end on the command line.
#include <fmt/format.h>

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "common/diagnostics.h"
#include "ptx/parse.h"
#include "tools/commands.h"

namespace warpsim::tools {

namespace {

int g_exit_code = 0;

struct PtxOptions {
  std::vector<std::string> files;
  std::string file;
  size_t error_limit = 50;
};

// Loads and parses one file; diagnostics go to stderr.
std::unique_ptr<ptx::Module> load(const std::string& path, size_t error_limit, bool& ok) {
  std::string text;
  if (!read_file(path, text)) {
    fmt::print(stderr, "{}: error: cannot read file\n", path);
    ok = false;
    return nullptr;
  }
  DiagnosticEngine diags(error_limit);
  auto module = ptx::parse_and_check(text, path, diags);
  std::string out = diags.format_all();
  if (!out.empty()) std::fputs(out.c_str(), stderr);
  ok = !diags.has_errors();
  return module;
}

int run_check(const PtxOptions& opt) {
  int failures = 0;
  for (const auto& path : opt.files) {
    bool ok = false;
    load(path, opt.error_limit, ok);
    if (!ok) ++failures;
  }
  if (opt.files.size() > 1)
    fmt::print(stderr, "{} of {} files checked clean\n", opt.files.size() - failures,
               opt.files.size());
  return failures ? 1 : 0;
}

}  // namespace

void set_exit_code(int code) { g_exit_code = code; }
int exit_code() { return g_exit_code; }

void register_ptx_command(CLI::App& app) {
  auto opt = std::make_shared<PtxOptions>();
  CLI::App* ptx = app.add_subcommand("ptx", "Work with PTX: check, print, info");
  ptx->require_subcommand(1);

  CLI::App* check = ptx->add_subcommand("check", "Parse, check and analyse PTX files; exit 1 on any error");
  check->add_option("files", opt->files, "PTX files")->required();
  check->add_option("--error-limit", opt->error_limit, "Stop reporting after this many errors per file");
  check->callback([opt] { set_exit_code(run_check(*opt)); });
}

}  // namespace warpsim::tools
