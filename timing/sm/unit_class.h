#pragma once
// Which execution unit of an SM runs an instruction, decided once per
// instruction of a program (ptx/opcodes.def gives the opcode's class; "Alu"
// opcodes go to the fp32, fp64 or integer pipeline by their type), and the
// [timing.units] latency, initiation interval and unit count of each class.
#include <cstdint>
#include <vector>

#include "functional/program.h"
#include "timing/sm/sm_stats.h"
#include "timing/timing_config.h"

namespace warpsim::timing {

enum class UnitClass : uint8_t { Sp, Int, Dp, Sfu, Tensor, Branch, Ldst, Fence };
inline constexpr uint32_t kUnitClasses = 8;

// The SM's per-unit counters (timing.lane_ops.*) follow this order.
static_assert(kUnitClasses == kUnitClassCount);

// What the SM needs to know of one instruction besides its decoded form,
// decided once per instruction of a program: its unit, and the general
// registers it reads and writes per warp (the register file's accesses,
// which the energy model prices; predicates live in their own file).
struct InstructionClass {
  UnitClass unit = UnitClass::Int;
  uint8_t register_reads = 0;
  uint8_t register_writes = 0;
};

// One entry per instruction of program.code.
std::vector<InstructionClass> classify_units(const functional::Program& program);

struct UnitTiming {
  uint32_t latency = 1;   // cycles from issue to result
  uint32_t interval = 1;  // cycles before a unit takes the next instruction
  uint32_t count = 1;     // units per scheduler (LD/ST: per SM)
};
// Ldst's latency and interval are the LD/ST unit's own (sm_memory.cpp);
// fences use the branch unit's figures.
UnitTiming unit_timing(const UnitConfig& c, UnitClass u);

}  // namespace warpsim::timing
