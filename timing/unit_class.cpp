// Instruction -> execution unit, and the per-class timing parameters.
#include "timing/unit_class.h"

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

uint32_t unit_latency(const UnitConfig& c, UnitClass u) {
  switch (u) {
    case UnitClass::Sp: return c.sp_latency;
    case UnitClass::Int: return c.int_latency;
    case UnitClass::Dp: return c.dp_latency;
    case UnitClass::Sfu: return c.sfu_latency;
    case UnitClass::Tensor: return c.tensor_latency;
    case UnitClass::Branch: case UnitClass::Fence: return c.branch_latency;
    case UnitClass::Ldst: return 1;
  }
  return 1;
}

uint32_t unit_interval(const UnitConfig& c, UnitClass u) {
  switch (u) {
    case UnitClass::Sp: return c.sp_interval;
    case UnitClass::Int: return c.int_interval;
    case UnitClass::Dp: return c.dp_interval;
    case UnitClass::Sfu: return c.sfu_interval;
    case UnitClass::Tensor: return c.tensor_interval;
    case UnitClass::Branch: case UnitClass::Fence: return c.branch_interval;
    case UnitClass::Ldst: return 1;
  }
  return 1;
}

uint32_t unit_count(const UnitConfig& c, UnitClass u) {
  switch (u) {
    case UnitClass::Sp: return c.sp_units;
    case UnitClass::Int: return c.int_units;
    case UnitClass::Dp: return c.dp_units;
    case UnitClass::Sfu: return c.sfu_units;
    case UnitClass::Tensor: return c.tensor_units;
    case UnitClass::Branch: case UnitClass::Fence: return c.branch_units;
    case UnitClass::Ldst: return c.ldst_units;
  }
  return 1;
}

}  // namespace warpsim::timing
