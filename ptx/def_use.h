#pragma once
// Register definitions and uses of one PTX function.
//
// For every instruction: the registers it writes (defs) and reads (uses),
// with vectors `{a, b}`, pairs `p|q`, call lists and address extras flattened,
// sinks `_`, immediates, special registers and symbols ignored, and each
// register listed once per instruction in first-appearance order. For every
// register: the instructions that define and use it, ascending.
//
// Which operands an opcode writes is one table in def_use.cpp (most opcodes
// write their first operand; stores, branches and barriers write none; a few
// decide by operand shape). Conventions:
//  - the guard predicate is a use; so are address base registers, address
//    extras (texture coordinates, surface indices) and `!%p` operands;
//  - a guarded instruction still lists its defs (it may not write them:
//    liveness must treat a guarded def as not killing the old value);
//  - a register used with a component (`%v.x`) counts as the whole register;
//  - the carry flag of .cc instructions is not a named register and is not
//    tracked;
//  - wgmma.mma_async accumulates into its first operand, which is therefore
//    both defined and used;
//  - call: registers in the return list `(r)` are defs, registers in the
//    argument list and an indirect target register are uses (nvcc passes
//    values through .param variables, so these lists rarely hold registers).
#include <cstdint>
#include <span>
#include <vector>

#include "ptx/ir.h"

namespace warpsim::ptx {

struct DefUse {
  std::span<const uint32_t> defs(uint32_t inst) const { return slice(inst_def_first, inst_defs, inst); }
  std::span<const uint32_t> uses(uint32_t inst) const { return slice(inst_use_first, inst_uses, inst); }
  // Instructions (ascending) that define / use register `reg`.
  std::span<const uint32_t> defining(uint32_t reg) const { return slice(reg_def_first, reg_defs, reg); }
  std::span<const uint32_t> using_insts(uint32_t reg) const { return slice(reg_use_first, reg_uses, reg); }

  // CSR storage: entries of row i are list[first[i] .. first[i+1]). The
  // defaults describe a function without instructions or registers.
  std::vector<uint32_t> inst_def_first{0}, inst_defs;  // per instruction -> registers
  std::vector<uint32_t> inst_use_first{0}, inst_uses;
  std::vector<uint32_t> reg_def_first{0}, reg_defs;    // per register -> instructions
  std::vector<uint32_t> reg_use_first{0}, reg_uses;

 private:
  static std::span<const uint32_t> slice(const std::vector<uint32_t>& first,
                                         const std::vector<uint32_t>& list, uint32_t i) {
    return {list.data() + first[i], first[i + 1] - first[i]};
  }
};

DefUse compute_def_use(const Function& function);

// How an opcode's operands split into destinations and sources; exposed for
// the decoder, which needs the same facts.
enum class DestRule : uint8_t {
  First,            // operand 0 is written (scalar, vector or pair); the rest are read
  None,             // nothing is written (stores, reductions, branches, barriers, ...)
  FirstUnlessAddr,  // operand 0 is written unless it is a memory operand
                    // (mbarrier.arrive vs mbarrier.init, wmma.load vs wmma.store, ...)
  FirstIfRed,       // bar.red / barrier.red write operand 0; bar.sync writes nothing
  FirstReadWrite,   // operand 0 is read and written (wgmma accumulator)
  CallLists,        // call: a leading return list is written, everything else read
};
DestRule dest_rule(Opcode op);
// How many leading operands of `inst` are written (0 or 1).
size_t destination_count(const Function& f, const Instruction& inst);

}  // namespace warpsim::ptx
