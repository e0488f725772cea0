#include "tools/sweep_spec.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <set>

#include "common/config.h"
#include "tools/table_reader.h"
#include "tools/workload_suite.h"

namespace warpsim::tools {

namespace {

using nlohmann::json;
namespace fs = std::filesystem;

// A TOML scalar as `--set` takes it: strings bare, numbers and booleans as written.
std::optional<std::string> set_text(const json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_boolean()) return v.get<bool>() ? "true" : "false";
  if (v.is_number_integer()) return std::to_string(v.get<int64_t>());
  if (v.is_number_float()) return fmt::format("{}", v.get<double>());
  return std::nullopt;
}

std::string column_text(const json& v) {
  if (v.is_string()) return v.get<std::string>();
  return v.dump();
}

class SpecReader : TableReader {
 public:
  using TableReader::TableReader;

  std::optional<SweepSpec> read(const json& doc) {
    SweepSpec spec;
    spec.path = file_.name();
    keys(doc, {"name", "description", "suites", "programs", "program", "config", "configs", "axis", "combine",
               "mode", "modes", "preset", "presets", "set", "timeout", "suites_file"},
         "the sweep");
    spec.name = string(doc, "name").value_or(fs::path(file_.name()).stem().string());
    spec.description = string(doc, "description").value_or("");
    spec.suites = strings(doc, "suites");
    spec.programs = strings(doc, "programs");
    spec.overrides = strings(doc, "set");
    check_overrides(doc, spec.overrides);
    if (auto f = string(doc, "suites_file")) spec.suites_file = relative(*f);
    if (doc.contains("timeout")) {
      const json& t = doc["timeout"];
      if (!t.is_number() || t.get<double>() < 0) error(doc, "'timeout' must be a number of seconds, 0 or more");
      else spec.timeout = t.get<double>();
    }
    spec.modes = one_or_list(doc, "mode", "modes", "timing");
    for (const std::string& m : spec.modes)
      if (m != "timing" && m != "functional")
        error(doc, fmt::format("unknown mode '{}' (timing or functional)", m));
    spec.presets = one_or_list(doc, "preset", "presets", "small");
    for (const std::string& p : spec.presets)
      if (std::find(std::begin(kPresets), std::end(kPresets), p) == std::end(kPresets))
        error(doc, fmt::format("unknown preset '{}' (tiny, small or large)", p));
    if (auto c = string(doc, "combine")) {
      if (*c != "product" && *c != "zip") error(doc, fmt::format("'combine' is product or zip, not '{}'", *c));
      spec.zip = *c == "zip";
    }
    read_programs(doc, spec);
    read_configs(doc, spec);
    read_axes(doc, spec);
    if (spec.suites.empty() && spec.programs.empty() && spec.commands.empty())
      error(doc, "the sweep names no programs: give 'suites', 'programs' or [[program]] tables");
    if (failed_) return std::nullopt;
    return spec;
  }

 private:
  std::optional<std::string> string(const json& table, const char* key) {
    if (!table.contains(key)) return std::nullopt;
    if (!table[key].is_string()) {
      error(table, fmt::format("'{}' must be a string", key));
      return std::nullopt;
    }
    return table[key].get<std::string>();
  }

  std::vector<std::string> strings(const json& table, const char* key) {
    std::vector<std::string> out;
    if (!table.contains(key)) return out;
    const json& v = table[key];
    if (v.is_string()) return {v.get<std::string>()};
    if (!v.is_array() || !std::all_of(v.begin(), v.end(), [](const json& x) { return x.is_string(); })) {
      error(table, fmt::format("'{}' must be a string or an array of strings", key));
      return out;
    }
    for (const json& x : v) out.push_back(x.get<std::string>());
    return out;
  }

  std::vector<std::string> one_or_list(const json& table, const char* one, const char* list, const char* fallback) {
    if (table.contains(one) && table.contains(list)) error(table, fmt::format("give '{}' or '{}', not both", one, list));
    std::vector<std::string> out = table.contains(list) ? strings(table, list) : strings(table, one);
    if (out.empty()) out.push_back(fallback);
    return out;
  }

  void check_overrides(const json& table, const std::vector<std::string>& overrides) {
    for (const std::string& o : overrides)
      if (o.find('=') == std::string::npos || o.find('.') > o.find('='))
        error(table, fmt::format("'{}' is not a section.key=value override", o));
  }

  // A path in the spec: relative to the spec's folder.
  std::string relative(const std::string& p) const {
    if (p.empty() || fs::path(p).is_absolute()) return p;
    return (fs::path(file_.name()).parent_path() / p).lexically_normal().string();
  }

  void read_programs(const json& doc, SweepSpec& spec) {
    if (!doc.contains("program")) return;
    if (!doc["program"].is_array()) {
      error(doc, "'program' must be an array of tables ([[program]])");
      return;
    }
    std::set<std::string> seen;
    for (const json& p : doc["program"]) {
      keys(p, {"name", "command", "pass"}, "[[program]]");
      SweepProgram prog;
      prog.id = string(p, "name").value_or("");
      prog.command = strings(p, "command");
      prog.pass_line = string(p, "pass").value_or("");
      if (prog.id.empty()) error(p, "[[program]] needs a 'name' (its results' program column)");
      if (prog.command.empty()) {
        error(p, "[[program]] needs a 'command': [\"path/to/program\", \"arg\", ...]");
        continue;
      }
      if (!seen.insert(prog.id).second) error(p, fmt::format("program '{}' is given twice", prog.id));
      if (prog.command[0].find('/') != std::string::npos) prog.command[0] = relative(prog.command[0]);
      spec.commands.push_back(std::move(prog));
    }
  }

  void read_configs(const json& doc, SweepSpec& spec) {
    if (doc.contains("config") && doc.contains("configs"))
      error(doc, "give 'configs' (names) or [[config]] tables, not both");
    for (const std::string& name : strings(doc, "configs")) spec.configs.push_back({name, config_path(name), {}});
    if (doc.contains("config")) {
      if (!doc["config"].is_array()) {
        error(doc, "'config' must be an array of tables ([[config]])");
      } else {
        for (const json& c : doc["config"]) {
          keys(c, {"label", "name", "set"}, "[[config]]");
          SweepConfig config;
          config.name = config_path(string(c, "name").value_or(""));
          config.label = string(c, "label").value_or(string(c, "name").value_or("default"));
          config.overrides = strings(c, "set");
          check_overrides(c, config.overrides);
          spec.configs.push_back(std::move(config));
        }
      }
    }
    if (spec.configs.empty()) spec.configs.push_back({"default", "", {}});
    std::set<std::string> labels;
    for (const SweepConfig& c : spec.configs)
      if (!labels.insert(c.label).second)
        error(doc, fmt::format("two configurations are labelled '{}': give each [[config]] its own 'label'", c.label));
  }

  // A config name stays a name; a file (with a '/' or ending in .toml) is relative to the spec.
  std::string config_path(const std::string& name) const {
    if (name.find('/') != std::string::npos || (name.size() > 5 && name.ends_with(".toml"))) return relative(name);
    return name;
  }

  void read_axes(const json& doc, SweepSpec& spec) {
    if (!doc.contains("axis")) return;
    if (!doc["axis"].is_array()) {
      error(doc, "'axis' must be an array of tables ([[axis]])");
      return;
    }
    std::set<std::string> names = {"config", "mode", "preset"};
    for (const json& a : doc["axis"]) {
      keys(a, {"name", "key", "keys", "values", "labels"}, "[[axis]]");
      SweepAxis axis;
      if (a.contains("key") && a.contains("keys")) error(a, "give 'key' or 'keys', not both");
      axis.keys = a.contains("keys") ? strings(a, "keys") : strings(a, "key");
      if (axis.keys.empty()) {
        error(a, "[[axis]] needs 'key' (a section.key of the configuration) or 'keys'");
        continue;
      }
      for (const std::string& k : axis.keys)
        if (k.find('.') == std::string::npos) error(a, fmt::format("'{}' is not a section.key", k));
      axis.name = string(a, "name").value_or(axis.keys.size() == 1 ? axis.keys[0] : "");
      if (axis.name.empty()) error(a, "an [[axis]] with several keys needs a 'name' (its results column)");
      else if (!names.insert(axis.name).second) error(a, fmt::format("two columns are named '{}'", axis.name));
      if (!a.contains("values") || !a["values"].is_array() || a["values"].empty()) {
        error(a, "[[axis]] needs 'values', a non-empty array");
        continue;
      }
      for (const json& v : a["values"]) {
        // One value for every key, or an array with one value per key.
        const bool per_key = v.is_array();
        if (per_key && v.size() != axis.keys.size()) {
          error(a, fmt::format("a value {} has {} entries for {} keys", v.dump(), v.size(), axis.keys.size()));
          continue;
        }
        std::vector<std::string> step;
        for (size_t k = 0; k < axis.keys.size(); ++k) {
          auto text = set_text(per_key ? v[k] : v);
          if (!text) error(a, fmt::format("value {} is not a string, number or boolean", v.dump()));
          step.push_back(text.value_or(""));
        }
        axis.values.push_back(std::move(step));
        axis.labels.push_back(per_key ? json(column_text(v)) : v);
      }
      if (a.contains("labels")) {
        const json& l = a["labels"];
        if (!l.is_array() || l.size() != axis.values.size())
          error(a, fmt::format("'labels' must be an array with one label per value ({})", axis.values.size()));
        else
          for (size_t v = 0; v < l.size(); ++v) axis.labels[v] = l[v];
      }
      spec.axes.push_back(std::move(axis));
    }
    if (spec.zip && spec.axes.size() > 1)
      for (const SweepAxis& axis : spec.axes)
        if (axis.values.size() != spec.axes[0].values.size())
          error(doc, fmt::format("combine = \"zip\" needs axes of one length: '{}' has {} values, '{}' {}",
                                 spec.axes[0].name, spec.axes[0].values.size(), axis.name, axis.values.size()));
  }
};

}  // namespace

std::optional<SweepSpec> read_sweep_spec(const nlohmann::json& table, const SourceFile& file,
                                         DiagnosticEngine& diags) {
  return SpecReader(file, diags).read(table);
}

std::vector<std::string> parameter_columns(const SweepSpec& spec) {
  std::vector<std::string> cols = {"config", "mode", "preset"};
  for (const SweepAxis& a : spec.axes) cols.push_back(a.name);
  return cols;
}

std::vector<SweepPoint> expand_points(const SweepSpec& spec) {
  // The axis steps: a product (last axis fastest) or zipped.
  std::vector<std::vector<size_t>> steps;
  if (spec.axes.empty()) {
    steps.push_back({});
  } else if (spec.zip) {
    for (size_t v = 0; v < spec.axes[0].values.size(); ++v) steps.push_back(std::vector<size_t>(spec.axes.size(), v));
  } else {
    std::vector<size_t> at(spec.axes.size(), 0);
    for (;;) {
      steps.push_back(at);
      size_t k = spec.axes.size();
      while (k > 0 && ++at[k - 1] == spec.axes[k - 1].values.size()) at[--k] = 0;
      if (k == 0) break;
    }
  }
  std::vector<SweepPoint> points;
  for (const SweepConfig& config : spec.configs)
    for (const std::vector<size_t>& step : steps)
      for (const std::string& mode : spec.modes)
        for (const std::string& preset : spec.presets) {
          SweepPoint p;
          p.config = &config;
          p.mode = mode;
          p.preset = preset;
          p.overrides = spec.overrides;
          p.overrides.insert(p.overrides.end(), config.overrides.begin(), config.overrides.end());
          p.parameters = {{"config", config.label}, {"mode", mode}, {"preset", preset}};
          for (size_t a = 0; a < spec.axes.size(); ++a) {
            const SweepAxis& axis = spec.axes[a];
            for (size_t k = 0; k < axis.keys.size(); ++k)
              p.overrides.push_back(axis.keys[k] + "=" + axis.values[step[a]][k]);
            p.parameters.emplace_back(axis.name, axis.labels[step[a]]);
          }
          points.push_back(std::move(p));
        }
  // Ids, and labels from the parameters that vary across points.
  const size_t digits = std::max<size_t>(3, std::to_string(points.size()).size());
  for (size_t i = 0; i < points.size(); ++i) {
    SweepPoint& p = points[i];
    p.id = fmt::format("p{:0{}}", i, digits);
    for (size_t c = 0; c < p.parameters.size(); ++c) {
      const bool varies = std::any_of(points.begin(), points.end(),
                                      [&](const SweepPoint& q) { return q.parameters[c].second != p.parameters[c].second; });
      if (!varies) continue;
      const std::string value = column_text(p.parameters[c].second);
      if (!p.label.empty()) p.label += ", ";
      p.label += c == 0 ? value : p.parameters[c].first + "=" + value;
    }
    if (p.label.empty()) p.label = p.parameters[0].second.get<std::string>();
  }
  return points;
}

}  // namespace warpsim::tools
