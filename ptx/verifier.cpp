// Internal consistency of a module's IR; see ptx/verifier.h. Every index is
// compared with the size of what it indexes before anything is read through
// it, and element ranges are checked over the flat pools (not recursively),
// so no module, however broken, makes the verifier itself misbehave.
#include "ptx/verifier.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

namespace warpsim::ptx {

namespace {

class Verifier {
 public:
  Verifier(const Module& m, DiagnosticEngine& d) : m_(m), d_(d) {}

  void run() {
    for (const Variable& g : m_.globals) initialiser(nullptr, g);
    for (const ModuleItem& item : m_.items) module_item(item);
    for (const Function& f : m_.functions) {
      if (d_.limit_reached()) return;
      function(f);
    }
  }

  bool ok() const { return errors_ == 0; }

 private:
  void error(const Function* f, SourceLocation loc, const std::string& msg) {
    ++errors_;
    d_.error(m_.source.get(), loc, f ? fmt::format("in function '{}': {}", f->name, msg) : msg);
  }

  // How many elements a resolved symbol of `kind` may index (module-level
  // symbols only when `f` is null).
  size_t symbol_limit(const Function* f, SymbolKind kind) const {
    switch (kind) {
      case SymbolKind::Unresolved: return std::numeric_limits<size_t>::max();
      case SymbolKind::Global: return m_.globals.size();
      case SymbolKind::Function: return m_.functions.size();
      case SymbolKind::Local: return f ? f->variables.size() : 0;
      case SymbolKind::Param: return f ? f->params.size() : 0;
      case SymbolKind::ReturnParam: return f ? f->returns.size() : 0;
      case SymbolKind::Label: return f ? f->labels.size() : 0;
      case SymbolKind::Prototype: return f ? f->prototypes.size() : 0;
      case SymbolKind::TargetList: return f ? f->target_lists.size() : 0;
    }
    return 0;
  }

  void symbol(const Function* f, SymbolRef s, std::string_view name, SourceLocation loc) {
    if (s.index < symbol_limit(f, s.kind)) return;
    error(f, loc, fmt::format("'{}' refers to {} #{}, which does not exist", name,
                              symbol_kind_name(s.kind), s.index));
  }

  void initialiser(const Function* f, const Variable& v) {
    for (const InitValue& iv : v.init)
      if (iv.kind == InitValue::Kind::Address || iv.kind == InitValue::Kind::GenericAddress)
        symbol(f, iv.sym, iv.name, iv.loc);
  }

  void module_item(const ModuleItem& item) {
    size_t limit = 0;
    switch (item.kind) {
      case ModuleItemKind::Global: limit = m_.globals.size(); break;
      case ModuleItemKind::FunctionDecl:
      case ModuleItemKind::FunctionDef: limit = m_.functions.size(); break;
      case ModuleItemKind::Alias: limit = m_.aliases.size(); break;
    }
    if (item.index >= limit)
      error(nullptr, {}, fmt::format("module item #{} does not exist", item.index));
  }

  void function(const Function& f) {
    scopes(f);
    registers(f);
    instructions(f);
    operands(f);
    for (const Label& l : f.labels) {
      if (l.instruction > f.instructions.size())
        error(&f, l.loc, fmt::format("label '{}' is past the end of the function", l.name));
      scope(f, l.scope, l.loc);
    }
    for (const Variable& v : f.variables) {
      initialiser(&f, v);
      scope(f, v.scope, v.loc);
    }
    for (const CallPrototype& p : f.prototypes) scope(f, p.scope, p.loc);
    for (const TargetList& t : f.target_lists) {
      for (size_t k = 0; k < t.targets.size(); ++k)
        symbol(&f, t.targets[k], k < t.names.size() ? t.names[k] : t.name, t.loc);
      scope(f, t.scope, t.loc);
    }
    body(f);
  }

  void scope(const Function& f, uint32_t s, SourceLocation loc) {
    if (s >= f.scopes.size()) error(&f, loc, fmt::format("scope {} does not exist", s));
  }

  void scopes(const Function& f) {
    for (size_t s = 0; s < f.scopes.size(); ++s)
      if (f.scopes[s].parent != kNone && f.scopes[s].parent >= f.scopes.size())
        error(&f, f.loc, fmt::format("scope {} has parent {}, which does not exist", s,
                                     f.scopes[s].parent));
  }

  // Declarations cover registers that exist, and every register is covered
  // by the declaration it names (a pass that drops a declaration still in
  // use leaves registers pointing at nothing, or at the wrong declaration).
  void registers(const Function& f) {
    const size_t n = f.registers.size();
    for (const RegisterDecl& d : f.reg_decls) {
      if (uint64_t{d.first_reg} + std::max<uint32_t>(d.count, 1) > n)
        error(&f, d.loc, fmt::format("declaration of register '{}' covers registers that do not "
                                     "exist",
                                     d.name));
      scope(f, d.scope, d.loc);
    }
    for (uint32_t r = 0; r < n; ++r) {
      const Register& reg = f.registers[r];
      const RegisterDecl* d = reg.decl < f.reg_decls.size() ? &f.reg_decls[reg.decl] : nullptr;
      if (d == nullptr || uint64_t{d->first_reg} + reg.index != r ||
          reg.index >= std::max<uint32_t>(d->count, 1))
        error(&f, f.loc, fmt::format("register #{} has no declaration", r));
      else if (reg.type != d->type || reg.vec != d->vec)
        error(&f, d->loc, fmt::format("register '{}' does not have its declaration's type",
                                      f.register_name(r)));
    }
  }

  void instructions(const Function& f) {
    for (size_t i = 0; i < f.instructions.size(); ++i) {
      const Instruction& inst = f.instructions[i];
      const std::string what = fmt::format("instruction {} ('{}')", i, mnemonic(inst.opcode));
      if (uint64_t{inst.first_operand} + inst.num_operands > f.operands.size())
        error(&f, inst.loc, what + " has operands past the end of the function's operand pool");
      if (uint64_t{inst.first_mod} + inst.num_mods > f.mod_tokens.size())
        error(&f, inst.loc, what + " has modifier tokens past the end of the function's pool");
      if (inst.guard_reg != kNone && inst.guard_reg >= f.registers.size())
        error(&f, inst.loc,
              fmt::format("{} is guarded by register #{}, which does not exist", what,
                          inst.guard_reg));
      scope(f, inst.scope, inst.loc);
    }
  }

  // The operands instructions use, elements included (they live in the same
  // pool). Operands nothing uses are not looked at: the parser's error
  // recovery can leave some behind. Each is visited once, so elements that
  // point back at their parent do not loop.
  void operands(const Function& f) {
    const size_t n = f.operands.size();
    std::vector<bool> seen(n, false);
    std::vector<std::pair<uint32_t, uint32_t>> ranges;  // (first, count), within the pool
    for (const Instruction& inst : f.instructions)
      if (uint64_t{inst.first_operand} + inst.num_operands <= n)
        ranges.emplace_back(inst.first_operand, inst.num_operands);
    while (!ranges.empty()) {
      const auto [first, count] = ranges.back();
      ranges.pop_back();
      for (uint32_t i = first; i < first + count; ++i) {
        if (seen[i]) continue;
        seen[i] = true;
        const Operand& op = f.operands[i];
        const bool reg_based =
            op.kind == OperandKind::Register ||
            (op.kind == OperandKind::Address && op.base == AddressBase::Register);
        if (reg_based && op.reg != kNone && op.reg >= f.registers.size())
          error(&f, op.loc,
                fmt::format("an operand uses register #{}, which does not exist", op.reg));
        const bool symbolic = op.kind == OperandKind::Symbol ||
                              (op.kind == OperandKind::Address && op.base == AddressBase::Symbol);
        if (symbolic) symbol(&f, op.sym, op.name, op.loc);
        const bool grouped = op.kind == OperandKind::Vector || op.kind == OperandKind::Pair ||
                             op.kind == OperandKind::List || op.kind == OperandKind::Address;
        if (!grouped || op.count == 0) continue;
        if (uint64_t{op.first} + op.count > n)
          error(&f, op.loc,
                "an operand's elements are past the end of the function's operand pool");
        else
          ranges.emplace_back(op.first, op.count);
      }
    }
  }

  void body(const Function& f) {
    for (const BodyItem& item : f.body) {
      size_t limit = 0;
      switch (item.kind) {
        case BodyItemKind::Instruction: limit = f.instructions.size(); break;
        case BodyItemKind::Label: limit = f.labels.size(); break;
        case BodyItemKind::ScopeBegin:
        case BodyItemKind::ScopeEnd: limit = f.scopes.size(); break;
        case BodyItemKind::RegisterDecl: limit = f.reg_decls.size(); break;
        case BodyItemKind::Variable: limit = f.variables.size(); break;
        case BodyItemKind::Pragma: limit = f.pragmas.size(); break;
        case BodyItemKind::Prototype: limit = f.prototypes.size(); break;
        case BodyItemKind::TargetList: limit = f.target_lists.size(); break;
      }
      if (item.index >= limit)
        error(&f, f.loc, fmt::format("body item #{} does not exist", item.index));
    }
  }

  const Module& m_;
  DiagnosticEngine& d_;
  size_t errors_ = 0;
};

}  // namespace

bool verify(const Module& module, DiagnosticEngine& diags) {
  Verifier v(module, diags);
  v.run();
  return v.ok();
}

}  // namespace warpsim::ptx
