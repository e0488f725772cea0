#pragma once
// Correctly rounded f32/f64 add, sub, mul, fma, div, sqrt, rcp with the PTX
// rounding modifiers (.rn .rz .rm .rp), .ftz and .sat (f32 only).
//
// Strategy (see also format.h):
//  * .rn (and no modifier): the host's own IEEE-754 operation in the default
//    environment, which is already the correctly rounded PTX result.
//  * f32 directed modes: computed in double together with the sign of its
//    exact error (TwoSum for add/fma, the exact residual via fma() for div and
//    sqrt; products of two f32 are exact in double), then rounded once by
//    round_to(). The FP environment is never touched.
//  * f64 directed modes: the host operation inside a save/restore of the
//    rounding mode, in arith_f64.cpp (built with -frounding-math).
//
// NaN results (PTX ISA 9.7.3): f32 instructions return the canonical NaN
// 0x7fffffff whatever the inputs. f64 instructions propagate payloads: the
// first NaN operand in operand order (a, b, c), quieted; an invalid
// operation without NaN input gives kF64DefaultNaN.
//
// .ftz flushes subnormal inputs and subnormal (final, rounded) results to a
// zero of the same sign; .sat then clamps to [+0, 1] with NaN -> +0.
#include <cmath>
#include <cstdint>

#include "functional/fp/format.h"

namespace warpsim::functional::fp {

namespace detail {

// f64 operations under a directed rounding mode (arith_f64.cpp).
double add_f64_directed(double a, double b, RoundMode m);
double mul_f64_directed(double a, double b, RoundMode m);
double fma_f64_directed(double a, double b, double c, RoundMode m);
double div_f64_directed(double a, double b, RoundMode m);
double sqrt_f64_directed(double a, RoundMode m);

inline uint32_t finish32(uint32_t bits, bool ftz, bool sat) {
  if (is_nan32(bits)) bits = kF32CanonicalNaN;
  if (ftz) bits = flush32(bits);
  if (sat) bits = sat32(bits);
  return bits;
}

// An exactly-zero sum x + y under .rm is -0 unless both addends are +0
// (IEEE-754 6.3); the host computed it in round-to-nearest, which gives +0.
inline double fix_zero_sum(double r, double x, double y, RoundMode m) {
  if (r != 0 || m != RoundMode::Down) return r;
  const bool both_plus_zero = x == 0 && y == 0 && !std::signbit(x) && !std::signbit(y);
  return both_plus_zero ? 0.0 : -0.0;
}

// (r, tail) of x + y for doubles holding f32 values (never overflows).
inline uint32_t round_sum32(double x, double y, RoundMode m) {
  double err;
  double r = two_sum(x, y, err);
  if (!std::isfinite(r)) return f32_bits(static_cast<float>(r));
  r = fix_zero_sum(r, x, y, m);
  return static_cast<uint32_t>(round_to(kF32, r, tail_sign(err), m));
}

inline uint64_t nan64(uint64_t a, uint64_t b) {
  if (is_nan64(a)) return quiet64(a);
  if (is_nan64(b)) return quiet64(b);
  return kF64DefaultNaN;
}
inline uint64_t nan64(uint64_t a, uint64_t b, uint64_t c) {
  if (is_nan64(a) || is_nan64(b)) return nan64(a, b);
  if (is_nan64(c)) return quiet64(c);
  return kF64DefaultNaN;
}
inline uint64_t finish64(double r, uint64_t a, uint64_t b) {
  return std::isnan(r) ? nan64(a, b) : f64_bits(r);
}

}  // namespace detail

// ---- f32 ------------------------------------------------------------------

inline uint32_t add_f32(uint32_t a, uint32_t b, ptx::Rounding rnd = ptx::Rounding::Rn, bool ftz = false,
                        bool sat = false) {
  a = ftz32(a, ftz);
  b = ftz32(b, ftz);
  const float fa = f32_from(a), fb = f32_from(b);
  const RoundMode m = to_mode(rnd);
  if (m == RoundMode::NearestEven) return detail::finish32(f32_bits(fa + fb), ftz, sat);
  return detail::finish32(detail::round_sum32(fa, fb, m), ftz, sat);
}

inline uint32_t sub_f32(uint32_t a, uint32_t b, ptx::Rounding rnd = ptx::Rounding::Rn, bool ftz = false,
                        bool sat = false) {
  return add_f32(a, b ^ 0x80000000u, rnd, ftz, sat);
}

inline uint32_t mul_f32(uint32_t a, uint32_t b, ptx::Rounding rnd = ptx::Rounding::Rn, bool ftz = false,
                        bool sat = false) {
  a = ftz32(a, ftz);
  b = ftz32(b, ftz);
  const float fa = f32_from(a), fb = f32_from(b);
  const RoundMode m = to_mode(rnd);
  if (m == RoundMode::NearestEven) return detail::finish32(f32_bits(fa * fb), ftz, sat);
  // 24 x 24 bits: the double product is exact.
  const double p = static_cast<double>(fa) * fb;
  return detail::finish32(static_cast<uint32_t>(round_to(kF32, p, 0, m)), ftz, sat);
}

// fma.f32 / mad.f32 (sm_20+): a*b + c with a single rounding.
inline uint32_t fma_f32(uint32_t a, uint32_t b, uint32_t c, ptx::Rounding rnd = ptx::Rounding::Rn,
                        bool ftz = false, bool sat = false) {
  a = ftz32(a, ftz);
  b = ftz32(b, ftz);
  c = ftz32(c, ftz);
  const float fa = f32_from(a), fb = f32_from(b), fc = f32_from(c);
  const RoundMode m = to_mode(rnd);
  if (m == RoundMode::NearestEven) return detail::finish32(f32_bits(std::fma(fa, fb, fc)), ftz, sat);
  const double p = static_cast<double>(fa) * fb;  // exact
  return detail::finish32(detail::round_sum32(p, fc, m), ftz, sat);
}

inline uint32_t div_f32(uint32_t a, uint32_t b, ptx::Rounding rnd = ptx::Rounding::Rn, bool ftz = false) {
  a = ftz32(a, ftz);
  b = ftz32(b, ftz);
  const float fa = f32_from(a), fb = f32_from(b);
  const RoundMode m = to_mode(rnd);
  if (m == RoundMode::NearestEven) return detail::finish32(f32_bits(fa / fb), ftz, false);
  const double q = static_cast<double>(fa) / fb;  // never under/overflows for f32 operands
  int tail = 0;
  if (std::isfinite(q) && q != 0) {
    // a - q*b is exact; the exact quotient exceeds q iff it has the sign of b.
    const double rem = std::fma(-q, static_cast<double>(fb), static_cast<double>(fa));
    tail = fb > 0 ? tail_sign(rem) : -tail_sign(rem);
  }
  return detail::finish32(static_cast<uint32_t>(round_to(kF32, q, tail, m)), ftz, false);
}

inline uint32_t rcp_f32(uint32_t a, ptx::Rounding rnd = ptx::Rounding::Rn, bool ftz = false) {
  return div_f32(0x3f800000u, a, rnd, ftz);
}

inline uint32_t sqrt_f32(uint32_t a, ptx::Rounding rnd = ptx::Rounding::Rn, bool ftz = false) {
  a = ftz32(a, ftz);
  const float fa = f32_from(a);
  const RoundMode m = to_mode(rnd);
  // +-0, +Inf are exact; negatives and NaN give NaN (handled here so that
  // std::sqrt never sees a negative argument and never touches errno).
  if (!(fa > 0) || std::isinf(fa)) {
    return detail::finish32(fa == 0 || fa == INFINITY ? a : kF32CanonicalNaN, ftz, false);
  }
  if (m == RoundMode::NearestEven) return detail::finish32(f32_bits(std::sqrt(fa)), ftz, false);
  const double s = std::sqrt(static_cast<double>(fa));
  const double rem = std::fma(-s, s, static_cast<double>(fa));  // exact
  return detail::finish32(static_cast<uint32_t>(round_to(kF32, s, tail_sign(rem), m)), ftz, false);
}

// ---- f64 ------------------------------------------------------------------

inline uint64_t add_f64(uint64_t a, uint64_t b, ptx::Rounding rnd = ptx::Rounding::Rn) {
  const double fa = f64_from(a), fb = f64_from(b);
  const RoundMode m = to_mode(rnd);
  const double r = m == RoundMode::NearestEven ? fa + fb : detail::add_f64_directed(fa, fb, m);
  return detail::finish64(r, a, b);
}

inline uint64_t sub_f64(uint64_t a, uint64_t b, ptx::Rounding rnd = ptx::Rounding::Rn) {
  // Negating a NaN b would flip the sign of the propagated payload: keep b.
  if (is_nan64(a) || is_nan64(b)) return detail::nan64(a, b);
  return add_f64(a, b ^ (1ull << 63), rnd);
}

inline uint64_t mul_f64(uint64_t a, uint64_t b, ptx::Rounding rnd = ptx::Rounding::Rn) {
  const double fa = f64_from(a), fb = f64_from(b);
  const RoundMode m = to_mode(rnd);
  const double r = m == RoundMode::NearestEven ? fa * fb : detail::mul_f64_directed(fa, fb, m);
  return detail::finish64(r, a, b);
}

inline uint64_t fma_f64(uint64_t a, uint64_t b, uint64_t c, ptx::Rounding rnd = ptx::Rounding::Rn) {
  const double fa = f64_from(a), fb = f64_from(b), fc = f64_from(c);
  const RoundMode m = to_mode(rnd);
  const double r = m == RoundMode::NearestEven ? std::fma(fa, fb, fc) : detail::fma_f64_directed(fa, fb, fc, m);
  return std::isnan(r) ? detail::nan64(a, b, c) : f64_bits(r);
}

inline uint64_t div_f64(uint64_t a, uint64_t b, ptx::Rounding rnd = ptx::Rounding::Rn) {
  const double fa = f64_from(a), fb = f64_from(b);
  const RoundMode m = to_mode(rnd);
  const double r = m == RoundMode::NearestEven ? fa / fb : detail::div_f64_directed(fa, fb, m);
  return detail::finish64(r, a, b);
}

inline uint64_t rcp_f64(uint64_t a, ptx::Rounding rnd = ptx::Rounding::Rn) {
  return div_f64(0x3ff0000000000000ull, a, rnd);
}

inline uint64_t sqrt_f64(uint64_t a, ptx::Rounding rnd = ptx::Rounding::Rn) {
  const double fa = f64_from(a);
  if (std::isnan(fa)) return quiet64(a);
  if (fa < 0) return kF64DefaultNaN;  // keeps std::sqrt away from errno
  const RoundMode m = to_mode(rnd);
  return f64_bits(m == RoundMode::NearestEven ? std::sqrt(fa) : detail::sqrt_f64_directed(fa, m));
}

}  // namespace warpsim::functional::fp
