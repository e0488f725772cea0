// ModuleBuilder: functions, parameters, bodies, scopes, labels and name resolution.
#include <fmt/format.h>

#include "ptx/module_builder.h"
#include "ptx/parse.h"

namespace warpsim::ptx {

void ModuleBuilder::function_begin(bool is_entry, std::string_view name, SourceLocation loc) {
  current_ = Function{};
  current_.is_entry = is_entry;
  current_.name = name;
  current_.loc = loc;
  current_.linkage = pending_linkage_;
  current_.scopes.push_back({kNone});
  pending_linkage_ = kLinkageNone;
  in_function_ = true;
  in_body_ = false;
  param_target_ = ParamTarget::Function;
  for (auto& s : scope_names_) {
    s.regs.clear();
    s.ranges.clear();
    s.symbols.clear();
  }
  pending_uses_.clear();
  has_pending_label_ = false;
  debug_ = DebugLoc{};
}

void ModuleBuilder::function_begin_func(SourceLocation loc) { function_begin(false, {}, loc); }

void ModuleBuilder::function_name(std::string_view name, SourceLocation loc) {
  current_.name = name;
  current_.loc = loc;
  param_target_ = ParamTarget::Function;
}

void ModuleBuilder::params_begin(bool returns) {
  if (in_prototype_)
    param_target_ = returns ? ParamTarget::PrototypeReturns : ParamTarget::Prototype;
  else
    param_target_ = returns ? ParamTarget::FunctionReturns : ParamTarget::Function;
}

void ModuleBuilder::param_end() {
  const PendingDeclarator& d = declarator_;
  if (decl_.type == ScalarType::None) {
    error(d.loc, fmt::format("declaration of '{}' has no type", d.name));
    decl_.type = ScalarType::B32;  // keep going with a plausible type
  }
  if (decl_.space != StateSpace::Param && decl_.space != StateSpace::Reg) {
    error(decl_.loc, fmt::format("parameters must be in .param or .reg, not .{}",
                                 space_name(decl_.space)));
    return;
  }
  if (d.is_range) return;
  Variable v = make_variable(d);
  std::vector<Variable>* list = nullptr;
  switch (param_target_) {
    case ParamTarget::Function: list = &current_.params; break;
    case ParamTarget::FunctionReturns: list = &current_.returns; break;
    case ParamTarget::Prototype: list = &prototype_.params; break;
    case ParamTarget::PrototypeReturns: list = &prototype_.returns; break;
  }
  bool in_proto = param_target_ == ParamTarget::Prototype ||
                  param_target_ == ParamTarget::PrototypeReturns;
  if (!in_proto) {
    if (v.space == StateSpace::Reg) {
      // Old-style register parameters are registers of the body.
      add_register_decl(d);
    } else {
      SymbolKind kind = param_target_ == ParamTarget::Function ? SymbolKind::Param
                                                               : SymbolKind::ReturnParam;
      if (!declare_symbol(0, v.name, {kind, static_cast<uint32_t>(list->size())}, v.loc)) return;
    }
  }
  list->push_back(std::move(v));
}

void ModuleBuilder::int_list_item(uint64_t v, bool first) {
  if (first) int_list_.clear();
  int_list_.push_back(static_cast<uint32_t>(std::min<uint64_t>(v, 0xffffffffu)));
}

void ModuleBuilder::perf_directive(int token, SourceLocation loc) {
  if (int_list_.empty() || int_list_.size() > 3) {
    error(loc, "expected 1 to 3 dimensions");
    return;
  }
  for (uint32_t v : int_list_)
    if (v == 0) error(loc, "dimensions must be positive");
  using T = Parser::token;
  auto& perf = current_.perf;
  if (token == T::TOK_MAXNTID) perf.maxntid = int_list_;
  else if (token == T::TOK_REQNTID) perf.reqntid = int_list_;
  else perf.reqnctapercluster = int_list_;
}

void ModuleBuilder::perf_scalar(int token, uint64_t value, SourceLocation loc) {
  using T = Parser::token;
  auto& perf = current_.perf;
  uint32_t v = static_cast<uint32_t>(std::min<uint64_t>(value, 0xffffffffu));
  switch (token) {
    case T::TOK_MINNCTAPERSM: perf.minnctapersm = v; break;
    case T::TOK_MAXNREG: perf.maxnreg = v; break;
    case T::TOK_MAXCLUSTERRANK: perf.maxclusterrank = v; break;
    case T::TOK_ABI_PRESERVE: perf.abi_preserve = v; break;
    case T::TOK_ABI_PRESERVE_CONTROL: perf.abi_preserve_control = v; break;
    case T::TOK_EXPLICITCLUSTER: perf.explicitcluster = true; break;
    case T::TOK_BLOCKSAREACLUSTERS: perf.blocksareclusters = true; break;
    default: error(loc, "unexpected performance directive");
  }
}

void ModuleBuilder::set_noreturn() { current_.noreturn = true; }

void ModuleBuilder::function_end_decl(SourceLocation) {
  merge_function(false);
  in_function_ = false;
}

void ModuleBuilder::body_begin(SourceLocation) {
  in_body_ = true;
  scope_stack_.assign(1, 0);
  excess_depth_ = 0;
  current_.has_body = true;
}

void ModuleBuilder::body_end(SourceLocation) {
  resolve_body_names();
  in_body_ = false;
  in_function_ = false;
  merge_function(true);
}

void ModuleBuilder::recover_function() {
  reset_instruction();
  in_body_ = false;
  in_function_ = false;
  in_prototype_ = false;
  scope_stack_.assign(1, 0);
  excess_depth_ = 0;
}

void ModuleBuilder::merge_function(bool has_body) {
  if (current_.name.empty()) return;
  Function& f = current_;
  f.has_body = has_body;
  auto it = module_symbols_.find(f.name);
  uint32_t index;
  if (it != module_symbols_.end()) {
    if (it->second.kind != SymbolKind::Function) {
      error(f.loc, fmt::format("'{}' is already declared as a variable", f.name));
      return;
    }
    index = it->second.index;
    Function& old = module_.functions[index];
    if (has_body && old.has_body) {
      error(f.loc, fmt::format("duplicate definition of function '{}'", f.name));
      return;
    }
    if (f.is_entry != old.is_entry) {
      error(f.loc, fmt::format("'{}' is declared both as .entry and as .func", f.name));
      return;
    }
    if (has_body) {
      f.linkage |= old.linkage & ~kExtern;
      old = std::move(f);
    }
    module_.items.push_back({has_body ? ModuleItemKind::FunctionDef : ModuleItemKind::FunctionDecl,
                             index});
  } else {
    index = static_cast<uint32_t>(module_.functions.size());
    module_symbols_.emplace(f.name, SymbolRef{SymbolKind::Function, index});
    module_.functions.push_back(std::move(f));
    module_.items.push_back({has_body ? ModuleItemKind::FunctionDef : ModuleItemKind::FunctionDecl,
                             index});
  }
  if (has_body) {
    // Names not found in the body are globals or functions: resolved in finish().
    const Function& g = module_.functions[index];
    for (uint32_t i = 0; i < g.operands.size(); ++i) {
      const Operand& op = g.operands[i];
      bool symbolic = op.kind == OperandKind::Symbol ||
                      (op.kind == OperandKind::Address && op.base == AddressBase::Symbol);
      if (symbolic && op.sym.kind == SymbolKind::Unresolved && op.sym.index != kNone)
        module_uses_.push_back({index, i});
    }
    for (uint32_t t = 0; t < g.target_lists.size(); ++t)
      if (!g.target_lists[t].is_branch) calltarget_uses_.push_back({index, t});
  }
  current_ = Function{};
}

// ---- body statements -------------------------------------------------------------------

void ModuleBuilder::scope_begin(SourceLocation loc) {
  if (excess_depth_ > 0 || scope_stack_.size() > kMaxBlockDepth) {
    // Reported once per run of too-deep blocks; their contents still parse
    // (in the innermost allowed scope) so the rest of the file is checked.
    if (excess_depth_++ == 0)
      error(loc, fmt::format("blocks nested deeper than {} levels", kMaxBlockDepth));
    return;
  }
  uint32_t id = static_cast<uint32_t>(fn().scopes.size());
  fn().scopes.push_back({current_scope()});
  scope_names(id);  // make sure the tables exist (and are empty)
  scope_names_[id].regs.clear();
  scope_names_[id].ranges.clear();
  scope_names_[id].symbols.clear();
  scope_stack_.push_back(id);
  fn().body.push_back({BodyItemKind::ScopeBegin, id});
  has_pending_label_ = false;
}

void ModuleBuilder::scope_end(SourceLocation) {
  if (excess_depth_ > 0) {
    --excess_depth_;
    return;
  }
  uint32_t id = current_scope();
  if (scope_stack_.size() > 1) scope_stack_.pop_back();
  fn().body.push_back({BodyItemKind::ScopeEnd, id});
  has_pending_label_ = false;
}

void ModuleBuilder::label(std::string_view name, SourceLocation loc) {
  Function& f = fn();
  uint32_t index = static_cast<uint32_t>(f.labels.size());
  if (!declare_symbol(current_scope(), name, {SymbolKind::Label, index}, loc)) return;
  f.labels.push_back({name, static_cast<uint32_t>(f.instructions.size()), current_scope(), loc});
  f.body.push_back({BodyItemKind::Label, index});
  has_pending_label_ = true;
}

bool ModuleBuilder::take_pending_label(std::string_view& name, SourceLocation& loc) {
  Function& f = fn();
  if (!has_pending_label_ || f.body.empty() || f.body.back().kind != BodyItemKind::Label)
    return false;
  const Label& l = f.labels.back();
  name = l.name;
  loc = l.loc;
  scope_names(l.scope).symbols.erase(l.name);
  f.labels.pop_back();
  f.body.pop_back();
  has_pending_label_ = false;
  return true;
}

void ModuleBuilder::debug_loc(uint64_t file, uint64_t line, uint64_t column, SourceLocation) {
  debug_.file = static_cast<uint32_t>(std::min<uint64_t>(file, 0xffffffffu));
  debug_.line = static_cast<uint32_t>(std::min<uint64_t>(line, 0xffffffffu));
  debug_.column = static_cast<uint32_t>(std::min<uint64_t>(column, 0xffffffffu));
}

void ModuleBuilder::prototype_begin(SourceLocation loc) {
  prototype_ = CallPrototype{};
  prototype_.loc = loc;
  if (!take_pending_label(prototype_.name, prototype_.loc))
    error(loc, ".callprototype must be preceded by a label");
  in_prototype_ = true;
}

void ModuleBuilder::prototype_end(std::string_view placeholder, SourceLocation loc) {
  in_prototype_ = false;
  param_target_ = ParamTarget::Function;
  if (placeholder != "_")
    error(loc, fmt::format(".callprototype expects '_' in place of the function name, not '{}'",
                           placeholder));
  if (prototype_.name.empty()) return;
  Function& f = fn();
  uint32_t index = static_cast<uint32_t>(f.prototypes.size());
  prototype_.scope = current_scope();
  if (!declare_symbol(current_scope(), prototype_.name, {SymbolKind::Prototype, index},
                      prototype_.loc))
    return;
  f.prototypes.push_back(std::move(prototype_));
  f.body.push_back({BodyItemKind::Prototype, index});
}

void ModuleBuilder::target_list_begin(bool is_branch, SourceLocation loc) {
  TargetList t;
  t.is_branch = is_branch;
  t.loc = loc;
  t.scope = current_scope();
  bool named = take_pending_label(t.name, t.loc);
  if (!named) {
    error(loc, fmt::format("{} must be preceded by a label",
                           is_branch ? ".branchtargets" : ".calltargets"));
    t.name = {};
  }
  Function& f = fn();
  uint32_t index = static_cast<uint32_t>(f.target_lists.size());
  if (named && !declare_symbol(current_scope(), t.name, {SymbolKind::TargetList, index}, t.loc))
    t.name = {};
  f.target_lists.push_back(std::move(t));
  f.body.push_back({BodyItemKind::TargetList, index});
}

void ModuleBuilder::target_name(std::string_view name, SourceLocation loc) {
  TargetList& t = fn().target_lists.back();
  t.names.push_back(name);
  t.targets.push_back({});
  t.locs.push_back(loc);
}

// ---- name resolution --------------------------------------------------------------------

bool ModuleBuilder::resolve_in_scopes(std::string_view name, uint32_t scope, SymbolRef& out) const {
  const Function& f = current_;
  for (uint32_t s = scope; s != kNone; s = f.scopes[s].parent) {
    if (s >= scope_names_.size()) continue;
    const auto& table = scope_names_[s].symbols;
    auto it = table.find(name);
    if (it != table.end()) {
      out = it->second;
      return true;
    }
  }
  return false;
}

void ModuleBuilder::resolve_body_names() {
  Function& f = current_;
  for (const PendingUse& use : pending_uses_) {
    Operand& op = f.operands[use.operand];
    bool found = resolve_in_scopes(op.name, use.scope, op.sym);
    if (!found && (use.opcode == Opcode::Bra || use.opcode == Opcode::Brx)) {
      // Labels are never module-level: report here rather than as an unknown global.
      error(op.loc, fmt::format("undeclared label '{}'", op.name));
      op.sym = {SymbolKind::Unresolved, kNone};  // kNone: already diagnosed
    }
  }
  pending_uses_.clear();
  for (auto& t : f.target_lists) {
    if (!t.is_branch) continue;
    for (size_t i = 0; i < t.names.size(); ++i) {
      SymbolRef ref;
      if (!resolve_in_scopes(t.names[i], t.scope, ref) || ref.kind != SymbolKind::Label)
        error(t.locs[i], fmt::format("undeclared label '{}' in .branchtargets", t.names[i]));
      else
        t.targets[i] = ref;
    }
  }
}

void ModuleBuilder::record_pending_uses(uint32_t first, uint32_t end) {
  const Function& f = current_;
  for (uint32_t i = first; i < end; ++i) {
    const Operand& op = f.operands[i];
    if (op.kind == OperandKind::Symbol ||
        (op.kind == OperandKind::Address && op.base == AddressBase::Symbol))
      pending_uses_.push_back({i, current_scope(), inst_.opcode});
  }
}

void ModuleBuilder::finish() {
  if (!module_.has_version) error({1, 1}, "missing .version directive");
  if (module_.targets.empty()) error({1, 1}, "missing .target directive");
  for (auto [fi, ti] : calltarget_uses_) {
    TargetList& t = module_.functions[fi].target_lists[ti];
    for (size_t i = 0; i < t.names.size(); ++i) {
      auto it = module_symbols_.find(t.names[i]);
      if (it == module_symbols_.end() || it->second.kind != SymbolKind::Function)
        error(t.locs[i], fmt::format("undeclared function '{}' in .calltargets", t.names[i]));
      else
        t.targets[i] = it->second;
    }
  }
  calltarget_uses_.clear();
  for (const ModuleUse& use : module_uses_) {
    Function& f = module_.functions[use.function];
    Operand& op = f.operands[use.operand];
    auto it = module_symbols_.find(op.name);
    if (it == module_symbols_.end()) {
      error(op.loc, fmt::format("undeclared {} '{}'",
                                op.name.starts_with('%') ? "register" : "identifier", op.name));
      continue;
    }
    op.sym = it->second;
  }
  module_uses_.clear();
  // Initialisers are resolved from the final globals: a definition may have
  // replaced an earlier extern declaration (and its initialiser).
  for (Variable& g : module_.globals)
    for (InitValue& iv : g.init) {
      if (iv.kind != InitValue::Kind::Address && iv.kind != InitValue::Kind::GenericAddress)
        continue;
      auto it = module_symbols_.find(iv.name);
      if (it == module_symbols_.end())
        error(iv.loc, fmt::format("undeclared identifier '{}' in initialiser", iv.name));
      else
        iv.sym = it->second;
    }
  for (const Alias& a : module_.aliases) {
    for (std::string_view n : {a.alias, a.target}) {
      auto it = module_symbols_.find(n);
      if (it == module_symbols_.end() || it->second.kind != SymbolKind::Function)
        error(a.loc, fmt::format("undeclared function '{}' in .alias", n));
    }
  }
}

}  // namespace warpsim::ptx
