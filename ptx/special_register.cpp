#include "ptx/special_register.h"

namespace warpsim::ptx {

namespace {
constexpr SpecialRegisterInfo kInfo[] = {
#define PTX_SREG(name, text, is_vector, bits) {text, is_vector, bits},
#include "ptx/special_registers.def"
};
constexpr size_t kCount = sizeof(kInfo) / sizeof(kInfo[0]);
}  // namespace

const SpecialRegisterInfo& special_register_info(SpecialRegister r) {
  return kInfo[static_cast<size_t>(r)];
}

std::optional<SpecialRegisterName> find_special_register(std::string_view name) {
  auto is_indexed = [](SpecialRegister r) {
    return r == SpecialRegister::Envreg || r == SpecialRegister::Pm ||
           r == SpecialRegister::Pm64 || r == SpecialRegister::ReservedSmemOffset;
  };
  for (size_t i = 0; i < kCount; ++i) {
    auto r = static_cast<SpecialRegister>(i);
    // An indexed register is only a name with its number (%envreg3, not %envreg).
    if (kInfo[i].name == name && !is_indexed(r)) return SpecialRegisterName{r, 0};
  }
  // Indexed registers: envreg0..31, pm0..7, pm0_64..pm7_64,
  // reserved_smem_offset_0..1.
  auto indexed = [&](std::string_view prefix, std::string_view suffix, unsigned limit,
                     SpecialRegister reg) -> std::optional<SpecialRegisterName> {
    if (name.size() <= prefix.size() + suffix.size() || !name.starts_with(prefix) ||
        !name.ends_with(suffix))
      return std::nullopt;
    std::string_view digits = name.substr(prefix.size(), name.size() - prefix.size() - suffix.size());
    if (digits.empty() || digits.size() > 2) return std::nullopt;
    unsigned v = 0;
    for (char c : digits) {
      if (c < '0' || c > '9') return std::nullopt;
      v = v * 10 + static_cast<unsigned>(c - '0');
    }
    if (v >= limit) return std::nullopt;
    return SpecialRegisterName{reg, static_cast<uint8_t>(v)};
  };
  if (auto r = indexed("envreg", "", 32, SpecialRegister::Envreg)) return r;
  if (auto r = indexed("pm", "_64", 8, SpecialRegister::Pm64)) return r;
  if (auto r = indexed("pm", "", 8, SpecialRegister::Pm)) return r;
  if (auto r = indexed("reserved_smem_offset_", "", 2, SpecialRegister::ReservedSmemOffset))
    return r;
  return std::nullopt;
}

}  // namespace warpsim::ptx
