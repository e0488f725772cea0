#include "tools/workload_suite.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>

#include "common/config.h"
#include "common/toml_document.h"
#include "tools/table_reader.h"

namespace warpsim::tools {

namespace {

using nlohmann::json;

bool plain_word(const std::string& s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '_' || c == '-' || c == '+' || c == '.';
  }) && s != "." && s != "..";
}

class Reader : TableReader {
 public:
  using TableReader::TableReader;

  std::optional<WorkloadSuite> read(const json& doc) {
    WorkloadSuite out;
    out.path = file_.name();
    keys(doc, {"program", "suite"}, "the file");
    if (doc.contains("program")) {
      const json& list = doc["program"];
      if (!list.is_array()) {
        error(doc, "'program' must be an array of tables ([[program]])");
      } else {
        for (const json& p : list) program(p, out);
      }
    }
    if (doc.contains("suite")) {
      const json& suites = doc["suite"];
      if (!suites.is_object()) {
        error(doc, "'suite' must be a table of tables ([suite.NAME])");
      } else {
        for (const auto& [name, s] : suites.items())
          if (name != "$line") suite(name, s, out);
      }
    }
    // `all` comes first: defined in the file, or every program.
    auto all_it = std::find_if(out.suites.begin(), out.suites.end(),
                               [](const NamedSuite& s) { return s.name == "all"; });
    if (all_it != out.suites.end()) std::rotate(out.suites.begin(), all_it, all_it + 1);
    if (!out.find("all")) {
      NamedSuite all{"all", "every program", {}};
      for (size_t i = 0; i < out.programs.size(); ++i) all.programs.push_back(i);
      out.suites.insert(out.suites.begin(), std::move(all));
    }
    if (failed_) return std::nullopt;
    return out;
  }

 private:
  std::optional<std::string> string(const json& table, const char* key, bool required,
                                    const std::string& what) {
    if (!table.contains(key)) {
      if (required) error(table, fmt::format("{} has no '{}'", what, key));
      return std::nullopt;
    }
    if (!table[key].is_string()) {
      error(table, fmt::format("'{}' of {} must be a string", key, what));
      return std::nullopt;
    }
    return table[key].get<std::string>();
  }

  std::optional<std::vector<std::string>> strings(const json& table, const char* key,
                                                  const std::string& what) {
    const json& v = table[key];
    if (!v.is_array() || !std::all_of(v.begin(), v.end(), [](const json& e) { return e.is_string(); })) {
      error(table, fmt::format("'{}' of {} must be an array of strings", key, what));
      return std::nullopt;
    }
    return v.get<std::vector<std::string>>();
  }

  void program(const json& p, WorkloadSuite& out) {
    if (!p.is_object()) {
      error(p, "each [[program]] must be a table");
      return;
    }
    const std::string what = fmt::format("program #{}", out.programs.size() + 1);
    keys(p, {"suite", "name", "description", "papers", "args"}, what);
    WorkloadProgram prog;
    auto suite = string(p, "suite", true, what);
    auto name = string(p, "name", true, what);
    auto description = string(p, "description", true, what);
    if (!suite || !name || !description) return;
    if (!plain_word(*suite) || !plain_word(*name)) {
      error(p, fmt::format("{}: suite and name must be plain words (letters, digits, _ - + .), "
                           "got '{}/{}'", what, *suite, *name));
      return;
    }
    prog.suite = *suite;
    prog.name = *name;
    prog.description = *description;
    if (p.contains("papers"))
      if (auto papers = strings(p, "papers", prog.id())) prog.papers = *papers;
    if (p.contains("args")) {
      const json& args = p["args"];
      if (!args.is_object()) {
        error(p, fmt::format("'args' of {} must be a table (args.tiny = [...])", prog.id()));
      } else {
        keys(args, {"tiny", "small", "large"}, fmt::format("the args of {}", prog.id()));
        for (const char* preset : kPresets)
          if (args.contains(preset))
            if (auto a = strings(args, preset, fmt::format("{} args", prog.id()))) prog.args[preset] = *a;
      }
    }
    if (!ids_.insert(prog.id()).second) {
      error(p, fmt::format("program {} is listed twice", prog.id()));
      return;
    }
    out.programs.push_back(std::move(prog));
  }

  void suite(const std::string& name, const json& s, WorkloadSuite& out) {
    const std::string what = fmt::format("suite '{}'", name);
    if (!s.is_object()) {
      error(s, fmt::format("{} must be a table", what));
      return;
    }
    keys(s, {"description", "programs"}, what);
    NamedSuite named{name, string(s, "description", true, what).value_or(""), {}};
    if (!s.contains("programs")) {
      error(s, fmt::format("{} has no 'programs'", what));
      return;
    }
    auto list = strings(s, "programs", what);
    if (!list) return;
    std::set<size_t> seen;
    for (const std::string& entry : *list) {
      if (entry == "*") {
        for (size_t i = 0; i < out.programs.size(); ++i)
          if (seen.insert(i).second) named.programs.push_back(i);
        continue;
      }
      auto it = std::find_if(out.programs.begin(), out.programs.end(),
                             [&](const WorkloadProgram& p) { return p.id() == entry; });
      if (it == out.programs.end()) {
        std::vector<std::string> ids(ids_.begin(), ids_.end());
        const std::string near = config::closest_match(entry, ids);
        error(s, fmt::format("{} names unknown program '{}'{}", what, entry,
                             near.empty() ? "" : fmt::format(" (did you mean '{}'?)", near)));
        continue;
      }
      const size_t i = static_cast<size_t>(it - out.programs.begin());
      if (seen.insert(i).second) named.programs.push_back(i);
    }
    out.suites.push_back(std::move(named));
  }

  std::set<std::string> ids_;
};

}  // namespace

std::vector<std::string> WorkloadProgram::arguments(const std::string& preset) const {
  auto it = args.find(preset);
  return it != args.end() ? it->second : std::vector<std::string>{preset};
}

const NamedSuite* WorkloadSuite::find(const std::string& name) const {
  for (const NamedSuite& s : suites)
    if (s.name == name) return &s;
  return nullptr;
}

std::string WorkloadSuite::binary(const WorkloadProgram& p) const {
  return (std::filesystem::path(path).parent_path() / p.suite / p.name).string();
}

std::optional<WorkloadSuite> parse_workload_suite(const SourceFile& file, DiagnosticEngine& diags) {
  auto doc = parse_toml_document(file, diags);
  if (!doc) return std::nullopt;
  return Reader(file, diags).read(*doc);
}

}  // namespace warpsim::tools
