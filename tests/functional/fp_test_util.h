#pragma once
// Shared by the functional/fp unit tests: rounding modes, bit helpers, and
// the host rounding-mode constant of each PTX mode.
#include <cfenv>
#include <cstdint>

#include "functional/fp/format.h"

namespace warpsim::functional::fp::test {

using R = ptx::Rounding;
inline constexpr R kModes[] = {R::Rn, R::Rz, R::Rm, R::Rp};

inline uint32_t F(float f) { return f32_bits(f); }
inline uint64_t D(double d) { return f64_bits(d); }

// The <cfenv> mode that implements PTX rounding mode r on the host.
inline int fe(R r) {
  switch (r) {
    case R::Rz: return FE_TOWARDZERO;
    case R::Rm: return FE_DOWNWARD;
    case R::Rp: return FE_UPWARD;
    default: return FE_TONEAREST;
  }
}

}  // namespace warpsim::functional::fp::test
