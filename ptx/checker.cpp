#include "ptx/checker.h"

#include <fmt/format.h>

#include "ptx/target_requirements.h"
#include "ptx/verifier.h"

namespace warpsim::ptx {

namespace {

bool takes_address(Opcode op) {
  switch (op) {
    case Opcode::Ld: case Opcode::Ldu: case Opcode::St: case Opcode::Atom: case Opcode::Red:
    case Opcode::Prefetch: case Opcode::Prefetchu: case Opcode::Cp: case Opcode::Ldmatrix:
    case Opcode::Stmatrix: case Opcode::Mbarrier: case Opcode::Tex: case Opcode::Tld4:
    case Opcode::Txq: case Opcode::Suld: case Opcode::Sust: case Opcode::Sured: case Opcode::Suq:
    case Opcode::Applypriority: case Opcode::Discard: case Opcode::Multimem:
    case Opcode::Tensormap: case Opcode::Clusterlaunchcontrol: case Opcode::Wmma:
    case Opcode::Istypep: case Opcode::Cvta: case Opcode::Mapa: case Opcode::Createpolicy:
    case Opcode::Wgmma:
      return true;
    default:
      return false;
  }
}

// Instructions whose operands all have the instruction's (single) type and
// whose first operand is the destination. Others have mixed operand types
// (wide multiplies, shifts, bit-field ops, conversions) and are not checked.
bool uniform_operand_type(const Instruction& inst) {
  switch (inst.opcode) {
    case Opcode::Add: case Opcode::Sub: case Opcode::Min: case Opcode::Max: case Opcode::And:
    case Opcode::Or: case Opcode::Xor: case Opcode::Not: case Opcode::Neg: case Opcode::Abs:
    case Opcode::Div: case Opcode::Rem: case Opcode::Fma: case Opcode::Addc: case Opcode::Subc:
    case Opcode::Copysign: case Opcode::Rcp: case Opcode::Sqrt: case Opcode::Rsqrt:
    case Opcode::Sin: case Opcode::Cos: case Opcode::Lg2: case Opcode::Ex2: case Opcode::Tanh:
    case Opcode::Cnot:
      return inst.mods.num_types == 1;
    case Opcode::Mul: case Opcode::Mad: case Opcode::Madc:
      return inst.mods.num_types == 1 && !inst.mods.has(Flag::Wide);
    default:
      return false;
  }
}

class Checker {
 public:
  Checker(const Module& m, DiagnosticEngine& d)
      : m_(m), d_(d), arch_(module_arch(m)),
        version_(m.has_version ? m.version_major * 10 + m.version_minor : 0) {}

  void run() {
    for (const Function& f : m_.functions) {
      if (f.is_entry && !f.returns.empty())
        error(f.loc, fmt::format("kernel '{}' cannot have return parameters", f.name));
      for (const Instruction& inst : f.instructions) {
        if (d_.limit_reached()) return;
        check_instruction(f, inst);
      }
    }
  }

  bool ok() const { return errors_ == 0; }

 private:
  void error(SourceLocation loc, std::string msg) {
    ++errors_;
    d_.error(m_.source.get(), loc, std::move(msg));
  }

  std::string name(const Instruction& inst) const { return std::string(mnemonic(inst.opcode)); }

  void check_instruction(const Function& f, const Instruction& inst) {
    auto ops = f.operands_of(inst);
    const OpcodeInfo& info = opcode_info(inst.opcode);
    size_t n = ops.size();
    if (n < info.min_operands || n > info.max_operands) {
      if (info.min_operands == info.max_operands)
        error(inst.loc, fmt::format("'{}' expects {} operand{}, got {}", name(inst),
                                    info.min_operands, info.min_operands == 1 ? "" : "s", n));
      else
        error(inst.loc, fmt::format("'{}' expects {} to {} operands, got {}", name(inst),
                                    info.min_operands, info.max_operands, n));
      return;
    }
    if (inst.has_guard && inst.guard_reg != kNone &&
        f.registers[inst.guard_reg].type != ScalarType::Pred)
      error(inst.loc, fmt::format("guard '{}' is not a predicate register",
                                  f.register_name(inst.guard_reg)));
    check_specific_counts(inst, n);
    for (size_t i = 0; i < n; ++i) check_operand_kind(f, inst, ops[i], i);
    if (uniform_operand_type(inst)) check_register_types(f, inst, ops);
    check_vector_arity(f, inst, ops);
    if (arch_)
      if (auto problem = target_problem(inst, *arch_, version_)) error(inst.loc, *problem);
  }

  // ld/ldu/st: the data operand has as many elements as the vector width says
  // (`ld.v4` with three destinations is refused by ptxas, not padded).
  void check_vector_arity(const Function& f, const Instruction& inst,
                          std::span<const Operand> ops) {
    if (inst.opcode != Opcode::Ld && inst.opcode != Opcode::Ldu && inst.opcode != Opcode::St)
      return;
    const size_t data = inst.opcode == Opcode::St ? 1 : 0;
    if (ops.size() <= data) return;
    const Operand& op = ops[data];
    const uint32_t want = inst.mods.vec == VectorWidth::None ? 1 : vector_lanes(inst.mods.vec);
    uint32_t got = 1;
    if (op.kind == OperandKind::Vector) got = op.count;
    else if (op.kind == OperandKind::Register && op.reg != kNone &&
             op.component == Component::None && f.registers[op.reg].vec != VectorWidth::None)
      got = vector_lanes(f.registers[op.reg].vec);  // a .v2/.v4 register as a whole
    if (got != want)
      error(op.loc, fmt::format("'{}{}' needs {} data element{}, got {}", name(inst),
                                inst.mods.vec == VectorWidth::None
                                    ? ""
                                    : fmt::format(".v{}", want),
                                want, want == 1 ? "" : "s", got));
  }

  void check_specific_counts(const Instruction& inst, size_t n) {
    const Modifiers& m = inst.mods;
    auto expect = [&](size_t want, const char* why) {
      if (n != want)
        error(inst.loc, fmt::format("'{}'{} expects {} operands, got {}", name(inst), why, want, n));
    };
    switch (inst.opcode) {
      case Opcode::Setp:
      case Opcode::Set:
        expect(m.op != Operation::None ? 4 : 3, m.op != Operation::None ? " with a boolean operation" : "");
        break;
      case Opcode::Atom: {
        size_t want = (m.op == Operation::Cas ? 4 : 3) + (m.has(Flag::L2CacheHint) ? 1 : 0);
        expect(want, m.op == Operation::Cas ? ".cas" : "");
        break;
      }
      case Opcode::Ld:
      case Opcode::St:
        expect(m.has(Flag::L2CacheHint) ? 3 : 2, m.has(Flag::L2CacheHint) ? " with a cache hint" : "");
        break;
      case Opcode::Txq:  // txq.level takes the level of detail as a third operand
        expect(m.has(Flag::Level) ? 3 : 2, m.has(Flag::Level) ? ".level" : "");
        break;
      default:
        break;
    }
  }

  bool writes_first_operand(Opcode op) const {
    switch (op) {
      case Opcode::St: case Opcode::Red: case Opcode::Bra: case Opcode::Brx: case Opcode::Call:
      case Opcode::Prefetch: case Opcode::Prefetchu: case Opcode::Sust: case Opcode::Sured:
      case Opcode::Stmatrix: case Opcode::Cp: case Opcode::Bar: case Opcode::Barrier:
      case Opcode::Mbarrier: case Opcode::Nanosleep: case Opcode::Setmaxnreg:
      case Opcode::Pmevent: case Opcode::Applypriority: case Opcode::Discard:
      case Opcode::Wmma: case Opcode::Wgmma: case Opcode::Multimem: case Opcode::Tensormap:
      case Opcode::Stackrestore: case Opcode::Clusterlaunchcontrol:
        return false;
      default:
        return true;
    }
  }

  void check_operand_kind(const Function& f, const Instruction& inst, const Operand& op, size_t i) {
    if (op.kind == OperandKind::Address && !takes_address(inst.opcode)) {
      error(op.loc, fmt::format("'{}' does not take a memory operand", name(inst)));
      return;
    }
    if (i == 0 && writes_first_operand(inst.opcode) &&
        (op.kind == OperandKind::Immediate || op.kind == OperandKind::Float ||
         op.kind == OperandKind::Special)) {
      error(op.loc, fmt::format("the destination of '{}' must be a register", name(inst)));
      return;
    }
    if (op.kind == OperandKind::Symbol) check_symbol_use(f, inst, op, i);
  }

  void check_symbol_use(const Function& f, const Instruction& inst, const Operand& op, size_t i) {
    if (op.sym.kind == SymbolKind::Unresolved) return;  // already diagnosed
    switch (inst.opcode) {
      case Opcode::Bra:
        if (op.sym.kind != SymbolKind::Label)
          error(op.loc, fmt::format("branch target '{}' is a {}, not a label", op.name,
                                    symbol_kind_name(op.sym.kind)));
        return;
      case Opcode::Brx:
        if (i == 1 && op.sym.kind != SymbolKind::TargetList && op.sym.kind != SymbolKind::Label)
          error(op.loc, fmt::format("'brx.idx' needs a .branchtargets list, not '{}'", op.name));
        return;
      case Opcode::Call:
        return;  // target/prototype checks in check_call
      default:
        if (op.sym.kind == SymbolKind::Label || op.sym.kind == SymbolKind::Prototype ||
            op.sym.kind == SymbolKind::TargetList)
          error(op.loc, fmt::format("{} '{}' cannot be used as a value",
                                    symbol_kind_name(op.sym.kind), op.name));
    }
  }

  // Bit width a register operand must have for the instruction type.
  void check_register_types(const Function& f, const Instruction& inst,
                            std::span<const Operand> ops) {
    ScalarType t = inst.mods.type(0);
    const TypeInfo& ti = type_info(t);
    for (const Operand& op : ops) {
      if (op.kind != OperandKind::Register || op.reg == kNone || op.component != Component::None)
        continue;
      const Register& r = f.registers[op.reg];
      if (r.vec != VectorWidth::None) continue;
      const TypeInfo& ri = type_info(r.type);
      bool ok;
      if (t == ScalarType::Pred || r.type == ScalarType::Pred)
        ok = t == r.type;
      else if (ri.bits != ti.bits)
        ok = false;
      else if (ti.kind == TypeKind::Float && ri.kind != TypeKind::Float && ri.kind != TypeKind::Bits)
        ok = false;  // .f32 data in a .u32/.s32 register
      else if (ri.kind == TypeKind::Float && ti.kind != TypeKind::Float && ti.kind != TypeKind::Bits)
        ok = false;  // integer arithmetic on a .f32 register
      else
        ok = true;
      if (!ok)
        error(op.loc, fmt::format("register '{}' of type .{} does not match instruction type .{}",
                                  f.register_name(op.reg), ri.name, ti.name));
    }
  }

  const Module& m_;
  DiagnosticEngine& d_;
  std::optional<TargetArch> arch_;  // from .target; none: no target checks
  uint32_t version_;                // .version as major * 10 + minor
  size_t errors_ = 0;
};

}  // namespace

bool check(const Module& module, DiagnosticEngine& diags) {
  // The checks below index the IR freely: an inconsistent module is reported
  // as such and not read further.
  if (!verify(module, diags)) return false;
  Checker c(module, diags);
  c.run();
  return c.ok();
}

}  // namespace warpsim::ptx
