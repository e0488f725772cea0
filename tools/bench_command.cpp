// `warpsim bench`: runs a named suite of the workload suite (benchmarks/
// suites.toml) under `warpsim run`, N programs at a time, with a live
// progress line, and writes one results table (CSV, JSON, Markdown). A
// program that fails, crashes or times out is reported as such and the suite
// goes on. docs/bench.md describes the options and the output.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common/diagnostics.h"
#include "common/signal_name.h"
#include "timing/sim_config.h"
#include "tools/commands.h"
#include "tools/install_paths.h"
#include "tools/option_checks.h"
#include "tools/interrupts.h"
#include "tools/output_file.h"
#include "tools/power_report.h"
#include "tools/program_run.h"
#include "tools/status_line.h"
#include "tools/stats_file.h"
#include "tools/workload_suite.h"

namespace warpsim::tools {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

struct BenchOptions {
  std::string suite = "all";
  std::string preset = "small";
  std::string config;
  std::vector<std::string> overrides;
  std::string mode = "timing";
  unsigned jobs = 1;
  std::string out = "warpsim-bench";
  std::string suites_file;
  double timeout = 0;  // seconds per program; 0: none
  bool list = false;
};

// One program's outcome.
struct Result {
  const WorkloadProgram* program = nullptr;
  std::vector<std::string> arguments;
  std::string status = "error";  // pass, fail, crash, timeout, missing, error, interrupted, not-run
  std::string reason;
  bool finished = false;  // its outcome is known
  int exit_code = -1;
  double wall_seconds = 0;
  nlohmann::json stats;  // null when the run wrote none
  std::string log_base;  // <out>/logs/<suite>_<name>
};

std::string md_cell(const std::string& s) {
  std::string out;
  for (char c : one_line(s)) out += c == '|' ? std::string("\\|") : std::string(1, c);
  return out;
}

struct Figures {
  uint64_t kernels, insn, warp_insn, cycles;
  double ipc, sim_seconds, rate;
  bool has_energy;                  // the energy model priced the run (timing mode)
  double energy_J, power_W, edp_Js;
};

Figures figures(const Result& r) {
  Figures f{};
  f.kernels = stat_u64(r.stats, "runtime.kernels_launched");
  f.insn = stat_u64(r.stats, "gpu_tot_sim_insn");
  f.warp_insn = stat_u64(r.stats, "gpu_tot_sim_warp_insn");
  f.cycles = stat_u64(r.stats, "gpu_tot_sim_cycle");
  f.ipc = f.cycles ? static_cast<double>(f.insn) / f.cycles : 0;
  f.sim_seconds = stat_double(r.stats, "warpsim.simulation_seconds");
  f.rate = r.wall_seconds > 0 ? f.insn / r.wall_seconds : 0;
  f.has_energy = r.stats.is_object() && r.stats.contains("power") && r.stats["power"].contains("total_energy_J");
  f.energy_J = stat_double(r.stats, "power.total_energy_J");
  f.power_W = stat_double(r.stats, "power.average_power_W");
  f.edp_Js = stat_double(r.stats, "power.edp_Js");
  return f;
}

bool write_results(const BenchOptions& opt, const std::vector<Result>& results, double total_seconds) {
  const fs::path out(opt.out);
  const bool timing = opt.mode == "timing";
  nlohmann::json j;
  j["suite"] = opt.suite;
  j["preset"] = opt.preset;
  j["mode"] = opt.mode;
  j["config"] = opt.config.empty() ? "default" : opt.config;
  j["overrides"] = opt.overrides;
  j["wall_seconds"] = total_seconds;
  j["programs"] = nlohmann::json::array();
  std::string csv =
      "program,status,exit_code,kernels,thread_instructions,warp_instructions,cycles,ipc,"
      "energy_J,average_power_W,edp_Js,wall_seconds,simulation_seconds,thread_inst_per_second,reason\n";
  std::string md = fmt::format("# warpsim bench: suite `{}`, preset `{}`, {} mode, config `{}`\n\n",
                               opt.suite, opt.preset, opt.mode, opt.config.empty() ? "default" : opt.config);
  md += timing ? "| program | status | kernels | thread inst | cycles | IPC | energy | avg W | EDP J*s | wall s | "
                 "M inst/s | note |\n"
                 "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n"
               : "| program | status | kernels | thread inst | wall s | M inst/s | note |\n"
                 "|---|---|---:|---:|---:|---:|---|\n";
  size_t passed = 0;
  for (const Result& r : results) {
    const Figures f = figures(r);
    passed += r.status == "pass";
    nlohmann::json p;
    p["program"] = r.program->id();
    p["suite"] = r.program->suite;
    p["name"] = r.program->name;
    p["arguments"] = r.arguments;
    p["status"] = r.status;
    p["reason"] = r.reason;
    p["exit_code"] = r.exit_code;
    p["kernels"] = f.kernels;
    p["thread_instructions"] = f.insn;
    p["warp_instructions"] = f.warp_insn;
    p["cycles"] = timing ? nlohmann::json(f.cycles) : nlohmann::json(nullptr);
    p["ipc"] = timing ? nlohmann::json(f.ipc) : nlohmann::json(nullptr);
    p["energy_J"] = f.has_energy ? nlohmann::json(f.energy_J) : nlohmann::json(nullptr);
    p["average_power_W"] = f.has_energy ? nlohmann::json(f.power_W) : nlohmann::json(nullptr);
    p["edp_Js"] = f.has_energy ? nlohmann::json(f.edp_Js) : nlohmann::json(nullptr);
    p["wall_seconds"] = r.wall_seconds;
    p["simulation_seconds"] = f.sim_seconds;
    p["thread_inst_per_second"] = f.rate;
    p["log"] = r.log_base;
    j["programs"].push_back(std::move(p));
    auto energy = [&](const char* format, double v) {
      return f.has_energy ? fmt::format(fmt::runtime(format), v) : std::string();
    };
    csv += fmt::format("{},{},{},{},{},{},{},{},{},{},{},{:.3f},{:.3f},{:.0f},{}\n", r.program->id(), r.status,
                       r.exit_code, f.kernels, f.insn, f.warp_insn, timing ? std::to_string(f.cycles) : "",
                       timing ? fmt::format("{:.4f}", f.ipc) : "", energy("{:.6g}", f.energy_J),
                       energy("{:.4g}", f.power_W), energy("{:.6g}", f.edp_Js), r.wall_seconds, f.sim_seconds,
                       f.rate, csv_field(one_line(r.reason)));
    const std::string status = r.status == "pass" ? "PASS" : "**" + r.status + "**";
    if (timing)
      md += fmt::format("| {} | {} | {} | {} | {} | {:.3f} | {} | {} | {} | {:.2f} | {:.1f} | {} |\n",
                        r.program->id(), status, f.kernels, f.insn, f.cycles, f.ipc,
                        f.has_energy ? energy_text(f.energy_J) : "", energy("{:.1f}", f.power_W),
                        energy("{:.3g}", f.edp_Js), r.wall_seconds, f.rate / 1e6, md_cell(r.reason));
    else
      md += fmt::format("| {} | {} | {} | {} | {:.2f} | {:.1f} | {} |\n", r.program->id(), status, f.kernels,
                        f.insn, r.wall_seconds, f.rate / 1e6, md_cell(r.reason));
  }
  j["passed"] = passed;
  j["failed"] = results.size() - passed;
  md += fmt::format("\n{} of {} programs passed; {:.1f} s in all.\n", passed, results.size(), total_seconds);
  for (const auto& [name, content] : {std::pair<const char*, std::string>{"results.json", j.dump(2) + "\n"},
                                       {"results.csv", csv},
                                       {"results.md", md}}) {
    std::string why;
    auto file = OutputFile::prepare((out / name).string(), why);
    if (!file || !file->write(content, why)) {
      fmt::print(stderr, "warpsim bench: {}\n", why);
      return false;
    }
  }
  return true;
}

class Progress {
 public:
  Progress(size_t total) : total_(total) {}

  void finished(const Result& r, size_t done) {
    clear();
    const Figures f = figures(r);
    std::string line = fmt::format("[{:>{}}/{}] {:<7} {:<28} {:>7.2f} s", done, digits(), total_,
                                   r.status == "pass" ? "PASS" : r.status, r.program->id(), r.wall_seconds);
    if (f.insn) line += fmt::format("  {:>14} thread inst", f.insn);
    if (!r.reason.empty()) line += "  " + one_line(r.reason);
    fmt::print(stderr, "{}\n", line);
  }

  void show(size_t done, size_t passed, const std::vector<std::pair<const Result*, Clock::time_point>>& running) {
    std::string line = fmt::format("[{}/{}] {} pass, {} not |", done, total_, passed, done - passed);
    for (const auto& [r, t0] : running)
      line += fmt::format(" {} {:.0f}s", r->program->id(),
                          std::chrono::duration<double>(Clock::now() - t0).count());
    status_.show(line, 150);
  }

  void clear() { status_.clear(); }

 private:
  int digits() const { return static_cast<int>(std::to_string(total_).size()); }
  size_t total_;
  StatusLine status_;
};

int list(const WorkloadSuite& suite, const BenchOptions& opt, bool suite_given) {
  if (!suite_given) {
    fmt::print("suites in {}:\n", suite.path);
    for (const NamedSuite& s : suite.suites)
      fmt::print("  {:<16} {:>3} programs  {}\n", s.name, s.programs.size(), s.description);
    return 0;
  }
  const NamedSuite* s = suite.find(opt.suite);
  for (size_t i : s->programs) {
    const WorkloadProgram& p = suite.programs[i];
    std::string args;
    for (const std::string& a : p.arguments(opt.preset)) args += " " + a;
    fmt::print("{:<28} {}{}\n    {}\n", p.id(), p.name, args, p.description);
  }
  return 0;
}

int bench(const BenchOptions& opt, bool suite_given) {
  if (std::find(std::begin(kPresets), std::end(kPresets), opt.preset) == std::end(kPresets)) {
    fmt::print(stderr, "warpsim bench: unknown preset '{}' (tiny, small or large)\n", opt.preset);
    return 2;
  }
  if (opt.mode != "functional" && opt.mode != "timing") {
    fmt::print(stderr, "warpsim bench: unknown mode '{}' (functional or timing)\n", opt.mode);
    return 2;
  }
  const std::string file = find_suites_file(opt.suites_file);
  if (file.empty()) {
    fmt::print(stderr, "warpsim bench: no suites.toml found next to warpsim (build the workload suite: it "
                       "needs nvcc) - give one with --suites FILE\n");
    return 2;
  }
  std::string text;
  if (!read_file(file, text)) {
    fmt::print(stderr, "warpsim bench: cannot read {}\n", file);
    return 2;
  }
  SourceFile source(file, std::move(text));
  DiagnosticEngine diags;
  auto suite = parse_workload_suite(source, diags);
  if (!suite) {
    std::fputs(diags.format_all().c_str(), stderr);
    return 2;
  }
  const NamedSuite* named = suite->find(opt.suite);
  if (!named) {
    std::string names;
    for (const NamedSuite& s : suite->suites) names += (names.empty() ? "" : ", ") + s.name;
    fmt::print(stderr, "warpsim bench: no suite '{}' in {} (suites: {})\n", opt.suite, file, names);
    return 2;
  }
  if (opt.list) return list(*suite, opt, suite_given);
  {
    DiagnosticEngine config_diags;  // a bad config fails once, not once per program
    if (!load_sim_config(opt.config, opt.overrides, config_diags)) {
      std::fputs(config_diags.format_all().c_str(), stderr);
      return 2;
    }
  }
  const std::string self = self_path();
  std::error_code ec;
  fs::create_directories(fs::path(opt.out) / "logs", ec);
  if (ec) {
    fmt::print(stderr, "warpsim bench: cannot create {}: {}\n", opt.out, ec.message());
    return 2;
  }

  std::vector<Result> results(named->programs.size());
  for (size_t k = 0; k < results.size(); ++k) {
    const WorkloadProgram& p = suite->programs[named->programs[k]];
    results[k].program = &p;
    results[k].arguments = p.arguments(opt.preset);
    results[k].log_base = (fs::path(opt.out) / "logs" / (p.suite + "_" + p.name)).string();
  }
  fmt::print(stderr, "warpsim bench: suite {} ({} programs), preset {}, {} mode, {} job{}; results in {}\n",
             opt.suite, results.size(), opt.preset, opt.mode, opt.jobs, opt.jobs == 1 ? "" : "s", opt.out);

  std::vector<ProgramRun> runs(results.size());
  std::vector<size_t> order;
  Progress progress(results.size());
  const auto t0 = Clock::now();
  size_t done = 0, passed = 0;
  catch_interrupts();  // stop the running program gracefully and still write the table
  auto finish = [&](Result& r) {
    r.finished = true;
    ++done;
    passed += r.status == "pass";
    progress.finished(r, done);
  };
  for (size_t k = 0; k < results.size(); ++k) {
    Result& r = results[k];
    ProgramRun& run = runs[k];
    run.warpsim = self;
    run.mode = opt.mode;
    run.config = opt.config;
    run.overrides = opt.overrides;
    run.binary = suite->binary(*r.program);
    run.arguments = r.arguments;
    run.log_base = r.log_base;
    run.pass_line = "PASS " + r.program->name;
    run.timeout = opt.timeout;
    if (fs::is_regular_file(run.binary, ec)) {
      order.push_back(k);
    } else {
      r.status = "missing";
      r.reason = "not built: " + run.binary;
      finish(r);
    }
  }
  run_programs(
      runs, order, opt.jobs,
      [&](size_t k, const RunOutcome& outcome) {
        Result& r = results[k];
        r.status = outcome.status;
        r.reason = outcome.reason;
        r.exit_code = outcome.exit_code;
        r.wall_seconds = outcome.wall_seconds;
        r.stats = read_stats_file(runs[k].stats_path());
        finish(r);
      },
      [&](const std::vector<RunningProgram>& running) {
        std::vector<std::pair<const Result*, Clock::time_point>> shown;
        for (const RunningProgram& x : running) shown.emplace_back(&results[x.index], x.start);
        progress.show(done, passed, shown);
      },
      [] { return interrupted(); });
  progress.clear();
  const double total = std::chrono::duration<double>(Clock::now() - t0).count();
  if (interrupted()) {
    // The table still says what finished; what never started says so.
    for (Result& r : results)
      if (!r.finished) {
        r.status = "not-run";
        r.reason = "the bench was interrupted before it started";
      }
  }
  const bool written = write_results(opt, results, total);
  fmt::print(stderr, "warpsim bench: {}{} of {} programs passed in {:.1f} s; results: {}/results.md\n",
             interrupted() ? fmt::format("interrupted by {}; ", sigabbrev(interrupt_signal())) : "", passed,
             results.size(), total, opt.out);
  if (interrupted()) return 128 + interrupt_signal();
  if (!written) return 2;
  return passed == results.size() ? 0 : 1;
}

}  // namespace

void register_bench_command(CLI::App& app) {
  auto opt = std::make_shared<BenchOptions>();
  CLI::App* cmd = app.add_subcommand("bench", "Run a suite of the workload suite (benchmarks/) under warpsim "
                                              "and write a results table");
  CLI::Option* suite_opt =
      cmd->add_option("--suite", opt->suite, "Named suite from suites.toml (default: all; --list shows them)");
  cmd->add_option("--preset", opt->preset, "Input size: tiny, small (default) or large");
  cmd->add_option("--config", opt->config, "GPU configuration: a name from configs/ or a TOML file");
  cmd->add_option("--set", opt->overrides, "Override a configuration value: section.key=value")->take_all();
  cmd->add_option("--mode", opt->mode, "Simulation mode: timing (cycle-level, the default) or functional (fast, no cycles)");
  cmd->add_option("--jobs,-j", opt->jobs, "Programs run at the same time (default 1)")
      ->check(whole_number(1, 256));
  cmd->add_option("--out", opt->out, "Directory for results.{csv,json,md} and logs/ (default: warpsim-bench)");
  cmd->add_option("--suites", opt->suites_file, "The suite description (default: the built suites.toml)");
  cmd->add_option("--timeout", opt->timeout, "Seconds a program may run before it is killed (default: no limit)")
      ->check(seconds(0, kMaxSeconds));
  cmd->add_flag("--list", opt->list, "List the suites, or with --suite the programs of one, and exit");
  cmd->callback([opt, suite_opt] { set_exit_code(bench(*opt, suite_opt->count() > 0)); });
}

}  // namespace warpsim::tools
