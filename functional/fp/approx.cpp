// Approximate transcendental instructions: special cases from the ISA tables,
// everything else from libm in double, rounded once to the result format.
#include "functional/fp/approx.h"

#include <cmath>

#include "functional/fp/half.h"

namespace warpsim::functional::fp {
namespace {

inline uint32_t to_f32(double r, bool ftz) { return ftz32(f32_bits(static_cast<float>(r)), ftz); }

// 2^x in double without libm range errors (which would set errno): below
// 2^-200 every narrower format rounds to +0, and double cannot underflow.
inline double exp2_clamped(double x) {
  if (x >= 1024) return INFINITY;
  if (x < -200) return 0.0;
  return std::exp2(x);
}

// The upper word of an f64 (sign, 11-bit exponent, 20 fraction bits) as a
// 21-bit-precision format whose encoding is that 32-bit word.
constexpr Format kF64Hi{21, -1022, 1u << 31, 0x7fefffffu, 0x7ff00000u, 0x7fffffffu};
constexpr uint64_t kHiNaN = 0x7fffffff00000000ull;

inline uint64_t round_hi(double r) {
  const auto w = static_cast<uint32_t>(round_to(kF64Hi, r, 0, RoundMode::NearestEven));
  const uint32_t flushed = (w & 0x7ff00000u) == 0 ? (w & 0x80000000u) : w;
  return static_cast<uint64_t>(flushed) << 32;
}

}  // namespace

uint32_t sin_approx_f32(uint32_t a, bool ftz) {
  a = ftz32(a, ftz);
  if ((a & 0x7f800000u) == 0x7f800000u) return kF32CanonicalNaN;  // +-Inf, NaN
  return to_f32(std::sin(static_cast<double>(f32_from(a))), ftz);
}

uint32_t cos_approx_f32(uint32_t a, bool ftz) {
  a = ftz32(a, ftz);
  if ((a & 0x7f800000u) == 0x7f800000u) return kF32CanonicalNaN;
  return to_f32(std::cos(static_cast<double>(f32_from(a))), ftz);
}

// lg2: -Inf/negatives -> NaN, +-0 -> -Inf, +Inf -> +Inf.
uint32_t lg2_approx_f32(uint32_t a, bool ftz) {
  a = ftz32(a, ftz);
  if (is_nan32(a)) return kF32CanonicalNaN;
  if ((a & 0x7fffffffu) == 0) return 0xff800000u;
  if (a & 0x80000000u) return kF32CanonicalNaN;
  if (a == 0x7f800000u) return a;
  return to_f32(std::log2(static_cast<double>(f32_from(a))), ftz);
}

// ex2: -Inf -> +0, +-0 -> 1, +Inf -> +Inf.
uint32_t ex2_approx_f32(uint32_t a, bool ftz) {
  a = ftz32(a, ftz);
  if (is_nan32(a)) return kF32CanonicalNaN;
  return to_f32(exp2_clamped(f32_from(a)), ftz);
}

// tanh: +-Inf -> +-1, +-0 -> +-0; subnormals pass through (no .ftz form).
uint32_t tanh_approx_f32(uint32_t a) {
  if (is_nan32(a)) return kF32CanonicalNaN;
  return f32_bits(static_cast<float>(std::tanh(static_cast<double>(f32_from(a)))));
}

uint16_t ex2_approx_f16(uint16_t a) {
  if (is_nan16(a)) return kF16CanonicalNaN;
  return static_cast<uint16_t>(round_to(kF16, exp2_clamped(f16_value(a)), 0, RoundMode::NearestEven));
}

uint16_t ex2_approx_ftz_bf16(uint16_t a) {
  if (is_nan_bf16(a)) return kBF16CanonicalNaN;
  if ((a & 0x7f80u) == 0) a &= 0x8000u;  // flush subnormal input
  auto r = static_cast<uint16_t>(round_to(kBF16, exp2_clamped(bf16_value(a)), 0, RoundMode::NearestEven));
  return (r & 0x7f80u) == 0 ? static_cast<uint16_t>(r & 0x8000u) : r;
}

uint16_t tanh_approx_f16(uint16_t a) {
  if (is_nan16(a)) return kF16CanonicalNaN;
  return static_cast<uint16_t>(round_to(kF16, std::tanh(static_cast<double>(f16_value(a))), 0,
                                        RoundMode::NearestEven));
}

uint16_t tanh_approx_bf16(uint16_t a) {
  if (is_nan_bf16(a)) return kBF16CanonicalNaN;
  return static_cast<uint16_t>(round_to(kBF16, std::tanh(static_cast<double>(bf16_value(a))), 0,
                                        RoundMode::NearestEven));
}

uint64_t rcp_approx_ftz_f64(uint64_t a) {
  const uint64_t hi = a & 0xffffffff00000000ull;
  const uint64_t sign = hi & (1ull << 63);
  const uint64_t mag = hi ^ sign;
  if (mag > 0x7ff0000000000000ull) return kHiNaN;
  if (mag == 0x7ff0000000000000ull) return sign;                       // +-Inf -> +-0
  if (mag < 0x0010000000000000ull) return sign | 0x7ff0000000000000ull;  // +-0, subnormal -> +-Inf
  return round_hi(1.0 / f64_from(hi));
}

uint64_t rsqrt_approx_ftz_f64(uint64_t a) {
  const uint64_t hi = a & 0xffffffff00000000ull;
  const uint64_t sign = hi & (1ull << 63);
  const uint64_t mag = hi ^ sign;
  if (mag > 0x7ff0000000000000ull) return kHiNaN;
  if (mag < 0x0010000000000000ull) return sign | 0x7ff0000000000000ull;  // +-0, subnormal -> +-Inf
  if (sign) return kHiNaN;                                               // -normal, -Inf
  if (mag == 0x7ff0000000000000ull) return 0;                            // +Inf -> +0
  return round_hi(1.0 / std::sqrt(f64_from(hi)));
}

uint64_t rsqrt_approx_f64(uint64_t a) {
  if (is_nan64(a)) return quiet64(a);
  const uint64_t sign = a & (1ull << 63);
  if ((a ^ sign) == 0) return sign | 0x7ff0000000000000ull;  // +-0 -> +-Inf
  if (sign) return kF64DefaultNaN;
  if (a == 0x7ff0000000000000ull) return 0;
  return f64_bits(1.0 / std::sqrt(f64_from(a)));
}

}  // namespace warpsim::functional::fp
