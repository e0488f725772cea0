#pragma once
// Statistics declared once.
//
// A component keeps its counters as plain uint64_t fields of a struct: the
// cycle loop increments them and nothing else touches the hot path. Beside
// the struct, one StatTable lists every counter once - name, unit,
// description, and how values of several launches or instances merge - and
// everything else comes from that list:
//   - per-launch values: difference(after, before) of two snapshots, and
//     sums over instances (add);
//   - publishing into the StatsRegistry (publish, publish_instance);
//   - the reference page docs/statistics.md (markdown), kept current by a test;
//   - and the energy model, which walks the same lists (rows, value).
// A counter added to the struct and to its table is merged, published and
// documented; one left out of the table is none of these.
//
// Names. A row's name is relative to where the component is published (its
// Instance prefix): the L1 data cache's read_hits is timing.l1d.read_hits.
// Headline figures keep GPGPU-Sim's names instead: a row with
// .headline("{}_total_cache_accesses") is published only under that name,
// `{}` being the instance's tag (L1D, L1I, L1C, L2). Rows marked
// .per_instance() are also published for each instance of the component
// (per SM, per memory partition, per network node) under that instance's
// prefix, with their relative names.
//
// Rows:
//   counter    a count of events; per launch the difference of two
//              snapshots; published added up over the launches of the run.
//   maximum    a largest value; snapshots keep the larger, so per launch it
//              is the largest so far; published as that value.
//   sum        a counter that adds up other rows of the table (published
//              like a counter).
//   formula    a figure of one launch computed from its values and a Scope
//              the publisher provides (the launch's duration, how many
//              instances there are...); published as the last launch's.
//   run_ratio  the ratio of two published counters over the whole run,
//              computed after this launch's counters were added.
// Publishing order: counters, maxima and sums, then formulas, then run
// ratios, each in the order declared.
#include <algorithm>
#include <concepts>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "common/invariant.h"
#include "common/stats.h"

namespace warpsim::stats {

enum class RowKind : uint8_t { Counter, Maximum, Sum, Formula, RunRatio };

// One row, type-erased: what the docs and the energy model read.
struct Row {
  RowKind kind = RowKind::Counter;
  std::string name;         // relative to the instance prefix: "read_hits", "issue_slots.idle"
  std::string unit;         // "accesses", "cycles", "B", "flits", "fraction", ...
  std::string description;  // one line
  std::string headline;     // published under this name instead ("{}": the instance's tag); "" = prefix.name
  bool per_instance = false;
  std::vector<size_t> parts;  // Sum: the rows it adds
  std::string numerator, denominator;  // RunRatio: published names ("{}": the instance's tag)
};

// Where one component's values are published.
struct Instance {
  std::string_view prefix = {};  // "timing.l1d"
  std::string_view tag = {};     // replaces "{}" in headline names: "L1D"
};

// The published name of `row` for `where`.
std::string published_name(const Row& row, const Instance& where);

// Sets a run ratio: numerator / denominator as published so far (0 when
// the denominator is 0).
void publish_run_ratio(StatsRegistry& stats, const Row& r, const Instance& where);

// A formula's value for one launch.
using FormulaValue = std::variant<uint64_t, double>;

// What a formula needs besides the counters when nothing else is needed.
struct NoScope {};

class StatTableBase {
 public:
  const std::string& description() const { return description_; }
  std::span<const Row> rows() const { return rows_; }
  const Row* find(std::string_view name) const;
  // docs/statistics.md rows for this table: a Markdown table with one line
  // per row (name as published for `where`, scope, unit, description).
  std::string markdown(std::span<const Instance> where, std::string_view instance_prefix) const;

 protected:
  explicit StatTableBase(std::string description) : description_(std::move(description)) {}
  Row& add_row(RowKind kind, std::string name, std::string unit, std::string description);
  size_t index_of(std::string_view name) const;

  std::string description_;
  std::vector<Row> rows_;
};

// Refines the row just added. Use it at once, in the same expression.
class RowRef {
 public:
  explicit RowRef(Row& row) : row_(&row) {}
  // Published only under `name` ("{}" = the instance's tag): GPGPU-Sim's or
  // BookSim's name for a headline figure.
  RowRef& headline(std::string name) {
    row_->headline = std::move(name);
    return *this;
  }
  // Also published per instance of the component (counters and sums only).
  RowRef& per_instance() {
    WARPSIM_INVARIANT(row_->kind != RowKind::Formula && row_->kind != RowKind::RunRatio,
                      "only counted values are published per instance");
    row_->per_instance = true;
    return *this;
  }

 private:
  Row* row_;
};

template <class T, class Scope = NoScope>
class StatTable : public StatTableBase {
 public:
  // `description`: one line saying whose counters these are.
  explicit StatTable(std::string description) : StatTableBase(std::move(description)) {}

  RowRef counter(std::string name, uint64_t T::*m, std::string unit, std::string description) {
    return add_slot(RowKind::Counter, std::move(name), std::move(unit), std::move(description),
                    [m](T& t) -> uint64_t& { return t.*m; });
  }
  RowRef maximum(std::string name, uint64_t T::*m, std::string unit, std::string description) {
    return add_slot(RowKind::Maximum, std::move(name), std::move(unit), std::move(description),
                    [m](T& t) -> uint64_t& { return t.*m; });
  }
  // Counters kept in an array member: element i is published as
  // `name.names[i]`, described by descriptions[i].
  template <size_t N>
  void counters(const std::string& name, uint64_t (T::*m)[N], std::span<const char* const> names,
                std::span<const char* const> descriptions, const std::string& unit) {
    WARPSIM_INVARIANT(names.size() == N && descriptions.size() == N, "one name and description per element");
    for (size_t i = 0; i < N; ++i)
      add_slot(RowKind::Counter, name + "." + names[i], unit, descriptions[i],
               [m, i](T& t) -> uint64_t& { return (t.*m)[i]; });
  }
  // A counter that adds up the rows named in `parts` (declared before it).
  RowRef sum(std::string name, std::initializer_list<std::string_view> parts, std::string unit,
             std::string description) {
    std::vector<size_t> indices;
    for (std::string_view p : parts) {
      const size_t i = index_of(p);
      WARPSIM_INVARIANT(rows_[i].kind == RowKind::Counter || rows_[i].kind == RowKind::Sum,
                        "a sum adds counters");
      indices.push_back(i);
    }
    Row& r = add_row(RowKind::Sum, std::move(name), std::move(unit), std::move(description));
    r.parts = std::move(indices);
    slots_.emplace_back();
    formulas_.emplace_back();
    return RowRef(r);
  }
  RowRef formula(std::string name, std::string unit, std::string description,
                 std::function<FormulaValue(const T&, const Scope&)> fn) {
    Row& r = add_row(RowKind::Formula, std::move(name), std::move(unit), std::move(description));
    slots_.emplace_back();
    formulas_.push_back(std::move(fn));
    return RowRef(r);
  }
  // A formula of the counters alone.
  template <class F>
  requires std::invocable<const F&, const T&> RowRef formula(std::string name, std::string unit,
                                                              std::string description, F fn) {
    return formula(std::move(name), std::move(unit), std::move(description),
                   std::function<FormulaValue(const T&, const Scope&)>(
                       [fn = std::move(fn)](const T& t, const Scope&) { return FormulaValue(fn(t)); }));
  }
  RowRef run_ratio(std::string name, std::string numerator, std::string denominator, std::string unit,
                   std::string description) {
    Row& r = add_row(RowKind::RunRatio, std::move(name), std::move(unit), std::move(description));
    r.numerator = std::move(numerator);
    r.denominator = std::move(denominator);
    slots_.emplace_back();
    formulas_.emplace_back();
    return RowRef(r);
  }

  // The value of a counted row (counter, maximum or sum) in `t`.
  uint64_t value(const T& t, size_t row) const {
    const Row& r = rows_[row];
    if (r.kind == RowKind::Sum) {
      uint64_t v = 0;
      for (size_t p : r.parts) v += value(t, p);
      return v;
    }
    WARPSIM_INVARIANT(r.kind == RowKind::Counter || r.kind == RowKind::Maximum, "a counted row");
    return slots_[row](const_cast<T&>(t));
  }
  uint64_t value(const T& t, std::string_view name) const { return value(t, index_of(name)); }

  // a += b: counters add, maxima keep the larger.
  void add(T& a, const T& b) const {
    for (size_t i = 0; i < rows_.size(); ++i) {
      if (rows_[i].kind == RowKind::Counter) slots_[i](a) += slots_[i](const_cast<T&>(b));
      if (rows_[i].kind == RowKind::Maximum)
        slots_[i](a) = std::max(slots_[i](a), slots_[i](const_cast<T&>(b)));
    }
  }
  // What happened between two snapshots: counters subtract; maxima keep
  // `after`'s (the largest so far). Other members of T are `after`'s.
  T difference(const T& after, const T& before) const {
    T d = after;
    for (size_t i = 0; i < rows_.size(); ++i)
      if (rows_[i].kind == RowKind::Counter) slots_[i](d) -= slots_[i](const_cast<T&>(before));
    return d;
  }

  // Publishes one launch's values of the component at `where`.
  void publish(StatsRegistry& stats, const T& launch, const Instance& where, const Scope& scope = {}) const {
    for (size_t i = 0; i < rows_.size(); ++i) {
      const Row& r = rows_[i];
      if (r.kind == RowKind::Counter || r.kind == RowKind::Sum)
        stats.add(published_name(r, where), value(launch, i));
      else if (r.kind == RowKind::Maximum)
        stats.set(published_name(r, where), value(launch, i));
    }
    for (size_t i = 0; i < rows_.size(); ++i)
      if (rows_[i].kind == RowKind::Formula)
        std::visit([&](auto v) { stats.set(published_name(rows_[i], where), v); },
                   formulas_[i](launch, scope));
    for (const Row& r : rows_)
      if (r.kind == RowKind::RunRatio) publish_run_ratio(stats, r, where);
  }
  // Publishes the per-instance rows of one instance (one SM, one partition,
  // one node) under `prefix`.
  void publish_instance(StatsRegistry& stats, const T& launch, std::string_view prefix) const {
    for (size_t i = 0; i < rows_.size(); ++i) {
      const Row& r = rows_[i];
      if (!r.per_instance) continue;
      const std::string name = std::string(prefix) + "." + r.name;
      if (r.kind == RowKind::Maximum)
        stats.set(name, value(launch, i));
      else
        stats.add(name, value(launch, i));
    }
  }
  // Whether every per-instance row of `t` is zero (an instance that did
  // nothing, which some publishers leave out).
  bool instance_idle(const T& t) const {
    for (size_t i = 0; i < rows_.size(); ++i)
      if (rows_[i].per_instance && value(t, i) != 0) return false;
    return true;
  }

 private:
  RowRef add_slot(RowKind kind, std::string name, std::string unit, std::string description,
                  std::function<uint64_t&(T&)> slot) {
    Row& r = add_row(kind, std::move(name), std::move(unit), std::move(description));
    slots_.push_back(std::move(slot));
    formulas_.emplace_back();
    return RowRef(r);
  }
  // Parallel to rows_: the counter's place in T (counters, maxima), the
  // formula (formulas).
  std::vector<std::function<uint64_t&(T&)>> slots_;
  std::vector<std::function<FormulaValue(const T&, const Scope&)>> formulas_;
};

}  // namespace warpsim::stats
