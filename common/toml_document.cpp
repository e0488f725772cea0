#include "common/toml_header.h"  // first: it adjusts NDEBUG around toml++

#include "common/toml_document.h"

#include <fmt/format.h>

#include <sstream>

namespace warpsim {

namespace {

nlohmann::json to_json(const toml::node& n) {
  switch (n.type()) {
    case toml::node_type::table: {
      nlohmann::json out = nlohmann::json::object();
      out["$line"] = n.source().begin.line;
      for (const auto& [key, value] : *n.as_table()) out[std::string(key.str())] = to_json(value);
      return out;
    }
    case toml::node_type::array: {
      nlohmann::json out = nlohmann::json::array();
      for (const toml::node& e : *n.as_array()) out.push_back(to_json(e));
      return out;
    }
    case toml::node_type::string: return n.as_string()->get();
    case toml::node_type::integer: return n.as_integer()->get();
    case toml::node_type::floating_point: return n.as_floating_point()->get();
    case toml::node_type::boolean: return n.as_boolean()->get();
    case toml::node_type::date:
    case toml::node_type::time:
    case toml::node_type::date_time: {
      std::ostringstream text;  // toml++ prints them in TOML syntax
      n.visit([&](const auto& v) { text << v; });
      return text.str();
    }
    case toml::node_type::none: break;
  }
  return nullptr;
}

}  // namespace

std::optional<nlohmann::json> parse_toml_document(const SourceFile& file, DiagnosticEngine& diags) {
  toml::parse_result doc = toml::parse(file.text(), file.name());
  if (!doc) {
    const toml::parse_error& e = doc.error();
    diags.error(&file, {e.source().begin.line, e.source().begin.column},
                fmt::format("invalid TOML: {}", e.description()));
    return std::nullopt;
  }
  nlohmann::json out = to_json(doc.table());
  out["$line"] = 1;
  return out;
}

}  // namespace warpsim
