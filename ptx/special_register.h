#pragma once
// PTX special registers (%tid, %laneid, ...), generated from special_registers.def.
#include <cstdint>
#include <optional>
#include <string_view>

namespace warpsim::ptx {

enum class SpecialRegister : uint8_t {
#define PTX_SREG(name, text, is_vector, bits) name,
#include "ptx/special_registers.def"
};

struct SpecialRegisterInfo {
  std::string_view name;  // without '%'
  bool is_vector;
  uint8_t bits;
};
const SpecialRegisterInfo& special_register_info(SpecialRegister r);

struct SpecialRegisterName {
  SpecialRegister reg;
  uint8_t index = 0;  // %envreg3 -> 3
};
// Recognises the base of a special register name, without '%' and without a
// component suffix: "tid", "envreg3", "lanemask_lt". nullopt if not special.
std::optional<SpecialRegisterName> find_special_register(std::string_view name);

}  // namespace warpsim::ptx
