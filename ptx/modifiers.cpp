#include "ptx/modifiers.h"

#include <string>
#include <unordered_map>
#include <vector>

#include "ptx/opcode.h"

namespace warpsim::ptx {

namespace {

struct TextEntry {
  std::string_view text;
  ModToken token;
};

std::vector<TextEntry> all_modifier_entries() {
  std::vector<TextEntry> v;
  auto add = [&](std::string_view text, ModCategory c, int value) {
    v.push_back({text, ModToken{c, static_cast<uint8_t>(value)}});
  };
  // Enum values start at 1 in categories that have a None member.
  int i;
  i = 1;
#define PTX_TYPE(name, text, bits, kind) add(text, ModCategory::Type, i++);
#include "ptx/modifiers.def"
  i = static_cast<int>(StateSpace::Global);
#define PTX_SPACE(name, text) add(text, ModCategory::Space, i++);
#include "ptx/modifiers.def"
  i = 1;
#define PTX_ROUNDING(name, text) add(text, ModCategory::Rounding, i++);
#include "ptx/modifiers.def"
  i = 1;
#define PTX_CMP(name, text) add(text, ModCategory::Cmp, i++);
#include "ptx/modifiers.def"
  i = 1;
#define PTX_OP(name, text) add(text, ModCategory::Operation, i++);
#include "ptx/modifiers.def"
  i = 1;
#define PTX_VEC(name, text, lanes) add(text, ModCategory::Vector, i++);
#include "ptx/modifiers.def"
  i = 1;
#define PTX_SCOPE(name, text) add(text, ModCategory::Scope, i++);
#include "ptx/modifiers.def"
  i = 1;
#define PTX_SEM(name, text) add(text, ModCategory::Semantics, i++);
#include "ptx/modifiers.def"
  i = 1;
#define PTX_CACHE(name, text) add(text, ModCategory::Cache, i++);
#include "ptx/modifiers.def"
  i = 1;
#define PTX_GEOM(name, text) add(text, ModCategory::Geometry, i++);
#include "ptx/modifiers.def"
  i = 1;
#define PTX_LAYOUT(name, text) add(text, ModCategory::Layout, i++);
#include "ptx/modifiers.def"
  i = 1;
#define PTX_COUNT(name, text, n) add(text, ModCategory::Count, i++);
#include "ptx/modifiers.def"
  i = 0;
#define PTX_FLAG(name, text) add(text, ModCategory::Flag, i++);
#include "ptx/modifiers.def"
  return v;
}

const std::vector<TextEntry>& entries() {
  static const std::vector<TextEntry> e = all_modifier_entries();
  return e;
}

const std::unordered_map<std::string_view, ModToken>& modifier_map() {
  static const auto m = [] {
    std::unordered_map<std::string_view, ModToken> map;
    for (const auto& e : entries()) map.emplace(e.text, e.token);
    return map;
  }();
  return m;
}

const std::unordered_map<std::string_view, Opcode>& opcode_map() {
  static const auto m = [] {
    std::unordered_map<std::string_view, Opcode> map;
    for (size_t i = 0; i < kNumOpcodes; ++i)
      map.emplace(kOpcodeInfo[i].mnemonic, static_cast<Opcode>(i));
    return map;
  }();
  return m;
}

constexpr TypeInfo kTypeInfo[] = {
    {"", 0, TypeKind::Bits},
#define PTX_TYPE(name, text, bits, kind) {text, bits, TypeKind::kind},
#include "ptx/modifiers.def"
};

// Parses a decimal number at s[pos..]; returns false if none.
bool parse_dim(std::string_view s, size_t& pos, uint16_t& out) {
  size_t start = pos;
  uint32_t v = 0;
  while (pos < s.size() && s[pos] >= '0' && s[pos] <= '9') {
    v = v * 10 + static_cast<uint32_t>(s[pos] - '0');
    if (v > 65535) return false;
    ++pos;
  }
  out = static_cast<uint16_t>(v);
  return pos > start && v > 0;
}

// `.m16n8k16`, `.m8n8k4`, `.m64n128k16`; also `.m8n8` (ldmatrix).
bool parse_shape(std::string_view w, MatrixShape& shape) {
  if (w.size() < 4 || w[0] != 'm') return false;
  size_t pos = 1;
  MatrixShape s;
  if (!parse_dim(w, pos, s.m) || pos >= w.size() || w[pos] != 'n') return false;
  ++pos;
  if (!parse_dim(w, pos, s.n)) return false;
  if (pos < w.size()) {
    if (w[pos] != 'k') return false;
    ++pos;
    if (!parse_dim(w, pos, s.k) || pos != w.size()) return false;
  }
  shape = s;
  return true;
}

}  // namespace

std::optional<Opcode> find_opcode(std::string_view word) {
  const auto& m = opcode_map();
  auto it = m.find(word);
  if (it == m.end()) return std::nullopt;
  return it->second;
}

std::optional<ModToken> find_modifier(std::string_view word, MatrixShape& shape) {
  const auto& m = modifier_map();
  auto it = m.find(word);
  if (it != m.end()) return it->second;
  if (parse_shape(word, shape)) return ModToken{ModCategory::Shape, 0};
  return std::nullopt;
}

bool apply_modifier(Modifiers& mods, ModToken tok, const MatrixShape& shape) {
  auto set_once = [](auto& field, uint8_t value) {
    using E = std::remove_reference_t<decltype(field)>;
    if (field != E::None) return false;
    field = static_cast<E>(value);
    return true;
  };
  switch (tok.category) {
    case ModCategory::Type:
      if (mods.num_types >= mods.types.size()) return false;
      mods.types[mods.num_types++] = static_cast<ScalarType>(tok.value);
      return true;
    case ModCategory::Space:
      if (mods.num_spaces >= mods.spaces.size()) return false;
      mods.spaces[mods.num_spaces++] = static_cast<StateSpace>(tok.value);
      return true;
    case ModCategory::Layout:
      if (mods.num_layouts >= mods.layouts.size()) return false;
      mods.layouts[mods.num_layouts++] = static_cast<Layout>(tok.value);
      return true;
    case ModCategory::Rounding: return set_once(mods.rounding, tok.value);
    case ModCategory::Cmp: return set_once(mods.cmp, tok.value);
    case ModCategory::Operation: return set_once(mods.op, tok.value);
    case ModCategory::Vector: return set_once(mods.vec, tok.value);
    case ModCategory::Scope: return set_once(mods.scope, tok.value);
    case ModCategory::Semantics: return set_once(mods.sem, tok.value);
    case ModCategory::Cache: return set_once(mods.cache, tok.value);
    case ModCategory::Geometry: return set_once(mods.geom, tok.value);
    case ModCategory::Count: return set_once(mods.count, tok.value);
    case ModCategory::Shape:
      if (mods.shape.present()) return false;
      mods.shape = shape;
      return true;
    case ModCategory::Flag:
      if (mods.flags.test(tok.value)) return false;
      mods.flags.set(tok.value);
      return true;
  }
  return false;
}

std::string modifier_text(ModToken tok, const MatrixShape& shape) {
  if (tok.category == ModCategory::Shape) {
    std::string s = "m" + std::to_string(shape.m) + "n" + std::to_string(shape.n);
    if (shape.k) s += "k" + std::to_string(shape.k);
    return s;
  }
  for (const auto& e : entries())
    if (e.token == tok) return std::string(e.text);
  return "?";
}

const TypeInfo& type_info(ScalarType t) { return kTypeInfo[static_cast<size_t>(t)]; }

std::optional<ScalarType> find_type(std::string_view word) {
  MatrixShape unused;
  auto tok = find_modifier(word, unused);
  if (!tok || tok->category != ModCategory::Type) return std::nullopt;
  return static_cast<ScalarType>(tok->value);
}

std::string_view space_name(StateSpace s) {
  switch (s) {
    case StateSpace::None: return "generic";
    case StateSpace::Reg: return "reg";
    case StateSpace::Sreg: return "sreg";
#define PTX_SPACE(name, text) \
  case StateSpace::name: return text;
#include "ptx/modifiers.def"
  }
  return "?";
}

uint32_t vector_lanes(VectorWidth v) {
  switch (v) {
    case VectorWidth::None: return 1;
#define PTX_VEC(name, text, lanes) \
  case VectorWidth::name: return lanes;
#include "ptx/modifiers.def"
  }
  return 1;
}

}  // namespace warpsim::ptx
