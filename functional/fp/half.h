#pragma once
// Narrow formats: f16 and bf16 (uint16_t), tf32 (the top 19 bits of a b32),
// e4m3 / e5m2 (uint8_t). Conversions from f32/f64 round once, straight from
// the source value (f64 -> f16 is not f64 -> f32 -> f16). f16/bf16 arithmetic
// is computed exactly in double (f16 sums and all products are exact there;
// bf16 sums and fma sums carry the sign of their TwoSum error as the tail),
// then rounded once by round_to(), so no double rounding can occur.
//
// Modifier semantics (PTX ISA cvt, 9.7.4 half precision):
//  .satfinite  results beyond MAX_NORM (infinities included) become the
//              sign-preserved MAX_NORM; NaN stays NaN.
//  .relu       negative results (and -0) become +0; NaN becomes canonical NaN.
//  .sat        clamp to [+0, 1]; NaN becomes +0.
//  .ftz        (f16 arithmetic) flush subnormal inputs/results; (cvt) flushes
//              f32 subnormal inputs only.
// NaN results are canonical: f16/bf16 0x7fff, e4m3/e5m2 0x7f, f32 0x7fffffff.
#include <cmath>
#include <cstdint>

#include "functional/fp/format.h"

namespace warpsim::functional::fp {

// ---- decoding (exact) -----------------------------------------------------

inline float f16_value(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t exp = (h >> 10) & 0x1fu;
  const uint32_t man = h & 0x3ffu;
  if (exp == 0x1f) return f32_from(sign | 0x7f800000u | (man << 13));
  if (exp == 0) return f32_from(sign | f32_bits(static_cast<float>(man) * 0x1p-24f));
  return f32_from(sign | ((exp + 112) << 23) | (man << 13));
}
inline float bf16_value(uint16_t h) { return f32_from(static_cast<uint32_t>(h) << 16); }

inline float e4m3_value(uint8_t x) {
  const float mag = (x & 0x78u) == 0 ? static_cast<float>(x & 7u) * 0x1p-9f  // subnormal
                                     : f32_from((((x >> 3) & 0xfu) + 120u) << 23 | (x & 7u) << 20);
  return (x & 0x80u) ? -mag : mag;
}
inline bool is_nan_e4m3(uint8_t x) { return (x & 0x7fu) == 0x7fu; }
inline bool is_nan_e5m2(uint8_t x) { return (x & 0x7fu) > 0x7cu; }

// ---- conversions ----------------------------------------------------------

namespace detail {
inline uint16_t narrow_finish(uint16_t h, bool relu, bool sat) {
  if (relu && (h & 0x8000u)) h = 0;
  if (sat) h = (h & 0x8000u) ? 0 : (h > 0x3c00u ? 0x3c00u : h);  // [0,1] in f16
  return h;
}
inline uint16_t bf16_sat(uint16_t h) { return (h & 0x8000u) ? 0 : (h > 0x3f80u ? 0x3f80u : h); }
}  // namespace detail

// cvt{.rnd}{.relu}{.satfinite}{.sat}.f16.f64 — the f64 value rounded once.
inline uint16_t f64_to_f16(uint64_t a, ptx::Rounding rnd = ptx::Rounding::Rn, bool sat = false,
                           bool relu = false, bool satfinite = false) {
  if (is_nan64(a)) return sat ? 0 : kF16CanonicalNaN;
  const auto h = static_cast<uint16_t>(round_to(kF16, f64_from(a), 0, to_mode(rnd), satfinite));
  return detail::narrow_finish(h, relu, sat);
}

// cvt{.rnd}{.ftz}{.relu}{.satfinite}{.sat}.f16.f32
inline uint16_t f32_to_f16(uint32_t a, ptx::Rounding rnd = ptx::Rounding::Rn, bool ftz = false, bool sat = false,
                           bool relu = false, bool satfinite = false) {
  a = ftz32(a, ftz);
  if (is_nan32(a)) return sat ? 0 : kF16CanonicalNaN;
  const auto h = static_cast<uint16_t>(round_to(kF16, f32_from(a), 0, to_mode(rnd), satfinite));
  return detail::narrow_finish(h, relu, sat);
}

inline uint16_t f64_to_bf16(uint64_t a, ptx::Rounding rnd = ptx::Rounding::Rn, bool relu = false,
                            bool satfinite = false) {
  if (is_nan64(a)) return kBF16CanonicalNaN;
  const auto h = static_cast<uint16_t>(round_to(kBF16, f64_from(a), 0, to_mode(rnd), satfinite));
  return (relu && (h & 0x8000u)) ? 0 : h;
}

// cvt{.rnd}{.ftz}{.relu}{.satfinite}.bf16.f32
inline uint16_t f32_to_bf16(uint32_t a, ptx::Rounding rnd = ptx::Rounding::Rn, bool ftz = false,
                            bool relu = false, bool satfinite = false) {
  return f64_to_bf16(f64_bits(f32_from(ftz32(a, ftz))), rnd, relu, satfinite);
}

inline uint16_t f16_to_bf16(uint16_t a, ptx::Rounding rnd = ptx::Rounding::Rn) {
  if (is_nan16(a)) return kBF16CanonicalNaN;
  return static_cast<uint16_t>(round_to(kBF16, f16_value(a), 0, to_mode(rnd)));
}
inline uint16_t bf16_to_f16(uint16_t a, ptx::Rounding rnd = ptx::Rounding::Rn) {
  if (is_nan_bf16(a)) return kF16CanonicalNaN;
  return static_cast<uint16_t>(round_to(kF16, bf16_value(a), 0, to_mode(rnd)));
}

// Widening conversions are exact; NaN becomes the canonical f32 NaN, .ftz
// flushes an f32 result that is subnormal (possible from bf16 only).
inline uint32_t f16_to_f32(uint16_t h) { return is_nan16(h) ? kF32CanonicalNaN : f32_bits(f16_value(h)); }
inline uint32_t bf16_to_f32(uint16_t h, bool ftz = false) {
  if (is_nan_bf16(h)) return kF32CanonicalNaN;
  return ftz32(static_cast<uint32_t>(h) << 16, ftz);
}

// cvt.rna{.satfinite}.tf32.f32 and cvt.{rn,rz}{.satfinite}{.relu}.tf32.f32.
// The tf32 layout is implementation-defined; we produce the f32 pattern with
// the low 13 mantissa bits zero (what tensor-core consumers read).
inline uint32_t f32_to_tf32(uint32_t a, ptx::Rounding rnd = ptx::Rounding::Rna, bool satfinite = false,
                            bool relu = false) {
  if (is_nan32(a)) return kF32CanonicalNaN;
  uint32_t t = static_cast<uint32_t>(round_to(kTF32x19, f32_from(a), 0, to_mode(rnd), satfinite)) << 13;
  if (relu && (t & 0x80000000u)) t = 0;
  return t;
}

// cvt.rn.satfinite{.relu}.{e4m3,e5m2}: always round-to-nearest-even and
// saturating in PTX; `satfinite = false` gives the IEEE-style overflow
// (e5m2: Inf; e4m3: NaN) for callers that model other conventions.
inline uint8_t double_to_f8(double v, const Format& f, bool relu, bool satfinite) {
  if (v != v) return kF8CanonicalNaN;
  auto x = static_cast<uint8_t>(round_to(f, v, 0, RoundMode::NearestEven, satfinite));
  if (relu && (x & 0x80u) && (x & 0x7fu) != 0x7fu) x = 0;
  return x;
}
inline uint8_t f32_to_e4m3(uint32_t a, bool relu = false, bool satfinite = true) {
  return double_to_f8(f32_from(a), kE4M3, relu, satfinite);
}
inline uint8_t f32_to_e5m2(uint32_t a, bool relu = false, bool satfinite = true) {
  return double_to_f8(f32_from(a), kE5M2, relu, satfinite);
}
inline uint8_t f16_to_e4m3(uint16_t a, bool relu = false) { return double_to_f8(f16_value(a), kE4M3, relu, true); }
inline uint8_t f16_to_e5m2(uint16_t a, bool relu = false) { return double_to_f8(f16_value(a), kE5M2, relu, true); }
inline uint8_t bf16_to_e4m3(uint16_t a, bool relu = false) { return double_to_f8(bf16_value(a), kE4M3, relu, true); }
inline uint8_t bf16_to_e5m2(uint16_t a, bool relu = false) { return double_to_f8(bf16_value(a), kE5M2, relu, true); }

// cvt.rn{.relu}.f16x2.{e4m3x2,e5m2x2}, per element: exact.
inline uint16_t e4m3_to_f16(uint8_t x, bool relu = false) {
  if (is_nan_e4m3(x)) return kF16CanonicalNaN;
  const auto h = static_cast<uint16_t>(round_to(kF16, e4m3_value(x), 0, RoundMode::NearestEven));
  return (relu && (h & 0x8000u)) ? 0 : h;
}
inline uint16_t e5m2_to_f16(uint8_t x, bool relu = false) {
  if (is_nan_e5m2(x)) return kF16CanonicalNaN;
  const auto h = static_cast<uint16_t>(x << 8);  // e5m2 is the top byte of an f16
  return (relu && (h & 0x8000u)) ? 0 : h;
}

// ---- f16 / bf16 arithmetic -------------------------------------------------

namespace detail {

template <bool kBF>
inline double hval(uint16_t h) {
  return kBF ? bf16_value(h) : f16_value(h);
}

template <bool kBF>
inline uint16_t hfinish(uint64_t rounded, bool ftz, bool sat, bool relu) {
  auto h = static_cast<uint16_t>(rounded);
  if (kBF ? is_nan_bf16(h) : is_nan16(h)) return sat ? 0 : 0x7fff;
  if (ftz) h = kBF ? ((h & 0x7f80u) == 0 ? static_cast<uint16_t>(h & 0x8000u) : h) : flush16(h);
  if (relu && (h & 0x8000u)) h = 0;
  if (sat) h = kBF ? bf16_sat(h) : narrow_finish(h, false, true);
  return h;
}

template <bool kBF>
inline uint16_t hflush(uint16_t h, bool ftz) {
  if (!ftz) return h;
  return kBF ? ((h & 0x7f80u) == 0 ? static_cast<uint16_t>(h & 0x8000u) : h) : flush16(h);
}

// x + y rounded once; x and y are exact doubles (f16/bf16 values or products).
template <bool kBF>
inline uint64_t hsum(double x, double y, RoundMode m) {
  double err;
  double r = two_sum(x, y, err);
  int tail = 0;
  if (std::isfinite(r)) {
    tail = tail_sign(err);
    if (r == 0 && m == RoundMode::Down) {
      r = (x == 0 && y == 0 && !std::signbit(x) && !std::signbit(y)) ? 0.0 : -0.0;
    }
  }
  return round_to(kBF ? kBF16 : kF16, r, tail, m);
}

template <bool kBF>
inline uint16_t hadd(uint16_t a, uint16_t b, ptx::Rounding rnd, bool ftz, bool sat, bool relu) {
  a = hflush<kBF>(a, ftz);
  b = hflush<kBF>(b, ftz);
  return hfinish<kBF>(hsum<kBF>(hval<kBF>(a), hval<kBF>(b), to_mode(rnd)), ftz, sat, relu);
}

template <bool kBF>
inline uint16_t hmul(uint16_t a, uint16_t b, ptx::Rounding rnd, bool ftz, bool sat, bool relu) {
  a = hflush<kBF>(a, ftz);
  b = hflush<kBF>(b, ftz);
  const double p = hval<kBF>(a) * hval<kBF>(b);  // <= 11 x 11 bits: exact
  return hfinish<kBF>(round_to(kBF ? kBF16 : kF16, p, 0, to_mode(rnd)), ftz, sat, relu);
}

template <bool kBF>
inline uint16_t hfma(uint16_t a, uint16_t b, uint16_t c, ptx::Rounding rnd, bool ftz, bool sat, bool relu) {
  a = hflush<kBF>(a, ftz);
  b = hflush<kBF>(b, ftz);
  c = hflush<kBF>(c, ftz);
  const double p = hval<kBF>(a) * hval<kBF>(b);
  return hfinish<kBF>(hsum<kBF>(p, hval<kBF>(c), to_mode(rnd)), ftz, sat, relu);
}

}  // namespace detail

// add/sub/mul/fma{.rnd}{.ftz}{.sat}.f16 and fma.rn{.ftz}.relu.f16. PTX only
// defines .rn for these; the other directions are provided for completeness.
inline uint16_t add_f16(uint16_t a, uint16_t b, ptx::Rounding rnd = ptx::Rounding::Rn, bool ftz = false,
                        bool sat = false) {
  return detail::hadd<false>(a, b, rnd, ftz, sat, false);
}
inline uint16_t sub_f16(uint16_t a, uint16_t b, ptx::Rounding rnd = ptx::Rounding::Rn, bool ftz = false,
                        bool sat = false) {
  return detail::hadd<false>(a, static_cast<uint16_t>(b ^ 0x8000u), rnd, ftz, sat, false);
}
inline uint16_t mul_f16(uint16_t a, uint16_t b, ptx::Rounding rnd = ptx::Rounding::Rn, bool ftz = false,
                        bool sat = false) {
  return detail::hmul<false>(a, b, rnd, ftz, sat, false);
}
inline uint16_t fma_f16(uint16_t a, uint16_t b, uint16_t c, ptx::Rounding rnd = ptx::Rounding::Rn,
                        bool ftz = false, bool sat = false, bool relu = false) {
  return detail::hfma<false>(a, b, c, rnd, ftz, sat, relu);
}

// add/sub/mul{.rn}.bf16 and fma.rn{.relu}.bf16 (no .ftz/.sat in PTX).
inline uint16_t add_bf16(uint16_t a, uint16_t b, ptx::Rounding rnd = ptx::Rounding::Rn) {
  return detail::hadd<true>(a, b, rnd, false, false, false);
}
inline uint16_t sub_bf16(uint16_t a, uint16_t b, ptx::Rounding rnd = ptx::Rounding::Rn) {
  return detail::hadd<true>(a, static_cast<uint16_t>(b ^ 0x8000u), rnd, false, false, false);
}
inline uint16_t mul_bf16(uint16_t a, uint16_t b, ptx::Rounding rnd = ptx::Rounding::Rn) {
  return detail::hmul<true>(a, b, rnd, false, false, false);
}
inline uint16_t fma_bf16(uint16_t a, uint16_t b, uint16_t c, ptx::Rounding rnd = ptx::Rounding::Rn,
                         bool relu = false) {
  return detail::hfma<true>(a, b, c, rnd, false, false, relu);
}

}  // namespace warpsim::functional::fp
