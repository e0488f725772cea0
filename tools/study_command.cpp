// `warpsim study list|run|check`: a study (studies/NAME/study.toml) is a
// sweep of a source paper's experiment, the paper's figures to draw from
// its results, and `expect` rules that put our numbers next to the
// paper's. `run` runs the sweep and then checks; `check` only checks the
// results already in the output folder. The figures and the table are the
// Python program's (warpsim_py study). docs/sweep.md describes the format.
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <memory>
#include <set>

#include "common/toml_document.h"
#include "tools/commands.h"
#include "tools/install_paths.h"
#include "tools/option_checks.h"
#include "tools/python_program.h"
#include "tools/sweep.h"
#include "tools/workload_suite.h"

namespace warpsim::tools {

namespace fs = std::filesystem;

namespace {

struct StudyOptions {
  std::string name;
  std::string preset;  // empty: the study's own
  SweepOptions sweep;
};

std::string default_out(const std::string& dir) { return "warpsim-study-" + fs::path(dir).filename().string(); }

int list_studies() {
  size_t found = 0;
  std::set<std::string> seen;  // a study found earlier on the path shadows one of the same name
  for (const std::string& dir : study_search_path()) {
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) continue;
    std::vector<fs::path> studies;
    for (const auto& e : fs::directory_iterator(dir, ec))
      if (fs::is_regular_file(e.path() / "study.toml", ec) && seen.insert(e.path().filename().string()).second)
        studies.push_back(e.path());
    std::sort(studies.begin(), studies.end());
    if (studies.empty()) continue;
    fmt::print("studies in {}:\n", dir);
    for (const fs::path& s : studies) {
      std::string text, title;
      if (read_file((s / "study.toml").string(), text)) {
        SourceFile file((s / "study.toml").string(), text);
        DiagnosticEngine diags;
        if (auto doc = parse_toml_document(file, diags); doc && doc->contains("title") && (*doc)["title"].is_string())
          title = (*doc)["title"].get<std::string>();
      }
      fmt::print("  {:<28} {}\n", s.filename().string(), title);
      ++found;
    }
  }
  if (!found) fmt::print("no studies found\n");
  return 0;
}

std::string study_dir_or_complain(const std::string& name) {
  const std::string dir = find_study_dir(name);
  if (dir.empty()) {
    std::string path;
    for (const std::string& d : study_search_path()) path += "\n  " + d;
    fmt::print(stderr, "warpsim study: no study '{}' (a folder with study.toml; searched:{})\n", name, path);
  }
  return dir;
}

int check(const std::string& dir, const std::string& out) {
  return run_python_program("study", {(fs::path(dir) / "study.toml").string(), out});
}

int run(const StudyOptions& opt) {
  const std::string dir = study_dir_or_complain(opt.name);
  if (dir.empty()) return 2;
  const std::string path = (fs::path(dir) / "study.toml").string();
  std::string text;
  if (!read_file(path, text)) {
    fmt::print(stderr, "warpsim study: cannot read {}\n", path);
    return 2;
  }
  SourceFile file(path, text);
  DiagnosticEngine diags;
  auto doc = parse_toml_document(file, diags);
  if (doc && (!doc->contains("sweep") || !(*doc)["sweep"].is_object())) {
    diags.error(&file, {1, 1}, "a study needs a [sweep] table (the sweep specification)");
    doc.reset();
  }
  std::optional<SweepSpec> spec = doc ? read_sweep_spec((*doc)["sweep"], file, diags) : std::nullopt;
  if (!spec) {
    std::fputs(diags.format_all().c_str(), stderr);
    return 2;
  }
  spec->name = fs::path(dir).filename().string();
  if (!opt.preset.empty()) spec->presets = {opt.preset};
  SweepOptions sweep = opt.sweep;
  if (sweep.out.empty()) sweep.out = default_out(dir);
  const int status = run_sweep(*spec, text, sweep);
  if (status == 2 || status > 128 || sweep.dry_run || (sweep.backend == "slurm" && sweep.slurm.no_wait))
    return status;
  const int checked = check(dir, sweep.out);
  return checked != 0 ? checked : status;
}

}  // namespace

void register_study_command(CLI::App& app) {
  auto opt = std::make_shared<StudyOptions>();
  CLI::App* study = app.add_subcommand(
      "study", "Reproduce a source paper's experiment: run a study's sweep, draw its figures and compare with the "
               "paper's numbers (studies/)");
  study->require_subcommand(1);
  CLI::App* list = study->add_subcommand("list", "List the studies");
  list->callback([] { set_exit_code(list_studies()); });

  CLI::App* run_cmd = study->add_subcommand("run", "Run a study's sweep, then check it (figures and the table of "
                                                   "ours vs the paper's)");
  run_cmd->add_option("name", opt->name, "The study: a name from `warpsim study list`, or a folder")->required();
  run_cmd->add_option("--preset", opt->preset, "Input size for every program: tiny, small or large "
                                               "(default: the study's)")
      ->check(CLI::IsMember({"tiny", "small", "large"}));
  run_cmd->add_option("--out", opt->sweep.out, "Output folder (default: warpsim-study-NAME)");
  run_cmd->add_option("--jobs,-j", opt->sweep.jobs, "Runs at the same time (default 1)")->check(whole_number(1, 1024));
  run_cmd->add_option("--backend", opt->sweep.backend, "local (default) or slurm")
      ->check(CLI::IsMember({"local", "slurm"}));
  run_cmd->add_option("--partition", opt->sweep.slurm.partition, "Slurm: partition");
  run_cmd->add_option("--time", opt->sweep.slurm.time, "Slurm: time limit per array task");
  run_cmd->add_flag("--resume", opt->sweep.resume, "Continue an interrupted run in --out");
  run_cmd->add_flag("--retry-failed", opt->sweep.retry_failed, "With --resume: run again what did not pass");
  run_cmd->add_flag("--dry-run", opt->sweep.dry_run, "Print the points and run nothing");
  run_cmd->callback([opt] { set_exit_code(run(*opt)); });

  CLI::App* check_cmd = study->add_subcommand("check", "Draw a study's figures and compare its results with the "
                                                       "paper's numbers");
  check_cmd->add_option("name", opt->name, "The study: a name from `warpsim study list`, or a folder")->required();
  check_cmd->add_option("--out", opt->sweep.out, "The folder `study run` wrote (default: warpsim-study-NAME)");
  check_cmd->callback([opt] {
    const std::string dir = study_dir_or_complain(opt->name);
    if (dir.empty()) return set_exit_code(2);
    set_exit_code(check(dir, opt->sweep.out.empty() ? default_out(dir) : opt->sweep.out));
  });
}

}  // namespace warpsim::tools
