#pragma once
// The PTX intermediate representation produced by the parser.
//
// Names are string_views into storage owned by the Module (its source text,
// or text interned with Module::intern), so a Module is movable but not
// copyable. Instructions of a function live in one flat array; their operands
// and modifier tokens live in per-function pools, addressed by index, so a
// large module is a handful of big allocations rather than millions of small
// ones.
#include <cstdint>
#include <deque>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/source_file.h"
#include "ptx/annotation.h"
#include "ptx/modifiers.h"
#include "ptx/opcode.h"
#include "ptx/special_register.h"

namespace warpsim::ptx {

inline constexpr uint32_t kNone = 0xffffffffu;

// Linkage directives, as a bit set.
enum Linkage : uint8_t {
  kLinkageNone = 0,
  kVisible = 1,
  kExtern = 2,
  kWeak = 4,
  kCommon = 8,
};

// What a name in an operand or initialiser refers to, after resolution.
enum class SymbolKind : uint8_t {
  Unresolved,
  Global,        // Module::globals[index]
  Local,         // Function::variables[index] (.local/.shared/.param/.const in a body)
  Param,         // Function::params[index]
  ReturnParam,   // Function::returns[index]
  Function,      // Module::functions[index]
  Label,         // Function::labels[index]
  Prototype,     // Function::prototypes[index]
  TargetList,    // Function::target_lists[index]
};

struct SymbolRef {
  SymbolKind kind = SymbolKind::Unresolved;
  uint32_t index = 0;
  friend bool operator==(const SymbolRef&, const SymbolRef&) = default;
};

// How a floating-point literal was written.
enum class FloatSyntax : uint8_t {
  F32Bits,  // 0fXXXXXXXX: `value` holds the 32 raw bits
  F64Bits,  // 0dXXXXXXXXXXXXXXXX: `value` holds the 64 raw bits
  Decimal,  // 1.5, 2e-3: `value` holds the bits of the nearest double
};

enum class OperandKind : uint8_t {
  Register,  // reg
  Special,   // sreg (+ component, + index for %envreg<N>)
  Immediate, // value (two's complement as written, e.g. -1)
  Float,     // value (bits), fsyntax
  Symbol,    // name / sym, + value as byte offset for `sym+8`
  Address,   // [base + value], base is reg, sym or absolute (AddressBase); extra elements after a comma
  Vector,    // { elements }
  Pair,      // a|b (two elements)
  List,      // ( elements ): call return and argument lists
  Sink,      // _
};

enum class AddressBase : uint8_t { Register, Symbol, Immediate };

// Suffix of a register operand: vector component or video byte/half selector.
enum class Component : uint8_t { None, X, Y, Z, W, B0, B1, B2, B3, H0, H1 };

struct Operand {
  OperandKind kind = OperandKind::Immediate;
  bool negated = false;  // `!%p`
  Component component = Component::None;
  FloatSyntax fsyntax = FloatSyntax::F32Bits;
  AddressBase base = AddressBase::Register;
  SpecialRegister sreg = SpecialRegister::Tid;
  uint8_t sreg_index = 0;  // %envreg<N>, %pm<N>
  uint32_t reg = kNone;    // Register, Address with register base
  SymbolRef sym;           // Symbol, Address with symbol base (after resolution)
  std::string_view name;   // the name as written (Symbol, symbol-based Address)
  int64_t value = 0;       // Immediate, Float bits, Address/Symbol byte offset
  uint32_t first = 0;      // elements in Function::operands (Vector, Pair, List, Address extras)
  uint32_t count = 0;
  SourceLocation loc;
};

// One flattened element of a variable initialiser.
struct InitValue {
  enum class Kind : uint8_t { Integer, Float, Address, GenericAddress };
  Kind kind = Kind::Integer;
  FloatSyntax fsyntax = FloatSyntax::F32Bits;
  int64_t value = 0;     // integer, float bits, or byte offset for addresses
  std::string_view name; // Address, GenericAddress: the symbol
  uint64_t mask = 0;     // `mask(sym)`: byte mask applied to the address; 0 = whole address
  SymbolRef sym;
  SourceLocation loc;
  friend bool operator==(const InitValue&, const InitValue&) = default;
};

// A variable (module or function scope) or a function parameter / return value.
struct Variable {
  std::string_view name;
  StateSpace space = StateSpace::None;
  uint8_t linkage = kLinkageNone;
  ScalarType type = ScalarType::None;
  VectorWidth vec = VectorWidth::None;
  uint32_t align = 0;          // 0: natural alignment of the element type
  std::vector<uint64_t> dims;  // array dimensions; a 0 dimension is unsized `[]`
  bool managed = false;        // .attribute(.managed)
  bool is_ptr = false;         // .ptr parameter attribute (sm_100-style)
  StateSpace ptr_space = StateSpace::None;
  uint32_t ptr_align = 0;
  bool has_init = false;
  bool init_braced = false;
  std::vector<InitValue> init;
  uint32_t scope = 0;          // for function-scope variables
  SourceLocation loc;

  // Bytes of one element (type size times vector lanes).
  uint64_t element_size() const;
  // Natural or declared alignment in bytes.
  uint64_t alignment() const;
  // Total size in bytes; 0 for unsized arrays.
  uint64_t size_bytes() const;
  bool is_array() const { return !dims.empty(); }
};

struct RegisterDecl {
  std::string_view name;  // for a range `%r<100>` this is the prefix `%r`
  ScalarType type = ScalarType::None;
  VectorWidth vec = VectorWidth::None;
  uint32_t count = 0;     // 0: a single register; N: the range name0..name(N-1)
  uint32_t first_reg = 0; // index of its first register in Function::registers
  uint32_t scope = 0;
  SourceLocation loc;
};

struct Register {
  uint32_t decl = 0;   // Function::reg_decls index
  uint32_t index = 0;  // position within a range declaration
  ScalarType type = ScalarType::None;
  VectorWidth vec = VectorWidth::None;
};

// Position in the original CUDA source, from `.loc`.
struct DebugLoc {
  uint32_t file = 0;  // 0: none
  uint32_t line = 0;
  uint32_t column = 0;
  friend bool operator==(const DebugLoc&, const DebugLoc&) = default;
};

struct Instruction {
  Opcode opcode = Opcode::Mov;
  Modifiers mods;
  uint32_t first_mod = 0;  // source-order modifier tokens in Function::mod_tokens
  uint16_t num_mods = 0;
  uint16_t num_operands = 0;
  uint32_t first_operand = 0;  // Function::operands
  bool has_guard = false;
  bool guard_negated = false;
  uint32_t guard_reg = kNone;
  uint32_t scope = 0;
  SourceLocation loc;
  DebugLoc debug;
  Annotation annotation;  // set by compile passes; not PTX (ptx/annotation.h)
};

struct Label {
  std::string_view name;
  uint32_t instruction = 0;  // index of the instruction it labels (== size at the end)
  uint32_t scope = 0;
  SourceLocation loc;
};

// `name: .callprototype (.param .b32 _) _ (.param .b64 _);`
struct CallPrototype {
  std::string_view name;
  std::vector<Variable> returns;
  std::vector<Variable> params;
  bool noreturn = false;
  uint32_t scope = 0;
  SourceLocation loc;
};

// `name: .calltargets f, g;` or `name: .branchtargets L1, L2;`
struct TargetList {
  std::string_view name;
  bool is_branch = false;
  std::vector<std::string_view> names;
  std::vector<SymbolRef> targets;
  std::vector<SourceLocation> locs;
  uint32_t scope = 0;
  SourceLocation loc;
};

struct ScopeInfo {
  uint32_t parent = kNone;  // kNone for the function's outermost scope (scope 0)
};

// The statements of a body in source order (for printing); analyses use the
// flat arrays instead.
enum class BodyItemKind : uint8_t {
  Instruction, Label, ScopeBegin, ScopeEnd, RegisterDecl, Variable, Pragma, Prototype, TargetList
};
struct BodyItem {
  BodyItemKind kind;
  uint32_t index;  // into the matching array (ScopeBegin/End: the scope id)
};

struct PerformanceDirectives {
  std::vector<uint32_t> maxntid, reqntid, reqnctapercluster;
  uint32_t minnctapersm = 0, maxnreg = 0, maxclusterrank = 0;
  bool explicitcluster = false;
  bool blocksareclusters = false;
  int64_t abi_preserve = -1, abi_preserve_control = -1;
};

struct Function {
  std::string_view name;
  bool is_entry = false;
  uint8_t linkage = kLinkageNone;
  bool has_body = false;
  bool noreturn = false;
  std::vector<Variable> params;
  std::vector<Variable> returns;
  PerformanceDirectives perf;
  std::vector<std::string_view> pragmas;  // body `.pragma "..."` strings, with quotes

  std::vector<RegisterDecl> reg_decls;
  std::vector<Register> registers;
  std::vector<Variable> variables;
  std::vector<Instruction> instructions;
  std::vector<Operand> operands;
  std::vector<ModToken> mod_tokens;
  std::vector<Label> labels;
  std::vector<ScopeInfo> scopes;
  std::vector<CallPrototype> prototypes;
  std::vector<TargetList> target_lists;
  std::vector<BodyItem> body;
  SourceLocation loc;

  std::span<const Operand> operands_of(const Instruction& inst) const {
    return {operands.data() + inst.first_operand, inst.num_operands};
  }
  std::span<const Operand> elements(const Operand& op) const {
    return {operands.data() + op.first, op.count};
  }
  std::span<const ModToken> mods_of(const Instruction& inst) const {
    return {mod_tokens.data() + inst.first_mod, inst.num_mods};
  }
  std::string register_name(uint32_t reg) const;
};

struct FileEntry {
  uint32_t index = 0;
  std::string_view path;  // without quotes
  bool has_extra = false; // `, timestamp, size` present
  uint64_t timestamp = 0, size = 0;
};

struct Alias {
  std::string_view alias, target;
  SourceLocation loc;
};

enum class ModuleItemKind : uint8_t { Global, FunctionDecl, FunctionDef, Alias };
struct ModuleItem {
  ModuleItemKind kind;
  uint32_t index;
};

class Module {
 public:
  Module() = default;
  Module(const Module&) = delete;
  Module& operator=(const Module&) = delete;
  Module(Module&&) = default;
  Module& operator=(Module&&) = default;

  // Copies text into storage owned by the module; the view stays valid for
  // the module's lifetime.
  std::string_view intern(std::string_view text);

  const Function* find_function(std::string_view name) const;
  const Variable* find_global(std::string_view name) const;

  bool has_version = false;
  uint32_t version_major = 0, version_minor = 0;
  std::vector<std::string_view> targets;
  bool has_address_size = false;
  uint32_t address_size = 64;
  std::vector<FileEntry> files;
  std::vector<Variable> globals;
  std::vector<Function> functions;
  std::vector<Alias> aliases;
  std::vector<std::string_view> pragmas;  // module-level `.pragma` strings, with quotes
  std::vector<ModuleItem> items;  // module statements in source order

  // The source the module was parsed from (names point into it); null for
  // modules built by the linker.
  std::shared_ptr<const SourceFile> source;
  std::vector<std::shared_ptr<const SourceFile>> linked_sources;

 private:
  std::deque<std::string> interned_;
};

std::string_view symbol_kind_name(SymbolKind k);

}  // namespace warpsim::ptx
