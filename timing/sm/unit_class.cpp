// Instruction -> execution unit, and the per-class timing parameters.
#include "timing/sm/unit_class.h"

#include <algorithm>

#include "ptx/opcode.h"

namespace warpsim::timing {
namespace {

UnitClass classify(const functional::DecodedInst& inst) {
  using ptx::Opcode;
  const ptx::UnitClass unit = ptx::opcode_info(inst.opcode).unit;
  const bool f64 = inst.type == ptx::ScalarType::F64;
  switch (unit) {
    case ptx::UnitClass::Alu:
      if (f64) return UnitClass::Dp;
      return ptx::is_float(inst.type) ? UnitClass::Sp : UnitClass::Int;
    case ptx::UnitClass::Sfu: return f64 ? UnitClass::Dp : UnitClass::Sfu;
    case ptx::UnitClass::Mem: return UnitClass::Ldst;
    case ptx::UnitClass::Tensor:
      // wmma.load/wmma.store move fragments through the LD/ST unit.
      return inst.addr.window != functional::Window::Generic || inst.addr.base.kind != functional::Src::None
                 ? UnitClass::Ldst
                 : UnitClass::Tensor;
    case ptx::UnitClass::Sync:
      return inst.opcode == Opcode::Membar || inst.opcode == Opcode::Fence ? UnitClass::Fence
                                                                           : UnitClass::Branch;
    case ptx::UnitClass::Branch: return UnitClass::Branch;
  }
  return UnitClass::Int;
}

// General-register operands read and written per warp: sources, the
// address base, destinations, and the tensor-core instructions' fragment
// registers (group 0 is the destination fragment, except for the stores).
void count_registers(const functional::Program& program, const functional::DecodedInst& inst,
                     InstructionClass& c) {
  using functional::Src;
  uint32_t reads = 0, writes = 0;
  for (uint32_t i = 0; i < inst.num_src && i < 5; ++i) reads += inst.src[i].kind == Src::Reg;
  reads += inst.addr.base.kind == Src::Reg;
  for (uint32_t i = 0; i < inst.num_dst && i < 4; ++i)
    writes += inst.dst[i] != functional::kNoSlot && !(inst.dst_is_pred && i == 0);
  if (inst.extra_slots != functional::kNoSlot) {
    const bool store = inst.opcode == ptx::Opcode::Stmatrix ||
                       (inst.opcode == ptx::Opcode::Wmma && c.unit == UnitClass::Ldst && inst.num_dst == 0);
    uint32_t slot = inst.extra_slots;
    for (uint32_t g = 0; g < 4; ++g)
      for (uint32_t k = 0; k < inst.extra_count[g]; ++k, ++slot) {
        if (slot >= program.extra_operands.size() || program.extra_operands[slot].kind != Src::Reg) continue;
        if (g == 0 && !store) ++writes;
        else ++reads;
      }
  }
  c.register_reads = static_cast<uint8_t>(std::min(reads, 255u));
  c.register_writes = static_cast<uint8_t>(std::min(writes, 255u));
}

}  // namespace

std::vector<InstructionClass> classify_units(const functional::Program& program) {
  std::vector<InstructionClass> units;
  units.reserve(program.code.size());
  for (const functional::DecodedInst& inst : program.code) {
    InstructionClass c;
    c.unit = classify(inst);
    count_registers(program, inst, c);
    units.push_back(c);
  }
  return units;
}

UnitTiming unit_timing(const UnitConfig& c, UnitClass u) {
  switch (u) {
    case UnitClass::Sp: return {c.sp_latency, c.sp_interval, c.sp_units};
    case UnitClass::Int: return {c.int_latency, c.int_interval, c.int_units};
    case UnitClass::Dp: return {c.dp_latency, c.dp_interval, c.dp_units};
    case UnitClass::Sfu: return {c.sfu_latency, c.sfu_interval, c.sfu_units};
    case UnitClass::Tensor: return {c.tensor_latency, c.tensor_interval, c.tensor_units};
    case UnitClass::Branch:
    case UnitClass::Fence: return {c.branch_latency, c.branch_interval, c.branch_units};
    case UnitClass::Ldst: return {1, 1, 1};
  }
  return {};
}

}  // namespace warpsim::timing
