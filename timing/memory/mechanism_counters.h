#pragma once
// A mechanism's counters in a form the memory system can snapshot, subtract,
// sum over instances and publish without knowing the mechanism's type: the
// values of its statistics table's counted rows (stat_table.h), in row order.
// A mechanism keeps its counters as a struct with a StatTable like every
// component and hands out counters_of(...) when asked.
#include <cstdint>
#include <string>
#include <vector>

#include "common/stat_table.h"
#include "common/stats.h"

namespace warpsim::timing {

struct MechanismCounters {
  std::string prefix;                          // published at "<prefix>.<row>": "timing.cluster.merge_table"
  const stats::StatTableBase* table = nullptr;  // static
  std::vector<uint64_t> values;                // per row (0 for rows that are not counted)
};

template <class T, class Scope>
MechanismCounters counters_of(std::string prefix, const stats::StatTable<T, Scope>& table, const T& t) {
  MechanismCounters c{std::move(prefix), &table, std::vector<uint64_t>(table.rows().size(), 0)};
  for (size_t i = 0; i < c.values.size(); ++i) {
    const stats::RowKind k = table.rows()[i].kind;
    if (k == stats::RowKind::Counter || k == stats::RowKind::Maximum || k == stats::RowKind::Sum)
      c.values[i] = table.value(t, i);
  }
  return c;
}

// a += b (the same mechanism at another instance): counters and sums add,
// maxima keep the larger.
void add(MechanismCounters& a, const MechanismCounters& b);
// What happened between two snapshots: counters and sums subtract, maxima
// keep `after`'s.
MechanismCounters difference(const MechanismCounters& after, const MechanismCounters& before);
// Publishes one launch's values (counters and sums added up over the run,
// maxima set, then run ratios).
void publish(StatsRegistry& stats, const MechanismCounters& c);

}  // namespace warpsim::timing
