#pragma once
// Binary floating-point formats as bit patterns, and the one rounding routine
// every conversion and every non-native-precision operation goes through.
//
// Values travel as their bit patterns (f32 = uint32_t, f64 = uint64_t,
// f16/bf16 = uint16_t, e4m3/e5m2 = uint8_t) so that NaN payloads and signed
// zeros survive exactly as a register would hold them.
//
// round_to() rounds a value x = r + t to a target format, where r is a double
// and t an infinitesimal of sign `tail` (-1, 0, +1) standing for the exact
// error of r. Every grid point and midpoint of a format with <= 53 bits of
// precision is itself a double, so if r = RN_double(x) then x and r lie in the
// same open interval between consecutive grid points/midpoints unless r sits
// exactly on one; only then does the tail decide. Rounding (r, sign(x - r))
// is therefore identical to rounding x once: no double rounding.
#include <bit>
#include <cfloat>
#include <cstdint>

#include "ptx/modifiers.h"

namespace warpsim::functional::fp {

// round_to() is the body of every narrow-format and directed-rounding path;
// GCC will not inline it on its own, and inlined with a constant Format it
// folds to about half the instructions (measured 2x faster per call).
#if defined(__GNUC__)
#define WARPSIM_FP_ALWAYS_INLINE [[gnu::always_inline]] inline
#else
#define WARPSIM_FP_ALWAYS_INLINE inline
#endif

static_assert(FLT_EVAL_METHOD == 0, "fp/ needs float/double evaluated in their own precision (SSE, not x87)");

// IEEE-754 rounding directions (plus ties-away, used by cvt.rna).
enum class RoundMode : uint8_t { NearestEven, TowardZero, Down, Up, NearestAway };

// The PTX modifier (.rn/.rz/.rm/.rp/.rna, or the integer forms .rni/.rzi/.rmi/.rpi)
// to a direction. No modifier means .rn, the PTX default.
constexpr RoundMode to_mode(ptx::Rounding r) {
  switch (r) {
    case ptx::Rounding::Rz:
    case ptx::Rounding::Rzi: return RoundMode::TowardZero;
    case ptx::Rounding::Rm:
    case ptx::Rounding::Rmi: return RoundMode::Down;
    case ptx::Rounding::Rp:
    case ptx::Rounding::Rpi: return RoundMode::Up;
    case ptx::Rounding::Rna: return RoundMode::NearestAway;
    default: return RoundMode::NearestEven;
  }
}

inline uint32_t f32_bits(float f) { return std::bit_cast<uint32_t>(f); }
inline uint64_t f64_bits(double d) { return std::bit_cast<uint64_t>(d); }
inline float f32_from(uint32_t b) { return std::bit_cast<float>(b); }
inline double f64_from(uint64_t b) { return std::bit_cast<double>(b); }

// Canonical NaNs. f32: what the hardware returns for every NaN result
// (CUDART_NAN_F). f64: the default NaN for invalid operations without a NaN
// input (CUDART_NAN); f64 instructions otherwise propagate the input payload.
// f16/bf16: 0x7fff (CUDART_NAN_FP16 / _BF16). e4m3/e5m2: 0x7f.
inline constexpr uint32_t kF32CanonicalNaN = 0x7fffffffu;
inline constexpr uint64_t kF64DefaultNaN = 0xfff8000000000000ull;
inline constexpr uint16_t kF16CanonicalNaN = 0x7fff;
inline constexpr uint16_t kBF16CanonicalNaN = 0x7fff;
inline constexpr uint8_t kF8CanonicalNaN = 0x7f;

// A binary format: precision (significand bits including the implicit one),
// minimum normal exponent, and the encodings of its extremes. Encodings are
// contiguous sign|exponent|mantissa fields; `sign` is the sign bit.
struct Format {
  int precision;
  int emin;
  uint64_t sign;
  uint64_t max_finite;  // magnitude bits of the largest finite value
  uint64_t inf;         // magnitude bits of infinity; 0 when the format has none
  uint64_t nan;         // canonical NaN (full pattern)
};

inline constexpr Format kF64{53, -1022, 1ull << 63, 0x7fefffffffffffffull, 0x7ff0000000000000ull,
                             kF64DefaultNaN};
inline constexpr Format kF32{24, -126, 1u << 31, 0x7f7fffffu, 0x7f800000u, kF32CanonicalNaN};
inline constexpr Format kF16{11, -14, 1u << 15, 0x7bffu, 0x7c00u, kF16CanonicalNaN};
inline constexpr Format kBF16{8, -126, 1u << 15, 0x7f7fu, 0x7f80u, kBF16CanonicalNaN};
// tf32 is computed as a 19-bit format (1.8.10) and shifted into the top of a b32.
inline constexpr Format kTF32x19{11, -126, 1u << 18, 0x3fbffu, 0x3fc00u, 0x3ffffu};
// OCP FP8: e4m3 has no infinity and one NaN mantissa (S.1111.111), max 448;
// e5m2 is IEEE-like, max 57344.
inline constexpr Format kE4M3{4, -6, 0x80u, 0x7eu, 0, kF8CanonicalNaN};
inline constexpr Format kE5M2{3, -14, 0x80u, 0x7bu, 0x7cu, kF8CanonicalNaN};

// Round x = r + tail*epsilon to `f` (see the file comment). `satfinite`
// replaces results beyond the largest finite value, infinities included, by
// the sign-preserved maximum (cvt .satfinite). NaN gives f.nan.
// Overflow without satfinite follows IEEE-754: to infinity for the nearest
// modes and the directions away from zero, else to the maximum; formats
// without infinity give NaN.
WARPSIM_FP_ALWAYS_INLINE uint64_t round_to(const Format& f, double r, int tail, RoundMode mode,
                                           bool satfinite = false) {
  const uint64_t rb = f64_bits(r);
  const bool neg = rb >> 63;
  const uint64_t sign = neg ? f.sign : 0;
  const uint32_t bexp = static_cast<uint32_t>(rb >> 52) & 0x7ff;
  const uint64_t frac = rb & ((1ull << 52) - 1);
  if (bexp == 0x7ff) [[unlikely]] {
    if (frac != 0) return f.nan;
    if (satfinite) return sign | f.max_finite;
    return f.inf != 0 ? (sign | f.inf) : f.nan;
  }
  // |r| = m * 2^e with m normalised to [2^52, 2^53).
  uint64_t m = frac | (1ull << 52);
  int e = static_cast<int>(bexp) - 1075;
  if (bexp == 0) [[unlikely]] {
    if (frac == 0) return sign;  // exact zero (an exact zero has no tail)
    const int lz = std::countl_zero(frac) - 11;
    m = frac << lz;
    e = -1074 - lz;
  }
  // Three guard bits model the tail as +-1/8 ulp of r: strictly inside the
  // gap between r and its neighbouring doubles (also below a power of two),
  // so it never lands on a grid point or midpoint of any format with <= 53
  // bits. big is in [2^55 - 1, 2^56).
  const uint64_t big = (m << 3) + static_cast<uint64_t>(static_cast<int64_t>(neg ? -tail : tail));
  const int e3 = e - 3;
  const int exp_of_x = 54 + static_cast<int>(big >> 55) + e3;
  const int lowest_quantum = f.emin - (f.precision - 1);
  const int q = (exp_of_x > f.emin ? exp_of_x : f.emin) - (f.precision - 1);
  // Shift to the quantum 2^q (>= 2 for precision <= 53). Past 58 everything
  // is below half a quantum, and the rounding decision (0 or 1 quantum) is
  // the same at shift 58, so clamp to keep shifts in range.
  int s = q - e3;
  s = s < 58 ? s : 58;
  // Round by adding a bias and truncating: the carry out of the discarded
  // bits is the increment (and propagates into the exponent by itself).
  const uint64_t half = 1ull << (s - 1);
  const uint64_t all = (half << 1) - 1;
  uint64_t bias;
  switch (mode) {
    case RoundMode::NearestEven: bias = half - 1 + ((big >> s) & 1); break;
    case RoundMode::NearestAway: bias = half; break;
    case RoundMode::TowardZero: bias = 0; break;
    case RoundMode::Down: bias = neg ? all : 0; break;
    default: bias = neg ? 0 : all; break;
  }
  const uint64_t kept = (big + bias) >> s;
  // kept * 2^q, encoded: the implicit bit of `kept` carries into the exponent field.
  const uint64_t mag = (static_cast<uint64_t>(q - lowest_quantum) << (f.precision - 1)) + kept;
  if (mag > f.max_finite) [[unlikely]] {
    const bool to_max = satfinite || mode == RoundMode::TowardZero || (mode == RoundMode::Down && !neg) ||
                        (mode == RoundMode::Up && neg);
    if (to_max) return sign | f.max_finite;
    return f.inf != 0 ? (sign | f.inf) : f.nan;
  }
  return sign | mag;
}

// Sign of an exact error term as a tail for round_to().
inline int tail_sign(double err) { return (err > 0) - (err < 0); }

// Error-free sum: a + b == s + err exactly (Knuth's TwoSum; no overflow assumed).
inline double two_sum(double a, double b, double& err) {
  const double s = a + b;
  const double bv = s - a;
  const double av = s - bv;
  err = (a - av) + (b - bv);
  return s;
}

// ---- classification on bit patterns -------------------------------------

inline bool is_nan32(uint32_t a) { return (a & 0x7fffffffu) > 0x7f800000u; }
inline bool is_nan64(uint64_t a) { return (a & ~(1ull << 63)) > 0x7ff0000000000000ull; }
inline bool is_nan16(uint16_t a) { return (a & 0x7fffu) > 0x7c00u; }
inline bool is_nan_bf16(uint16_t a) { return (a & 0x7fffu) > 0x7f80u; }
inline bool is_subnormal32(uint32_t a) { return (a & 0x7f800000u) == 0 && (a & 0x007fffffu) != 0; }

// Flush a subnormal to a sign-preserving zero (.ftz).
inline uint32_t flush32(uint32_t a) { return (a & 0x7f800000u) == 0 ? (a & 0x80000000u) : a; }
inline uint16_t flush16(uint16_t a) { return (a & 0x7c00u) == 0 ? static_cast<uint16_t>(a & 0x8000u) : a; }
inline uint32_t ftz32(uint32_t a, bool ftz) { return ftz ? flush32(a) : a; }
inline uint16_t ftz16(uint16_t a, bool ftz) { return ftz ? flush16(a) : a; }

// Quiet an f64 NaN, keeping its payload (f64 instructions propagate payloads).
inline uint64_t quiet64(uint64_t a) { return a | (1ull << 51); }

// .sat on a result: clamp to [+0, 1]; NaN and -0 become +0. Written as
// selects so that random signs cost no mispredicted branches.
inline uint32_t sat32(uint32_t a) {
  uint32_t r = a >= 0x80000000u ? 0 : a;  // negatives, -0, negative NaNs
  r = r > 0x7f800000u ? 0 : r;            // positive NaNs
  return r > 0x3f800000u ? 0x3f800000u : r;
}
inline uint16_t sat16(uint16_t a) {
  uint16_t r = a >= 0x8000u ? uint16_t{0} : a;
  r = r > 0x7c00u ? uint16_t{0} : r;
  return r > 0x3c00u ? uint16_t{0x3c00u} : r;
}

}  // namespace warpsim::functional::fp
