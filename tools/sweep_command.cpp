// `warpsim sweep SPEC.toml`: expands the spec into points, runs every
// point x program as its own `warpsim run` (here, N at a time, or as a
// Slurm job array), records each outcome beside its logs and statistics,
// and writes the results table. docs/sweep.md describes the spec, the
// output folder and resuming.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>

#include "common/toml_document.h"
#include "timing/sim_config.h"
#include "tools/commands.h"
#include "tools/install_paths.h"
#include "tools/option_checks.h"
#include "tools/status_line.h"
#include "tools/sweep.h"
#include "tools/sweep_results.h"
#include "tools/workload_suite.h"

namespace warpsim::tools {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using nlohmann::json;

namespace {

// A program of the sweep with what it needs to run at each preset.
struct SweepProgramPlan {
  std::string id;
  std::string binary;
  std::map<std::string, std::vector<std::string>> arguments;  // preset -> arguments
  std::string pass_line;
  std::string log_name;  // runs/<point>/<log_name>.*
};

std::string log_name(const std::string& id) {
  std::string s = id;
  for (char& c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '.' && c != '+') c = '_';
  return s;
}

// The sweep's programs: named suites, then single programs, then commands.
std::optional<std::vector<SweepProgramPlan>> plan_programs(const SweepSpec& spec) {
  std::vector<SweepProgramPlan> plans;
  std::optional<WorkloadSuite> suite;
  if (!spec.suites.empty() || !spec.programs.empty()) {
    const std::string file = find_suites_file(spec.suites_file);
    std::string text;
    if (file.empty() || !read_file(file, text)) {
      fmt::print(stderr, "warpsim sweep: {} - the spec names workload programs; give the suite description with "
                         "suites_file\n",
                 file.empty() ? "no suites.toml found next to warpsim (build the workload suite: it needs nvcc)"
                              : "cannot read " + file);
      return std::nullopt;
    }
    SourceFile source(file, std::move(text));
    DiagnosticEngine diags;
    suite = parse_workload_suite(source, diags);
    if (!suite) {
      std::fputs(diags.format_all().c_str(), stderr);
      return std::nullopt;
    }
  }
  std::vector<const WorkloadProgram*> workload;
  for (const std::string& name : spec.suites) {
    const NamedSuite* s = suite->find(name);
    if (!s) {
      std::string names;
      for (const NamedSuite& n : suite->suites) names += (names.empty() ? "" : ", ") + n.name;
      fmt::print(stderr, "warpsim sweep: no suite '{}' in {} (suites: {})\n", name, suite->path, names);
      return std::nullopt;
    }
    for (size_t i : s->programs) workload.push_back(&suite->programs[i]);
  }
  for (const std::string& id : spec.programs) {
    auto it = std::find_if(suite->programs.begin(), suite->programs.end(),
                           [&](const WorkloadProgram& p) { return p.id() == id; });
    if (it == suite->programs.end()) {
      fmt::print(stderr, "warpsim sweep: no program '{}' in {} (`warpsim bench --list --suite all` lists them)\n",
                 id, suite->path);
      return std::nullopt;
    }
    workload.push_back(&*it);
  }
  for (const WorkloadProgram* p : workload) {
    if (std::any_of(plans.begin(), plans.end(), [&](const SweepProgramPlan& q) { return q.id == p->id(); }))
      continue;  // named by two suites: run once
    SweepProgramPlan plan{p->id(), suite->binary(*p), {}, "PASS " + p->name, log_name(p->suite + "_" + p->name)};
    for (const char* preset : kPresets) plan.arguments[preset] = p->arguments(preset);
    plans.push_back(std::move(plan));
  }
  for (const SweepProgram& c : spec.commands) {
    SweepProgramPlan plan{c.id, c.command[0], {}, c.pass_line, log_name(c.id)};
    for (const char* preset : kPresets) plan.arguments[preset] = {c.command.begin() + 1, c.command.end()};
    plans.push_back(std::move(plan));
  }
  return plans;
}

std::string duration_text(double s) {
  if (s < 60) return fmt::format("{:.0f}s", s);
  if (s < 3600) return fmt::format("{}m{:02}s", static_cast<int>(s) / 60, static_cast<int>(s) % 60);
  return fmt::format("{}h{:02}m", static_cast<int>(s) / 3600, static_cast<int>(s) / 60 % 60);
}

// The live progress line (on a terminal) and one line per finished run.
class SweepProgress {
 public:
  SweepProgress(size_t total, size_t skipped) : total_(total), done_(skipped), skipped_(skipped), t0_(Clock::now()) {}

  void finished(const std::string& what, const RunOutcome& o) {
    ++done_;
    passed_ += o.status == "pass";
    clear();
    std::string line = fmt::format("[{:>{}}/{}] {:<8} {:<40} {:>8.1f} s", done_, digits(), total_,
                                   o.status == "pass" ? "PASS" : o.status, what, o.wall_seconds);
    if (!o.reason.empty()) line += "  " + one_line(o.reason);
    fmt::print(stderr, "{}\n", line);
  }

  // Slurm: only the count is known.
  void count(size_t done) {
    done_ = skipped_ + done;
    show({});
  }

  void show(const std::vector<std::string>& running) {
    if (!status_.on_terminal()) return;
    const double elapsed = std::chrono::duration<double>(Clock::now() - t0_).count();
    const size_t ran = done_ - skipped_;
    std::string line = fmt::format("[{}/{}] {} pass, {} not | {} elapsed", done_, total_, passed_,
                                   done_ - skipped_ - passed_, duration_text(elapsed));
    if (ran > 0 && done_ < total_) line += ", ETA " + duration_text(elapsed / ran * (total_ - done_));
    if (!running.empty()) line += " |";
    for (const std::string& r : running) line += " " + r;
    status_.show(line, 160);
  }

  void clear() { status_.clear(); }

 private:
  int digits() const { return static_cast<int>(std::to_string(total_).size()); }
  size_t total_, done_, skipped_;
  size_t passed_ = 0;
  StatusLine status_;
  Clock::time_point t0_;
};

bool write_text(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::trunc);
  out << text;
  return static_cast<bool>(out);
}

}  // namespace

int run_sweep(const SweepSpec& spec, const std::string& spec_text, const SweepOptions& opt) {
  const std::vector<SweepPoint> points = expand_points(spec);
  const fs::path out = opt.out.empty() ? fs::path(spec.name) : fs::path(opt.out);

  // Every point's configuration loads, or nothing runs.
  std::vector<std::string> config_text(points.size());
  for (size_t p = 0; p < points.size(); ++p) {
    DiagnosticEngine diags;
    auto config = load_sim_config(points[p].config->name, points[p].overrides, diags);
    if (!config) {
      fmt::print(stderr, "warpsim sweep: point {} ({}) has no valid configuration:\n{}", points[p].id,
                 points[p].label, diags.format_all());
      return 2;
    }
    config_text[p] = sim_config_toml(*config);
  }
  auto programs = plan_programs(spec);
  if (!programs) return 2;

  const std::string self = self_path();
  const std::string warpsim = opt.backend == "slurm" && !opt.slurm.warpsim.empty() ? opt.slurm.warpsim : self;
  const std::string build = build_identity();
  std::map<std::string, std::string> binary_hash;
  std::vector<SweepRun> runs;
  const fs::path abs_out = fs::absolute(out).lexically_normal();
  for (size_t p = 0; p < points.size(); ++p) {
    for (const SweepProgramPlan& prog : *programs) {
      SweepRun r;
      r.point = p;
      r.program = prog.id;
      r.run.warpsim = warpsim;
      r.run.mode = points[p].mode;
      r.run.config = points[p].config->name;
      r.run.overrides = points[p].overrides;
      r.run.binary = prog.binary;
      r.run.arguments = prog.arguments.at(points[p].preset);
      r.run.log_base = (abs_out / "runs" / points[p].id / prog.log_name).string();
      r.run.pass_line = prog.pass_line;
      r.run.timeout = spec.timeout;
      if (!binary_hash.count(prog.binary)) {
        ContentHash b;
        binary_hash[prog.binary] = b.add_file(prog.binary) ? b.hex() : "missing";
      }
      ContentHash h;
      for (const std::string& part : {build, config_text[p], r.run.mode, prog.binary, binary_hash[prog.binary],
                                      r.run.pass_line})
        h.add(part);
      for (const std::string& a : r.run.arguments) h.add(a);
      r.hash = h.hex();
      runs.push_back(std::move(r));
    }
  }

  if (opt.dry_run) {
    fmt::print("sweep {}: {} points x {} programs = {} runs; output in {}\n", spec.name, points.size(),
               programs->size(), runs.size(), out.string());
    for (const SweepPoint& p : points) {
      std::string sets;
      for (const std::string& s : p.overrides) sets += " --set " + s;
      fmt::print("  {}  {:<30} --mode {}{}{}  (preset {})\n", p.id, p.label, p.mode,
                 p.config->name.empty() ? "" : " --config " + p.config->name, sets, p.preset);
    }
    for (const SweepProgramPlan& prog : *programs) fmt::print("  program {}  {}\n", prog.id, prog.binary);
    return 0;
  }

  std::error_code ec;
  if (fs::exists(out / "sweep.json", ec) && !opt.resume) {
    fmt::print(stderr, "warpsim sweep: {} already holds a sweep; give --resume to continue it (finished runs are "
                       "kept), or another --out\n", out.string());
    return 2;
  }
  for (const SweepPoint& p : points) fs::create_directories(out / "runs" / p.id, ec);
  fs::create_directories(out / "points", ec);
  if (ec) {
    fmt::print(stderr, "warpsim sweep: cannot create {}: {}\n", out.string(), ec.message());
    return 2;
  }
  std::vector<std::string> config_files(points.size());
  json jruns = json::array();
  for (const SweepRun& r : runs) jruns.push_back(run_to_json(r));
  for (size_t p = 0; p < points.size(); ++p) {
    config_files[p] = "points/" + points[p].id + ".toml";
    write_text(out / config_files[p], config_text[p]);
  }
  if (!write_text(out / "sweep.toml", spec_text) ||
      !write_text(out / "sweep.json", json{{"sweep", spec.name}, {"build", build}, {"runs", jruns}}.dump(1) + "\n")) {
    fmt::print(stderr, "warpsim sweep: cannot write into {}\n", out.string());
    return 2;
  }

  // What is left to do: no result with this hash, or (on request) a failed one.
  std::vector<size_t> pending;
  for (size_t i = 0; i < runs.size(); ++i) {
    const auto rec = read_run_record(runs[i]);
    // error (the run could not be made) and missing (not built) are tried again.
    const std::string& st = rec ? rec->outcome.status : std::string();
    const bool finished = st == "pass" || st == "fail" || st == "crash" || st == "timeout";
    const bool done = rec && rec->hash == runs[i].hash && finished && (st == "pass" || !opt.retry_failed);
    if (!done) pending.push_back(i);
  }
  const size_t skipped = runs.size() - pending.size();
  fmt::print(stderr, "warpsim sweep: {}: {} points x {} programs = {} runs{}; {} backend{}; output in {}\n",
             spec.name, points.size(), programs->size(), runs.size(),
             skipped ? fmt::format(" ({} already done, {} to run)", skipped, pending.size()) : "", opt.backend,
             opt.backend == "local" ? fmt::format(", {} job{}", opt.jobs, opt.jobs == 1 ? "" : "s") : "",
             out.string());

  catch_interrupts();
  SweepProgress progress(runs.size(), skipped);
  auto what = [&](size_t i) { return points[runs[i].point].id + " " + runs[i].program; };
  bool completed = true;
  if (opt.backend == "slurm") {
    if (!pending.empty() &&
        !run_on_slurm(abs_out.string(), runs, pending, opt.slurm, [&](size_t done) { progress.count(done); }))
      return 2;
    completed = !interrupted();
  } else {
    completed = execute_runs(
        runs, pending, opt.jobs, [&](size_t i, const RunOutcome& o) { progress.finished(what(i), o); },
        [&](const std::vector<RunningProgram>& running) {
          std::vector<std::string> shown;
          for (const RunningProgram& r : running)
            shown.push_back(fmt::format(
                "{} {:.0f}s", what(r.index), std::chrono::duration<double>(Clock::now() - r.start).count()));
          progress.show(shown);
        },
        interrupted);
  }
  progress.clear();

  std::string why;
  const SweepTableCounts counts =
      write_sweep_results(out.string(), spec.name, parameter_columns(spec), points, config_files, runs, why);
  if (!why.empty()) fmt::print(stderr, "warpsim sweep: {}\n", why);
  fmt::print(stderr, "warpsim sweep: {} of {} runs passed, {} did not{}; results: {}/results.csv\n", counts.passed,
             counts.runs, counts.failed, counts.pending ? fmt::format(", {} not run yet", counts.pending) : "",
             out.string());
  if (!completed) {
    fmt::print(stderr, "warpsim sweep: interrupted; `warpsim sweep {} --out {} --resume` continues it\n",
               spec.path, out.string());
    return 128 + interrupt_signal();
  }
  return counts.passed == counts.runs ? 0 : 1;
}

namespace {

// `warpsim sweep-task TASKS.json INDEX`: one Slurm array task's runs.
int run_task(const std::string& tasks_file, size_t index) {
  std::ifstream in(tasks_file);
  const json doc = json::parse(in, nullptr, false);
  if (!doc.is_object() || !doc.contains("tasks") || !doc["tasks"].is_array() || index >= doc["tasks"].size()) {
    fmt::print(stderr, "warpsim sweep-task: {} has no task {}\n", tasks_file, index);
    return 2;
  }
  std::vector<SweepRun> runs;
  for (const json& j : doc["tasks"][index]) {
    auto r = run_from_json(j);
    if (!r) {
      fmt::print(stderr, "warpsim sweep-task: {}: task {} has a malformed run\n", tasks_file, index);
      return 2;
    }
    runs.push_back(std::move(*r));
  }
  std::vector<size_t> order(runs.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  const char* cpus = std::getenv("SLURM_CPUS_PER_TASK");
  const unsigned jobs = cpus && std::atoi(cpus) > 0 ? static_cast<unsigned>(std::atoi(cpus)) : 1;
  catch_interrupts();  // Slurm's time limit sends SIGTERM first: stop the programs too
  size_t passed = 0;
  const bool completed = execute_runs(
      runs, order, jobs,
      [&](size_t i, const RunOutcome& o) {
        passed += o.status == "pass";
        fmt::print(stderr, "{} {} {}: {} ({:.1f} s) {}\n", runs[i].run.log_base, runs[i].program, runs[i].hash,
                   o.status, o.wall_seconds, one_line(o.reason));
      },
      [](const std::vector<RunningProgram>&) {}, interrupted);
  if (!completed) return 128 + interrupt_signal();
  return passed == runs.size() ? 0 : 1;
}

}  // namespace

void register_sweep_command(CLI::App& app) {
  struct Args {
    std::string spec;
    SweepOptions opt;
    std::string tasks;
    size_t task = 0;
  };
  auto a = std::make_shared<Args>();
  CLI::App* cmd = app.add_subcommand(
      "sweep", "Run every point x program of a sweep spec (configs x parameter axes x programs) here or on a "
               "Slurm cluster, and write results.csv/json (docs/sweep.md)");
  cmd->add_option("spec", a->spec, "The sweep specification (TOML)")->required();
  cmd->add_option("--backend", a->opt.backend, "local (this machine, the default) or slurm (a job array)")
      ->check(CLI::IsMember({"local", "slurm"}));
  cmd->add_option("--jobs,-j", a->opt.jobs, "Local backend: runs at the same time (default 1)")
      ->check(whole_number(1, 1024));
  cmd->add_option("--out", a->opt.out, "Output folder (default: the spec's name)");
  cmd->add_flag("--resume", a->opt.resume,
                "Continue a sweep in --out: runs already finished with the same build, configuration and "
                "arguments are kept");
  cmd->add_flag("--retry-failed", a->opt.retry_failed, "With --resume: run again the runs that did not pass");
  cmd->add_flag("--dry-run", a->opt.dry_run, "Print the points and programs and run nothing");
  SlurmOptions& s = a->opt.slurm;
  cmd->add_option("--partition", s.partition, "Slurm: partition (sbatch --partition)");
  cmd->add_option("--time", s.time, "Slurm: time limit per array task (sbatch --time, e.g. 2:00:00)");
  cmd->add_option("--mem", s.mem, "Slurm: memory per array task (sbatch --mem, e.g. 8G)");
  cmd->add_option("--account", s.account, "Slurm: account to charge (sbatch --account)");
  cmd->add_option("--runs-per-task", s.runs_per_task, "Slurm: runs batched into one array task (default 1)")
      ->check(whole_number(1, 100000));
  cmd->add_option("--cpus-per-task", s.cpus_per_task,
                  "Slurm: CPUs per array task; a task runs that many of its runs at once (default 1)")
      ->check(whole_number(1, 1024));
  cmd->add_option("--max-running", s.max_running, "Slurm: array tasks running at once (sbatch --array=...%N)")
      ->check(whole_number(0, 1000000));
  cmd->add_option("--sbatch-option", s.sbatch_options, "Slurm: another sbatch option, as given (repeatable)");
  cmd->add_option("--warpsim", s.warpsim, "Slurm: warpsim on the nodes (default: this warpsim's path)");
  cmd->add_option("--poll", s.poll_seconds, "Slurm: seconds between queue checks (default 5)")
      ->check(seconds(0.1, 3600));
  cmd->add_flag("--no-wait", s.no_wait, "Slurm: submit and return; `--resume` later follows or collects the job");
  cmd->callback([a] {
    std::string text;
    if (!read_file(a->spec, text)) {
      fmt::print(stderr, "warpsim sweep: cannot read {}\n", a->spec);
      set_exit_code(2);
      return;
    }
    SourceFile file(a->spec, text);
    DiagnosticEngine diags;
    auto doc = parse_toml_document(file, diags);
    std::optional<SweepSpec> spec = doc ? read_sweep_spec(*doc, file, diags) : std::nullopt;
    if (!spec) {
      std::fputs(diags.format_all().c_str(), stderr);
      set_exit_code(2);
      return;
    }
    set_exit_code(run_sweep(*spec, text, a->opt));
  });

  CLI::App* task = app.add_subcommand("sweep-task", "Run one Slurm array task of a sweep (used by the job script)");
  task->group("");  // internal: not listed in `warpsim --help`
  task->add_option("tasks", a->tasks, "The task file (<out>/slurm/tasks-N.json)")->required();
  task->add_option("index", a->task, "The task index (SLURM_ARRAY_TASK_ID)")
      ->required()
      ->check(whole_number(0, UINT32_MAX));
  task->callback([a] { set_exit_code(run_task(a->tasks, a->task)); });
}

}  // namespace warpsim::tools
