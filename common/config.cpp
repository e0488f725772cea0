// Config tables and schemas, value checks and formatting, the TOML printer and
// the Markdown generator. Loading files and overrides is in config_loader.cpp.
#include "common/config.h"

#include <fmt/format.h>

#include <cctype>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <set>

namespace warpsim::config {

namespace {

constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();

struct ByteUnit {
  std::string_view name;
  uint64_t factor;
};
// Largest first: format_bytes picks the first that divides exactly.
constexpr ByteUnit kByteUnits[] = {
    {"TiB", 1ull << 40}, {"GiB", 1ull << 30}, {"MiB", 1ull << 20}, {"KiB", 1ull << 10}, {"B", 1}};

std::string format_double(double d) {
  // Shortest text that reads back to the same double; integral values print
  // without a fraction ("1980"), which every float and clock field accepts.
  return fmt::format("{}", d);
}

std::string format_int(const Field& f, int64_t v) {
  if (f.kind == Kind::Bytes && v >= 0) return format_bytes(static_cast<uint64_t>(v));
  return fmt::format("{}", v);
}

std::string with_unit(std::string text, const Field& f) {
  if (f.kind == Kind::Bytes || f.unit.empty()) return text;
  return text + " " + f.unit;
}

std::string enum_names(const Field& f) {
  std::string out;
  for (const auto& e : f.enum_entries) out += (out.empty() ? "" : ", ") + e.name;
  return out;
}

size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t up = row[j];
      bool same = std::tolower(static_cast<unsigned char>(a[i - 1])) ==
                  std::tolower(static_cast<unsigned char>(b[j - 1]));
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (same ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

std::string escape_markdown(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == '|') out += '\\';
    out += c;
  }
  return out;
}

}  // namespace

// ---------------------------------------------------------------- values

std::string toml_quote(std::string_view text) {
  std::string out = "\"";
  for (char c : text) {
    unsigned char u = static_cast<unsigned char>(c);
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default:
        if (u < 0x20 || u == 0x7f)
          out += fmt::format("\\u{:04X}", u);
        else
          out += c;
    }
  }
  return out + "\"";
}

std::string format_bytes(uint64_t bytes) {
  for (const auto& u : kByteUnits)
    if (bytes >= u.factor && bytes % u.factor == 0)
      return fmt::format("{}{}", bytes / u.factor, u.name);
  return fmt::format("{}B", bytes);  // 0
}

std::optional<uint64_t> parse_bytes(std::string_view text, std::string* error) {
  auto fail = [&](std::string message) -> std::optional<uint64_t> {
    if (error) *error = std::move(message);
    return std::nullopt;
  };
  const std::string shown = toml_quote(text);
  size_t digits = 0;
  while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9') ++digits;
  if (digits == 0)
    return fail(
        fmt::format("{} is not a size: expected a whole number of bytes, optionally with "
                    "a unit (B, KiB, MiB, GiB, TiB), such as \"48KiB\"",
                    shown));
  uint64_t number = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + digits, number);
  if (ec != std::errc()) return fail(fmt::format("{} is too large", shown));
  std::string_view unit = text.substr(digits);
  while (!unit.empty() && unit.front() == ' ') unit.remove_prefix(1);
  if (unit.empty()) return number;
  for (const auto& u : kByteUnits) {
    if (unit != u.name) continue;
    if (number > std::numeric_limits<uint64_t>::max() / u.factor)
      return fail(fmt::format("{} is too large", shown));
    return number * u.factor;
  }
  std::string hint;
  if (unit == "K" || unit == "KB" || unit == "k" || unit == "kB")
    hint = " (for 1024 bytes write KiB)";
  if (unit == "M" || unit == "MB") hint = " (for 1024*1024 bytes write MiB)";
  if (unit == "G" || unit == "GB") hint = " (for 1024^3 bytes write GiB)";
  if (unit == "T" || unit == "TB") hint = " (for 1024^4 bytes write TiB)";
  return fail(
      fmt::format("{}: unknown size unit '{}'; use B, KiB, MiB, GiB or TiB{}", shown, unit, hint));
}

std::string kind_name(const Field& f) {
  switch (f.kind) {
    case Kind::Bool: return "bool";
    case Kind::Integer: return "integer";
    case Kind::Float: return "float";
    case Kind::String: return "string";
    case Kind::Enum: return "enum";
    case Kind::IntArray: return fmt::format("integer[{}]", f.array_size);
    case Kind::Bytes: return "size";
    case Kind::Clock: return "clock";
  }
  return "?";
}

std::string valid_text(const Field& f) {
  std::string out;
  switch (f.kind) {
    case Kind::Integer:
    case Kind::Bytes:
    case Kind::IntArray:
      if (f.int_min == f.int_max)
        out = with_unit(format_int(f, f.int_min), f);
      else if (f.int_max == kInt64Max)
        out = with_unit("at least " + format_int(f, f.int_min), f);
      else
        out = with_unit(format_int(f, f.int_min) + " to " + format_int(f, f.int_max), f);
      if (f.kind == Kind::IntArray) out = "each " + out;
      break;
    case Kind::Float:
    case Kind::Clock:
      if (f.float_max == std::numeric_limits<double>::max() &&
          f.float_min == -std::numeric_limits<double>::max())
        out = "any finite number";
      else if (f.float_max == std::numeric_limits<double>::max())
        out = with_unit("at least " + format_double(f.float_min), f);
      else if (f.float_min == -std::numeric_limits<double>::max())
        out = with_unit("at most " + format_double(f.float_max), f);
      else
        out = with_unit(format_double(f.float_min) + " to " + format_double(f.float_max), f);
      break;
    case Kind::Enum: out = "one of " + enum_names(f); break;
    case Kind::Bool: out = "true, false"; break;
    case Kind::String: break;
  }
  if (!f.check_doc.empty()) out += (out.empty() ? "" : "; ") + f.check_doc;
  return out;
}

std::string check_value(const Field& f, const Value& value) {
  auto out_of_range = [&](std::string shown) {
    return fmt::format("{} is out of range (valid: {})", shown, valid_text(f));
  };
  switch (f.kind) {
    case Kind::Integer:
    case Kind::Bytes: {
      int64_t v = std::get<int64_t>(value);
      if (v < f.int_min || v > f.int_max) return out_of_range(with_unit(format_int(f, v), f));
      break;
    }
    case Kind::IntArray: {
      const auto& a = std::get<std::vector<int64_t>>(value);
      for (size_t i = 0; i < a.size(); ++i)
        if (a[i] < f.int_min || a[i] > f.int_max)
          return fmt::format("element {} ({}) is out of range (valid: {})", i, a[i], valid_text(f));
      break;
    }
    case Kind::Float:
    case Kind::Clock: {
      double d = std::get<double>(value);
      if (!std::isfinite(d)) return fmt::format("{} is not a finite number", format_double(d));
      if (d < f.float_min || d > f.float_max) return out_of_range(with_unit(format_double(d), f));
      break;
    }
    case Kind::Bool:
    case Kind::String:
    case Kind::Enum: break;
  }
  if (f.check) return f.check(value);
  return {};
}

std::string format_value(const Field& f, const Value& value) {
  switch (f.kind) {
    case Kind::Bool: return std::get<bool>(value) ? "true" : "false";
    case Kind::Integer: return fmt::format("{}", std::get<int64_t>(value));
    case Kind::Bytes: {
      int64_t v = std::get<int64_t>(value);
      return v < 0 ? fmt::format("{}", v) : toml_quote(format_bytes(static_cast<uint64_t>(v)));
    }
    case Kind::Float:
    case Kind::Clock: return format_double(std::get<double>(value));
    case Kind::String: return toml_quote(std::get<std::string>(value));
    case Kind::Enum: {
      int64_t v = std::get<int64_t>(value);
      for (const auto& e : f.enum_entries)
        if (e.value == v) return toml_quote(e.name);
      return fmt::format("{}", v);  // not a named value: will not load back, by design
    }
    case Kind::IntArray: {
      std::string out = "[";
      for (int64_t v : std::get<std::vector<int64_t>>(value))
        out += (out.size() > 1 ? ", " : "") + fmt::format("{}", v);
      return out + "]";
    }
  }
  return {};
}

std::string closest_match(std::string_view word, const std::vector<std::string>& candidates) {
  std::string best;
  size_t best_distance = std::max<size_t>(2, word.size() / 3) + 1;
  for (const auto& c : candidates) {
    size_t d = edit_distance(word, c);
    if (d < best_distance) {
      best_distance = d;
      best = c;
    }
  }
  return best;
}

// ---------------------------------------------------------------- tables

Field& TableBase::add(std::string key, Kind kind, std::string unit, std::string description) {
  WARPSIM_INVARIANT(!key.empty() && !find(key), "config table keys are unique and non-empty");
  Field& f = fields_.emplace_back();
  f.key = std::move(key);
  f.kind = kind;
  f.unit = std::move(unit);
  f.description = std::move(description);
  return f;
}

const Field* TableBase::find(std::string_view key) const {
  for (const auto& f : fields_)
    if (f.key == key) return &f;
  return nullptr;
}

FieldRef& FieldRef::range(double min, double max) {
  WARPSIM_INVARIANT(field_->kind == Kind::Float || field_->kind == Kind::Clock,
                    "float range on a non-float config field");
  WARPSIM_INVARIANT(min <= max, "config range min <= max");
  field_->float_min = min;
  field_->float_max = max;
  return *this;
}

FieldRef& FieldRef::check(std::string doc, std::function<std::string(const Value&)> fn) {
  field_->check_doc = std::move(doc);
  field_->check = std::move(fn);
  return *this;
}

FieldRef& FieldRef::list() {
  WARPSIM_INVARIANT(field_->kind == Kind::String, "a list is a string config field");
  field_->string_list = true;
  return *this;
}

FieldRef& FieldRef::one_of(const RegistryNames& registry) {
  WARPSIM_INVARIANT(field_->kind == Kind::String, "a plug-in name is a string config field");
  return check("one of " + registry.joined(), [&registry](const Value& v) {
    return registry.check(std::get<std::string>(v));
  });
}

void Schema::add_section(std::string name, const TableBase& table, void* object) {
  WARPSIM_INVARIANT(!name.empty() && name.front() != '.' && name.back() != '.',
                    "config section names are non-empty dotted words");
  WARPSIM_INVARIANT(!find(name), "config section names are unique");
  sections_.push_back({std::move(name), &table, object});
}

const Schema::Section* Schema::find(std::string_view name) const {
  for (const auto& s : sections_)
    if (s.name == name) return &s;
  return nullptr;
}

bool Schema::is_prefix(std::string_view name) const {
  for (const auto& s : sections_)
    if (s.name.size() > name.size() && s.name.compare(0, name.size(), name) == 0 &&
        s.name[name.size()] == '.')
      return true;
  return false;
}

// ---------------------------------------------------------------- search path

bool is_config_name(std::string_view s) {
  return !s.empty() && s.find('/') == std::string_view::npos &&
         !(s.size() >= 5 && s.substr(s.size() - 5) == ".toml");
}

std::optional<std::string> find_named_config(std::string_view name,
                                             const std::vector<std::string>& search_path) {
  namespace fs = std::filesystem;
  for (const auto& dir : search_path) {
    if (dir.empty()) continue;
    fs::path p = fs::path(dir) / (std::string(name) + ".toml");
    std::error_code ec;
    if (fs::is_regular_file(p, ec)) return p.string();
  }
  return std::nullopt;
}

std::vector<NamedConfig> list_named_configs(const std::vector<std::string>& search_path) {
  namespace fs = std::filesystem;
  std::vector<NamedConfig> out;
  std::set<std::string> seen;
  for (const auto& dir : search_path) {
    std::error_code ec;
    if (dir.empty() || !fs::is_directory(dir, ec)) continue;
    std::vector<NamedConfig> here;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
      const fs::path& p = it->path();
      std::error_code ec2;
      if (p.extension() != ".toml" || !fs::is_regular_file(p, ec2)) continue;
      here.push_back({p.stem().string(), p.string(), false});
    }
    std::sort(here.begin(), here.end(),
              [](const NamedConfig& a, const NamedConfig& b) { return a.name < b.name; });
    for (auto& c : here) {
      c.shadowed = !seen.insert(c.name).second;
      out.push_back(std::move(c));
    }
  }
  return out;
}

// ---------------------------------------------------------------- printing

std::string to_toml(const Schema& schema, std::string_view header) {
  std::string out;
  size_t pos = 0;
  while (pos < header.size()) {
    size_t nl = header.find('\n', pos);
    std::string_view line = header.substr(pos, nl == std::string_view::npos ? nl : nl - pos);
    out += line.empty() ? "#\n" : fmt::format("# {}\n", line);
    if (nl == std::string_view::npos) break;
    pos = nl + 1;
  }
  for (const auto& s : schema.sections()) {
    std::vector<std::pair<std::string, std::string>> lines;  // assignment, comment
    size_t width = 0;
    for (const auto& f : s.table->fields()) {
      Value v = f.get(s.object);
      std::string assignment = fmt::format("{} = {}", f.key, format_value(f, v));
      std::string comment = f.description;
      if (f.kind == Kind::Bytes)
        comment += fmt::format(" [{} B]", std::get<int64_t>(v));
      else if (!f.unit.empty())
        comment += fmt::format(" [{}]", f.unit);
      width = std::max(width, assignment.size());
      lines.emplace_back(std::move(assignment), std::move(comment));
    }
    width = std::min<size_t>(width, 48);
    out += fmt::format("\n# {}\n[{}]\n", s.table->description(), s.name);
    for (const auto& [assignment, comment] : lines)
      out += fmt::format("{:<{}}  # {}\n", assignment, width, comment);
  }
  return out;
}

std::string to_markdown(const Schema& schema) {
  std::string out;
  for (const auto& s : schema.sections()) {
    out += fmt::format("\n## [{}]\n\n{}.\n", s.name, s.table->description());
    if (s.table->fields().empty()) continue;  // a plug-in without keys of its own
    out += "\n| key | type | default | unit | valid values | description |\n";
    out += "|---|---|---|---|---|---|\n";
    for (const auto& f : s.table->fields()) {
      std::string valid = escape_markdown(valid_text(f));
      if (f.kind == Kind::Bool) valid.clear();
      out += fmt::format("| `{}` | {} | `{}` | {} | {} | {} |\n", f.key, kind_name(f),
                         escape_markdown(format_value(f, f.get(s.table->defaults()))), f.unit,
                         valid, escape_markdown(f.description));
    }
    if (!s.table->constraints().empty()) {
      out += "\nChecked across keys:\n\n";
      for (const auto& c : s.table->constraints()) out += fmt::format("- {}\n", c.description);
    }
  }
  return out;
}

}  // namespace warpsim::config
