// Instruction -> execution unit, and the per-class timing parameters.
#include "timing/sm/unit_class.h"

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

}  // namespace

std::vector<UnitClass> classify_units(const functional::Program& program) {
  std::vector<UnitClass> units;
  units.reserve(program.code.size());
  for (const functional::DecodedInst& inst : program.code) units.push_back(classify(inst));
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
