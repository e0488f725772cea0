#pragma once
// The workload suite description (benchmarks/suites.toml): programs, their
// arguments per preset, and named suites. Read by `warpsim bench`.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/diagnostics.h"
#include "common/source_file.h"

namespace warpsim::tools {

inline constexpr const char* kPresets[] = {"tiny", "small", "large"};

struct WorkloadProgram {
  std::string suite;  // "rodinia"
  std::string name;   // "bfs"
  std::string description;
  std::vector<std::string> papers;  // source papers by key ("wang-tc19"; benchmarks/README.md)
  std::map<std::string, std::vector<std::string>> args;  // preset -> arguments
  std::string id() const { return suite + "/" + name; }
  // The program's arguments for `preset` ([preset] unless the file says otherwise).
  std::vector<std::string> arguments(const std::string& preset) const;
};

struct NamedSuite {
  std::string name;
  std::string description;
  std::vector<size_t> programs;  // indices into WorkloadSuite::programs, in file order
};

struct WorkloadSuite {
  std::string path;  // the file; binaries are <dir of path>/<suite>/<name>
  std::vector<WorkloadProgram> programs;
  std::vector<NamedSuite> suites;  // `all` first, then by name
  const NamedSuite* find(const std::string& name) const;
  std::string binary(const WorkloadProgram& p) const;
};

// Reads and validates `file` (unknown keys, missing fields, duplicate
// programs, suites naming unknown programs: located errors in `diags`).
std::optional<WorkloadSuite> parse_workload_suite(const SourceFile& file, DiagnosticEngine& diags);

}  // namespace warpsim::tools
