// MechanismCounters: sums, differences and publishing by the table's rows.
#include "timing/memory/mechanism_counters.h"

#include <algorithm>

#include "common/invariant.h"

namespace warpsim::timing {

using stats::RowKind;

void add(MechanismCounters& a, const MechanismCounters& b) {
  WARPSIM_INVARIANT(a.table == b.table && a.values.size() == b.values.size(), "counters of the same mechanism");
  for (size_t i = 0; i < a.values.size(); ++i)
    a.values[i] = a.table->rows()[i].kind == RowKind::Maximum ? std::max(a.values[i], b.values[i])
                                                              : a.values[i] + b.values[i];
}

MechanismCounters difference(const MechanismCounters& after, const MechanismCounters& before) {
  WARPSIM_INVARIANT(after.table == before.table && after.values.size() == before.values.size(),
                    "snapshots of the same mechanism");
  MechanismCounters d = after;
  for (size_t i = 0; i < d.values.size(); ++i)
    if (d.table->rows()[i].kind != RowKind::Maximum) d.values[i] -= before.values[i];
  return d;
}

void publish(StatsRegistry& stats, const MechanismCounters& c) {
  const stats::Instance where{c.prefix};
  const auto rows = c.table->rows();
  for (size_t i = 0; i < rows.size(); ++i) {
    if (rows[i].kind == RowKind::Counter || rows[i].kind == RowKind::Sum)
      stats.add(stats::published_name(rows[i], where), c.values[i]);
    else if (rows[i].kind == RowKind::Maximum)
      stats.set(stats::published_name(rows[i], where), c.values[i]);
  }
  for (const stats::Row& r : rows)
    if (r.kind == RowKind::RunRatio) stats::publish_run_ratio(stats, r, where);
}

}  // namespace warpsim::timing
