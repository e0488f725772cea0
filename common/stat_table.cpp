#include "common/stat_table.h"

#include <fmt/format.h>

namespace warpsim::stats {
namespace {

std::string with_tag(std::string_view pattern, std::string_view tag) {
  std::string out(pattern);
  const size_t at = out.find("{}");
  if (at != std::string::npos) out.replace(at, 2, tag);
  return out;
}

// "timing.{l1d,l1i}.read_hits" for names that differ only in the middle.
std::string collapse(const std::vector<std::string>& names) {
  if (names.empty()) return "";
  size_t pre = names[0].size(), suf = names[0].size();
  for (const std::string& n : names) {
    size_t i = 0;
    while (i < pre && i < n.size() && n[i] == names[0][i]) ++i;
    pre = i;
    size_t j = 0;
    while (j < suf && j < n.size() && n[n.size() - 1 - j] == names[0][names[0].size() - 1 - j]) ++j;
    suf = j;
  }
  if (pre == names[0].size()) return names[0];  // all the same
  // Keep whole dotted or underscored words in the varying part.
  while (pre > 0 && names[0][pre - 1] != '.' && names[0][pre - 1] != '_') --pre;
  std::string middle;
  for (const std::string& n : names) {
    const size_t end = n.size() >= suf ? n.size() - suf : 0;
    middle += (middle.empty() ? "" : ",") + n.substr(pre, end > pre ? end - pre : 0);
  }
  return names[0].substr(0, pre) + "{" + middle + "}" + names[0].substr(names[0].size() - suf);
}

const char* scope_of(RowKind k) {
  switch (k) {
    case RowKind::Counter:
    case RowKind::Sum: return "run";
    case RowKind::Maximum: return "so far";
    case RowKind::Formula: return "launch";
    case RowKind::RunRatio: return "run";
  }
  return "";
}

}  // namespace

std::string published_name(const Row& row, const Instance& where) {
  if (!row.headline.empty()) return with_tag(row.headline, where.tag);
  return std::string(where.prefix) + "." + row.name;
}

void publish_run_ratio(StatsRegistry& stats, const Row& r, const Instance& where) {
  const uint64_t num = stats.counter(with_tag(r.numerator, where.tag));
  const uint64_t den = stats.counter(with_tag(r.denominator, where.tag));
  stats.set(published_name(r, where), den ? static_cast<double>(num) / den : 0.0);
}

const Row* StatTableBase::find(std::string_view name) const {
  for (const Row& r : rows_)
    if (r.name == name) return &r;
  return nullptr;
}

size_t StatTableBase::index_of(std::string_view name) const {
  for (size_t i = 0; i < rows_.size(); ++i)
    if (rows_[i].name == name) return i;
  WARPSIM_INVARIANT(false, "a statistics row named by the code is declared in its table");
}

Row& StatTableBase::add_row(RowKind kind, std::string name, std::string unit, std::string description) {
  WARPSIM_INVARIANT(!name.empty() && find(name) == nullptr, "statistics rows have unique names");
  Row& r = rows_.emplace_back();
  r.kind = kind;
  r.name = std::move(name);
  r.unit = std::move(unit);
  r.description = std::move(description);
  return r;
}

std::string StatTableBase::markdown(std::span<const Instance> where, std::string_view instance_prefix) const {
  std::string out = "| name | scope | unit | meaning |\n|---|---|---|---|\n";
  for (const Row& r : rows_) {
    std::vector<std::string> names;
    for (const Instance& w : where) names.push_back(published_name(r, w));
    std::string name = "`" + collapse(names) + "`";
    if (r.per_instance && !instance_prefix.empty())
      name += fmt::format(", `{}.{}`", instance_prefix, r.name);
    std::string meaning = r.description;
    if (r.kind == RowKind::RunRatio) {
      std::vector<std::string> num, den;
      for (const Instance& w : where) {
        num.push_back(with_tag(r.numerator, w.tag));
        den.push_back(with_tag(r.denominator, w.tag));
      }
      meaning += fmt::format(" (`{}` / `{}`)", collapse(num), collapse(den));
    }
    out += fmt::format("| {} | {} | {} | {} |\n", name, scope_of(r.kind), r.unit, meaning);
  }
  return out;
}

}  // namespace warpsim::stats
