#pragma once
// The shared part of warpsim's readers of TOML documents that are not
// configuration schemas (the workload suite, sweep specs): errors located
// at the table they concern (parse_toml_document's "$line"), and unknown
// keys named with the closest known one.
#include <fmt/format.h>

#include <algorithm>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common/config.h"
#include "common/diagnostics.h"
#include "common/source_file.h"

namespace warpsim::tools {

class TableReader {
 public:
  TableReader(const SourceFile& file, DiagnosticEngine& diags) : file_(file), diags_(diags) {}

 protected:
  void error(const nlohmann::json& table, const std::string& message) {
    failed_ = true;
    diags_.error(&file_, {table.is_object() ? table.value("$line", 0u) : 0u, 1}, message);
  }

  void keys(const nlohmann::json& table, std::initializer_list<const char*> allowed, const std::string& what) {
    std::vector<std::string> names(allowed.begin(), allowed.end());
    for (const auto& [key, value] : table.items()) {
      if (key == "$line" || std::find(names.begin(), names.end(), key) != names.end()) continue;
      const std::string near = config::closest_match(key, names);
      error(table, fmt::format("unknown key '{}' in {}{}", key, what,
                               near.empty() ? "" : fmt::format(" (did you mean '{}'?)", near)));
    }
  }

  const SourceFile& file_;
  DiagnosticEngine& diags_;
  bool failed_ = false;
};

}  // namespace warpsim::tools
