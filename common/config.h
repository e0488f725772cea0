#pragma once
// Typed configuration: one table per component.
//
// A component's configuration is a plain struct whose default member
// initialisers are its defaults. Beside it, one Table<T> lists every field
// once: key, type, unit, one-line description and which values are valid.
// That one table
//   - applies and validates TOML files and `--set section.key=value` overrides,
//   - prints the effective configuration as TOML (`warpsim config show`), and
//   - generates the Markdown reference (docs/config.md),
// so the three cannot drift apart.
//
// A Schema binds named sections ([gpu], [functional], later dotted ones such as
// [timing.l1d]) to (table, object) pairs: each layer contributes its own table
// and the top level assembles the sections. A Loader applies files and
// overrides to the objects of a Schema; values present are applied, the rest
// keep what the object held (its defaults). Every problem (TOML syntax,
// unknown key or section, wrong type, out-of-range value, violated
// cross-field constraint) is reported through DiagnosticEngine as
// `file:line:col: error: section.key: message`; nothing throws or aborts on
// user input.
//
// A component's table, in its .cpp (static const: built once, never mutated):
//
//   const config::Table<CacheConfig>& cache_config_table() {
//     static const config::Table<CacheConfig> table = [] {
//       config::Table<CacheConfig> t("L1 data cache of one SM");
//       t.bytes("size", &CacheConfig::size, "capacity").range(1024, 1 << 20);
//       t.integer("ways", &CacheConfig::ways, "", "associativity").range(1, 64);
//       t.enumeration("replacement", &CacheConfig::replacement,
//                     {{"lru", Replacement::Lru}, {"fifo", Replacement::Fifo}},
//                     "replacement policy");
//       t.check("size is a multiple of ways", [](const CacheConfig& c, config::Checker& r) {
//         if (c.size % c.ways) r.error({"size", "ways"}, "must be a multiple of ways");
//       });
//       return t;
//     }();
//     return table;
//   }
//
// Value syntax: byte sizes are an integer (bytes) or a string with a binary
// unit ("128B", "48KiB", "50MiB", "80GiB", "1TiB"); clocks are MHz, integer or
// decimal; arrays are TOML arrays of exactly the field's length.
#include <algorithm>
#include <array>
#include <concepts>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <typeinfo>
#include <utility>
#include <variant>
#include <vector>

#include "common/diagnostics.h"
#include "common/invariant.h"
#include "common/registry.h"

namespace warpsim::config {

enum class Kind {
  Bool,
  Integer,   // any C++ integer type; TOML integer
  Float,     // double; TOML integer or float
  String,    // std::string
  Enum,      // a C++ enum, written by name
  IntArray,  // std::array<integer, N>; TOML array of N integers
  Bytes,     // integer byte count; TOML integer or a string with a unit
  Clock,     // double, MHz; TOML integer or float
};

// A field's value between TOML and the C++ member. Enum values travel as their
// underlying integer.
using Value = std::variant<bool, int64_t, double, std::string, std::vector<int64_t>>;

struct EnumEntry {
  std::string name;
  int64_t value = 0;
};

// One row of a table, type-erased. Built through Table<T>; read by the loader,
// the printer and the docs generator.
struct Field {
  std::string key;
  Kind kind = Kind::Integer;
  std::string unit;         // "B", "MHz", "bit", "instructions", ... or empty
  std::string description;  // one line
  int64_t int_min = std::numeric_limits<int64_t>::min();  // Integer, Bytes, IntArray elements
  int64_t int_max = std::numeric_limits<int64_t>::max();
  double float_min = -std::numeric_limits<double>::max();  // Float, Clock
  double float_max = std::numeric_limits<double>::max();
  size_t array_size = 0;                           // IntArray
  std::vector<EnumEntry> enum_entries;             // Enum
  std::string check_doc;                           // what `check` accepts, for the docs
  std::function<std::string(const Value&)> check;  // custom check: "" when valid
  bool string_list = false;  // String: a TOML array of strings is accepted too, joined with ", "
  std::function<Value(const void*)> get;
  std::function<void(void*, const Value&)> set;  // only with a valid value
};

// Checks a value against the field's range and custom check; "" when valid,
// else the reason ("0 is out of range (1 to 1024)").
std::string check_value(const Field& field, const Value& value);
// The value as a TOML literal: 132, "9.0", "48KiB", [1024, 1024, 64], 1980.
std::string format_value(const Field& field, const Value& value);
// "integer", "size", "clock", "string", "enum", "integer[3]", ...
std::string kind_name(const Field& field);
// What the field accepts, in words: "1 to 1024", "0B to 1GiB", "one of a, b".
std::string valid_text(const Field& field);

// Reports the violations found by a table's cross-field checks. The message
// is prefixed with the first key named; the loader places it where the most
// recently applied of the named keys was set, so name every key the check
// reads (the user may have changed any of them).
class Checker {
 public:
  using Keys = std::initializer_list<std::string_view>;
  using Sink = std::function<void(Severity, Keys keys, std::string message)>;
  explicit Checker(Sink sink) : sink_(std::move(sink)) {}
  void error(Keys keys, std::string message) { sink_(Severity::Error, keys, std::move(message)); }
  void warning(Keys keys, std::string message) {
    sink_(Severity::Warning, keys, std::move(message));
  }

 private:
  Sink sink_;
};

struct Constraint {
  std::string description;  // one line, for the docs
  std::function<void(const void*, Checker&)> check;
};

// The untyped part of a table.
class TableBase {
 public:
  const std::string& description() const { return description_; }
  const std::vector<Field>& fields() const { return fields_; }
  const std::vector<Constraint>& constraints() const { return constraints_; }
  const Field* find(std::string_view key) const;
  // A default-constructed object of the table's type (the docs' defaults).
  const void* defaults() const { return defaults_.get(); }
  // A new copy of `object`, an object of the table's type: lets a holder that
  // knows the type only through its table copy it deeply (PluginSections).
  std::shared_ptr<void> clone(const void* object) const { return clone_(object); }
  // The table's type, which typed access to such an object checks.
  const std::type_info& type() const { return *type_; }

 protected:
  using CloneFn = std::shared_ptr<void> (*)(const void*);
  TableBase(std::string description, std::shared_ptr<const void> defaults, CloneFn clone,
            const std::type_info& type)
      : description_(std::move(description)),
        defaults_(std::move(defaults)),
        clone_(clone),
        type_(&type) {}
  Field& add(std::string key, Kind kind, std::string unit, std::string description);

  std::string description_;
  std::shared_ptr<const void> defaults_;
  CloneFn clone_;
  const std::type_info* type_;
  std::vector<Field> fields_;
  std::vector<Constraint> constraints_;
};

// Refines the row just added: valid range and custom checks. Use it at once,
// in the same expression as the call that added the row.
class FieldRef {
 public:
  explicit FieldRef(Field& field) : field_(&field) {}
  // Inclusive range of an Integer, Bytes or IntArray (per element) field.
  template <std::integral A, std::integral B>
  FieldRef& range(A min, B max) {
    WARPSIM_INVARIANT(field_->kind == Kind::Integer || field_->kind == Kind::Bytes ||
                          field_->kind == Kind::IntArray,
                      "integer range on a non-integer config field");
    WARPSIM_INVARIANT(std::cmp_less_equal(field_->int_min, min) &&
                          std::cmp_greater_equal(field_->int_max, max) &&
                          std::cmp_less_equal(min, max),
                      "config range outside what the member's type holds");
    field_->int_min = static_cast<int64_t>(min);
    field_->int_max = static_cast<int64_t>(max);
    return *this;
  }
  // Inclusive range of a Float or Clock field.
  FieldRef& range(double min, double max);
  // A custom check: returns "" when the value is valid, else the reason.
  // `doc` says in a few words what is valid, for the docs.
  FieldRef& check(std::string doc, std::function<std::string(const Value&)> fn);
  // A string field naming a plug-in of `registry` (which outlives the table).
  FieldRef& one_of(const RegistryNames& registry);
  // A string field holding a comma-separated list, which a file may also
  // write as a TOML array of strings.
  FieldRef& list();

 private:
  Field* field_;
};

template <class T>
class Table : public TableBase {
 public:
  // `description`: one line saying what the section configures.
  explicit Table(std::string description) : Table(std::move(description), T{}) {}
  // A table whose defaults are `defaults` rather than T's initialisers
  // (several sections of one struct type with different defaults).
  Table(std::string description, T defaults)
      : TableBase(
            std::move(description), std::make_shared<const T>(std::move(defaults)),
            [](const void* o) -> std::shared_ptr<void> {
              return std::make_shared<T>(*static_cast<const T*>(o));
            },
            typeid(T)) {}

  FieldRef boolean(std::string key, bool T::*m, std::string description) {
    Field& f = add(std::move(key), Kind::Bool, "", std::move(description));
    f.get = [m](const void* o) { return Value(static_cast<const T*>(o)->*m); };
    f.set = [m](void* o, const Value& v) { static_cast<T*>(o)->*m = std::get<bool>(v); };
    return FieldRef(f);
  }

  template <std::integral I>
  requires(!std::same_as<I, bool>) FieldRef
      integer(std::string key, I T::*m, std::string unit, std::string description) {
    Field& f = add(std::move(key), Kind::Integer, std::move(unit), std::move(description));
    set_integer_accessors<I>(f, m);
    return FieldRef(f);
  }

  // A byte count: accepts an integer or a string with a unit ("48KiB").
  template <std::integral I>
  requires(!std::same_as<I, bool>) FieldRef
      bytes(std::string key, I T::*m, std::string description) {
    Field& f = add(std::move(key), Kind::Bytes, "B", std::move(description));
    set_integer_accessors<I>(f, m);
    f.int_min = std::max<int64_t>(f.int_min, 0);
    return FieldRef(f);
  }

  FieldRef real(std::string key, double T::*m, std::string unit, std::string description) {
    Field& f = add(std::move(key), Kind::Float, std::move(unit), std::move(description));
    set_double_accessors(f, m);
    return FieldRef(f);
  }

  // A clock frequency in MHz (integer or decimal).
  FieldRef clock_mhz(std::string key, double T::*m, std::string description) {
    Field& f = add(std::move(key), Kind::Clock, "MHz", std::move(description));
    set_double_accessors(f, m);
    return FieldRef(f);
  }

  FieldRef string(std::string key, std::string T::*m, std::string description) {
    Field& f = add(std::move(key), Kind::String, "", std::move(description));
    f.get = [m](const void* o) { return Value(static_cast<const T*>(o)->*m); };
    f.set = [m](void* o, const Value& v) { static_cast<T*>(o)->*m = std::get<std::string>(v); };
    return FieldRef(f);
  }

  // An enum written by name; `names` lists every accepted name.
  template <class E>
  requires std::is_enum_v<E> FieldRef enumeration(std::string key, E T::*m,
                                                  std::vector<std::pair<std::string, E>> names,
                                                  std::string description) {
    Field& f = add(std::move(key), Kind::Enum, "", std::move(description));
    for (auto& [name, value] : names)
      f.enum_entries.push_back({std::move(name), static_cast<int64_t>(value)});
    f.get = [m](const void* o) {
      return Value(static_cast<int64_t>(static_cast<const T*>(o)->*m));
    };
    f.set = [m](void* o, const Value& v) {
      static_cast<T*>(o)->*m = static_cast<E>(std::get<int64_t>(v));
    };
    return FieldRef(f);
  }

  // A fixed-size integer array such as [x, y, z].
  template <std::integral I, size_t N>
  requires(!std::same_as<I, bool>) FieldRef int_array(std::string key, std::array<I, N> T::*m,
                                                      std::string unit, std::string description) {
    Field& f = add(std::move(key), Kind::IntArray, std::move(unit), std::move(description));
    f.array_size = N;
    set_limits<I>(f);
    f.get = [m](const void* o) {
      const auto& a = static_cast<const T*>(o)->*m;
      return Value(std::vector<int64_t>(a.begin(), a.end()));
    };
    f.set = [m](void* o, const Value& v) {
      const auto& in = std::get<std::vector<int64_t>>(v);
      auto& a = static_cast<T*>(o)->*m;
      for (size_t i = 0; i < N; ++i) a[i] = static_cast<I>(in[i]);
    };
    return FieldRef(f);
  }

  // A check across fields, run after all files and overrides are applied.
  // `description`: one line for the docs ("shared_mem_per_block <= shared_mem_per_sm").
  void check(std::string description, std::function<void(const T&, Checker&)> fn) {
    constraints_.push_back(
        {std::move(description),
         [fn = std::move(fn)](const void* o, Checker& c) { fn(*static_cast<const T*>(o), c); }});
  }

 private:
  template <class I>
  static void set_limits(Field& f) {
    f.int_min = std::numeric_limits<I>::min();
    f.int_max = std::cmp_greater(std::numeric_limits<I>::max(), std::numeric_limits<int64_t>::max())
                    ? std::numeric_limits<int64_t>::max()
                    : static_cast<int64_t>(std::numeric_limits<I>::max());
  }
  template <class I>
  static void set_integer_accessors(Field& f, I T::*m) {
    set_limits<I>(f);
    f.get = [m](const void* o) {
      return Value(static_cast<int64_t>(static_cast<const T*>(o)->*m));
    };
    f.set = [m](void* o, const Value& v) {
      static_cast<T*>(o)->*m = static_cast<I>(std::get<int64_t>(v));
    };
  }
  static void set_double_accessors(Field& f, double T::*m) {
    f.get = [m](const void* o) { return Value(static_cast<const T*>(o)->*m); };
    f.set = [m](void* o, const Value& v) { static_cast<T*>(o)->*m = std::get<double>(v); };
  }
};

class PluginSections;

// Named sections bound to (table, object). The objects are not owned; they
// must outlive the Schema and any Loader using it.
class Schema {
 public:
  struct Section {
    std::string name;  // "gpu", or dotted for nested tables: "timing.l1d"
    const TableBase* table = nullptr;
    void* object = nullptr;
  };

  template <class T>
  void add(std::string name, const Table<T>& table, T& object) {
    add_section(std::move(name), table, &object);
  }

  const std::vector<Section>& sections() const { return sections_; }
  const Section* find(std::string_view name) const;
  // True when some section's name starts with `name` + ".".
  bool is_prefix(std::string_view name) const;

 private:
  friend class PluginSections;  // binds objects it knows only through their tables
  void add_section(std::string name, const TableBase& table, void* object);
  std::vector<Section> sections_;
};

// Applies configuration files and overrides to a Schema's objects.
//
// Files: TOML, one table per section. Top level may hold `base = "NAME"` (or
// a path, relative to the file's directory): that config is applied first,
// then this file's values over it; cycles are errors. Every key must be in
// the schema; the error for one that is not suggests the closest known key.
// Overrides: `section.key=value`, value written as in TOML (bare words allowed
// for string, enum and size fields).
// Each call returns false when it reported an error; invalid values are not
// applied. Diagnostics name the file, line and column; overrides are the
// lines of a virtual file "--set" in the order given ("--set:2:13": column 13
// of the second override).
class Loader {
 public:
  Loader(const Schema& schema, DiagnosticEngine& diags, std::vector<std::string> search_path);
  ~Loader();
  Loader(const Loader&) = delete;
  Loader& operator=(const Loader&) = delete;

  // A NAME (no '/', no ".toml") is looked up as NAME.toml on the search path;
  // anything else is a file path.
  bool load(const std::string& name_or_file);
  // TOML text read as if from a file called `file_name`.
  bool load_text(std::string text, const std::string& file_name);
  bool apply_override(const std::string& assignment);
  bool apply_overrides(const std::vector<std::string>& assignments);
  // Runs every field check on the current values and every cross-field
  // check; call after loading. Errors are placed where the key was last set.
  bool validate();
  // Reports the result of a check across sections, which no table's own
  // checks can see, where the most recently applied of `keys` was set:
  // each is "section.key" or a whole section ("timing.dram": any of its
  // keys). Without a location when all kept their defaults.
  void report(Severity severity, std::initializer_list<std::string_view> keys, std::string message);

  const std::vector<std::string>& search_path() const { return search_path_; }

 private:
  struct State;
  std::unique_ptr<State> state_;
  const Schema& schema_;
  DiagnosticEngine& diags_;
  std::vector<std::string> search_path_;
};

// Whether `s` names a config on the search path (no '/', no ".toml" suffix).
bool is_config_name(std::string_view s);
// NAME.toml in the first search-path directory holding it.
std::optional<std::string> find_named_config(std::string_view name,
                                             const std::vector<std::string>& search_path);

struct NamedConfig {
  std::string name;
  std::string path;
  bool shadowed = false;  // an earlier directory holds the same name
};
// Every NAME.toml in the search path's directories, in search order, sorted by
// name within a directory.
std::vector<NamedConfig> list_named_configs(const std::vector<std::string>& search_path);

// Valid TOML of every section's current values, each annotated with its
// description and unit in a comment; loads back to the same values.
// `header` lines are written first as comments.
std::string to_toml(const Schema& schema, std::string_view header);
// One Markdown table per section (key, type, default, unit, valid values,
// description) plus its cross-field constraints.
std::string to_markdown(const Schema& schema);

// A TOML basic string literal: "text" with escapes.
std::string toml_quote(std::string_view text);
// "48KiB", "80GiB", "128B": the largest binary unit that divides exactly.
std::string format_bytes(uint64_t bytes);
// Parses "48KiB", "48 KiB", "128B", "4096"; nullopt with `error` set otherwise.
std::optional<uint64_t> parse_bytes(std::string_view text, std::string* error);
// The candidate closest to `word` by edit distance, when close enough to be a
// likely typo; empty otherwise.
std::string closest_match(std::string_view word, const std::vector<std::string>& candidates);

}  // namespace warpsim::config
