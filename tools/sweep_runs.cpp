#include "tools/sweep_runs.h"

#include <fmt/format.h>
#include <signal.h>
#include <unistd.h>

#include <csignal>
#include <ctime>
#include <filesystem>
#include <fstream>

#include "tools/install_paths.h"

namespace warpsim::tools {

namespace fs = std::filesystem;
using nlohmann::json;

void ContentHash::add(std::string_view bytes) {
  for (unsigned char c : bytes) {
    a_ = (a_ ^ c) * 0x100000001b3ull;
    b_ = (b_ ^ c) * 0x100000001b3ull;
    b_ ^= b_ >> 29;  // decorrelates the two lanes
  }
  // A separator, so that ("ab","c") and ("a","bc") differ.
  a_ = (a_ ^ 0xff) * 0x100000001b3ull;
  b_ = (b_ ^ 0xfe) * 0x100000001b3ull;
}

bool ContentHash::add_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::string buf(1 << 16, '\0');
  while (in) {
    in.read(buf.data(), static_cast<std::streamsize>(buf.size()));
    add(std::string_view(buf.data(), static_cast<size_t>(in.gcount())));
  }
  return true;
}

std::string ContentHash::hex() const { return fmt::format("{:016x}{:016x}", a_, b_); }

std::string build_identity() {
  ContentHash h;
  h.add_file(self_path());
  for (int major : {11, 12, 13})
    if (std::string shim = find_shim(major); !shim.empty()) h.add_file(shim);
  return h.hex();
}

json run_to_json(const SweepRun& r) {
  return {{"point", r.point},
          {"program", r.program},
          {"hash", r.hash},
          {"warpsim", r.run.warpsim},
          {"mode", r.run.mode},
          {"config", r.run.config},
          {"overrides", r.run.overrides},
          {"binary", r.run.binary},
          {"arguments", r.run.arguments},
          {"log_base", r.run.log_base},
          {"pass_line", r.run.pass_line},
          {"timeout", r.run.timeout}};
}

std::optional<SweepRun> run_from_json(const json& j) {
  try {
    SweepRun r;
    r.point = j.at("point").get<size_t>();
    r.program = j.at("program").get<std::string>();
    r.hash = j.at("hash").get<std::string>();
    r.run.warpsim = j.at("warpsim").get<std::string>();
    r.run.mode = j.at("mode").get<std::string>();
    r.run.config = j.at("config").get<std::string>();
    r.run.overrides = j.at("overrides").get<std::vector<std::string>>();
    r.run.binary = j.at("binary").get<std::string>();
    r.run.arguments = j.at("arguments").get<std::vector<std::string>>();
    r.run.log_base = j.at("log_base").get<std::string>();
    r.run.pass_line = j.at("pass_line").get<std::string>();
    r.run.timeout = j.at("timeout").get<double>();
    return r;
  } catch (const json::exception&) {
    return std::nullopt;
  }
}

bool write_run_record(const SweepRun& r, const RunOutcome& o, std::string& why) {
  char host[256] = {};
  ::gethostname(host, sizeof host - 1);
  char when[32] = {};
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  ::gmtime_r(&now, &tm);
  std::strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &tm);
  const json j = {{"hash", r.hash},          {"status", o.status},     {"reason", o.reason},
                  {"exit_code", o.exit_code}, {"wall_seconds", o.wall_seconds},
                  {"host", host},            {"finished", when}};
  // Written beside and renamed: a reader never sees half a file.
  const std::string tmp = r.result_path() + ".tmp";
  {
    std::ofstream out(tmp, std::ios::trunc);
    out << j.dump(2) << "\n";
    if (!out) {
      why = fmt::format("cannot write {}", tmp);
      return false;
    }
  }
  std::error_code ec;
  fs::rename(tmp, r.result_path(), ec);
  if (ec) why = fmt::format("cannot write {}: {}", r.result_path(), ec.message());
  return !ec;
}

std::optional<RunRecord> read_run_record(const SweepRun& r) {
  std::ifstream in(r.result_path());
  if (!in) return std::nullopt;
  const json j = json::parse(in, nullptr, false);
  if (!j.is_object()) return std::nullopt;
  RunRecord rec;
  rec.hash = j.value("hash", "");
  rec.outcome.status = j.value("status", "error");
  rec.outcome.reason = j.value("reason", "");
  rec.outcome.exit_code = j.value("exit_code", -1);
  rec.outcome.wall_seconds = j.value("wall_seconds", 0.0);
  rec.host = j.value("host", "");
  rec.finished = j.value("finished", "");
  return rec;
}

bool execute_runs(const std::vector<SweepRun>& runs, const std::vector<size_t>& order, unsigned jobs,
                  const std::function<void(size_t, const RunOutcome&)>& announce,
                  const std::function<void(const std::vector<RunningProgram>&)>& tick,
                  const std::function<bool()>& stop) {
  std::vector<ProgramRun> programs;
  programs.reserve(runs.size());
  for (const SweepRun& r : runs) programs.push_back(r.run);
  // A run that cannot start (a missing binary) is recorded, not attempted.
  std::vector<size_t> startable;
  for (size_t i : order) {
    std::error_code ec;
    fs::remove(runs[i].result_path(), ec);  // an earlier outcome must not pass for this one
    if (fs::is_regular_file(runs[i].run.binary, ec)) {
      startable.push_back(i);
      continue;
    }
    RunOutcome o;
    o.status = "missing";
    o.reason = "not built: " + runs[i].run.binary;
    std::string why;
    write_run_record(runs[i], o, why);
    announce(i, o);
  }
  return run_programs(
      programs, startable, jobs,
      [&](size_t i, const RunOutcome& o) {
        std::string why;
        if (o.status != "interrupted" && !write_run_record(runs[i], o, why)) {
          RunOutcome failed = o;
          failed.status = "error";
          failed.reason = why;
          announce(i, failed);
          return;
        }
        announce(i, o);
      },
      tick, stop);
}

}  // namespace warpsim::tools
