// `warpsim profile -- PROGRAM`: runs a CUDA program on the machine's real GPU
// with libwarpsim_profile.so preloaded in front of its libcudart, which times
// every kernel launch with CUDA events and writes warpsim's statistics schema
// (docs/fidelity.md). `warpsim correlate` joins the file with simulated runs.
#include <fmt/format.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common/signal_name.h"
#include "tools/commands.h"
#include "tools/cuda_program.h"
#include "tools/install_paths.h"
#include "tools/interrupts.h"
#include "tools/output_file.h"
#include "tools/stats_file.h"

namespace warpsim::tools {
namespace {

namespace fs = std::filesystem;

struct ProfileOptions {
  std::string output;
  bool quiet = false;
  std::vector<std::string> command;
};

// Waits for the program, passing on the first interrupt (a second one kills
// it), as `warpsim run` does.
int wait_for(pid_t pid, int* signal_seen) {
  int status = 0;
  int forwarded = 0;
  for (;;) {
    const pid_t w = ::waitpid(pid, &status, WNOHANG);
    if (w == pid || (w < 0 && errno != EINTR)) break;
    if (interrupted() && interrupt_count() > forwarded) {
      *signal_seen = interrupt_signal();
      ::kill(pid, forwarded == 0 ? *signal_seen : SIGKILL);
      forwarded = interrupt_count();
    }
    ::usleep(20'000);
  }
  return status;
}

int profile(const ProfileOptions& opt) {
  std::string why;
  const std::string program = resolve_program(opt.command[0], why);
  if (program.empty()) {
    fmt::print(stderr, "warpsim profile: {}\n", why);
    return 127;
  }
  // A program with the static runtime never calls the library the profiler
  // stands in front of: refuse it with the fix, as `warpsim run` does.
  if (detect_cudart(program, why) == 0) {
    fmt::print(stderr, "warpsim profile: {}\n", why);
    return 2;
  }
  const std::string library = find_profiler();
  if (library.empty()) {
    fmt::print(stderr, "warpsim profile: libwarpsim_profile.so was not found next to warpsim "
                       "(<prefix>/lib/warpsim or the build tree's lib/)\n");
    return 2;
  }
  const std::string target =
      opt.output.empty() ? fs::path(program).filename().string() + ".profile.json" : opt.output;
  auto out = OutputFile::prepare(target, why, {program});
  if (!out) {
    fmt::print(stderr, "warpsim profile: -o: {}\n", why);
    return 2;
  }
  std::string preload = library;
  if (const char* existing = std::getenv("LD_PRELOAD"); existing && *existing)
    preload += std::string(":") + existing;

  catch_interrupts();
  std::fflush(stdout);
  std::fflush(stderr);
  const pid_t pid = ::fork();
  if (pid < 0) {
    fmt::print(stderr, "warpsim profile: fork failed: {}\n", std::strerror(errno));
    return 2;
  }
  if (pid == 0) {
    for (int sig : {SIGINT, SIGTERM, SIGHUP}) ::signal(sig, SIG_DFL);
    ::setenv("LD_PRELOAD", preload.c_str(), 1);
    ::setenv("WARPSIM_PROFILE_OUT", out->temp_path().c_str(), 1);
    ::setenv("WARPSIM_PROGRAM", opt.command[0].c_str(), 1);
    ::setenv("WARPSIM_PROFILE_PID", std::to_string(::getpid()).c_str(), 1);
    std::vector<char*> argv;
    for (const std::string& s : opt.command) argv.push_back(const_cast<char*>(s.c_str()));
    argv.push_back(nullptr);
    ::execv(program.c_str(), argv.data());
    fmt::print(stderr, "warpsim profile: cannot execute {}: {}\n", program, std::strerror(errno));
    ::_exit(127);
  }
  int signal_seen = 0;
  const int status = wait_for(pid, &signal_seen);
  const int code = WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);

  const nlohmann::json j = read_stats_file(out->temp_path());
  if (!j.is_object() || !j.contains("launches")) {
    out->discard();
    fmt::print(stderr, "warpsim profile: no kernel launch was timed{}; {} was not written. A program "
                       "that launched kernels and exited normally writes one: check that it ran on a GPU "
                       "and did not end by a signal or _exit()\n",
               code != 0 ? fmt::format(" (the program exited with status {})", code) : "", target);
    return code != 0 ? code : 1;
  }
  if (!out->commit(why)) {
    fmt::print(stderr, "warpsim profile: -o: {}\n", why);
    return code != 0 ? code : 2;
  }
  if (!opt.quiet) {
    const auto& meta = j["warpsim"];
    fmt::print(stderr, "warpsim profile: {} kernel launches timed on {} ({} MHz) -> {}\n", j["launches"].size(),
               meta.value("gpu", std::string("an unnamed GPU")), meta.value("core_clock_mhz", 0.0), out->target());
    if (meta.value("launches_unreadable", 0) != 0)
      fmt::print(stderr, "warpsim profile: {} launches' events could not be read (their time is 0)\n",
                 meta.value("launches_unreadable", 0));
  }
  if (signal_seen != 0) {
    fmt::print(stderr, "warpsim profile: stopped by {}\n", sigabbrev(signal_seen));
    return 128 + signal_seen;
  }
  return code;
}

}  // namespace

void register_profile_command(CLI::App& app) {
  auto opt = std::make_shared<ProfileOptions>();
  CLI::App* cmd = app.add_subcommand(
      "profile", "Time every kernel of a CUDA program on this machine's real GPU (CUDA events), as warpsim's "
                 "statistics JSON, for warpsim correlate");
  cmd->add_option("-o,--output", opt->output, "Write the JSON here (default: PROGRAM.profile.json)");
  cmd->add_flag("--quiet", opt->quiet, "Do not print the summary at exit");
  cmd->add_option("command", opt->command, "PROGRAM [ARGS...] (after --)")->required();
  cmd->positionals_at_end();
  cmd->callback([opt] { set_exit_code(profile(*opt)); });
}

}  // namespace warpsim::tools
