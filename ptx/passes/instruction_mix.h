#pragma once
// The instruction_mix pass's classes and per-kernel counts, for the tools
// that print them (`warpsim ptx opt --report`).
#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "common/stat_table.h"
#include "ptx/compile.h"

namespace warpsim::ptx {

enum class InstructionClass : uint8_t {
  Integer, Fp32, Fp64, Fp16, Sfu, Global, Shared, Local, Const, Param, Generic, Texture, Atomic,
  Control, Sync, Tensor,
};
inline constexpr size_t kInstructionClasses = 16;

// The class of one instruction: texture, atomic and memory instructions by
// what they touch, others by functional unit, ALU instructions by type.
InstructionClass classify(const Instruction& inst);
std::string_view class_name(InstructionClass c);

struct KernelMix {
  std::string kernel;
  std::array<uint64_t, kInstructionClasses> counts{};
};

struct InstructionMixStats {
  uint64_t kernels = 0;
  uint64_t counts[kInstructionClasses] = {};
};
const stats::StatTable<InstructionMixStats>& instruction_mix_stats_table();

// The kernels an instruction_mix pass counted (empty for another pass).
std::span<const KernelMix> instruction_mix_of(const ModulePass& pass);

}  // namespace warpsim::ptx
