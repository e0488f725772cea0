// The Slurm backend of `warpsim sweep`: the pending runs become one job
// array (runs batched per task), submitted with sbatch from <out>/slurm/,
// followed with squeue, and collected from the runs' result files in the
// shared output folder; sacct (where the cluster keeps accounting) says
// why a task left runs without a result. Needs only a filesystem shared
// with the nodes and warpsim installed on them.
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/wait.h>
#include <unistd.h>

#include <sys/select.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <thread>
#include <tuple>

#include "tools/sweep.h"

namespace warpsim::tools {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// Runs a command (found on PATH) and captures its output; the exit status,
// or -1 when it could not run.
int capture(const std::vector<std::string>& argv, std::string& out, std::string& err) {
  int po[2], pe[2];
  if (::pipe(po) != 0) return -1;
  if (::pipe(pe) != 0) {
    ::close(po[0]);
    ::close(po[1]);
    return -1;
  }
  const pid_t pid = ::fork();
  if (pid == 0) {
    const int null = ::open("/dev/null", O_RDONLY);
    if (null >= 0) ::dup2(null, 0);
    ::dup2(po[1], 1);
    ::dup2(pe[1], 2);
    ::close(po[0]);
    ::close(pe[0]);
    std::vector<char*> cargv;
    for (const std::string& s : argv) cargv.push_back(const_cast<char*>(s.c_str()));
    cargv.push_back(nullptr);
    ::execvp(cargv[0], cargv.data());
    ::_exit(127);
  }
  ::close(po[1]);
  ::close(pe[1]);
  if (pid < 0) {
    ::close(po[0]);
    ::close(pe[0]);
    return -1;
  }
  // Both pipes are drained together so that neither fills and blocks the child.
  char buf[4096];
  bool open_out = true, open_err = true;
  while (open_out || open_err) {
    fd_set fds;
    FD_ZERO(&fds);
    if (open_out) FD_SET(po[0], &fds);
    if (open_err) FD_SET(pe[0], &fds);
    if (::select(std::max(po[0], pe[0]) + 1, &fds, nullptr, nullptr, nullptr) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    for (auto [fd, open, text] : {std::tuple<int, bool*, std::string*>{po[0], &open_out, &out},
                                  std::tuple<int, bool*, std::string*>{pe[0], &open_err, &err}}) {
      if (!*open || !FD_ISSET(fd, &fds)) continue;
      const ssize_t n = ::read(fd, buf, sizeof buf);
      if (n > 0) text->append(buf, static_cast<size_t>(n));
      else if (n == 0 || errno != EINTR) *open = false;
    }
  }
  ::close(po[0]);
  ::close(pe[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return -1;
  }
  if (!WIFEXITED(status)) return -1;
  return WEXITSTATUS(status) == 127 && out.empty() && err.empty() ? -1 : WEXITSTATUS(status);
}

std::string trim(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ' || s.back() == '\r')) s.pop_back();
  return s;
}

// A value inside the script's single quotes.
std::string shell_quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

bool write_text(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::trunc);
  out << text;
  return static_cast<bool>(out);
}

// Whether job `id` is still known to the queue (pending or running).
// nullopt when squeue cannot say.
std::optional<bool> job_queued(const std::string& id) {
  std::string out, err;
  const int rc = capture({"squeue", "-h", "-j", id, "-o", "%T"}, out, err);
  if (rc == 0) return !trim(out).empty();
  if (err.find("Invalid job id") != std::string::npos) return false;  // gone from the controller's memory
  return std::nullopt;
}

// Task index -> "STATE, exit N:M" from sacct where the cluster keeps
// accounting, else "STATE, reason" from squeue, which remembers finished
// jobs for a few minutes (MinJobAge); empty when neither knows.
std::map<size_t, std::string> task_states(const std::string& id) {
  std::map<size_t, std::string> states;
  // "1234_7|TIMEOUT|0:15": the task index after the underscore, then two fields.
  auto parse = [&](const std::string& text, const char* joiner) {
    std::istringstream lines(text);
    for (std::string line; std::getline(lines, line);) {
      const size_t us = line.find('_'), bar = line.find('|');
      if (us == std::string::npos || bar == std::string::npos || us > bar) continue;
      const std::string task = line.substr(us + 1, bar - us - 1);
      if (task.empty() || !std::all_of(task.begin(), task.end(), ::isdigit)) continue;
      const size_t bar2 = line.find('|', bar + 1);
      const std::string state = line.substr(bar + 1, bar2 == std::string::npos ? std::string::npos : bar2 - bar - 1);
      const std::string more = bar2 == std::string::npos ? "" : trim(line.substr(bar2 + 1));
      states[std::stoul(task)] = more.empty() || more == "None" ? state : fmt::format("{}{}{}", state, joiner, more);
    }
  };
  std::string out, err;
  if (capture({"sacct", "-j", id, "-n", "-P", "-X", "-o", "JobID,State,ExitCode"}, out, err) == 0) parse(out, ", exit ");
  if (!states.empty()) return states;
  out.clear();
  err.clear();
  if (capture({"squeue", "-h", "-t", "all", "-j", id, "-o", "%i|%T|%r"}, out, err) == 0) parse(out, ", ");
  return states;
}

size_t finished_count(const std::vector<SweepRun>& runs, const std::vector<size_t>& which) {
  size_t n = 0;
  for (size_t i : which) {
    const auto rec = read_run_record(runs[i]);
    n += rec && rec->hash == runs[i].hash;
  }
  return n;
}

}  // namespace

bool run_on_slurm(const std::string& out, const std::vector<SweepRun>& runs, const std::vector<size_t>& pending,
                  const SlurmOptions& opt, const std::function<void(size_t done)>& progress) {
  const fs::path dir = fs::path(out) / "slurm";
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) {
    fmt::print(stderr, "warpsim sweep: cannot create {}: {}\n", dir.string(), ec.message());
    return false;
  }
  // A job array of an earlier submission that is still queued is followed,
  // not submitted twice.
  std::string job;
  size_t submission = 0;
  std::vector<std::vector<size_t>> tasks;
  {
    std::ifstream in(dir / "active.json");
    const json active = in ? json::parse(in, nullptr, false) : json(nullptr);
    if (active.is_object() && active.contains("job") && job_queued(active["job"].get<std::string>()).value_or(true)) {
      job = active["job"].get<std::string>();
      submission = active.value("submission", size_t{0});
      tasks = active.value("tasks", std::vector<std::vector<size_t>>{});
      fmt::print(stderr, "warpsim sweep: following job array {}, submitted earlier\n", job);
    }
  }
  if (job.empty()) {
    // An earlier outcome (an error, say) must not pass for this submission's.
    for (size_t i : pending) fs::remove(runs[i].result_path(), ec);
    while (fs::exists(dir / fmt::format("tasks-{}.json", submission), ec)) ++submission;
    for (size_t k = 0; k < pending.size(); k += opt.runs_per_task)
      tasks.emplace_back(pending.begin() + static_cast<std::ptrdiff_t>(k),
                         pending.begin() + static_cast<std::ptrdiff_t>(std::min(pending.size(), k + opt.runs_per_task)));
    json jtasks = json::array();
    for (const auto& t : tasks) {
      json list = json::array();
      for (size_t i : t) list.push_back(run_to_json(runs[i]));
      jtasks.push_back(std::move(list));
    }
    const fs::path tasks_file = dir / fmt::format("tasks-{}.json", submission);
    const fs::path script = dir / fmt::format("sweep-{}.sbatch", submission);
    std::string s = "#!/bin/sh\n# warpsim sweep: one array task per batch of runs (tasks-N.json).\n";
    s += fmt::format("#SBATCH --job-name=warpsim-sweep\n#SBATCH --array=0-{}{}\n", tasks.size() - 1,
                     opt.max_running ? fmt::format("%{}", opt.max_running) : "");
    s += fmt::format("#SBATCH --output={}\n", (dir / fmt::format("{}-task-%a.out", submission)).string());
    s += fmt::format("#SBATCH --cpus-per-task={}\n", opt.cpus_per_task);
    if (!opt.partition.empty()) s += fmt::format("#SBATCH --partition={}\n", opt.partition);
    if (!opt.time.empty()) s += fmt::format("#SBATCH --time={}\n", opt.time);
    if (!opt.mem.empty()) s += fmt::format("#SBATCH --mem={}\n", opt.mem);
    if (!opt.account.empty()) s += fmt::format("#SBATCH --account={}\n", opt.account);
    for (const std::string& o : opt.sbatch_options) s += fmt::format("#SBATCH {}\n", o);
    const std::string warpsim = runs[pending.front()].run.warpsim;
    s += fmt::format("exec {} sweep-task {} \"$SLURM_ARRAY_TASK_ID\"\n", shell_quote(warpsim),
                     shell_quote(tasks_file.string()));
    if (!write_text(tasks_file, json{{"tasks", jtasks}}.dump(1) + "\n") || !write_text(script, s)) {
      fmt::print(stderr, "warpsim sweep: cannot write into {}\n", dir.string());
      return false;
    }
    std::string sout, serr;
    const int rc = capture({"sbatch", "--parsable", script.string()}, sout, serr);
    if (rc != 0) {
      fmt::print(stderr, "warpsim sweep: sbatch {} failed{}: {}\n", script.string(),
                 rc < 0 ? " (is Slurm installed? sbatch was not found or did not run)" : fmt::format(" ({})", rc),
                 trim(serr));
      return false;
    }
    job = trim(sout).substr(0, trim(sout).find(';'));  // "ID" or "ID;cluster"
    json active = {{"job", job}, {"submission", submission}, {"tasks", tasks}};
    write_text(dir / "active.json", active.dump() + "\n");
    fmt::print(stderr, "warpsim sweep: submitted job array {} ({} task{}, {} runs); script {}\n", job, tasks.size(),
               tasks.size() == 1 ? "" : "s", pending.size(), script.string());
  }
  if (opt.no_wait) {
    fmt::print(stderr, "warpsim sweep: not waiting; `squeue -j {}` follows it, the same command with --resume "
                       "collects the results\n", job);
    return true;
  }
  std::vector<size_t> submitted;
  for (const auto& t : tasks) submitted.insert(submitted.end(), t.begin(), t.end());
  int unknown = 0;
  for (;;) {
    progress(finished_count(runs, submitted));
    const std::optional<bool> queued = job_queued(job);
    if (queued == false) break;
    if (!queued && ++unknown > 60) {
      fmt::print(stderr, "\nwarpsim sweep: squeue has not answered for a while; stopped following job {}\n", job);
      return true;
    }
    if (queued) unknown = 0;
    const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(opt.poll_seconds);
    while (std::chrono::steady_clock::now() < until && !interrupted())
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    if (interrupted()) {
      fmt::print(stderr, "\nwarpsim sweep: stopped following job array {}, which goes on; `scancel {}` stops it, "
                         "--resume follows it again\n", job, job);
      return true;
    }
  }
  progress(finished_count(runs, submitted));
  // Runs the array left without a result: say which task and why.
  const auto states = task_states(job);
  for (size_t t = 0; t < tasks.size(); ++t) {
    for (size_t i : tasks[t]) {
      const auto rec = read_run_record(runs[i]);
      if (rec && rec->hash == runs[i].hash) continue;
      RunOutcome o;
      o.status = "error";
      auto st = states.find(t);
      o.reason = fmt::format("Slurm task {} of job {} ended{} without recording this run; its log: {}", t, job,
                             st == states.end() ? "" : " (" + st->second + ")",
                             (dir / fmt::format("{}-task-{}.out", submission, t)).string());
      std::string why;
      write_run_record(runs[i], o, why);
    }
  }
  fs::remove(dir / "active.json", ec);
  return true;
}

}  // namespace warpsim::tools
