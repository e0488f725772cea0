#include "tools/program_run.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

namespace warpsim::tools {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

// Seconds a stopped `warpsim run` gets to stop its program and write its
// statistics (its own grace period for the program is shorter).
constexpr int kStopGraceSeconds = 15;

namespace {

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

}  // namespace

std::vector<std::string> ProgramRun::argv() const {
  std::vector<std::string> a = {warpsim, "run", "--quiet", "--mode", mode};
  if (threads != 0) a.insert(a.end(), {"--threads", std::to_string(threads)});
  if (!config.empty()) a.insert(a.end(), {"--config", config});
  for (const std::string& o : overrides) a.insert(a.end(), {"--set", o});
  a.insert(a.end(), {"--stats", stats_path(), "--", binary});
  a.insert(a.end(), arguments.begin(), arguments.end());
  return a;
}

pid_t start_program_run(const ProgramRun& run, std::string& why) {
  std::vector<std::string> argv = run.argv();
  std::error_code ec;
  fs::remove(run.stats_path(), ec);  // a stale file would pass for this run's
  const int out = ::open((run.log_base + ".out").c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  const int err = ::open((run.log_base + ".err").c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (out < 0 || err < 0) {
    why = fmt::format("cannot write {}.out/.err: {}", run.log_base, std::strerror(errno));
    if (out >= 0) ::close(out);
    if (err >= 0) ::close(err);
    return -1;
  }
  std::vector<char*> cargv;
  for (std::string& s : argv) cargv.push_back(s.data());
  cargv.push_back(nullptr);
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::setpgid(0, 0);
    const int in = ::open("/dev/null", O_RDONLY);
    if (in >= 0) ::dup2(in, 0);
    ::dup2(out, 1);
    ::dup2(err, 2);
    ::execv(cargv[0], cargv.data());
    ::_exit(127);
  }
  ::close(out);
  ::close(err);
  if (pid < 0) why = fmt::format("fork failed: {}", std::strerror(errno));
  else ::setpgid(pid, pid);  // also in the parent: no window in which a kill(-pid) misses it
  return pid;
}

RunOutcome classify_program_run(const ProgramRun& run, int wait_status, bool timed_out, double wall_seconds) {
  RunOutcome r;
  r.wall_seconds = wall_seconds;
  if (timed_out) {
    r.status = "timeout";
    r.reason = fmt::format("killed after {:.0f} s", wall_seconds);
    return r;
  }
  const std::string out = read_text(run.log_base + ".out");
  const std::string err = read_text(run.log_base + ".err");
  std::string fail_line;
  bool passed = run.pass_line.empty();
  std::istringstream lines(out);
  for (std::string line; std::getline(lines, line);) {
    if (!run.pass_line.empty() && line == run.pass_line) passed = true;
    if (line.rfind("FAIL ", 0) == 0 && fail_line.empty()) fail_line = line;
  }
  if (WIFSIGNALED(wait_status)) {
    r.status = "crash";
    r.reason = fmt::format("warpsim run was killed by signal {} ({})", WTERMSIG(wait_status),
                           strsignal(WTERMSIG(wait_status)));
    return r;
  }
  r.exit_code = WEXITSTATUS(wait_status);
  // `warpsim run` passes the program's status through; 128+N is a signal.
  if (r.exit_code > 128) {
    r.status = "crash";
    r.reason = fmt::format("terminated by signal {} ({})", r.exit_code - 128, strsignal(r.exit_code - 128));
    if (std::string l = first_line(err); !l.empty()) r.reason += ": " + l;
    return r;
  }
  if (r.exit_code == 0 && passed && fail_line.empty()) {
    r.status = "pass";
    return r;
  }
  r.status = "fail";
  if (!fail_line.empty()) {
    r.reason = fail_line;
  } else {
    r.reason = fmt::format("exit status {}{}", r.exit_code,
                           passed ? "" : fmt::format(", no '{}' line", run.pass_line));
    if (std::string l = first_line(err); !l.empty()) r.reason += ": " + l;
  }
  return r;
}

bool run_programs(const std::vector<ProgramRun>& runs, const std::vector<size_t>& order, unsigned jobs,
                  const std::function<void(size_t, const RunOutcome&)>& finished,
                  const std::function<void(const std::vector<RunningProgram>&)>& tick,
                  const std::function<bool()>& stop) {
  std::vector<RunningProgram> running;
  std::vector<pid_t> pids;  // parallel to `running`
  size_t next = 0;
  Clock::time_point last_tick{};
  auto age = [](const RunningProgram& r) { return std::chrono::duration<double>(Clock::now() - r.start).count(); };
  auto remove_at = [&](size_t k) {
    running.erase(running.begin() + static_cast<std::ptrdiff_t>(k));
    pids.erase(pids.begin() + static_cast<std::ptrdiff_t>(k));
  };
  auto reap = [](pid_t pid) {
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    return status;
  };
  while (next < order.size() || !running.empty()) {
    if (stop()) {
      // Asked to stop: every running `warpsim run` is asked too (it stops its
      // program and writes the partial statistics), and killed with its
      // program only if it does not end within the grace period.
      for (pid_t p : pids) ::kill(-p, SIGTERM);
      const auto deadline = Clock::now() + std::chrono::seconds(kStopGraceSeconds);
      std::vector<bool> ended(pids.size(), false);
      for (size_t k = 0; k < pids.size(); ++k) {
        int status = 0;
        pid_t w = 0;
        while ((w = ::waitpid(pids[k], &status, WNOHANG)) == 0 && Clock::now() < deadline)
          std::this_thread::sleep_for(std::chrono::milliseconds(20));
        ended[k] = w == pids[k];
        ::kill(-pids[k], SIGKILL);  // whatever is left of its process group
      }
      for (size_t k = 0; k < running.size(); ++k) {
        if (!ended[k]) reap(pids[k]);
        RunOutcome r;
        r.status = "interrupted";
        r.reason = "the sweep was interrupted";
        r.wall_seconds = age(running[k]);
        finished(running[k].index, r);
      }
      return false;
    }
    while (next < order.size() && running.size() < jobs) {
      const size_t index = order[next++];
      std::string why;
      ProgramRun run = runs[index];
      // (Timing mode only: functional.threads = N also runs kernels whose
      // CTAs act on one another in parallel, which its default does not.)
      if (jobs > 1 && run.threads == 0 && run.mode == "timing")
        run.threads = std::max(1u, std::thread::hardware_concurrency() / jobs);
      const pid_t pid = start_program_run(run, why);
      if (pid < 0) {
        RunOutcome r;
        r.reason = why;
        finished(index, r);
        continue;
      }
      running.push_back({index, Clock::now()});
      pids.push_back(pid);
    }
    int status = 0;
    const pid_t pid = ::waitpid(-1, &status, WNOHANG);
    if (pid > 0) {
      auto it = std::find(pids.begin(), pids.end(), pid);
      if (it == pids.end()) continue;
      const size_t k = static_cast<size_t>(it - pids.begin());
      const RunningProgram r = running[k];
      remove_at(k);
      finished(r.index, classify_program_run(runs[r.index], status, false, age(r)));
      continue;
    }
    // Timeouts: the whole process group goes.
    for (size_t k = 0; k < running.size();) {
      const double seconds = age(running[k]);
      const double limit = runs[running[k].index].timeout;
      if (limit > 0 && seconds > limit) {
        ::kill(-pids[k], SIGKILL);
        const int st = reap(pids[k]);
        const RunningProgram r = running[k];
        remove_at(k);
        finished(r.index, classify_program_run(runs[r.index], st, true, seconds));
      } else {
        ++k;
      }
    }
    // Poll often (wall times are measured to the poll), report a few times a second.
    if (Clock::now() - last_tick > std::chrono::milliseconds(250)) {
      tick(running);
      last_tick = Clock::now();
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return true;
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

}  // namespace warpsim::tools
