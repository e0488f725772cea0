#include "tools/sweep_results.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>

#include "tools/stats_file.h"

namespace warpsim::tools {

namespace fs = std::filesystem;
using nlohmann::json;
using Row = std::map<std::string, json>;

void flatten_statistics(const json& stats, const std::string& prefix, std::map<std::string, json>& out,
                        const std::vector<std::string>& skip) {
  if (stats.is_object()) {
    for (const auto& [key, value] : stats.items()) {
      if (prefix.empty() && std::find(skip.begin(), skip.end(), key) != skip.end()) continue;
      if (key == "value" && !prefix.empty()) flatten_statistics(value, prefix, out);
      else flatten_statistics(value, prefix.empty() ? key : prefix + "." + key, out);
    }
  } else if (stats.is_array()) {
    for (size_t i = 0; i < stats.size(); ++i) flatten_statistics(stats[i], fmt::format("{}.{}", prefix, i), out);
  } else if (!prefix.empty()) {
    out[prefix] = stats;
  }
}

namespace {

// Columns every row has, after the parameters: what, how it ended, and
// the headline figures under one name in program and kernel rows.
const std::vector<std::string> kRunColumns = {"program", "kernel", "kernel_index", "status", "reason", "wall_seconds"};
const std::vector<std::string> kFigureColumns = {"cycles", "thread_instructions", "ipc",
                                                 "energy_J", "average_power_W", "edp_Js"};

json number_or_null(const Row& stats, const std::string& name) {
  auto it = stats.find(name);
  return it != stats.end() && it->second.is_number() ? it->second : json(nullptr);
}

// The headline figures from a program's or a kernel's flattened statistics.
void add_figures(Row& row, const Row& stats, const char* cycles, const char* insn) {
  const json c = number_or_null(stats, cycles), n = number_or_null(stats, insn);
  row["cycles"] = c;
  row["thread_instructions"] = n;
  row["ipc"] = c.is_number() && n.is_number() && c.get<double>() > 0 ? json(n.get<double>() / c.get<double>())
                                                                      : json(nullptr);
  row["energy_J"] = number_or_null(stats, "power.total_energy_J");
  row["average_power_W"] = number_or_null(stats, "power.average_power_W");
  row["edp_Js"] = number_or_null(stats, "power.edp_Js");
}

std::string csv_value(const json& v) {
  if (v.is_null()) return "";
  if (v.is_string()) return csv_field(v.get<std::string>());
  return v.dump();
}

}  // namespace

SweepTableCounts write_sweep_results(const std::string& out, const std::string& name,
                                     const std::vector<std::string>& parameter_columns,
                                     const std::vector<SweepPoint>& points,
                                     const std::vector<std::string>& config_files,
                                     const std::vector<SweepRun>& runs, std::string& why) {
  SweepTableCounts counts;
  std::vector<Row> rows;
  std::set<std::string> stat_columns;
  std::set<std::string> fixed = {"row", "point", "label"};
  fixed.insert(parameter_columns.begin(), parameter_columns.end());
  fixed.insert(kRunColumns.begin(), kRunColumns.end());
  fixed.insert(kFigureColumns.begin(), kFigureColumns.end());
  // A statistic named like a fixed column keeps its value under "stat.NAME".
  auto add_stats = [&](Row& row, const Row& stats) {
    for (const auto& [k, v] : stats) {
      const std::string column = fixed.count(k) ? "stat." + k : k;
      stat_columns.insert(column);
      row[column] = v;
    }
  };
  for (const SweepRun& run : runs) {
    ++counts.runs;
    const SweepPoint& point = points[run.point];
    Row base;
    base["point"] = point.id;
    base["label"] = point.label;
    for (const auto& [column, value] : point.parameters) base[column] = value;
    base["program"] = run.program;
    const std::optional<RunRecord> record = read_run_record(run);
    const bool current = record && record->hash == run.hash;
    if (!current) {
      base["status"] = "pending";
      ++counts.pending;
    } else {
      base["status"] = record->outcome.status;
      base["reason"] = record->outcome.reason;
      base["wall_seconds"] = record->outcome.wall_seconds;
      (record->outcome.status == "pass" ? counts.passed : counts.failed) += 1;
    }
    const json stats = current ? read_stats_file(run.run.stats_path()) : json(nullptr);
    Row program = base;
    program["row"] = "program";
    Row flat;
    if (stats.is_object()) flatten_statistics(stats, "", flat, {"kernels", "launches"});
    add_figures(program, flat, "gpu_tot_sim_cycle", "gpu_tot_sim_insn");
    add_stats(program, flat);
    rows.push_back(std::move(program));
    if (!stats.is_object() || !stats.contains("kernels") || !stats["kernels"].is_array()) continue;
    for (size_t k = 0; k < stats["kernels"].size(); ++k) {
      const json& kernel = stats["kernels"][k];
      Row row = base;
      row["row"] = "kernel";
      row["kernel"] = demangle(kernel.value("name", ""));
      row["kernel_index"] = k;
      Row kflat;
      flatten_statistics(kernel, "", kflat, {"name"});
      add_figures(row, kflat, "cycles", "thread_instructions");
      kflat.erase("cycles");
      kflat.erase("thread_instructions");
      add_stats(row, kflat);
      rows.push_back(std::move(row));
    }
  }

  std::vector<std::string> columns = {"row", "point", "label"};
  columns.insert(columns.end(), parameter_columns.begin(), parameter_columns.end());
  columns.insert(columns.end(), kRunColumns.begin(), kRunColumns.end());
  columns.insert(columns.end(), kFigureColumns.begin(), kFigureColumns.end());
  columns.insert(columns.end(), stat_columns.begin(), stat_columns.end());

  // CSV: every column; JSON: the same rows, members only where not null.
  std::string csv;
  for (size_t c = 0; c < columns.size(); ++c) csv += (c ? "," : "") + csv_field(columns[c]);
  csv += "\n";
  json jrows = json::array();
  for (const Row& row : rows) {
    json jr = json::object();
    for (size_t c = 0; c < columns.size(); ++c) {
      auto it = row.find(columns[c]);
      const json& v = it == row.end() ? json(nullptr) : it->second;
      csv += (c ? "," : "") + csv_value(v);
      if (!v.is_null()) jr[columns[c]] = v;
    }
    csv += "\n";
    jrows.push_back(std::move(jr));
  }
  json jpoints = json::array();
  for (size_t p = 0; p < points.size(); ++p) {
    json params = json::object();
    for (const auto& [column, value] : points[p].parameters) params[column] = value;
    jpoints.push_back({{"point", points[p].id},
                       {"label", points[p].label},
                       {"parameters", params},
                       {"config_file", p < config_files.size() ? config_files[p] : ""}});
  }
  const json doc = {{"sweep", name},         {"parameters", parameter_columns}, {"points", jpoints},
                    {"columns", columns},    {"runs", counts.runs},             {"passed", counts.passed},
                    {"failed", counts.failed}, {"pending", counts.pending},     {"rows", jrows}};
  // Each file is written beside and renamed, so a reader never sees half a table.
  for (const auto& [file, text] : {std::pair<std::string, std::string>{"results.csv", csv},
                                   std::pair<std::string, std::string>{"results.json", doc.dump(1) + "\n"}}) {
    const fs::path path = fs::path(out) / file;
    const fs::path tmp = fs::path(out) / (file + ".tmp");
    std::ofstream f(tmp, std::ios::trunc);
    f << text;
    f.close();
    std::error_code ec;
    if (!f) {
      why = fmt::format("cannot write {}", tmp.string());
    } else {
      fs::rename(tmp, path, ec);
      if (ec) why = fmt::format("cannot write {}: {}", path.string(), ec.message());
    }
  }
  return counts;
}

}  // namespace warpsim::tools
