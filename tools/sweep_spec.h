#pragma once
// A sweep specification (`warpsim sweep SPEC.toml`, docs/sweep.md): the
// programs to run, the configurations, the parameter axes and how they
// combine, and the modes and input presets. Expanded into points (one set
// of parameter values each) and runs (point x program).
#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

#include "common/diagnostics.h"
#include "common/source_file.h"

namespace warpsim::tools {

struct WorkloadSuite;

// A program outside the workload suite, given by its command line.
struct SweepProgram {
  std::string id;                       // the results' `program` column
  std::vector<std::string> command;     // binary (resolved against the spec's folder), arguments
  std::string pass_line;                // empty: exit status 0 passes
};

struct SweepConfig {
  std::string label;                   // the `config` column
  std::string name;                    // a configs/ name or a TOML file; empty: the built-in GPU
  std::vector<std::string> overrides;  // section.key=value
};

// One swept parameter: one or more config keys moved together.
struct SweepAxis {
  std::string name;               // the column
  std::vector<std::string> keys;  // config keys (section.key)
  // values[v][k]: the value of keys[k] at step v, as TOML text.
  std::vector<std::vector<std::string>> values;
  std::vector<nlohmann::json> labels;  // the column's value at step v
};

struct SweepSpec {
  std::string path;  // the spec file (relative paths in it are relative to its folder)
  std::string name;
  std::string description;
  std::vector<std::string> suites;    // named suites of suites.toml
  std::vector<std::string> programs;  // workload programs by id (suite/name)
  std::vector<SweepProgram> commands;
  std::vector<SweepConfig> configs;   // at least one
  std::vector<SweepAxis> axes;
  bool zip = false;                   // axes advance together instead of as a product
  std::vector<std::string> modes;     // at least one
  std::vector<std::string> presets;   // at least one
  std::vector<std::string> overrides; // applied to every point first
  double timeout = 0;                 // seconds per run; 0: none
  std::string suites_file;            // empty: the built suites.toml
};

// Reads a spec from `table` (a whole file, or the [sweep] table of a
// study), with located errors in `diags`. `file` is what `table` came from.
std::optional<SweepSpec> read_sweep_spec(const nlohmann::json& table, const SourceFile& file,
                                         DiagnosticEngine& diags);

// One combination of parameter values.
struct SweepPoint {
  std::string id;     // "p000"
  std::string label;  // the values that vary across points ("2L-RR, scale=0.5")
  const SweepConfig* config = nullptr;
  std::string mode;
  std::string preset;
  std::vector<std::string> overrides;           // spec, config, then axes
  std::vector<std::pair<std::string, nlohmann::json>> parameters;  // column -> value, in column order
};

// The points in order: configs outermost, then the axes (product, last
// axis fastest; or zipped), then modes, then presets.
std::vector<SweepPoint> expand_points(const SweepSpec& spec);

// The parameter columns of the results (config, mode, preset, axes).
std::vector<std::string> parameter_columns(const SweepSpec& spec);

}  // namespace warpsim::tools
