#pragma once
// The .approx / .full instructions. The ISA bounds their error rather than
// fixing their bits; we return the correctly rounded value (rcp, sqrt, div)
// or the host libm value computed in double and rounded once to the result
// format (transcendentals), which is within every documented bound:
//   rcp.approx.f32 1 ulp; sqrt.approx.f32 rel 2^-23; rsqrt.approx.f32 rel
//   2^-22.9; div.approx.f32 2 ulp for |b| in [2^-126, 2^126]; div.full.f32
//   2 ulp; sin/cos abs 2^-20.5 on [-2pi, 2pi]; lg2 abs/rel 2^-22; ex2 2 ulp;
//   tanh.f32 rel 2^-11.
// Special cases follow the ISA tables exactly. libm is never called with an
// argument that would make it set errno.
#include <cmath>
#include <cstdint>

#include "functional/fp/arith.h"

namespace warpsim::functional::fp {

// rcp.approx{.ftz}.f32: +-0 -> +-Inf, +-Inf -> +-0.
inline uint32_t rcp_approx_f32(uint32_t a, bool ftz = false) { return rcp_f32(a, ptx::Rounding::Rn, ftz); }

// sqrt.approx{.ftz}.f32: -0 -> -0, negatives -> NaN, +Inf -> +Inf.
inline uint32_t sqrt_approx_f32(uint32_t a, bool ftz = false) { return sqrt_f32(a, ptx::Rounding::Rn, ftz); }

// rsqrt.approx{.ftz}.f32: -0 -> -Inf, +0 -> +Inf, +Inf -> +0, negatives -> NaN.
inline uint32_t rsqrt_approx_f32(uint32_t a, bool ftz = false) {
  a = ftz32(a, ftz);
  if (is_nan32(a)) return kF32CanonicalNaN;
  if ((a & 0x7fffffffu) == 0) return (a & 0x80000000u) | 0x7f800000u;
  if (a & 0x80000000u) return kF32CanonicalNaN;
  if (a == 0x7f800000u) return 0;
  const double r = 1.0 / std::sqrt(static_cast<double>(f32_from(a)));
  return ftz32(f32_bits(static_cast<float>(r)), ftz);
}

// div.approx{.ftz}.f32 = a * (1/b): for 2^126 < |b| < 2^128 the ISA returns
// NaN when a is infinite and a zero of the quotient's sign otherwise (the
// approximate reciprocal underflows there).
inline uint32_t div_approx_f32(uint32_t a, uint32_t b, bool ftz = false) {
  a = ftz32(a, ftz);
  b = ftz32(b, ftz);
  if (is_nan32(a) || is_nan32(b)) return kF32CanonicalNaN;
  const uint32_t bmag = b & 0x7fffffffu;
  if (bmag > 0x7e800000u && bmag < 0x7f800000u) {
    if ((a & 0x7fffffffu) == 0x7f800000u) return kF32CanonicalNaN;
    return (a ^ b) & 0x80000000u;
  }
  return div_f32(a, b, ptx::Rounding::Rn, ftz);
}

// div.full{.ftz}.f32: full range, 2 ulp; the correctly rounded quotient.
inline uint32_t div_full_f32(uint32_t a, uint32_t b, bool ftz = false) {
  return div_f32(a, b, ptx::Rounding::Rn, ftz);
}

// sin/cos/lg2/ex2.approx{.ftz}.f32, tanh.approx.f32 (approx.cpp).
uint32_t sin_approx_f32(uint32_t a, bool ftz = false);
uint32_t cos_approx_f32(uint32_t a, bool ftz = false);
uint32_t lg2_approx_f32(uint32_t a, bool ftz = false);
uint32_t ex2_approx_f32(uint32_t a, bool ftz = false);
uint32_t tanh_approx_f32(uint32_t a);

// ex2.approx.f16, ex2.approx.ftz.bf16, tanh.approx.{f16,bf16}.
uint16_t ex2_approx_f16(uint16_t a);
uint16_t ex2_approx_ftz_bf16(uint16_t a);
uint16_t tanh_approx_f16(uint16_t a);
uint16_t tanh_approx_bf16(uint16_t a);

// rcp.approx.ftz.f64 / rsqrt.approx.ftz.f64: computed from the upper 32 bits
// of a (1.11.20), result rounded to 20 fraction bits in the upper word, low
// word zero; subnormals flushed; NaN -> 0x7fffffff00000000.
uint64_t rcp_approx_ftz_f64(uint64_t a);
uint64_t rsqrt_approx_ftz_f64(uint64_t a);
// rsqrt.approx.f64: full precision input and result, subnormals supported,
// NaN payload propagated.
uint64_t rsqrt_approx_f64(uint64_t a);

}  // namespace warpsim::functional::fp
