// ModuleBuilder: instructions and operands.
//
// Operands are collected bottom-up in `scratch_` as the grammar reduces them;
// grouped operands (vectors, pairs, lists, address extras) move their elements
// to `elems_`. end_instruction() appends the top-level operands and then all
// elements to the function's operand pool and rebases element indices, so an
// instruction costs no allocation once the scratch buffers have grown.
#include <fmt/format.h>

#include "ptx/module_builder.h"

namespace warpsim::ptx {

namespace {

Component parse_component(std::string_view s) {
  if (s == "x") return Component::X;
  if (s == "y") return Component::Y;
  if (s == "z") return Component::Z;
  if (s == "w") return Component::W;
  if (s == "r") return Component::X;  // .r/.g/.b/.a alias .x/.y/.z/.w
  if (s == "g") return Component::Y;
  if (s == "b") return Component::Z;
  if (s == "a") return Component::W;
  if (s == "b0") return Component::B0;
  if (s == "b1") return Component::B1;
  if (s == "b2") return Component::B2;
  if (s == "b3") return Component::B3;
  if (s == "h0") return Component::H0;
  if (s == "h1") return Component::H1;
  return Component::None;
}

bool is_comparison(Opcode op) {
  switch (op) {
    case Opcode::Setp: case Opcode::Set: case Opcode::Vset: case Opcode::Vset2:
    case Opcode::Vset4:
      return true;
    default:
      return false;
  }
}

}  // namespace

const uint32_t* ModuleBuilder::find_register(std::string_view name) const {
  const Function& f = current_;
  if (!in_body_) return nullptr;
  for (size_t i = scope_stack_.size(); i-- > 0;) {
    uint32_t s = scope_stack_[i];
    if (s >= scope_names_.size()) continue;
    const ScopeNames& names = scope_names_[s];
    if (!names.regs.empty()) {
      auto it = names.regs.find(name);
      if (it != names.regs.end()) return &it->second;
    }
    if (!names.ranges.empty()) {
      // %r57 -> prefix %r, index 57
      size_t end = name.size();
      size_t digits = end;
      while (digits > 0 && name[digits - 1] >= '0' && name[digits - 1] <= '9') --digits;
      if (digits == end || digits == 0) continue;
      // Leading zeros are not part of a range name (%r05 is not %r5).
      if (name[digits] == '0' && end - digits > 1) continue;
      auto it = names.ranges.find(name.substr(0, digits));
      if (it == names.ranges.end()) continue;
      uint64_t idx = 0;
      for (size_t k = digits; k < end && idx < (1ull << 40); ++k)
        idx = idx * 10 + static_cast<uint64_t>(name[k] - '0');
      const RegisterDecl& d = f.reg_decls[it->second];
      if (idx < d.count) {
        range_hit_ = d.first_reg + static_cast<uint32_t>(idx);
        return &range_hit_;
      }
    }
  }
  return nullptr;
}

void ModuleBuilder::guard(std::string_view reg, bool negated, SourceLocation loc) {
  has_guard_ = true;
  guard_negated_ = negated;
  const uint32_t* r = find_register(reg);
  if (!r) {
    error(loc, fmt::format("undeclared register '{}'", reg));
    guard_reg_ = kNone;
    return;
  }
  guard_reg_ = *r;
}

void ModuleBuilder::begin_instruction(std::string_view mnemonic, SourceLocation loc) {
  inst_ = Instruction{};
  inst_.loc = loc;
  inst_.first_mod = static_cast<uint32_t>(fn().mod_tokens.size());
  inst_valid_ = true;
  size_t dot = mnemonic.find('.');
  std::string_view word = mnemonic.substr(0, dot);
  auto op = find_opcode(word);
  if (!op) {
    error(loc, fmt::format("unknown instruction '{}'", word));
    inst_valid_ = false;
    return;
  }
  inst_.opcode = *op;
  while (dot != std::string_view::npos) {
    size_t next = mnemonic.find('.', dot + 1);
    std::string_view m = mnemonic.substr(dot + 1, next == std::string_view::npos ? next : next - dot - 1);
    SourceLocation mloc{loc.line, loc.column + static_cast<uint32_t>(dot)};
    MatrixShape shape;
    auto tok = find_modifier(m, shape);
    // `.hi`/`.lo` are unsigned comparisons on comparing instructions and
    // upper/lower-half selectors everywhere else (mul.hi, mad.lo, dp2a.lo).
    if (tok && tok->category == ModCategory::Cmp &&
        (tok->value == static_cast<uint8_t>(CmpOp::Hi) ||
         tok->value == static_cast<uint8_t>(CmpOp::Lo)) &&
        !is_comparison(inst_.opcode))
      tok = ModToken{ModCategory::Flag, static_cast<uint8_t>(tok->value == static_cast<uint8_t>(CmpOp::Hi)
                                                                 ? Flag::Hi
                                                                 : Flag::Lo)};
    if (!tok) {
      error(mloc, fmt::format("unknown modifier '.{}' on '{}'", m, word));
      inst_valid_ = false;
    } else if (!apply_modifier(inst_.mods, *tok, shape)) {
      error(mloc, fmt::format("modifier '.{}' conflicts with an earlier modifier of '{}'", m, word));
      inst_valid_ = false;
    } else {
      fn().mod_tokens.push_back(*tok);
      ++inst_.num_mods;
    }
    dot = next;
  }
}

void ModuleBuilder::push_register(std::string_view text, SourceLocation loc) {
  Operand op;
  op.loc = loc;
  std::string_view name = text;
  std::string_view suffix;
  if (size_t dot = text.find('.'); dot != std::string_view::npos) {
    name = text.substr(0, dot);
    suffix = text.substr(dot + 1);
  }
  if (auto sreg = find_special_register(name.substr(1))) {
    op.kind = OperandKind::Special;
    op.sreg = sreg->reg;
    op.sreg_index = sreg->index;
    if (!suffix.empty()) {
      Component c = parse_component(suffix);
      if (!special_register_info(sreg->reg).is_vector || c < Component::X || c > Component::Z) {
        error(loc, fmt::format("invalid component '.{}' for special register '{}'", suffix, name));
        inst_valid_ = false;
      }
      op.component = c;
    }
    scratch_.push_back(op);
    return;
  }
  const uint32_t* r = find_register(name);
  if (!r) {
    // PTX identifiers may start with '%': a non-register %name is a symbol,
    // resolved (or reported as an undeclared register) later.
    if (!suffix.empty()) {
      error(loc, fmt::format("undeclared register '{}'", name));
      inst_valid_ = false;
    }
    push_name(text, 0, loc);
    return;
  }
  op.kind = OperandKind::Register;
  op.reg = *r;
  if (!suffix.empty()) {
    op.component = parse_component(suffix);
    if (op.component == Component::None) {
      error(loc, fmt::format("invalid register suffix '.{}'", suffix));
      inst_valid_ = false;
    }
  }
  scratch_.push_back(op);
}

void ModuleBuilder::push_name(std::string_view name, int64_t offset, SourceLocation loc) {
  Operand op;
  op.loc = loc;
  if (name == "_") {
    op.kind = OperandKind::Sink;
    scratch_.push_back(op);
    return;
  }
  if (name == "WARP_SZ") {  // PTX's predefined warp-size constant
    op.kind = OperandKind::Immediate;
    op.value = 32 + offset;
    scratch_.push_back(op);
    return;
  }
  if (const uint32_t* r = find_register(name)) {
    op.kind = OperandKind::Register;
    op.reg = *r;
    if (offset != 0) {
      error(loc, fmt::format("a register ('{}') cannot take an offset here", name));
      inst_valid_ = false;
    }
    scratch_.push_back(op);
    return;
  }
  op.kind = OperandKind::Symbol;
  op.name = name;
  op.value = offset;
  scratch_.push_back(op);
}

void ModuleBuilder::push_int(int64_t value, SourceLocation loc) {
  Operand op;
  op.kind = OperandKind::Immediate;
  op.value = value;
  op.loc = loc;
  scratch_.push_back(op);
}

void ModuleBuilder::push_float(FloatSyntax syntax, std::string_view text, bool negative,
                               SourceLocation loc) {
  Operand op;
  op.kind = OperandKind::Float;
  op.fsyntax = syntax;
  op.value = float_bits(syntax, text, negative, loc);
  op.loc = loc;
  scratch_.push_back(op);
}

void ModuleBuilder::negate_last(SourceLocation loc) {
  if (scratch_.empty()) return;
  Operand& op = scratch_.back();
  if (op.kind != OperandKind::Register && op.kind != OperandKind::Symbol) {
    error(loc, "'!' can only negate a predicate register");
    inst_valid_ = false;
  }
  op.negated = true;
}

void ModuleBuilder::make_pair(SourceLocation loc) {
  Operand op;
  op.kind = OperandKind::Pair;
  op.loc = loc;
  op.first = static_cast<uint32_t>(elems_.size());
  op.count = 2;
  elems_.insert(elems_.end(), scratch_.end() - 2, scratch_.end());
  scratch_.resize(scratch_.size() - 2);
  scratch_.push_back(op);
}

// `{a, b, c, d}|%p`: a vector destination paired with a predicate (tex).
void ModuleBuilder::make_vector_pair(uint32_t count, SourceLocation loc) {
  Operand pred = scratch_.back();
  scratch_.pop_back();
  make_vector(count, loc);
  scratch_.push_back(pred);
  make_pair(loc);
}

void ModuleBuilder::make_vector(uint32_t count, SourceLocation loc) {
  Operand op;
  op.kind = OperandKind::Vector;
  op.loc = loc;
  op.first = static_cast<uint32_t>(elems_.size());
  op.count = count;
  elems_.insert(elems_.end(), scratch_.end() - count, scratch_.end());
  scratch_.resize(scratch_.size() - count);
  scratch_.push_back(op);
}

void ModuleBuilder::make_list(uint32_t count, SourceLocation loc) {
  make_vector(count, loc);
  scratch_.back().kind = OperandKind::List;
}

void ModuleBuilder::make_address(AddressBase base, std::string_view name, int64_t imm,
                                 int64_t offset, uint32_t extras, SourceLocation loc) {
  Operand op;
  op.kind = OperandKind::Address;
  op.loc = loc;
  op.base = base;
  op.first = static_cast<uint32_t>(elems_.size());
  op.count = extras;
  elems_.insert(elems_.end(), scratch_.end() - extras, scratch_.end());
  scratch_.resize(scratch_.size() - extras);
  switch (base) {
    case AddressBase::Immediate: op.value = imm; break;
    case AddressBase::Register:
    case AddressBase::Symbol: {
      op.value = offset;
      if (const uint32_t* r = find_register(name)) {
        op.base = AddressBase::Register;
        op.reg = *r;
      } else {
        op.base = AddressBase::Symbol;  // a %name may be a variable; resolved later
        op.name = name;
      }
      break;
    }
  }
  scratch_.push_back(op);
}

void ModuleBuilder::reset_instruction() {
  scratch_.clear();
  elems_.clear();
  operand_count_ = 0;
  has_guard_ = false;
  guard_negated_ = false;
  guard_reg_ = kNone;
}

void ModuleBuilder::end_instruction() {
  if (has_guard_ && guard_reg_ == kNone) inst_valid_ = false;  // diagnosed in guard()
  if (scratch_.size() > 4096) {
    error(inst_.loc, "too many operands");
    inst_valid_ = false;
  }
  if (!inst_valid_ || !in_body_) {
    if (in_body_) fn().mod_tokens.resize(inst_.first_mod);
    reset_instruction();
    return;
  }
  Function& f = fn();
  uint32_t base = static_cast<uint32_t>(f.operands.size());
  uint32_t ntop = static_cast<uint32_t>(scratch_.size());
  f.operands.insert(f.operands.end(), scratch_.begin(), scratch_.end());
  f.operands.insert(f.operands.end(), elems_.begin(), elems_.end());
  for (uint32_t i = base; i < f.operands.size(); ++i) {
    Operand& op = f.operands[i];
    if (op.kind == OperandKind::Vector || op.kind == OperandKind::Pair ||
        op.kind == OperandKind::List || op.kind == OperandKind::Address)
      op.first += base + ntop;
  }
  inst_.first_operand = base;
  inst_.num_operands = static_cast<uint16_t>(ntop);
  inst_.has_guard = has_guard_;
  inst_.guard_negated = guard_negated_;
  inst_.guard_reg = guard_reg_;
  inst_.scope = current_scope();
  inst_.debug = debug_;
  record_pending_uses(base, static_cast<uint32_t>(f.operands.size()));
  f.body.push_back({BodyItemKind::Instruction, static_cast<uint32_t>(f.instructions.size())});
  f.instructions.push_back(inst_);
  has_pending_label_ = false;
  reset_instruction();
}

}  // namespace warpsim::ptx
