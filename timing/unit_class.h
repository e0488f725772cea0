#pragma once
// Which execution unit of an SM runs an instruction, decided once per
// instruction of a program (ptx/opcodes.def gives the opcode's class; "Alu"
// opcodes go to the fp32, fp64 or integer pipeline by their type), and the
// [timing.units] latency, initiation interval and unit count of each class.
#include <cstdint>
#include <vector>

#include "functional/program.h"
#include "timing/timing_config.h"

namespace warpsim::timing {

enum class UnitClass : uint8_t { Sp, Int, Dp, Sfu, Tensor, Branch, Ldst, Fence };
inline constexpr uint32_t kUnitClasses = 8;

// One class per instruction of program.code.
std::vector<UnitClass> classify_units(const functional::Program& program);

uint32_t unit_latency(const UnitConfig& c, UnitClass u);
uint32_t unit_interval(const UnitConfig& c, UnitClass u);
uint32_t unit_count(const UnitConfig& c, UnitClass u);

}  // namespace warpsim::timing
