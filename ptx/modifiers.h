#pragma once
// Typed PTX instruction modifiers, generated from ptx/modifiers.def.
// Each category is an enum; an instruction's modifiers are a Modifiers value
// with one typed field per category (never strings).
#include <array>
#include <bitset>
#include <cstdint>
#include <optional>
#include <string_view>

namespace warpsim::ptx {

enum class TypeKind : uint8_t { Bits, Unsigned, Signed, Float, Predicate, Opaque };

enum class ScalarType : uint8_t {
  None,
#define PTX_TYPE(name, text, bits, kind) name,
#include "ptx/modifiers.def"
};

enum class StateSpace : uint8_t {
  None,  // generic addressing (no space given)
  Reg,   // registers (declarations only)
  Sreg,  // special registers (declarations only)
#define PTX_SPACE(name, text) name,
#include "ptx/modifiers.def"
};

enum class Rounding : uint8_t {
  None,
#define PTX_ROUNDING(name, text) name,
#include "ptx/modifiers.def"
};

enum class CmpOp : uint8_t {
  None,
#define PTX_CMP(name, text) name,
#include "ptx/modifiers.def"
};

enum class Operation : uint8_t {
  None,
#define PTX_OP(name, text) name,
#include "ptx/modifiers.def"
};

enum class VectorWidth : uint8_t {
  None,
#define PTX_VEC(name, text, lanes) name,
#include "ptx/modifiers.def"
};

enum class Scope : uint8_t {
  None,
#define PTX_SCOPE(name, text) name,
#include "ptx/modifiers.def"
};

enum class MemorySemantics : uint8_t {
  None,
#define PTX_SEM(name, text) name,
#include "ptx/modifiers.def"
};

enum class CacheOp : uint8_t {
  None,
#define PTX_CACHE(name, text) name,
#include "ptx/modifiers.def"
};

enum class Geometry : uint8_t {
  None,
#define PTX_GEOM(name, text) name,
#include "ptx/modifiers.def"
};

enum class Layout : uint8_t {
  None,
#define PTX_LAYOUT(name, text) name,
#include "ptx/modifiers.def"
};

enum class MatrixCount : uint8_t {
  None,
#define PTX_COUNT(name, text, n) name,
#include "ptx/modifiers.def"
};

enum class Flag : uint8_t {
#define PTX_FLAG(name, text) name,
#include "ptx/modifiers.def"
  kCount
};
using FlagSet = std::bitset<static_cast<size_t>(Flag::kCount)>;

enum class ModCategory : uint8_t {
  Type, Space, Rounding, Cmp, Operation, Vector, Scope, Semantics, Cache, Geometry, Layout,
  Count, Flag, Shape
};

// A modifier token as written: its category and the enum value within it.
// Shape tokens (`.m16n8k16`) carry their dimensions in Modifiers::shape.
struct ModToken {
  ModCategory category;
  uint8_t value;
  friend bool operator==(const ModToken&, const ModToken&) = default;
};

// mma/wmma/wgmma shape `.mMnNkK`; all zero when absent.
struct MatrixShape {
  uint16_t m = 0, n = 0, k = 0;
  bool present() const { return m != 0; }
  friend bool operator==(const MatrixShape&, const MatrixShape&) = default;
};

struct Modifiers {
  std::array<ScalarType, 4> types{};  // in source order: cvt.f32.s32 -> {F32, S32}
  uint8_t num_types = 0;
  std::array<StateSpace, 2> spaces{};  // cp.async.ca.shared.global -> {Shared, Global}
  uint8_t num_spaces = 0;
  Rounding rounding = Rounding::None;
  CmpOp cmp = CmpOp::None;
  Operation op = Operation::None;
  VectorWidth vec = VectorWidth::None;
  Scope scope = Scope::None;
  MemorySemantics sem = MemorySemantics::None;
  CacheOp cache = CacheOp::None;
  Geometry geom = Geometry::None;
  std::array<Layout, 2> layouts{};
  uint8_t num_layouts = 0;
  MatrixCount count = MatrixCount::None;
  MatrixShape shape;
  FlagSet flags;

  bool has(Flag f) const { return flags.test(static_cast<size_t>(f)); }
  ScalarType type(size_t i = 0) const { return i < num_types ? types[i] : ScalarType::None; }
  StateSpace space(size_t i = 0) const { return i < num_spaces ? spaces[i] : StateSpace::None; }
  friend bool operator==(const Modifiers&, const Modifiers&) = default;
};

// Looks up a modifier word (without its leading dot). Shape words fill `shape`.
std::optional<ModToken> find_modifier(std::string_view word, MatrixShape& shape);
// Adds a token to a Modifiers value; returns false when its category is
// single-valued and already set (e.g. two rounding modes).
bool apply_modifier(Modifiers& mods, ModToken tok, const MatrixShape& shape);
// The text of a token (without the dot); for Shape, built from `shape`.
std::string modifier_text(ModToken tok, const MatrixShape& shape);

// Scalar type facts.
struct TypeInfo {
  std::string_view name;
  uint16_t bits;
  TypeKind kind;
};
const TypeInfo& type_info(ScalarType t);
inline uint16_t type_bits(ScalarType t) { return type_info(t).bits; }
inline uint32_t type_bytes(ScalarType t) { return (type_info(t).bits + 7) / 8; }
inline bool is_float(ScalarType t) { return type_info(t).kind == TypeKind::Float; }
inline bool is_signed(ScalarType t) { return type_info(t).kind == TypeKind::Signed; }
std::optional<ScalarType> find_type(std::string_view word);

std::string_view space_name(StateSpace s);
uint32_t vector_lanes(VectorWidth v);

}  // namespace warpsim::ptx
