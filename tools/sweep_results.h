#pragma once
// A sweep's results table (results.csv, results.json): one row per point x
// program and one per point x program x kernel, with the point's
// parameters as columns and every statistic of the run flattened to a
// dotted name. Built from the runs' result and statistics files, so a
// partial sweep gives a partial table (unfinished runs are "pending").
#include <nlohmann/json.hpp>

#include <map>
#include <string>
#include <vector>

#include "tools/sweep_runs.h"
#include "tools/sweep_spec.h"

namespace warpsim::tools {

// `stats` flattened: nested objects become dotted names, a name that is
// also a prefix keeps its own value under "value", arrays get an index
// ("a.0"). Members named in `skip` (at the top level) are left out.
void flatten_statistics(const nlohmann::json& stats, const std::string& prefix,
                        std::map<std::string, nlohmann::json>& out, const std::vector<std::string>& skip = {});

struct SweepTableCounts {
  size_t runs = 0, passed = 0, failed = 0, pending = 0;
};

// Writes <out>/results.csv and <out>/results.json. `config_files[p]` is the
// point's effective configuration file, relative to `out` (may be empty).
SweepTableCounts write_sweep_results(const std::string& out, const std::string& name,
                                     const std::vector<std::string>& parameter_columns,
                                     const std::vector<SweepPoint>& points,
                                     const std::vector<std::string>& config_files,
                                     const std::vector<SweepRun>& runs, std::string& why);

}  // namespace warpsim::tools
