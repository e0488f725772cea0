// `warpsim bench`: runs a named suite of the workload suite (benchmarks/
// suites.toml) under `warpsim run`, N programs at a time, with a live
// progress line, and writes one results table (CSV, JSON, Markdown). A
// program that fails, crashes or times out is reported as such and the suite
// goes on. docs/bench.md describes the options and the output.
#include <fmt/format.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <climits>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "common/diagnostics.h"
#include "timing/sim_config.h"
#include "tools/commands.h"
#include "tools/power_report.h"
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
  std::string status = "error";  // pass, fail, crash, timeout, missing, error
  std::string reason;
  int exit_code = -1;
  double wall_seconds = 0;
  nlohmann::json stats;  // null when the run wrote none
  std::string log_base;  // <out>/logs/<suite>_<name>
};

std::string self_path() {
  std::error_code ec;
  fs::path p = fs::read_symlink("/proc/self/exe", ec);
  return ec ? std::string() : p.string();
}

// suites.toml: --suites, else next to the build tree's programs
// (<build>/tools/warpsim -> <build>/benchmarks/), else the installed copy
// (<prefix>/bin/warpsim -> <prefix>/share/warpsim/benchmarks/).
std::string find_suites_file(const std::string& given) {
  if (!given.empty()) return given;
  const fs::path exe_dir = fs::path(self_path()).parent_path();
  for (const fs::path& candidate : {exe_dir / ".." / "benchmarks" / "suites.toml",
                                    exe_dir / ".." / "share" / "warpsim" / "benchmarks" / "suites.toml"}) {
    std::error_code ec;
    if (fs::is_regular_file(candidate, ec)) return fs::weakly_canonical(candidate, ec).string();
  }
  return {};
}

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// The first non-blank line: what went wrong, before any usage text or trace.
std::string first_line(const std::string& text) {
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);)
    if (line.find_first_not_of(" \t\r") != std::string::npos) return line;
  return {};
}

// Classifies a finished run from its exit status and its output.
void classify(Result& r, int wait_status, bool timed_out) {
  const std::string out = read_text(r.log_base + ".out");
  const std::string err = read_text(r.log_base + ".err");
  r.stats = read_stats_file(r.log_base + ".stats.json");
  const std::string& name = r.program->name;
  std::string fail_line;
  bool passed = false;
  std::istringstream lines(out);
  for (std::string line; std::getline(lines, line);) {
    if (line == "PASS " + name) passed = true;
    if (line.rfind("FAIL ", 0) == 0 && fail_line.empty()) fail_line = line;
  }
  if (timed_out) {
    r.status = "timeout";
    r.reason = fmt::format("killed after {:.0f} s", r.wall_seconds);
    return;
  }
  if (WIFSIGNALED(wait_status)) {
    r.status = "crash";
    r.reason = fmt::format("warpsim run was killed by signal {} ({})", WTERMSIG(wait_status),
                           strsignal(WTERMSIG(wait_status)));
    return;
  }
  r.exit_code = WEXITSTATUS(wait_status);
  // `warpsim run` passes the program's status through; 128+N is a signal.
  if (r.exit_code > 128) {
    r.status = "crash";
    r.reason = fmt::format("terminated by signal {} ({})", r.exit_code - 128, strsignal(r.exit_code - 128));
    if (std::string l = first_line(err); !l.empty()) r.reason += ": " + l;
    return;
  }
  if (r.exit_code == 0 && passed && fail_line.empty()) {
    r.status = "pass";
    return;
  }
  r.status = "fail";
  if (!fail_line.empty()) {
    r.reason = fail_line;
  } else {
    r.reason = fmt::format("exit status {}{}", r.exit_code,
                           passed ? "" : fmt::format(", no 'PASS {}' line", name));
    if (std::string l = first_line(err); !l.empty()) r.reason += ": " + l;
  }
}

std::string one_line(std::string s) {
  for (char& c : s)
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  return s;
}

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

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

void write_results(const BenchOptions& opt, const std::vector<Result>& results, double total_seconds) {
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
  std::ofstream(out / "results.json") << j.dump(2) << "\n";
  std::ofstream(out / "results.csv") << csv;
  std::ofstream(out / "results.md") << md;
}

// Starts `warpsim run` for one program in its own process group, output to
// the log files. Returns the pid, or -1 (with r.reason set).
pid_t start(const BenchOptions& opt, const std::string& self, const std::string& binary, Result& r) {
  std::vector<std::string> argv = {self, "run", "--quiet", "--mode", opt.mode};
  if (!opt.config.empty()) argv.insert(argv.end(), {"--config", opt.config});
  for (const std::string& o : opt.overrides) argv.insert(argv.end(), {"--set", o});
  argv.insert(argv.end(), {"--stats", r.log_base + ".stats.json", "--", binary});
  argv.insert(argv.end(), r.arguments.begin(), r.arguments.end());
  std::error_code ec;
  fs::remove(r.log_base + ".stats.json", ec);
  const int out = ::open((r.log_base + ".out").c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  const int err = ::open((r.log_base + ".err").c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (out < 0 || err < 0) {
    r.reason = fmt::format("cannot write {}.out/.err: {}", r.log_base, std::strerror(errno));
    if (out >= 0) ::close(out);
    if (err >= 0) ::close(err);
    return -1;
  }
  std::vector<char*> cargv;
  for (std::string& s : argv) cargv.push_back(s.data());
  cargv.push_back(nullptr);
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::setpgid(0, 0);  // a timeout kills the program too, not only `warpsim run`
    const int in = ::open("/dev/null", O_RDONLY);
    if (in >= 0) ::dup2(in, 0);
    ::dup2(out, 1);
    ::dup2(err, 2);
    ::execv(self.c_str(), cargv.data());
    ::_exit(127);
  }
  ::close(out);
  ::close(err);
  if (pid < 0) r.reason = fmt::format("fork failed: {}", std::strerror(errno));
  else ::setpgid(pid, pid);
  return pid;
}

class Progress {
 public:
  Progress(size_t total) : total_(total), tty_(::isatty(2)) {}

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
    if (!tty_) return;
    std::string line = fmt::format("[{}/{}] {} pass, {} not |", done, total_, passed, done - passed);
    for (const auto& [r, t0] : running)
      line += fmt::format(" {} {:.0f}s", r->program->id(),
                          std::chrono::duration<double>(Clock::now() - t0).count());
    if (line.size() > 150) line = line.substr(0, 147) + "...";
    fmt::print(stderr, "\r\033[K{}", line);
    shown_ = true;
  }

  void clear() {
    if (tty_ && shown_) fmt::print(stderr, "\r\033[K");
    shown_ = false;
  }

 private:
  int digits() const { return static_cast<int>(std::to_string(total_).size()); }
  size_t total_;
  bool tty_;
  bool shown_ = false;
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

  struct Running {
    pid_t pid;
    size_t index;
    Clock::time_point start;
  };
  std::vector<Running> running;
  Progress progress(results.size());
  const auto t0 = Clock::now();
  size_t next = 0, done = 0, passed = 0;
  Clock::time_point last_drawn{};
  auto finish = [&](Result& r) {
    ++done;
    passed += r.status == "pass";
    progress.finished(r, done);
  };
  while (next < results.size() || !running.empty()) {
    while (next < results.size() && running.size() < opt.jobs) {
      Result& r = results[next];
      const std::string binary = suite->binary(*r.program);
      const size_t index = next++;
      if (!fs::is_regular_file(binary, ec)) {
        r.status = "missing";
        r.reason = "not built: " + binary;
        finish(r);
        continue;
      }
      const pid_t pid = start(opt, self, binary, r);
      if (pid < 0) {
        r.status = "error";
        finish(r);
        continue;
      }
      running.push_back({pid, index, Clock::now()});
    }
    int status = 0;
    const pid_t pid = ::waitpid(-1, &status, WNOHANG);
    if (pid > 0) {
      auto it = std::find_if(running.begin(), running.end(), [&](const Running& x) { return x.pid == pid; });
      if (it == running.end()) continue;
      Result& r = results[it->index];
      r.wall_seconds = std::chrono::duration<double>(Clock::now() - it->start).count();
      running.erase(it);
      classify(r, status, false);
      finish(r);
      continue;
    }
    // Timeouts: the whole process group goes.
    for (auto it = running.begin(); it != running.end();) {
      const double age = std::chrono::duration<double>(Clock::now() - it->start).count();
      if (opt.timeout > 0 && age > opt.timeout) {
        ::kill(-it->pid, SIGKILL);
        while (::waitpid(it->pid, &status, 0) < 0 && errno == EINTR) {
        }
        Result& r = results[it->index];
        r.wall_seconds = age;
        classify(r, status, true);
        finish(r);
        it = running.erase(it);
      } else {
        ++it;
      }
    }
    // Poll often (wall times are measured to the poll), redraw a few times a second.
    if (Clock::now() - last_drawn > std::chrono::milliseconds(250)) {
      std::vector<std::pair<const Result*, Clock::time_point>> shown;
      for (const Running& x : running) shown.emplace_back(&results[x.index], x.start);
      progress.show(done, passed, shown);
      last_drawn = Clock::now();
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  progress.clear();
  const double total = std::chrono::duration<double>(Clock::now() - t0).count();
  write_results(opt, results, total);
  fmt::print(stderr, "warpsim bench: {} of {} programs passed in {:.1f} s; results: {}/results.md\n", passed,
             results.size(), total, opt.out);
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
      ->check(CLI::Range(1u, 256u));
  cmd->add_option("--out", opt->out, "Directory for results.{csv,json,md} and logs/ (default: warpsim-bench)");
  cmd->add_option("--suites", opt->suites_file, "The suite description (default: the built suites.toml)");
  cmd->add_option("--timeout", opt->timeout, "Seconds a program may run before it is killed (default: no limit)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_flag("--list", opt->list, "List the suites, or with --suite the programs of one, and exit");
  cmd->callback([opt, suite_opt] { set_exit_code(bench(*opt, suite_opt->count() > 0)); });
}

}  // namespace warpsim::tools
