// `warpsim run`: runs an unmodified CUDA program on the simulated GPU.
//
// The program is started with warpsim's libcudart preloaded - the build for
// the CUDA major the program was linked against, whose soname satisfies the
// program's own dependency, so the real runtime is never loaded - and with
// the configuration passed through the environment (WARPSIM_CONFIG,
// WARPSIM_SET, WARPSIM_MODE, WARPSIM_STATS_FILE; libcudart_shim/runtime.h).
// Its exit status is passed through; a summary of the simulation follows on
// stderr. While it runs, a page shared with its runtime (WARPSIM_PROGRESS_FD)
// carries its progress, and the signals that stop warpsim stop it too, with
// the statistics gathered so far (docs/run.md, "Stopping a run").
#include <fmt/format.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
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
#include "tools/run_progress_view.h"
#include "tools/stats_file.h"
#include "tools/cuda_program.h"
#include "tools/host_binary.h"
#include "tools/power_report.h"

namespace warpsim::tools {

namespace fs = std::filesystem;

namespace {

struct RunOptions {
  std::string config;
  std::vector<std::string> overrides;
  std::string mode = "timing";
  std::string memcheck;  // empty: the configuration's functional.memcheck
  bool sample = false;  // sampled timing simulation (timing.sample)
  std::optional<uint32_t> sample_ctas;  // scale-model sampling (timing.sample_ctas)
  std::optional<uint32_t> sample_launches;  // launch-level sampling (timing.sample_launches)
  std::optional<uint32_t> threads;  // host threads (functional mode); unset: the configuration's
  std::string stats;
  std::string power_trace;
  double progress = 0;  // seconds between progress lines; 0: none
  bool quiet = false;
  bool verbose = false;
  int cudart = 0;  // 0: detect
  std::vector<std::string> command;
};

std::string group(uint64_t v) {
  std::string s = std::to_string(v);
  for (int i = static_cast<int>(s.size()) - 3; i > 0; i -= 3) s.insert(static_cast<size_t>(i), ",");
  return s;
}

std::string bytes_text(uint64_t b) {
  if (b >= (uint64_t{1} << 30)) return fmt::format("{:.1f} GiB", b / double(1 << 30));
  if (b >= (uint64_t{1} << 20)) return fmt::format("{:.1f} MiB", b / double(1 << 20));
  if (b >= 1024) return fmt::format("{:.1f} KiB", b / 1024.0);
  return fmt::format("{} B", b);
}


void print_summary(const std::string& program, int status_code, bool signaled,
                   const nlohmann::json& j) {
  std::string out;
  out += signaled ? fmt::format("warpsim: {} was terminated by signal {} ({})\n", program,
                                status_code, strsignal(status_code))
                  : fmt::format("warpsim: {} exited with status {}\n", program, status_code);
  if (j.is_null()) {
    out += "  (no statistics: the program ended before the runtime could write them)\n";
    std::fputs(out.c_str(), stderr);
    return;
  }
  const auto& w = j.value("warpsim", nlohmann::json::object());
  if (w.value("partial", false))
    out += fmt::format("  (partial: the run was interrupted by {}; what follows covers the run up to then)\n",
                       w.value("interrupted_by", std::string("a signal")));
  out += fmt::format("  GPU              {} (compute capability {}, {} SMs), {} mode, CUDA {} runtime\n",
                     w.value("gpu", std::string("?")), w.value("compute_capability", std::string("?")),
                     w.value("num_sms", 0), w.value("mode", std::string("?")),
                     w.value("cuda_runtime_major", 0));
  const auto& kernels = j.value("kernels", nlohmann::json::array());
  const uint64_t launches = stat_u64(j, "runtime.kernels_launched");
  out += fmt::format("  kernels          {} launch{} of {} kernel{}, {} CTAs\n", group(launches),
                     launches == 1 ? "" : "es", kernels.size(), kernels.size() == 1 ? "" : "s",
                     group(stat_u64(j, "gpu_tot_ctas")));
  const uint64_t insn = stat_u64(j, "gpu_tot_sim_insn");
  out += fmt::format("  instructions     {} thread (gpu_sim_insn), {} warp\n", group(insn),
                     group(stat_u64(j, "gpu_tot_sim_warp_insn")));
  std::string copies;
  for (const char* dir : {"h2d", "d2h", "d2d"}) {
    const uint64_t calls = stat_u64(j, fmt::format("runtime.memcpy.{}_calls", dir));
    if (calls == 0) continue;
    const uint64_t bytes = stat_u64(j, fmt::format("runtime.memcpy.{}_bytes", dir));
    copies += fmt::format("{}{} {} ({})", copies.empty() ? "" : ", ", group(calls), dir,
                          bytes_text(bytes));
  }
  if (!copies.empty()) out += fmt::format("  memory copies    {}\n", copies);
  if (uint64_t faults = stat_u64(j, "runtime.kernel_faults"))
    out += fmt::format("  kernel faults    {}\n", faults);
  const double sim = w.value("simulation_seconds", 0.0);
  const bool timing = w.value("mode", std::string()) == "timing";
  if (timing) {
    const uint64_t cycles = stat_u64(j, "gpu_tot_sim_cycle");
    out += fmt::format("  cycles           {} (gpu_tot_sim_cycle), IPC {:.2f} thread-inst/cycle\n",
                       group(cycles), cycles ? static_cast<double>(insn) / cycles : 0.0);
    if (const uint64_t sampled = stat_u64(j, "timing.sampled_launches")) {
      const uint64_t simulated = stat_u64(j, "timing.simulated_cycles");
      const uint64_t ctas = stat_u64(j, "timing.ctas"), simulated_ctas = stat_u64(j, "timing.simulated_ctas");
      out += fmt::format("  sampled          {} of {} launches; cycles +-{} (95%); simulated: {:.1f}% of the "
                         "cycles, {:.1f}% of the CTAs\n",
                         group(sampled), group(launches), group(stat_u64(j, "timing.sampled_cycles_ci95")),
                         cycles ? 100.0 * static_cast<double>(simulated) / cycles : 0.0,
                         ctas ? 100.0 * static_cast<double>(simulated_ctas) / ctas : 0.0);
    }
  }
  const double sim_ns = w.value("simulated_gpu_ns", 0.0);
  if (timing && stat_u64(j, "L2_total_cache_accesses") != 0) {
    // The memory system over the whole run (GPGPU-Sim's names in brackets).
    out += fmt::format("  caches           L1D miss rate {:.1f}% (L1D_total_cache_miss_rate), L2 miss rate "
                       "{:.1f}% (L2_total_cache_miss_rate)\n",
                       100 * stat_double(j, "L1D_total_cache_miss_rate"),
                       100 * stat_double(j, "L2_total_cache_miss_rate"));
    const uint64_t rd = stat_u64(j, "timing.dram.read_bytes");
    const uint64_t wr = stat_u64(j, "timing.dram.write_bytes");
    const uint64_t hits = stat_u64(j, "timing.dram.row_buffer_hits");
    const uint64_t misses = stat_u64(j, "timing.dram.row_buffer_misses");
    const uint64_t cycles = stat_u64(j, "gpu_tot_sim_cycle");
    out += fmt::format("  DRAM             {} read, {} written ({:.1f} B per core cycle); row-buffer hits {:.1f}%\n",
                       bytes_text(rd), bytes_text(wr), cycles ? double(rd + wr) / cycles : 0.0,
                       hits + misses ? 100.0 * hits / (hits + misses) : 0.0);
  }
  if (timing) out += power_summary(j.value("power", nlohmann::json()));
  out += fmt::format("  simulated time   {:.3f} ms{}\n", sim_ns / 1e6, timing ? "" : " (functional-mode estimate)");
  out += fmt::format("  host time        {:.2f} s, {:.2f} s simulating kernels ({:.1f} M thread-inst/s)\n",
                     w.value("wall_seconds", 0.0), sim, sim > 0 ? insn / sim / 1e6 : 0.0);
  // The busiest kernels.
  std::vector<nlohmann::json> ks(kernels.begin(), kernels.end());
  std::sort(ks.begin(), ks.end(), [](const auto& a, const auto& b) {
    return a.value("thread_instructions", uint64_t{0}) > b.value("thread_instructions", uint64_t{0});
  });
  if (ks.size() > 1) {
    out += "  top kernels      launches  thread instructions  name\n";
    for (size_t i = 0; i < ks.size() && i < 5; ++i) {
      std::string name = demangle(ks[i].value("name", std::string("?")));
      if (name.size() > 70) name = name.substr(0, 67) + "...";
      out += fmt::format("                   {:>8}  {:>19}  {}\n", group(ks[i].value("launches", uint64_t{0})),
                         group(ks[i].value("thread_instructions", uint64_t{0})), name);
    }
  }
  std::fputs(out.c_str(), stderr);
}

// How long a program may take to stop after warpsim forwarded a signal to
// it (its runtime stops the running launch and writes the statistics) before
// it is killed.
constexpr double kStopGraceSeconds = 10;

struct ChildEnd {
  int status = 0;
  int signal = 0;  // the signal warpsim itself was stopped by, 0: none
};

// Waits for the program, showing its progress; forwards SIGINT, SIGTERM and
// SIGHUP to it (a second signal, or the grace period running out, kills it).
ChildEnd wait_for_program(pid_t pid, RunProgressView& progress) {
  using Clock = std::chrono::steady_clock;
  ChildEnd end;
  int forwarded = 0;
  Clock::time_point deadline{};
  for (;;) {
    const pid_t w = ::waitpid(pid, &end.status, WNOHANG);
    if (w == pid || (w < 0 && errno != EINTR)) break;
    if (interrupted()) {
      end.signal = interrupt_signal();
      if (forwarded == 0) {
        ::kill(pid, end.signal);
        deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                      std::chrono::duration<double>(kStopGraceSeconds));
        forwarded = interrupt_count();
      } else if (interrupt_count() > forwarded || Clock::now() > deadline) {
        ::kill(pid, SIGKILL);
        forwarded = INT32_MAX;
      }
    }
    progress.poll();
    ::usleep(20'000);
  }
  progress.finish();
  return end;
}

int run(RunOptions opt) {
  if (opt.command.empty()) {
    fmt::print(stderr, "warpsim run: no program given (warpsim run [options] -- PROGRAM [ARGS...])\n");
    return 2;
  }
  if (opt.mode != "functional" && opt.mode != "timing") {
    fmt::print(stderr, "warpsim run: unknown mode '{}' (functional or timing)\n", opt.mode);
    return 2;
  }
  if (!opt.memcheck.empty()) {
    if (opt.memcheck != "gpu" && opt.memcheck != "strict") {
      fmt::print(stderr, "warpsim run: unknown --memcheck '{}' (gpu or strict)\n", opt.memcheck);
      return 2;
    }
    // The last override wins, so --memcheck beats a --set of the same key.
    opt.overrides.push_back("functional.memcheck=" + opt.memcheck);
  }
  if (opt.threads) {
    // Results are the same at every count in both modes: only speed differs.
    const uint32_t limit = opt.mode == "functional" ? 1024 : 256;
    if (*opt.threads > limit) {
      fmt::print(stderr, "warpsim run: --threads {} is more than {}, the most {} mode takes\n", *opt.threads, limit,
                 opt.mode);
      return 2;
    }
    opt.overrides.insert(opt.overrides.begin(),
                         fmt::format("{}.threads={}", opt.mode == "functional" ? "functional" : "timing",
                                     *opt.threads));  // a --set of the same key still wins
  }
  // The sampling options set their configuration keys first, so a --set of
  // the same key still wins; they sample the cycle-level simulation only.
  std::vector<std::pair<const char*, std::string>> sampling;
  if (opt.sample) sampling.emplace_back("--sample", "timing.sample=true");
  if (opt.sample_ctas) sampling.emplace_back("--sample-ctas", fmt::format("timing.sample_ctas={}", *opt.sample_ctas));
  if (opt.sample_launches)
    sampling.emplace_back("--sample-launches", fmt::format("timing.sample_launches={}", *opt.sample_launches));
  for (const auto& [flag, assignment] : sampling) {
    if (opt.mode != "timing") {
      fmt::print(stderr, "warpsim run: {} needs --mode timing (it samples the cycle-level simulation)\n", flag);
      return 2;
    }
    opt.overrides.insert(opt.overrides.begin(), assignment);
  }
  // From here on a signal is recorded, not fatal: warpsim stops the program
  // and removes its temporary files before it exits.
  catch_interrupts();
  DiagnosticEngine diags;
  if (!load_sim_config(opt.config, opt.overrides, diags)) {
    std::fputs(diags.format_all().c_str(), stderr);
    return 2;
  }
  // A named configuration is found on *this* program's search path (next to
  // the warpsim binary); the shim inside the program gets the file itself.
  std::string config = opt.config;
  if (config::is_config_name(config))
    if (auto path = config::find_named_config(config, config_search_path())) config = *path;
  std::string missing;
  const std::string program = resolve_program(opt.command[0], missing);
  if (program.empty()) {
    fmt::print(stderr, "warpsim run: {}\n", missing);
    return 127;
  }
  if (!opt.power_trace.empty() && opt.mode != "timing") {
    fmt::print(stderr, "warpsim run: --power-trace needs timing mode (the energy model prices the timing "
                       "model's counters)\n");
    return 2;
  }
  // Every output is checked before anything runs, and written beside its
  // target first (tools/output_file.h). Without --stats, the statistics go
  // to a temporary file only for the summary.
  std::string why;
  std::optional<OutputFile> stats_out, trace_out;
  std::optional<TemporaryFile> stats_temp;
  if (!opt.stats.empty()) {
    stats_out = OutputFile::prepare(opt.stats, why, {program});
    if (!stats_out) {
      fmt::print(stderr, "warpsim run: --stats: {}\n", why);
      return 2;
    }
  } else {
    stats_temp = TemporaryFile::create(temporary_directory(), "warpsim-stats-", why);
    if (!stats_temp) fmt::print(stderr, "warpsim run: no summary: {}\n", why);
  }
  if (!opt.power_trace.empty()) {
    trace_out = OutputFile::prepare(opt.power_trace, why, {program});
    if (!trace_out) {
      fmt::print(stderr, "warpsim run: --power-trace: {}\n", why);
      return 2;
    }
  }
  if (stats_out && trace_out && stats_out->target() == trace_out->target()) {
    fmt::print(stderr, "warpsim run: --stats and --power-trace name the same file\n");
    return 2;
  }
  if (const std::string w = cudart_mismatch_warning(program, opt.cudart); !w.empty())
    fmt::print(stderr, "warpsim run: {}\n", w);
  int major = opt.cudart;
  if (major == 0) {
    std::string why;
    major = detect_cudart(program, why);
    if (major == 0) {
      fmt::print(stderr, "warpsim run: {}\n", why);
      return 2;
    }
  }
  const std::string shim = find_shim(major);
  if (shim.empty()) {
    fmt::print(stderr, "warpsim run: warpsim's libcudart for CUDA {} was not found (set "
                       "WARPSIM_SHIM_DIR to the directory holding cuda{}/)\n", major, major);
    return 2;
  }

  const std::string stats_file = stats_out ? stats_out->temp_path() : stats_temp ? stats_temp->path() : "";
  std::string overrides;
  for (const std::string& o : opt.overrides) overrides += o + "\n";
  // The user's own preloads come before the shim, so that an interposer
  // (`warpsim profile`'s timer, a tracer) sees the program's CUDA calls
  // first, as it would in front of the real libcudart.
  std::string preload = shim;
  if (const char* existing = std::getenv("LD_PRELOAD"); existing && *existing)
    preload = std::string(existing) + ":" + preload;
#ifdef WARPSIM_ASAN_RUNTIME
  // A sanitized shim needs the sanitizer runtime loaded first.
  preload = std::string(WARPSIM_ASAN_RUNTIME) + ":" + preload;
#endif

  RunProgressView progress(!opt.quiet, opt.progress);
  if (interrupted()) return 128 + interrupt_signal();  // before the program started
  std::fflush(stdout);
  std::fflush(stderr);
  const pid_t pid = ::fork();
  if (pid < 0) {
    fmt::print(stderr, "warpsim run: fork failed: {}\n", std::strerror(errno));
    return 2;
  }
  if (pid == 0) {
    // The program gets the signals' default handling back (its runtime
    // installs its own).
    for (int sig : {SIGINT, SIGTERM, SIGHUP}) ::signal(sig, SIG_DFL);
    ::setenv("LD_PRELOAD", preload.c_str(), 1);
    ::setenv("WARPSIM_CONFIG", config.c_str(), 1);
    ::setenv("WARPSIM_SET", overrides.c_str(), 1);
    ::setenv("WARPSIM_MODE", opt.mode.c_str(), 1);
    ::setenv("WARPSIM_STATS_FILE", stats_file.c_str(), 1);
    ::setenv("WARPSIM_PROGRAM", opt.command[0].c_str(), 1);
    ::setenv("WARPSIM_ROOT_PID", std::to_string(::getpid()).c_str(), 1);
    if (progress.fd() >= 0) ::setenv("WARPSIM_PROGRESS_FD", std::to_string(progress.fd()).c_str(), 1);
    else ::unsetenv("WARPSIM_PROGRESS_FD");
    if (opt.verbose) ::setenv("WARPSIM_VERBOSE", "1", 1);
    if (trace_out) ::setenv("WARPSIM_POWER_TRACE", trace_out->temp_path().c_str(), 1);
#ifdef WARPSIM_ASAN_RUNTIME
    const char* asan = std::getenv("ASAN_OPTIONS");
    std::string a = asan ? std::string(asan) + ":" : std::string();
    ::setenv("ASAN_OPTIONS", (a + "detect_leaks=0:verify_asan_link_order=0").c_str(), 1);
#endif
    std::vector<char*> argv;
    for (const std::string& s : opt.command) argv.push_back(const_cast<char*>(s.c_str()));
    argv.push_back(nullptr);
    ::execv(program.c_str(), argv.data());
    fmt::print(stderr, "warpsim run: cannot execute {}: {}\n", program, std::strerror(errno));
    ::_exit(127);
  }
  const ChildEnd end = wait_for_program(pid, progress);
  const bool signaled = WIFSIGNALED(end.status);
  const int code = signaled ? WTERMSIG(end.status) : WEXITSTATUS(end.status);

  nlohmann::json stats;
  if (!stats_file.empty()) stats = read_stats_file(stats_file);
  int status = signaled ? 128 + code : code;
  // Only complete statistics replace the file; otherwise it stays as it was.
  if (stats_out) {
    if (!stats.is_object()) {
      stats_out->discard();
      std::error_code ec;
      fmt::print(stderr, "warpsim run: no statistics were written; {} was {}\n", stats_out->target(),
                 fs::exists(stats_out->target(), ec) ? "left as it was" : "not created");
    } else if (!stats_out->commit(why)) {
      fmt::print(stderr, "warpsim run: --stats: {}\n", why);
      if (status == 0) status = 2;
    }
  }
  if (trace_out) {
    std::error_code ec;
    if (fs::file_size(trace_out->temp_path(), ec) == 0 || ec) trace_out->discard();
    else if (!trace_out->commit(why)) fmt::print(stderr, "warpsim run: --power-trace: {}\n", why);
  }
  if (!opt.quiet) print_summary(opt.command[0], code, signaled, stats);
  if (end.signal != 0) {
    fmt::print(stderr, "warpsim run: stopped by {}{}\n", sigabbrev(end.signal),
               stats.is_object() ? (opt.stats.empty() ? "" : "; the statistics written are partial")
                                 : "; the program ended before it could write statistics");
    return 128 + end.signal;
  }
  return status;
}

}  // namespace

void register_run_command(CLI::App& app) {
  auto opt = std::make_shared<RunOptions>();
  CLI::App* run_cmd = app.add_subcommand(
      "run", "Run an unmodified CUDA program (linked with -cudart shared) on the simulated GPU");
  run_cmd->add_option("--config", opt->config,
                      "GPU configuration: a name from configs/ (warpsim config list) or a TOML "
                      "file; default: the built-in GPU");
  run_cmd->add_option("--set", opt->overrides, "Override a configuration value: section.key=value")
      ->take_all();
  run_cmd->add_option("--mode", opt->mode, "Simulation mode: timing (cycle-level, the default) or functional (fast, no cycles)");
  run_cmd->add_option("--memcheck", opt->memcheck,
                      "Device-memory checking: gpu (the default; faults only outside the 2 MiB granules "
                      "a GPU maps) or strict (faults outside every allocation, like compute-sanitizer)");
  run_cmd->add_option("--threads", opt->threads,
                      "Host threads (same results at every count): timing mode, the threads that tick the "
                      "SMs (timing.threads); functional mode, the threads running CTAs (functional.threads; "
                      "1: in order). Default 0: every core, at most 16, for kernels whose CTAs cannot act on "
                      "one another")
      ->check(whole_number(0, 1024));
  run_cmd->add_flag("--sample", opt->sample,
                    "Timing mode: sampled simulation (timing.sample): each launch stops once its IPC is "
                    "steady, finishes in the functional executor, and its cycles are extrapolated with a "
                    "95% confidence interval (timing.sampled_cycles_ci95); tune with --set timing.sample_*");
  run_cmd->add_option("--sample-ctas", opt->sample_ctas,
                      "Timing mode: scale-model sampling (timing.sample_ctas): about 1 in N CTAs of a launch run "
                      "cycle by cycle on a GPU of 1/N the SMs and memory partitions, the rest in the functional "
                      "executor; N must divide the SM count")
      ->check(whole_number(2, 64));
  run_cmd->add_option("--sample-launches", opt->sample_launches,
                      "Timing mode: launch-level sampling (timing.sample_launches): once two simulated launches "
                      "of a kernel with the same grid ran at the same IPC, run the next ones (1, 2, 4, ... up to "
                      "K in a row) in the functional executor and estimate their cycles at that IPC")
      ->check(whole_number(1, 1u << 20));
  run_cmd->add_option("--stats", opt->stats, "Write the run's statistics as JSON to this file");
  run_cmd->add_option("--power-trace", opt->power_trace,
                      "Timing mode: write power over time as CSV to this file (one row per "
                      "power.trace_interval core cycles, per component group; docs/power.md)");
  run_cmd->add_option("--progress", opt->progress,
                      "Print a progress line every N seconds (for logs and batch jobs; on a terminal a live "
                      "line is shown anyway)")
      ->check(seconds(0, kMaxSeconds));
  run_cmd->add_flag("--quiet", opt->quiet, "Do not print the summary at exit, nor the live progress line");
  run_cmd->add_flag("--verbose", opt->verbose, "Report each device-code binary as it is loaded");
  run_cmd->add_option("--cudart", opt->cudart,
                      "CUDA runtime major to provide (11, 12, 13); default: detected from the program")
      ->check(CLI::IsMember({11, 12, 13}));
  run_cmd->add_option("command", opt->command, "PROGRAM [ARGS...] (after --)")->required();
  run_cmd->positionals_at_end();
  run_cmd->callback([opt] { set_exit_code(run(*opt)); });
}

}  // namespace warpsim::tools
