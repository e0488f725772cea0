#include "ptx/def_use.h"

#include <algorithm>
#include <array>

namespace warpsim::ptx {

namespace {

// Destination rule per opcode. Everything not listed writes its first operand
// (arithmetic, ld, atom, setp/set with `p|q`, shfl/elect/match with `d|p`,
// tex/tld4/suld/txq/suq, cvt, mov (a vector destination unpacks), vote,
// ldmatrix, mma, alloca, stacksave, createpolicy, ...).
constexpr std::array<DestRule, kNumOpcodes> kDestRules = [] {
  std::array<DestRule, kNumOpcodes> t{};
  t.fill(DestRule::First);
  auto set = [&](std::initializer_list<Opcode> ops, DestRule r) {
    for (Opcode op : ops) t[static_cast<size_t>(op)] = r;
  };
  set({Opcode::St, Opcode::Red, Opcode::Sust, Opcode::Sured, Opcode::Stmatrix, Opcode::Cp,
       Opcode::Prefetch, Opcode::Prefetchu, Opcode::Applypriority, Opcode::Discard,
       Opcode::Bra, Opcode::Brx, Opcode::Ret, Opcode::Exit, Opcode::Trap, Opcode::Brkpt,
       Opcode::Membar, Opcode::Fence, Opcode::Griddepcontrol, Opcode::Nanosleep,
       Opcode::Setmaxnreg, Opcode::Pmevent, Opcode::Stackrestore},
      DestRule::None);
  // mbarrier.arrive/test_wait/try_wait/pending_count write a state or a
  // predicate; mbarrier.init/inval/expect_tx/complete_tx start with [addr].
  // wmma.load/mma write fragments, wmma.store starts with [addr]; likewise
  // multimem.ld_reduce vs multimem.st/red, clusterlaunchcontrol.query_cancel
  // vs try_cancel, and tensormap (always [addr]).
  set({Opcode::Mbarrier, Opcode::Wmma, Opcode::Multimem, Opcode::Tensormap,
       Opcode::Clusterlaunchcontrol},
      DestRule::FirstUnlessAddr);
  set({Opcode::Bar, Opcode::Barrier}, DestRule::FirstIfRed);
  set({Opcode::Wgmma}, DestRule::FirstReadWrite);
  set({Opcode::Call}, DestRule::CallLists);
  return t;
}();

// Appends the registers an operand names (flattening groups), once each.
void collect(const Function& f, const Operand& op, std::vector<uint32_t>& out) {
  auto add = [&](uint32_t reg) {
    if (reg != kNone && std::find(out.begin(), out.end(), reg) == out.end()) out.push_back(reg);
  };
  switch (op.kind) {
    case OperandKind::Register:
      add(op.reg);
      break;
    case OperandKind::Address:
      if (op.base == AddressBase::Register) add(op.reg);
      [[fallthrough]];  // address extras are elements, like a vector's
    case OperandKind::Vector:
    case OperandKind::Pair:
    case OperandKind::List:
      for (const Operand& e : f.elements(op)) collect(f, e, out);
      break;
    default:  // Special, Immediate, Float, Symbol, Sink
      break;
  }
}

// Splits one instruction's registers into defs and uses.
void classify(const Function& f, const Instruction& inst, std::vector<uint32_t>& defs,
              std::vector<uint32_t>& uses) {
  defs.clear();
  uses.clear();
  if (inst.has_guard && inst.guard_reg != kNone) uses.push_back(inst.guard_reg);
  auto ops = f.operands_of(inst);
  size_t first_source = destination_count(f, inst);  // operands before it are destinations
  bool dest_is_read = dest_rule(inst.opcode) == DestRule::FirstReadWrite;
  for (size_t i = 0; i < first_source; ++i) {
    collect(f, ops[i], defs);
    if (dest_is_read) collect(f, ops[i], uses);
  }
  for (size_t i = first_source; i < ops.size(); ++i) collect(f, ops[i], uses);
}

// Inverts instruction -> registers into register -> instructions (ascending,
// since instructions are visited in order).
void invert(const std::vector<uint32_t>& inst_first, const std::vector<uint32_t>& inst_regs,
            size_t num_regs, std::vector<uint32_t>& reg_first, std::vector<uint32_t>& reg_insts) {
  reg_first.assign(num_regs + 1, 0);
  for (uint32_t r : inst_regs) ++reg_first[r + 1];
  for (size_t r = 0; r < num_regs; ++r) reg_first[r + 1] += reg_first[r];
  reg_insts.assign(inst_regs.size(), 0);
  std::vector<uint32_t> fill(reg_first.begin(), reg_first.end() - 1);
  for (uint32_t i = 0; i + 1 < inst_first.size(); ++i)
    for (uint32_t k = inst_first[i]; k < inst_first[i + 1]; ++k) reg_insts[fill[inst_regs[k]]++] = i;
}

}  // namespace

DestRule dest_rule(Opcode op) { return kDestRules[static_cast<size_t>(op)]; }

size_t destination_count(const Function& f, const Instruction& inst) {
  auto ops = f.operands_of(inst);
  size_t n = 0;
  switch (dest_rule(inst.opcode)) {
    case DestRule::First: n = 1; break;
    case DestRule::None: break;
    case DestRule::FirstUnlessAddr:
      n = !ops.empty() && ops[0].kind != OperandKind::Address ? 1 : 0;
      break;
    case DestRule::FirstIfRed: n = inst.mods.has(Flag::Red) ? 1 : 0; break;
    case DestRule::FirstReadWrite: n = 1; break;
    case DestRule::CallLists:
      // call (ret), target, (args)[, proto]: only a leading list returns values.
      n = !ops.empty() && ops[0].kind == OperandKind::List ? 1 : 0;
      break;
  }
  return std::min(n, ops.size());
}

DefUse compute_def_use(const Function& f) {
  DefUse du;
  const size_t n = f.instructions.size();
  const size_t num_regs = f.registers.size();
  du.inst_def_first.reserve(n + 1);  // already holds the leading 0
  du.inst_use_first.reserve(n + 1);
  std::vector<uint32_t> defs, uses;
  for (const Instruction& inst : f.instructions) {
    classify(f, inst, defs, uses);
    for (uint32_t r : defs)
      if (r < num_regs) du.inst_defs.push_back(r);
    for (uint32_t r : uses)
      if (r < num_regs) du.inst_uses.push_back(r);
    du.inst_def_first.push_back(static_cast<uint32_t>(du.inst_defs.size()));
    du.inst_use_first.push_back(static_cast<uint32_t>(du.inst_uses.size()));
  }
  invert(du.inst_def_first, du.inst_defs, num_regs, du.reg_def_first, du.reg_defs);
  invert(du.inst_use_first, du.inst_uses, num_regs, du.reg_use_first, du.reg_uses);
  return du;
}

}  // namespace warpsim::ptx
