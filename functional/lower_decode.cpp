// Lowering, pass 2: decoding each PTX instruction into one DecodedInst (and
// ending each function with its end slot); Program::annotations gets the PTX
// instruction's annotation at the same pc.
#include "functional/lowering.h"

#include "functional/device_launch.h"
#include "ptx/passes/offload_tags.h"

namespace warpsim::functional::detail {

namespace {

Builtin builtin_named(std::string_view name) {
  if (name == "vprintf") return Builtin::Vprintf;
  if (name == "malloc") return Builtin::Malloc;
  if (name == "free") return Builtin::Free;
  if (name == "__assertfail") return Builtin::AssertFail;
  return Builtin::None;
}

uint32_t component_offset(ptx::Component c) {
  switch (c) {
    case ptx::Component::Y: return 1;
    case ptx::Component::Z: return 2;
    case ptx::Component::W: return 3;
    default: return 0;
  }
}

bool is_texture_op(ptx::Opcode op) {
  using ptx::Opcode;
  return op == Opcode::Tex || op == Opcode::Tld4 || op == Opcode::Txq || op == Opcode::Suld ||
         op == Opcode::Sust || op == Opcode::Sured || op == Opcode::Suq;
}

// Tensor-core instructions whose vector operands are fragments
// (DecodedInst::extra_slots).
bool is_fragment_op(ptx::Opcode op) {
  using ptx::Opcode;
  return op == Opcode::Wmma || op == Opcode::Mma || op == Opcode::Ldmatrix ||
         op == Opcode::Stmatrix;
}

}  // namespace

void Lowering::decode_function(uint32_t fn) {
  const ptx::Function& f = module_.functions[fn];
  const uint32_t pf = index_[fn];
  auto& code = program_->code;
  auto& annotations = program_->annotations;
  program_->functions[pf].begin = static_cast<uint32_t>(code.size());
  program_->functions[pf].end = static_cast<uint32_t>(code.size() + f.instructions.size());
  const FunctionLayout& L = layouts_[fn];
  for (uint32_t i = 0; i < f.instructions.size(); ++i) {
    const ptx::Instruction& inst = f.instructions[i];
    DecodedInst d;
    d.opcode = inst.opcode;
    d.type = inst.mods.type(0);
    d.type2 = inst.mods.type(1);
    d.mods = &inst.mods;
    d.function = pf;
    d.ptx_index = i;
    d.lanes = static_cast<uint8_t>(ptx::vector_lanes(inst.mods.vec));
    d.access_size = static_cast<uint8_t>(std::min<uint32_t>(ptx::type_bytes(d.type), 255));
    if (inst.has_guard) {
      d.has_guard = true;
      d.guard_negated = inst.guard_negated;
      d.guard = L.slot[inst.guard_reg];
    }
    bool ok;
    if (inst.opcode == ptx::Opcode::Call) ok = decode_call(fn, inst, d);
    else if (inst.opcode == ptx::Opcode::Bra || inst.opcode == ptx::Opcode::Brx)
      ok = decode_branch(fn, inst, i, d);
    else ok = decode_operands(fn, inst, d);
    Handler h = ok ? select_handler(inst, d) : nullptr;
    d.handler = h ? h : exec_unsupported;
    const ptx::StateSpace space = inst.mods.space(0);
    d.ends_turn = (inst.opcode == ptx::Opcode::Ld || inst.opcode == ptx::Opcode::Ldu) &&
                  (space == ptx::StateSpace::Global || space == ptx::StateSpace::None);
    code.push_back(d);
    annotations.push_back(inst.annotation);
    if (inst.annotation.flags & ptx::offload::kOwnedBits) program_->offload_marks = true;
  }
  DecodedInst end;  // the implicit return every function ends with
  end.handler = exec_function_end;
  end.opcode = ptx::Opcode::Ret;
  end.function = pf;
  end.ptx_index = static_cast<uint32_t>(f.instructions.size());
  code.push_back(end);
  annotations.emplace_back();  // no PTX instruction of its own
}

std::optional<Operand> Lowering::decode_value(uint32_t fn, const ptx::Operand& op,
                                              ScalarType type) {
  const FunctionLayout& L = layouts_[fn];
  Operand o;
  switch (op.kind) {
    case OperandKind::Register:
      if (op.reg == ptx::kNone) return std::nullopt;
      if (L.is_pred[op.reg]) {
        o.kind = Src::Pred;
        o.negate = op.negated;
      } else {
        if (op.component >= ptx::Component::B0) return std::nullopt;  // video selectors
        o.kind = Src::Reg;
      }
      o.index = L.slot[op.reg] + component_offset(op.component);
      return o;
    case OperandKind::Special:
      o.kind = Src::Special;
      o.index = static_cast<uint32_t>(op.sreg) << 8 |
                (op.component == ptx::Component::None ? 0u
                                                      : 1u + component_offset(op.component));
      o.imm = op.sreg_index;
      if (op.sreg >= ptx::SpecialRegister::ReservedSmemOffsetBegin &&
          op.sreg <= ptx::SpecialRegister::ReservedSmemOffset)
        program_->reserved_shared_bytes = kReservedSharedBytes;
      return o;
    case OperandKind::Immediate:
      o.kind = Src::Imm;
      o.imm = static_cast<uint64_t>(op.value);
      return o;
    case OperandKind::Float:
      o.kind = Src::Imm;
      o.imm = float_bits(op.fsyntax, op.value, type);
      return o;
    case OperandKind::Symbol: {
      auto p = place_of(fn, op.sym);
      if (!p) return std::nullopt;
      o = p->base;
      o.imm += static_cast<uint64_t>(op.value);
      return o;
    }
    default: return std::nullopt;
  }
}

bool Lowering::decode_address(uint32_t fn, const ptx::Instruction& inst, const ptx::Operand& op,
                              Address& out, size_t which) {
  if (op.count) return false;  // texture/surface coordinate lists: not yet
  const ptx::Function& f = module_.functions[fn];
  Window window;
  // Each address has its own state space (cp.async.shared.global [dst], [src]);
  // one past the spaces named is the mbarrier of a bulk copy, in shared memory.
  StateSpace space = inst.mods.space(which);
  if (which > 0 && which >= inst.mods.num_spaces) space = StateSpace::Shared;
  switch (space) {
    case StateSpace::Global:
    case StateSpace::Const: window = Window::Global; break;
    case StateSpace::Shared:
    case StateSpace::SharedCta:
    case StateSpace::SharedCluster: window = Window::Shared; break;
    case StateSpace::Local: window = Window::Local; break;
    case StateSpace::Param:
    case StateSpace::ParamEntry:
    case StateSpace::ParamFunc:
      // In a kernel, a load through a register reads a kernel parameter too:
      // nvcc and clang index by-value struct parameters with the address
      // `mov.b64 %rd, kernel_param` gives (its offset in the parameter
      // buffer). Call-sequence .param variables are always named directly.
      window = f.is_entry && inst.mods.space(0) != StateSpace::ParamFunc &&
                       (op.base == ptx::AddressBase::Register
                            ? inst.opcode != ptx::Opcode::St
                            : op.sym.kind == SymbolKind::Param)
                   ? Window::KernelParam
                   : Window::Local;
      break;
    case StateSpace::None: window = Window::Generic; break;
    default: return false;
  }
  Address a;
  a.window = window;
  a.offset = op.value;
  switch (op.base) {
    case ptx::AddressBase::Register:
      if (op.reg == ptx::kNone || layouts_[fn].is_pred[op.reg]) return false;
      a.base = Operand{Src::Reg, false, layouts_[fn].slot[op.reg], 0};
      a.wrap32 = ptx::type_bits(module_.functions[fn].registers[op.reg].type) <= 32;
      break;
    case ptx::AddressBase::Immediate:
      a.base = Operand{Src::Imm, false, kNoSlot, 0};
      a.offset = op.value;
      break;
    case ptx::AddressBase::Symbol: {
      auto p = place_of(fn, op.sym);
      if (!p) return false;
      a.base = p->base;
      if (window == Window::Generic) {
        // A variable named in a generic access: its generic address.
        if (p->window == Window::Shared) a.base.imm += kSharedWindow;
        else if (p->window == Window::Local) a.offset += static_cast<int64_t>(kLocalWindow);
        else if (p->window == Window::KernelParam) return false;
      } else if (p->window != window && !(window == Window::Global && p->window == Window::Global)) {
        a.window = p->window;  // e.g. ld.param of a call-sequence variable: the frame
      }
      break;
    }
  }
  out = a;
  return true;
}

bool Lowering::decode_operands(uint32_t fn, const ptx::Instruction& inst, DecodedInst& d) {
  const ptx::Function& f = module_.functions[fn];
  const FunctionLayout& L = layouts_[fn];
  auto ops = f.operands_of(inst);
  size_t nd = ptx::destination_count(f, inst);
  auto add_dst = [&](const ptx::Operand& e) {
    if (e.kind == OperandKind::Sink) {
      if (d.num_dst >= 4) return false;
      d.dst[d.num_dst++] = kNoSlot;
      return true;
    }
    if (e.kind != OperandKind::Register || e.reg == ptx::kNone) return false;
    if (L.is_pred[e.reg]) {
      if (d.dst_is_pred) {
        d.dst_pred = L.slot[e.reg];  // second predicate of `p|q`
        return true;
      }
      if (d.num_dst == 0) {
        d.dst_is_pred = true;
        d.dst[0] = L.slot[e.reg];
        d.num_dst = 1;
      } else {
        d.dst_pred = L.slot[e.reg];
      }
      return true;
    }
    if (d.num_dst >= 4 || e.component >= ptx::Component::B0) return false;
    d.dst[d.num_dst++] = L.slot[e.reg] + component_offset(e.component);
    return true;
  };
  // Tensor-core fragments: each vector operand becomes one group of
  // Program::extra_operands (see DecodedInst::extra_slots).
  const bool fragments = is_fragment_op(inst.opcode);
  uint32_t groups = 0;
  auto add_fragment = [&](const ptx::Operand& vec, bool is_dst) {
    auto elems = f.elements(vec);
    if (groups >= 4 || elems.size() > 255) return false;
    if (d.extra_slots == kNoSlot) d.extra_slots = static_cast<uint32_t>(program_->extra_operands.size());
    for (const ptx::Operand& e : elems) {
      Operand o;  // a destination sink stays None
      if (!is_dst || e.kind != OperandKind::Sink) {
        auto v = decode_value(fn, e, d.type);
        if (!v || !(v->kind == Src::Reg || (!is_dst && v->kind == Src::Imm))) return false;
        o = *v;
      }
      program_->extra_operands.push_back(o);
    }
    d.extra_count[groups++] = static_cast<uint8_t>(elems.size());
    return true;
  };
  for (size_t i = 0; i < nd; ++i) {
    const ptx::Operand& op = ops[i];
    if (fragments && op.kind == OperandKind::Vector) {
      if (!add_fragment(op, true)) return false;
      continue;
    }
    if (op.kind == OperandKind::Vector || op.kind == OperandKind::Pair) {
      for (const ptx::Operand& e : f.elements(op))
        if (e.kind == OperandKind::Vector) {
          for (const ptx::Operand& v : f.elements(e))
            if (!add_dst(v)) return false;
        } else if (!add_dst(e)) {
          return false;
        }
    } else if (!add_dst(op)) {
      return false;
    }
  }
  // Texture and surface operands `[object, {coordinates}]` (exec_texture.cpp):
  // d.addr holds the object handle, either directly (window Generic: a
  // register or an immediate) or as the address of the .texref/.surfref/
  // .param variable that holds it; each coordinate becomes the base of one
  // entry of Program::addresses[d.more_addrs...], d.target of them. Forms
  // with an explicit sampler (independent mode) are not decoded.
  const bool texture = is_texture_op(inst.opcode);
  auto texture_operand = [&](const ptx::Operand& op) {
    Address a;
    if (op.base == ptx::AddressBase::Register) {
      if (op.reg == ptx::kNone || L.is_pred[op.reg]) return false;
      a.base = Operand{Src::Reg, false, L.slot[op.reg], 0};
    } else if (op.base == ptx::AddressBase::Symbol) {
      auto p = place_of(fn, op.sym);
      if (!p) return false;
      a.window = p->window;  // never Generic
      a.base = p->base;
    } else {
      a.base = Operand{Src::Imm, false, kNoSlot, 0};
    }
    a.offset = op.value;
    d.addr = a;
    if (op.count == 0) return true;  // txq / suq: no coordinates
    if (op.count != 1) return false;
    const ptx::Operand& c = f.elements(op)[0];
    std::span<const ptx::Operand> coords = c.kind == OperandKind::Vector ? f.elements(c)
                                                                          : std::span(&c, 1);
    d.more_addrs = static_cast<uint32_t>(program_->addresses.size());
    d.target = static_cast<uint32_t>(coords.size());
    for (const ptx::Operand& e : coords) {
      auto v = e.kind == OperandKind::Sink ? Operand{Src::Imm, false, kNoSlot, 0}
                                           : decode_value(fn, e, ScalarType::B32);
      if (!v) return false;
      program_->addresses.push_back(Address{Window::Generic, *v, 0});
    }
    return true;
  };
  bool source_is_second_type = inst.opcode == ptx::Opcode::Cvt || inst.opcode == ptx::Opcode::Set;
  ScalarType src_type = source_is_second_type && d.type2 != ScalarType::None ? d.type2 : d.type;
  size_t num_addrs = 0;
  for (size_t i = nd; i < ops.size(); ++i) {
    const ptx::Operand& op = ops[i];
    if (op.kind == OperandKind::Address) {
      if (texture) {
        if (num_addrs++ != 0 || !texture_operand(op)) return false;
        continue;
      }
      if (num_addrs == 0) {
        if (!decode_address(fn, inst, op, d.addr)) return false;
      } else {
        Address extra;
        if (!decode_address(fn, inst, op, extra, num_addrs)) return false;
        if (d.more_addrs == kNoSlot) d.more_addrs = static_cast<uint32_t>(program_->addresses.size());
        program_->addresses.push_back(extra);
      }
      ++num_addrs;
      continue;
    }
    if (fragments && op.kind == OperandKind::Vector) {
      if (!add_fragment(op, false)) return false;
      continue;
    }
    if (op.kind == OperandKind::Vector) {
      if (texture && inst.mods.has(ptx::Flag::Grad)) continue;  // tex.grad samples level 0 only
      for (const ptx::Operand& e : f.elements(op)) {
        auto v = decode_value(fn, e, src_type);
        if (!v || d.num_src >= 5) return false;
        d.src[d.num_src++] = *v;
      }
      continue;
    }
    auto v = decode_value(fn, op, src_type);
    if (!v || d.num_src >= 5) return false;
    d.src[d.num_src++] = *v;
  }
  return true;
}

bool Lowering::decode_branch(uint32_t fn, const ptx::Instruction& inst, uint32_t index,
                             DecodedInst& d) {
  const ptx::Function& f = module_.functions[fn];
  const FunctionInfo& info = program_->functions[index_[fn]];
  auto ops = f.operands_of(inst);
  uint32_t rec = analysis_.functions[fn].post_dominators.reconvergence[index];
  d.reconvergence = rec >= f.instructions.size() ? info.end : info.begin + rec;
  auto label_pc = [&](const ptx::SymbolRef& s) -> std::optional<uint32_t> {
    if (s.kind != SymbolKind::Label) return std::nullopt;
    return info.begin + f.labels[s.index].instruction;
  };
  if (inst.opcode == ptx::Opcode::Bra) {
    if (ops.size() != 1 || ops[0].kind != OperandKind::Symbol) return false;
    auto pc = label_pc(ops[0].sym);
    if (!pc) return false;
    d.target = *pc;
    return true;
  }
  // brx.idx index, table: per-lane targets from a .branchtargets list.
  if (ops.size() != 2 || ops[1].kind != OperandKind::Symbol ||
      ops[1].sym.kind != SymbolKind::TargetList)
    return false;
  auto v = decode_value(fn, ops[0], ScalarType::U32);
  if (!v) return false;
  d.src[0] = *v;
  d.num_src = 1;
  const ptx::TargetList& t = f.target_lists[ops[1].sym.index];
  d.target = static_cast<uint32_t>(program_->branch_tables.size());
  for (const ptx::SymbolRef& s : t.targets) {
    auto pc = label_pc(s);
    if (!pc) return false;
    program_->branch_tables.push_back(*pc);
  }
  d.src[1] = Operand{Src::Imm, false, kNoSlot, t.targets.size()};
  return true;
}

bool Lowering::decode_call(uint32_t fn, const ptx::Instruction& inst, DecodedInst& d) {
  const ptx::Function& f = module_.functions[fn];
  auto ops = f.operands_of(inst);
  CallSite site;
  size_t i = 0;
  auto location = [&](const ptx::Operand& e, uint32_t& size) -> std::optional<Operand> {
    if (e.kind == OperandKind::Symbol && e.sym.kind == SymbolKind::Local)
      size = static_cast<uint32_t>(f.variables[e.sym.index].size_bytes());
    else if (e.kind == OperandKind::Symbol && e.sym.kind == SymbolKind::Param)
      size = static_cast<uint32_t>(f.params[e.sym.index].size_bytes());
    else if (e.kind == OperandKind::Register && e.reg != ptx::kNone)
      size = ptx::type_bytes(f.registers[e.reg].type);
    else
      size = 8;
    return decode_value(fn, e, ScalarType::B64);
  };
  if (i < ops.size() && ops[i].kind == OperandKind::List) {
    for (const ptx::Operand& e : f.elements(ops[i])) {
      uint32_t size;
      auto o = location(e, size);
      if (!o) return false;
      site.rets.push_back(*o);
      site.ret_sizes.push_back(size);
    }
    ++i;
  }
  if (i >= ops.size()) return false;
  const ptx::Operand& target = ops[i++];
  if (target.kind == OperandKind::Symbol && target.sym.kind == SymbolKind::Function) {
    const ptx::Function& callee = module_.functions[target.sym.index];
    site.callee = index_[target.sym.index];
    if (site.callee == kNoSlot) {
      site.extern_function = target.sym.index;
      site.builtin = builtin_named(callee.name);
      if (site.builtin == Builtin::None) {
        // The CUDA device runtime (dynamic parallelism), else an extern
        // nobody provides: that call faults when executed, naming it.
        site.device_call = static_cast<uint8_t>(device_call_named(callee.name));
        site.builtin = site.device_call != 0 ? Builtin::DeviceRuntime : Builtin::Unprovided;
      }
    }
  } else if (target.kind == OperandKind::Register) {
    auto p = decode_value(fn, target, ScalarType::U64);
    if (!p) return false;
    site.pointer = *p;
  } else {
    return false;
  }
  if (i < ops.size() && ops[i].kind == OperandKind::List) {
    for (const ptx::Operand& e : f.elements(ops[i])) {
      uint32_t size;
      auto o = location(e, size);
      if (!o) return false;
      site.args.push_back(*o);
      site.arg_sizes.push_back(size);
    }
  }
  d.target = static_cast<uint32_t>(program_->call_sites.size());
  program_->call_sites.push_back(std::move(site));
  return true;
}

}  // namespace warpsim::functional::detail
