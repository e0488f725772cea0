#pragma once
// Every statistics table the timing model publishes, where, and the
// reference page generated from them (docs/statistics.md, `warpsim stats
// docs`; a test keeps the committed page current). What an energy model or
// a report walks to find every counter with its unit.
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/stat_table.h"

namespace warpsim::timing {

struct PublishedTable {
  std::string_view title;
  const stats::StatTableBase* table;
  std::vector<stats::Instance> where;  // the component's summed figures
  std::string_view per_instance;       // the per-instance prefix pattern ("timing.sm.N"), or ""
};

// In the order docs/statistics.md lists them.
std::span<const PublishedTable> published_tables();

// docs/statistics.md.
std::string statistics_markdown();

}  // namespace warpsim::timing
