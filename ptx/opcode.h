#pragma once
// PTX opcodes, generated from ptx/opcodes.def.
#include <cstdint>
#include <optional>
#include <string_view>

namespace warpsim::ptx {

enum class Opcode : uint16_t {
#define PTX_OPCODE(name, text, min_ops, max_ops, unit, latency) name,
#include "ptx/opcodes.def"
};

// Functional-unit class of an opcode; Alu is refined by the instruction type.
enum class UnitClass : uint8_t { Alu, Sfu, Mem, Branch, Sync, Tensor };

struct OpcodeInfo {
  std::string_view mnemonic;
  uint8_t min_operands;
  uint8_t max_operands;
  UnitClass unit;
  uint8_t latency;
};

inline constexpr OpcodeInfo kOpcodeInfo[] = {
#define PTX_OPCODE(name, text, min_ops, max_ops, unit, latency) \
  {text, min_ops, max_ops, UnitClass::unit, latency},
#include "ptx/opcodes.def"
};
inline constexpr size_t kNumOpcodes = sizeof(kOpcodeInfo) / sizeof(kOpcodeInfo[0]);

inline const OpcodeInfo& opcode_info(Opcode op) { return kOpcodeInfo[static_cast<size_t>(op)]; }
inline std::string_view mnemonic(Opcode op) { return opcode_info(op).mnemonic; }

// Looks up the first word of an instruction mnemonic ("ld" in "ld.global.f32").
std::optional<Opcode> find_opcode(std::string_view word);

}  // namespace warpsim::ptx
