// Loader: applies TOML config files (with `base` chains) and `--set`
// overrides to a Schema, reporting every problem as a located diagnostic.
#include "common/toml_header.h"  // first: it adjusts NDEBUG around toml++

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <map>

#include "common/config.h"
#include "common/input_file.h"

namespace warpsim::config {

namespace {

namespace fs = std::filesystem;

SourceLocation to_loc(const toml::source_position& p) { return {p.line, p.column}; }

std::string short_quote(std::string_view s) {
  if (s.size() > 40) return toml_quote(std::string(s.substr(0, 37)) + "...");
  return toml_quote(s);
}

std::string describe(const toml::node& n) {
  switch (n.type()) {
    case toml::node_type::string: return "a string (" + short_quote(n.as_string()->get()) + ")";
    case toml::node_type::integer: return fmt::format("an integer ({})", n.as_integer()->get());
    case toml::node_type::floating_point:
      return fmt::format("a float ({})", n.as_floating_point()->get());
    case toml::node_type::boolean:
      return fmt::format("a boolean ({})", n.as_boolean()->get() ? "true" : "false");
    case toml::node_type::array: return "an array";
    case toml::node_type::table: return "a table";
    case toml::node_type::date: return "a date";
    case toml::node_type::time: return "a time";
    case toml::node_type::date_time: return "a date-time";
    case toml::node_type::none: break;
  }
  return "nothing";
}

std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates,
                         std::string_view before = "'", std::string_view after = "'") {
  std::string m = closest_match(word, candidates);
  if (m.empty()) return {};
  return fmt::format(" (did you mean {}{}{}?)", before, m, after);
}

std::vector<std::string> field_keys(const TableBase& t) {
  std::vector<std::string> keys;
  for (const auto& f : t.fields()) keys.push_back(f.key);
  return keys;
}

std::string join(const std::vector<std::string>& v, std::string_view sep) {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : std::string(sep)) + s;
  return out;
}

std::vector<std::string> enum_names(const Field& f) {
  std::vector<std::string> names;
  for (const auto& e : f.enum_entries) names.push_back(e.name);
  return names;
}

// What a field takes, for "expected ..., found ..." messages.
std::string expected_text(const Field& f) {
  switch (f.kind) {
    case Kind::Bool: return "true or false";
    case Kind::Integer: return "an integer";
    case Kind::Float: return "a number";
    case Kind::Clock: return "a clock in MHz (a number)";
    case Kind::String: return f.string_list ? "a string or an array of strings" : "a string";
    case Kind::Enum: return "one of " + join(enum_names(f), ", ");
    case Kind::IntArray: return fmt::format("an array of {} integers", f.array_size);
    case Kind::Bytes: return "a size (a number of bytes, or a string such as \"48KiB\")";
  }
  return "a value";
}

// Converts a TOML node to a field's value; on failure, `err` says why.
bool convert(const Field& f, const toml::node& n, Value& out, std::string& err) {
  auto expected = [&] {
    err = fmt::format("expected {}, found {}", expected_text(f), describe(n));
    return false;
  };
  switch (f.kind) {
    case Kind::Bool:
      if (auto* b = n.as_boolean()) return out = b->get(), true;
      return expected();
    case Kind::Integer:
      if (auto* i = n.as_integer()) return out = i->get(), true;
      return expected();
    case Kind::Float:
    case Kind::Clock:
      if (auto* i = n.as_integer()) return out = static_cast<double>(i->get()), true;
      if (auto* d = n.as_floating_point()) return out = d->get(), true;
      return expected();
    case Kind::String:
      if (auto* s = n.as_string()) return out = s->get(), true;
      if (auto* a = n.as_array(); a != nullptr && f.string_list) {
        std::string joined;
        for (size_t i = 0; i < a->size(); ++i) {
          auto* e = (*a)[i].as_string();
          if (!e) {
            err = fmt::format("element {}: expected a string, found {}", i, describe((*a)[i]));
            return false;
          }
          joined += (joined.empty() ? "" : ", ") + e->get();
        }
        return out = joined, true;
      }
      return expected();
    case Kind::Enum: {
      const std::vector<std::string> names = enum_names(f);
      auto* s = n.as_string();
      if (!s) return expected();
      for (const auto& e : f.enum_entries)
        if (e.name == s->get()) return out = e.value, true;
      err = fmt::format("{} is not one of {}{}", short_quote(s->get()), join(names, ", "),
                        did_you_mean(s->get(), names));
      return false;
    }
    case Kind::IntArray: {
      auto* a = n.as_array();
      if (!a) return expected();
      if (a->size() != f.array_size) {
        err = fmt::format("expected an array of {} integers, found {} elements", f.array_size,
                          a->size());
        return false;
      }
      std::vector<int64_t> v;
      for (size_t i = 0; i < a->size(); ++i) {
        auto* e = (*a)[i].as_integer();
        if (!e) {
          err = fmt::format("element {}: expected an integer, found {}", i, describe((*a)[i]));
          return false;
        }
        v.push_back(e->get());
      }
      out = std::move(v);
      return true;
    }
    case Kind::Bytes: {
      if (auto* i = n.as_integer()) return out = i->get(), true;
      if (auto* s = n.as_string()) {
        auto bytes = parse_bytes(s->get(), &err);
        if (!bytes) return false;
        if (*bytes > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
          err = fmt::format("{} is too large", short_quote(s->get()));
          return false;
        }
        out = static_cast<int64_t>(*bytes);
        return true;
      }
      return expected();
    }
  }
  return expected();
}

}  // namespace

struct Loader::State {
  struct Origin {
    const SourceFile* file = nullptr;
    SourceLocation loc;
    uint64_t sequence = 0;  // order of application
  };

  const Schema& schema;
  DiagnosticEngine& diags;
  const std::vector<std::string>& search_path;
  std::vector<std::unique_ptr<SourceFile>> files;      // alive while origins point into them
  std::map<std::string, Origin, std::less<>> origins;  // "section.key" -> where last set
  std::vector<std::string> chain;                      // canonical paths: the base chain
  uint64_t applied = 0;                                // values applied so far
  std::string override_text;                           // every override so far, one a line
  uint32_t override_count = 0;

  void error(const SourceFile* file, SourceLocation loc, std::string message) {
    diags.error(file, loc, std::move(message));
  }

  std::string search_path_text() const {
    std::vector<std::string> dirs;
    for (const auto& d : search_path)
      if (!d.empty()) dirs.push_back(d);
    return dirs.empty() ? "(empty)" : join(dirs, ", ");
  }

  // Applies one value; invalid values are reported and not applied.
  void apply(const Schema::Section& s, const Field& f, const toml::node& n, const SourceFile* file,
             SourceLocation loc) {
    Value v;
    std::string err;
    if (!convert(f, n, v, err) || !(err = check_value(f, v)).empty()) {
      error(file, loc, fmt::format("{}.{}: {}", s.name, f.key, err));
      return;
    }
    f.set(s.object, v);
    origins.insert_or_assign(s.name + "." + f.key, Origin{file, loc, ++applied});
  }

  // Walks the table at dotted `path` ("" for the document root).
  void walk(const toml::table& t, const std::string& path, const SourceFile* file) {
    const Schema::Section* section = path.empty() ? nullptr : schema.find(path);
    for (auto&& [k, v] : t) {
      const std::string key(k.str());
      const SourceLocation key_loc = to_loc(k.source().begin);
      if (path.empty() && key == "base") continue;  // applied first, by load_document
      if (section)
        if (const Field* f = section->table->find(key)) {
          apply(*section, *f, v, file, to_loc(v.source().begin));
          continue;
        }
      const std::string full = path.empty() ? key : path + "." + key;
      if (schema.find(full) || schema.is_prefix(full)) {
        if (auto* sub = v.as_table())
          walk(*sub, full, file);
        else
          error(file, key_loc,
                fmt::format("[{}] is a section: expected a table, found {}", full, describe(v)));
        continue;
      }
      unknown(key, full, path, section, v, file, key_loc);
    }
  }

  void unknown(const std::string& key, const std::string& full, const std::string& path,
               const Schema::Section* section, const toml::node& v, const SourceFile* file,
               SourceLocation loc) {
    // Names that could follow `path`: keys of its section and next words of
    // deeper sections.
    std::vector<std::string> keys =
        section ? field_keys(*section->table) : std::vector<std::string>{};
    std::vector<std::string> subsections;
    const std::string prefix = path.empty() ? "" : path + ".";
    for (const auto& s : schema.sections())
      if (s.name.compare(0, prefix.size(), prefix) == 0) {
        std::string next =
            s.name.substr(prefix.size(), s.name.find('.', prefix.size()) - prefix.size());
        if (std::find(subsections.begin(), subsections.end(), next) == subsections.end())
          subsections.push_back(next);
      }
    if (section) {
      std::string hint = did_you_mean(key, keys);
      if (hint.empty()) hint = did_you_mean(key, subsections, "[" + prefix, "]");
      error(file, loc, fmt::format("unknown key '{}' in [{}]{}", key, path, hint));
      return;
    }
    if (v.is_table()) {
      error(file, loc,
            fmt::format("unknown section [{}]{}", full,
                        did_you_mean(key, subsections, "[" + prefix, "]")));
      return;
    }
    // A plain key outside any section: perhaps it belongs in one.
    std::string hint;
    for (const auto& s : schema.sections())
      if (s.table->find(key)) {
        hint = fmt::format(" (it belongs in section [{}])", s.name);
        break;
      }
    if (hint.empty()) hint = did_you_mean(key, subsections, "[" + prefix, "]");
    if (path.empty())
      error(file, loc,
            fmt::format("unknown top-level key '{}': settings go in sections ({}){}", key,
                        join(subsections, ", "), hint));
    else
      error(file, loc, fmt::format("unknown key '{}' in [{}]{}", key, path, hint));
  }

  // Reads, parses and applies one file, its base first.
  void load_file(const std::string& path, const SourceFile* from, SourceLocation from_loc) {
    std::error_code ec;
    if (!fs::exists(path, ec)) {
      error(from, from_loc, fmt::format("config file '{}' does not exist", path));
      return;
    }
    std::string text;
    // Directories are refused; pipes (/dev/stdin, <(...)) are read like files.
    std::string why = fs::is_directory(path, ec) ? "cannot read file" : read_input_file(path, text);
    if (why == "cannot read file") {
      error(from, from_loc, fmt::format("cannot read config file '{}'", path));
      return;
    }
    if (!why.empty()) {
      error(from, from_loc, fmt::format("config file '{}': {}", path, why));
      return;
    }
    load_document(std::move(text), path, from, from_loc);
  }

  void load_document(std::string text, const std::string& name, const SourceFile* from,
                     SourceLocation from_loc) {
    std::error_code ec;
    std::string canonical = fs::weakly_canonical(fs::absolute(name, ec), ec).string();
    if (ec) canonical = name;
    if (std::find(chain.begin(), chain.end(), canonical) != chain.end()) {
      std::string cycle;
      for (auto it = std::find(chain.begin(), chain.end(), canonical); it != chain.end(); ++it)
        cycle += fs::path(*it).filename().string() + " -> ";
      error(from, from_loc,
            fmt::format("base config cycle: {}{}", cycle, fs::path(canonical).filename().string()));
      return;
    }
    files.push_back(std::make_unique<SourceFile>(name, std::move(text)));
    const SourceFile* file = files.back().get();
    toml::parse_result doc = toml::parse(file->text(), name);
    if (!doc) {
      const toml::parse_error& e = doc.error();
      error(file, to_loc(e.source().begin), fmt::format("invalid TOML: {}", e.description()));
      return;
    }
    chain.push_back(canonical);
    if (const toml::node* base = doc.table().get("base")) apply_base(*base, name, file);
    walk(doc.table(), "", file);
    chain.pop_back();
  }

  void apply_base(const toml::node& base, const std::string& name, const SourceFile* file) {
    const SourceLocation loc = to_loc(base.source().begin);
    auto* s = base.as_string();
    if (!s) {
      error(file, loc,
            fmt::format("base: expected the name or path of a config, found {}", describe(base)));
      return;
    }
    const std::string target = s->get();
    if (is_config_name(target)) {
      auto found = find_named_config(target, search_path);
      if (!found) {
        error(file, loc,
              fmt::format("base: no config named '{}' ({}.toml) on the search path: {}", target,
                          target, search_path_text()));
        return;
      }
      load_file(*found, file, loc);
    } else if (target.empty()) {
      error(file, loc, "base: empty name");
    } else {
      fs::path p(target);
      if (p.is_relative()) p = fs::path(name).parent_path() / p;
      load_file(p.string(), file, loc);
    }
  }

  void apply_override(const std::string& assignment) {
    // All overrides form one virtual file "--set", one per line in the order
    // given: "--set:2:13" is column 13 of the second override.
    std::string line = assignment;
    std::replace(line.begin(), line.end(), '\n', ' ');
    std::replace(line.begin(), line.end(), '\r', ' ');
    override_text += line + "\n";
    const uint32_t line_number = ++override_count;
    files.push_back(std::make_unique<SourceFile>("--set", override_text));
    const SourceFile* file = files.back().get();
    auto col = [&](size_t offset) {
      return SourceLocation{line_number, static_cast<uint32_t>(offset + 1)};
    };
    const size_t eq = assignment.find('=');
    auto trim = [&](size_t b, size_t e) {
      while (b < e && (assignment[b] == ' ' || assignment[b] == '\t')) ++b;
      while (e > b && (assignment[e - 1] == ' ' || assignment[e - 1] == '\t')) --e;
      return std::pair{b, e};
    };
    if (eq == std::string::npos) {
      error(file, col(0),
            fmt::format("invalid override '{}': expected section.key=value", assignment));
      return;
    }
    auto [kb, ke] = trim(0, eq);
    const std::string dotted = assignment.substr(kb, ke - kb);
    const size_t dot = dotted.rfind('.');
    if (dotted.empty() || dot == std::string::npos || dot == 0 || dot + 1 == dotted.size()) {
      error(
          file, col(kb),
          fmt::format("invalid override '{}': expected section.key=value (such as gpu.num_sms=80)",
                      assignment));
      return;
    }
    const std::string section_name = dotted.substr(0, dot);
    const std::string key = dotted.substr(dot + 1);
    const Schema::Section* section = schema.find(section_name);
    if (!section) {
      std::vector<std::string> names;
      for (const auto& s : schema.sections()) names.push_back(s.name);
      std::string hint = did_you_mean(section_name, names, "[", "]");
      if (hint.empty())  // "t.x=1" where only [t.sub] exists
        for (const auto& s : schema.sections())
          if (s.name.compare(0, section_name.size() + 1, section_name + ".") == 0) {
            hint = fmt::format(" (did you mean [{}]?)", s.name);
            break;
          }
      error(file, col(kb), fmt::format("unknown section [{}] in override{}", section_name, hint));
      return;
    }
    const Field* f = section->table->find(key);
    if (!f) {
      error(file, col(kb + dot + 1),
            fmt::format("unknown key '{}' in [{}]{}", key, section_name,
                        did_you_mean(key, field_keys(*section->table))));
      return;
    }
    auto [vb, ve] = trim(eq + 1, assignment.size());
    const std::string text = assignment.substr(vb, ve - vb);
    if (text.empty()) {
      error(file, col(eq), fmt::format("{}.{}: missing value after '='", section_name, key));
      return;
    }
    // The value is read as TOML (a one-line document "v = <text>"); string,
    // enum and size fields also take a bare word, read as a quoted string.
    const bool quoted = text.front() == '"' || text.front() == '\'';
    const bool bare_ok = f->kind == Kind::String || f->kind == Kind::Enum || f->kind == Kind::Bytes;
    const std::string bare = "v = " + toml_quote(text);
    std::string toml_text = "v = " + text;
    if (bare_ok && !quoted && f->kind != Kind::Bytes) toml_text = bare;
    toml::parse_result doc = toml::parse(std::string_view(toml_text), std::string_view("--set"));
    if (doc && f->kind == Kind::Bytes && !quoted) {
      const toml::node* v = doc.table().get("v");
      if (!v || !v->is_integer())
        doc = toml::parse(std::string_view(bare), std::string_view("--set"));
    } else if (!doc && f->kind == Kind::Bytes && !quoted) {
      doc = toml::parse(std::string_view(bare), std::string_view("--set"));
    }
    if (!doc || doc.table().size() != 1 || text.find('\n') != std::string::npos) {
      error(file, col(vb),
            fmt::format("{}.{}: expected {}, found '{}'", section_name, key, expected_text(*f),
                        text));
      return;
    }
    apply(*section, *f, *doc.table().get("v"), file, col(vb));
  }

  // Field checks on current values (catches values set in code) and the
  // cross-field checks of every section.
  void validate() {
    for (const auto& s : schema.sections()) {
      for (const auto& f : s.table->fields()) {
        std::string err = check_value(f, f.get(s.object));
        if (!err.empty())
          report(s, Severity::Error, {f.key}, fmt::format("{}.{}: {}", s.name, f.key, err));
      }
      Checker checker([&](Severity sev, Checker::Keys keys, std::string message) {
        WARPSIM_INVARIANT(keys.size() > 0, "config checks name the keys they read");
        for (std::string_view k : keys)
          WARPSIM_INVARIANT(s.table->find(k), "config checks name keys of their own section");
        report(s, sev, keys, fmt::format("{}.{}: {}", s.name, *keys.begin(), message));
      });
      for (const auto& c : s.table->constraints()) c.check(s.object, checker);
    }
  }

  // Places a diagnostic where the most recently applied of `keys` was set;
  // without a location when all kept their defaults.
  void report(const Schema::Section& s, Severity sev, Checker::Keys keys, std::string message) {
    const Origin* where = nullptr;
    for (std::string_view k : keys) {
      auto it = origins.find(s.name + "." + std::string(k));
      if (it != origins.end() && (!where || it->second.sequence > where->sequence))
        where = &it->second;
    }
    place(sev, where, std::move(message));
  }

  // The same for qualified keys or whole sections, across sections.
  void report_across(Severity sev, std::initializer_list<std::string_view> keys, std::string message) {
    const Origin* where = nullptr;
    for (const auto& [name, origin] : origins)
      for (std::string_view k : keys) {
        const bool named = name == k || (name.size() > k.size() && name.starts_with(k) && name[k.size()] == '.' &&
                                         schema.find(k) != nullptr);
        if (named && (!where || origin.sequence > where->sequence)) where = &origin;
      }
    place(sev, where, std::move(message));
  }

  void place(Severity sev, const Origin* where, std::string message) {
    if (where)
      diags.report(sev, where->file, where->loc, std::move(message));
    else
      diags.report(sev, nullptr, {}, std::move(message));
  }
};

Loader::Loader(const Schema& schema, DiagnosticEngine& diags, std::vector<std::string> search_path)
    : schema_(schema), diags_(diags), search_path_(std::move(search_path)) {
  state_.reset(new State{schema_, diags_, search_path_, {}, {}, {}, 0, {}, 0});
}

Loader::~Loader() = default;

bool Loader::load(const std::string& name_or_file) {
  const size_t before = diags_.error_count();
  if (is_config_name(name_or_file)) {
    auto found = find_named_config(name_or_file, search_path_);
    if (!found)
      diags_.error(nullptr, {},
                   fmt::format("no config named '{}' ({}.toml) on the search path: {}",
                               name_or_file, name_or_file, state_->search_path_text()));
    else
      state_->load_file(*found, nullptr, {});
  } else {
    state_->load_file(name_or_file, nullptr, {});
  }
  return diags_.error_count() == before;
}

bool Loader::load_text(std::string text, const std::string& file_name) {
  const size_t before = diags_.error_count();
  state_->load_document(std::move(text), file_name, nullptr, {});
  return diags_.error_count() == before;
}

bool Loader::apply_override(const std::string& assignment) {
  const size_t before = diags_.error_count();
  state_->apply_override(assignment);
  return diags_.error_count() == before;
}

bool Loader::apply_overrides(const std::vector<std::string>& assignments) {
  bool ok = true;
  for (const auto& a : assignments) ok = apply_override(a) && ok;
  return ok;
}

void Loader::report(Severity severity, std::initializer_list<std::string_view> keys, std::string message) {
  state_->report_across(severity, keys, std::move(message));
}

bool Loader::validate() {
  const size_t before = diags_.error_count();
  state_->validate();
  return diags_.error_count() == before;
}

}  // namespace warpsim::config
