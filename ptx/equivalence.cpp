// Structural comparison of two modules; see ptx/equivalence.h.
//
// A Comparer walks both modules in lockstep and stops at the first mismatch.
// It keeps a textual path ("function 'k': instruction 3 (ld): operand 1: ")
// so the report says where the difference is, not only that there is one.
#include "ptx/equivalence.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <array>
#include <concepts>
#include <string_view>
#include <type_traits>

namespace warpsim::ptx {

namespace {

// ---- rendering values for the report ---------------------------------------------

std::string show(bool v) { return v ? "true" : "false"; }
std::string show(std::string_view s) { return fmt::format("'{}'", s); }
std::string show(ScalarType t) {
  return t == ScalarType::None ? "none" : std::string(type_info(t).name);
}
std::string show(StateSpace s) { return std::string(space_name(s)); }
std::string show(Opcode op) { return std::string(mnemonic(op)); }
std::string show(SymbolRef r) {
  return fmt::format("{} #{}", symbol_kind_name(r.kind), static_cast<int64_t>(r.index));
}
std::string show(const DebugLoc& d) { return fmt::format("{} {} {}", d.file, d.line, d.column); }
std::string show(const MatrixShape& s) { return fmt::format("m{}n{}k{}", s.m, s.n, s.k); }
std::string show(ModToken t) { return fmt::format(".{}", modifier_text(t, MatrixShape{1, 1, 1})); }
std::string show(const FlagSet& f) { return f.to_string(); }
std::string show(const std::vector<uint64_t>& v) { return fmt::format("[{}]", fmt::join(v, ", ")); }
std::string show(OperandKind k) {
  static constexpr std::string_view kNames[] = {
      "register", "special register", "immediate", "float", "symbol",
      "address",  "vector",           "pair",      "list",  "sink"};
  return std::string(kNames[static_cast<size_t>(k)]);
}
std::string show(BodyItemKind k) {
  static constexpr std::string_view kNames[] = {
      "instruction", "label",  "scope begin",    "scope end",  "register declaration",
      "variable",    "pragma", "call prototype", "target list"};
  return std::string(kNames[static_cast<size_t>(k)]);
}
std::string show(ModuleItemKind k) {
  static constexpr std::string_view kNames[] = {"global", "function declaration",
                                                "function definition", "alias"};
  return std::string(kNames[static_cast<size_t>(k)]);
}
template <std::integral T>
std::string show(T v) {
  return std::to_string(v);
}
template <typename T>
concept Enum = std::is_enum_v<T>;
// Remaining small enums (components, rounding modes, ...) by number.
template <Enum T>
std::string show(T v) {
  return std::to_string(static_cast<int64_t>(v));
}

// ---- the walk ------------------------------------------------------------------------

class Comparer {
 public:
  bool module(const Module& a, const Module& b) {
    return same("has_version", a.has_version, b.has_version) &&
           same("version_major", a.version_major, b.version_major) &&
           same("version_minor", a.version_minor, b.version_minor) &&
           each("targets", a.targets, b.targets,
                [&](size_t i, auto x, auto y) { return same(at("target", i), x, y); }) &&
           same("has_address_size", a.has_address_size, b.has_address_size) &&
           same("address_size", a.address_size, b.address_size) &&
           each("files", a.files, b.files,
                [&](size_t i, const FileEntry& x, const FileEntry& y) {
                  Where w(*this, at("file", i));
                  return same("index", x.index, y.index) && same("path", x.path, y.path) &&
                         same("has_extra", x.has_extra, y.has_extra) &&
                         same("timestamp", x.timestamp, y.timestamp) &&
                         same("size", x.size, y.size);
                }) &&
           each("module pragmas", a.pragmas, b.pragmas,
                [&](size_t i, auto x, auto y) { return same(at("module pragma", i), x, y); }) &&
           each("globals", a.globals, b.globals,
                [&](size_t i, const Variable& x, const Variable& y) {
                  Where w(*this, fmt::format("global {} '{}'", i, x.name));
                  return variable(x, y);
                }) &&
           each("functions", a.functions, b.functions,
                [&](size_t, const Function& x, const Function& y) { return function(x, y); }) &&
           each("aliases", a.aliases, b.aliases,
                [&](size_t i, const Alias& x, const Alias& y) {
                  Where w(*this, at("alias", i));
                  return same("alias", x.alias, y.alias) && same("target", x.target, y.target);
                }) &&
           each("module items", a.items, b.items,
                [&](size_t i, const ModuleItem& x, const ModuleItem& y) {
                  Where w(*this, at("module item", i));
                  return same("kind", x.kind, y.kind) && same("index", x.index, y.index);
                });
  }

  const std::string& difference() const { return difference_; }

 private:
  // Extends the path for the lifetime of the object.
  class Where {
   public:
    Where(Comparer& c, std::string_view step) : c_(c), size_(c.where_.size()) {
      c.where_ += step;
      c.where_ += ": ";
    }
    ~Where() { c_.where_.resize(size_); }
    Where(const Where&) = delete;
    Where& operator=(const Where&) = delete;

   private:
    Comparer& c_;
    size_t size_;
  };

  static std::string at(std::string_view what, size_t i) { return fmt::format("{} {}", what, i); }

  bool fail(std::string_view field, const std::string& a, const std::string& b) {
    difference_ = fmt::format("{}{}: {} vs {}", where_, field, a, b);
    return false;
  }

  template <typename T>
  bool same(std::string_view field, const T& a, const T& b) {
    return a == b || fail(field, show(a), show(b));
  }

  template <typename T, size_t N>
  bool same_array(std::string_view field, const std::array<T, N>& a, const std::array<T, N>& b) {
    for (size_t i = 0; i < N; ++i)
      if (!same(fmt::format("{}[{}]", field, i), a[i], b[i])) return false;
    return true;
  }

  // Equal sizes, then `f(index, a[i], b[i])` for each element. Works on
  // vectors and spans.
  template <typename Seq, typename F>
  bool each(std::string_view what, const Seq& a, const Seq& b, F&& f) {
    if (a.size() != b.size())
      return fail(fmt::format("number of {}", what), show(a.size()), show(b.size()));
    for (size_t i = 0; i < a.size(); ++i)
      if (!f(i, a[i], b[i])) return false;
    return true;
  }

  bool variable(const Variable& a, const Variable& b) {
    return same("name", a.name, b.name) && same("space", a.space, b.space) &&
           same("linkage", a.linkage, b.linkage) && same("type", a.type, b.type) &&
           same("vector width", a.vec, b.vec) && same("align", a.align, b.align) &&
           same("dims", a.dims, b.dims) && same("managed", a.managed, b.managed) &&
           same("is_ptr", a.is_ptr, b.is_ptr) && same("ptr_space", a.ptr_space, b.ptr_space) &&
           same("ptr_align", a.ptr_align, b.ptr_align) &&
           same("has_init", a.has_init, b.has_init) &&
           same("init_braced", a.init_braced, b.init_braced) &&
           each("initialiser values", a.init, b.init,
                [&](size_t i, const InitValue& x, const InitValue& y) {
                  Where w(*this, at("initialiser value", i));
                  return same("kind", x.kind, y.kind) && same("fsyntax", x.fsyntax, y.fsyntax) &&
                         same("value", x.value, y.value) && same("name", x.name, y.name) &&
                         same("mask", x.mask, y.mask) && same("symbol", x.sym, y.sym);
                }) &&
           same("scope", a.scope, b.scope);
  }

  bool variables(std::string_view plural, std::string_view singular, const std::vector<Variable>& a,
                 const std::vector<Variable>& b) {
    return each(plural, a, b, [&](size_t i, const Variable& x, const Variable& y) {
      Where w(*this, fmt::format("{} {} '{}'", singular, i, x.name));
      return variable(x, y);
    });
  }

  bool performance(const PerformanceDirectives& a, const PerformanceDirectives& b) {
    auto list = [&](std::string_view name, const std::vector<uint32_t>& x,
                    const std::vector<uint32_t>& y) {
      return x == y || fail(name, fmt::format("[{}]", fmt::join(x, ", ")),
                            fmt::format("[{}]", fmt::join(y, ", ")));
    };
    return list(".maxntid", a.maxntid, b.maxntid) && list(".reqntid", a.reqntid, b.reqntid) &&
           list(".reqnctapercluster", a.reqnctapercluster, b.reqnctapercluster) &&
           same(".minnctapersm", a.minnctapersm, b.minnctapersm) &&
           same(".maxnreg", a.maxnreg, b.maxnreg) &&
           same(".maxclusterrank", a.maxclusterrank, b.maxclusterrank) &&
           same(".explicitcluster", a.explicitcluster, b.explicitcluster) &&
           same(".blocksareclusters", a.blocksareclusters, b.blocksareclusters) &&
           same(".abi_preserve", a.abi_preserve, b.abi_preserve) &&
           same(".abi_preserve_control", a.abi_preserve_control, b.abi_preserve_control);
  }

  bool modifiers(const Modifiers& a, const Modifiers& b) {
    Where w(*this, "modifiers");
    return same("num_types", a.num_types, b.num_types) && same_array("types", a.types, b.types) &&
           same("num_spaces", a.num_spaces, b.num_spaces) &&
           same_array("spaces", a.spaces, b.spaces) && same("rounding", a.rounding, b.rounding) &&
           same("cmp", a.cmp, b.cmp) && same("op", a.op, b.op) && same("vec", a.vec, b.vec) &&
           same("scope", a.scope, b.scope) && same("sem", a.sem, b.sem) &&
           same("cache", a.cache, b.cache) && same("geom", a.geom, b.geom) &&
           same("num_layouts", a.num_layouts, b.num_layouts) &&
           same_array("layouts", a.layouts, b.layouts) && same("count", a.count, b.count) &&
           same("shape", a.shape, b.shape) && same("flags", a.flags, b.flags);
  }

  bool reg(std::string_view field, const Function& fa, uint32_t a, const Function& fb, uint32_t b) {
    if (a == b) return true;
    auto name = [](const Function& f, uint32_t r) {
      return r == kNone ? std::string("none") : fmt::format("{} ({})", r, f.register_name(r));
    };
    return fail(field, name(fa, a), name(fb, b));
  }

  bool operand(const Function& fa, const Operand& a, const Function& fb, const Operand& b) {
    if (!same("kind", a.kind, b.kind)) return false;
    bool ok = same("negated", a.negated, b.negated) &&
              same("component", a.component, b.component) &&
              same("fsyntax", a.fsyntax, b.fsyntax) && same("base", a.base, b.base) &&
              same("sreg", a.sreg, b.sreg) && same("sreg_index", a.sreg_index, b.sreg_index) &&
              reg("reg", fa, a.reg, fb, b.reg) && same("symbol", a.sym, b.sym) &&
              same("name", a.name, b.name) && same("value", a.value, b.value);
    if (!ok) return false;
    bool grouped = a.kind == OperandKind::Vector || a.kind == OperandKind::Pair ||
                   a.kind == OperandKind::List || a.kind == OperandKind::Address;
    if (!grouped) return same("count", a.count, b.count);
    return each("elements", fa.elements(a), fb.elements(b),
                [&](size_t i, const Operand& x, const Operand& y) {
                  Where w(*this, at("element", i));
                  return operand(fa, x, fb, y);
                });
  }

  // Not compared: loc (a source position) and annotation (not PTX; see equivalence.h).
  bool instruction(const Function& fa, const Instruction& a, const Function& fb,
                   const Instruction& b) {
    return same("opcode", a.opcode, b.opcode) && modifiers(a.mods, b.mods) &&
           each("modifier tokens", fa.mods_of(a), fb.mods_of(b),
                [&](size_t i, ModToken x, ModToken y) { return same(at("modifier", i), x, y); }) &&
           same("has_guard", a.has_guard, b.has_guard) &&
           same("guard_negated", a.guard_negated, b.guard_negated) &&
           reg("guard", fa, a.guard_reg, fb, b.guard_reg) && same("scope", a.scope, b.scope) &&
           same(".loc", a.debug, b.debug) &&
           each("operands", fa.operands_of(a), fb.operands_of(b),
                [&](size_t i, const Operand& x, const Operand& y) {
                  Where w(*this, at("operand", i));
                  return operand(fa, x, fb, y);
                });
  }

  bool body(const Function& a, const Function& b) {
    return each("register declarations", a.reg_decls, b.reg_decls,
                [&](size_t i, const RegisterDecl& x, const RegisterDecl& y) {
                  Where w(*this, fmt::format("register declaration {} '{}'", i, x.name));
                  return same("name", x.name, y.name) && same("type", x.type, y.type) &&
                         same("vector width", x.vec, y.vec) && same("count", x.count, y.count) &&
                         same("first_reg", x.first_reg, y.first_reg) &&
                         same("scope", x.scope, y.scope);
                }) &&
           each("registers", a.registers, b.registers,
                [&](size_t i, const Register& x, const Register& y) {
                  Where w(*this, fmt::format("register {} ({})", i, a.register_name(uint32_t(i))));
                  return same("decl", x.decl, y.decl) && same("index", x.index, y.index) &&
                         same("type", x.type, y.type) && same("vector width", x.vec, y.vec);
                }) &&
           variables("variables", "variable", a.variables, b.variables) &&
           each("scopes", a.scopes, b.scopes,
                [&](size_t i, const ScopeInfo& x, const ScopeInfo& y) {
                  return same(at("parent of scope", i), x.parent, y.parent);
                }) &&
           each("labels", a.labels, b.labels,
                [&](size_t i, const Label& x, const Label& y) {
                  Where w(*this, fmt::format("label {} '{}'", i, x.name));
                  return same("name", x.name, y.name) &&
                         same("instruction", x.instruction, y.instruction) &&
                         same("scope", x.scope, y.scope);
                }) &&
           each("call prototypes", a.prototypes, b.prototypes,
                [&](size_t i, const CallPrototype& x, const CallPrototype& y) {
                  Where w(*this, fmt::format("call prototype {} '{}'", i, x.name));
                  return same("name", x.name, y.name) &&
                         variables("return parameters", "return parameter", x.returns, y.returns) &&
                         variables("parameters", "parameter", x.params, y.params) &&
                         same("noreturn", x.noreturn, y.noreturn) &&
                         same("scope", x.scope, y.scope);
                }) &&
           each("target lists", a.target_lists, b.target_lists,
                [&](size_t i, const TargetList& x, const TargetList& y) {
                  Where w(*this, fmt::format("target list {} '{}'", i, x.name));
                  return same("name", x.name, y.name) &&
                         same("is_branch", x.is_branch, y.is_branch) &&
                         each(
                             "names", x.names, y.names,
                             [&](size_t k, auto p, auto q) { return same(at("name", k), p, q); }) &&
                         each("targets", x.targets, y.targets,
                              [&](size_t k, SymbolRef p, SymbolRef q) {
                                return same(at("target", k), p, q);
                              }) &&
                         same("scope", x.scope, y.scope);
                }) &&
           each("instructions", a.instructions, b.instructions,
                [&](size_t i, const Instruction& x, const Instruction& y) {
                  Where w(*this, fmt::format("instruction {} ({})", i, mnemonic(x.opcode)));
                  return instruction(a, x, b, y);
                }) &&
           each("body items", a.body, b.body, [&](size_t i, const BodyItem& x, const BodyItem& y) {
             Where w(*this, at("body item", i));
             return same("kind", x.kind, y.kind) && same("index", x.index, y.index);
           });
  }

  bool function(const Function& a, const Function& b) {
    Where w(*this, fmt::format("function '{}'", a.name));
    return same("name", a.name, b.name) && same("is_entry", a.is_entry, b.is_entry) &&
           same("linkage", a.linkage, b.linkage) && same("has_body", a.has_body, b.has_body) &&
           same("noreturn", a.noreturn, b.noreturn) &&
           variables("return parameters", "return parameter", a.returns, b.returns) &&
           variables("parameters", "parameter", a.params, b.params) &&
           performance(a.perf, b.perf) &&
           each("pragmas", a.pragmas, b.pragmas,
                [&](size_t i, auto x, auto y) { return same(at("pragma", i), x, y); }) &&
           body(a, b);
  }

  std::string where_;
  std::string difference_;
};

}  // namespace

bool equivalent(const Module& a, const Module& b, std::string* difference) {
  Comparer c;
  bool same = c.module(a, b);
  if (difference) *difference = same ? std::string() : c.difference();
  return same;
}

}  // namespace warpsim::ptx
