#pragma once
// cvt semantics (PTX ISA 9.7.9.21): float -> int, int -> float, int -> int and
// the generic float -> float path, plus one dispatcher taking the decoded
// ptx::ScalarType / ptx::Rounding fields.
//
// Integer results are returned in 64 bits, sign-extended for signed
// destination types and zero-extended otherwise (the ISA's rule for wider
// destination registers); float results are the bit pattern, zero-extended.
//
// float -> int: round to an integral value in the requested direction (no
// modifier is treated as .rzi), then clamp to the destination range (PTX
// float-to-int conversions always saturate). NaN gives 0, except when the
// source is .f64 or the destination is 64-bit, where it gives
// 1 << (width - 1) (MININT for signed, MAXINT/2 + 1 for unsigned).
// int -> float: one rounding of the exact integer (no int -> double -> float).
#include <cmath>
#include <cstdint>

#include "functional/fp/format.h"
#include "functional/fp/half.h"

namespace warpsim::functional::fp {

// Integer type facts; .b types behave as unsigned. 0 bits: not an integer type.
constexpr int int_bits(ptx::ScalarType t) {
  switch (t) {
    case ptx::ScalarType::U8: case ptx::ScalarType::S8: case ptx::ScalarType::B8: return 8;
    case ptx::ScalarType::U16: case ptx::ScalarType::S16: case ptx::ScalarType::B16: return 16;
    case ptx::ScalarType::U32: case ptx::ScalarType::S32: case ptx::ScalarType::B32: return 32;
    case ptx::ScalarType::U64: case ptx::ScalarType::S64: case ptx::ScalarType::B64: return 64;
    default: return 0;
  }
}
constexpr bool int_signed(ptx::ScalarType t) {
  return t == ptx::ScalarType::S8 || t == ptx::ScalarType::S16 || t == ptx::ScalarType::S32 ||
         t == ptx::ScalarType::S64;
}

// The low `bits` of v, sign- or zero-extended to 64 bits.
inline uint64_t extend(uint64_t v, int bits, bool is_signed) {
  const int drop = (64 - bits) & 63;  // 64 bits (or a non-integer type, 0 bits): unchanged
  const uint64_t up = v << drop;
  return is_signed ? static_cast<uint64_t>(static_cast<int64_t>(up) >> drop) : up >> drop;
}

// Round to an integral value in direction m, keeping signed zeros
// (-0.3 .rni -> -0). rint() rounds ties to even in the host's default
// round-to-nearest mode, which this library assumes throughout.
inline double round_integral(double x, RoundMode m) {
  switch (m) {
    case RoundMode::TowardZero: return std::trunc(x);
    case RoundMode::Down: return std::floor(x);
    case RoundMode::Up: return std::ceil(x);
    case RoundMode::NearestAway: return std::round(x);
    default: return std::rint(x);
  }
}

namespace detail {

inline double pow2(int n) { return f64_from(static_cast<uint64_t>(1023 + n) << 52); }

// Direction for float -> int: .rni/.rzi/.rmi/.rpi; no modifier truncates.
inline RoundMode int_mode(ptx::Rounding r) {
  return r == ptx::Rounding::None ? RoundMode::TowardZero : to_mode(r);
}

// An exact float value (as double) to an integer type (dst must be one), saturating.
inline uint64_t double_to_int(double v, ptx::ScalarType dst, RoundMode m, bool nan_is_msb) {
  const int bits = int_bits(dst);
  const bool s = int_signed(dst);
  if (v != v) return nan_is_msb ? extend(1ull << (bits - 1), bits, s) : 0;
  const double r = round_integral(v, m);
  if (s) {
    const double lim = pow2(bits - 1);
    if (r >= lim) return (1ull << (bits - 1)) - 1;
    if (r < -lim) return extend(1ull << (bits - 1), bits, true);
    return static_cast<uint64_t>(static_cast<int64_t>(r));
  }
  if (r >= pow2(bits)) return bits == 64 ? ~0ull : (1ull << bits) - 1;
  if (r <= 0) return 0;
  return static_cast<uint64_t>(r);
}

// An integer as r = RN_double(v) plus the sign of v - r (for round_to).
// r is integral, so converting it back is exact, except for r = 2^63 (signed)
// or 2^64 (unsigned), which exceed every value of the source type.
inline double int_to_double(uint64_t v, bool is_signed, int& tail) {
  tail = 0;
  if (is_signed) {
    const auto s = static_cast<int64_t>(v);
    const double r = static_cast<double>(s);
    if (s > (1ll << 53) || s < -(1ll << 53)) {
      if (r >= 0x1p63) {
        tail = -1;
      } else {
        const auto back = static_cast<int64_t>(r);
        tail = (s > back) - (s < back);
      }
    }
    return r;
  }
  const double r = static_cast<double>(v);
  if (v > (1ull << 53)) {
    if (r >= 0x1p64) {
      tail = -1;
    } else {
      const auto back = static_cast<uint64_t>(r);
      tail = (v > back) - (v < back);
    }
  }
  return r;
}

inline uint64_t int_to_format(uint64_t v, ptx::ScalarType src, ptx::Rounding rnd, const Format& f) {
  const bool s = int_signed(src);
  int tail;
  const double r = int_to_double(extend(v, int_bits(src), s), s, tail);
  return round_to(f, r, tail, to_mode(rnd));
}

}  // namespace detail

// cvt.irnd{.ftz}.<int>.<float>
inline uint64_t cvt_f32_to_int(uint32_t a, ptx::ScalarType dst, ptx::Rounding rnd, bool ftz = false) {
  return detail::double_to_int(f32_from(ftz32(a, ftz)), dst, detail::int_mode(rnd), int_bits(dst) == 64);
}
inline uint64_t cvt_f64_to_int(uint64_t a, ptx::ScalarType dst, ptx::Rounding rnd) {
  return detail::double_to_int(f64_from(a), dst, detail::int_mode(rnd), true);
}
inline uint64_t cvt_f16_to_int(uint16_t a, ptx::ScalarType dst, ptx::Rounding rnd) {
  return detail::double_to_int(f16_value(a), dst, detail::int_mode(rnd), int_bits(dst) == 64);
}
inline uint64_t cvt_bf16_to_int(uint16_t a, ptx::ScalarType dst, ptx::Rounding rnd) {
  return detail::double_to_int(bf16_value(a), dst, detail::int_mode(rnd), int_bits(dst) == 64);
}

// cvt.frnd{.sat}.<float>.<int>; `v` holds the source in its low bits.
inline uint32_t cvt_int_to_f32(uint64_t v, ptx::ScalarType src, ptx::Rounding rnd, bool sat = false) {
  const bool s = int_signed(src);
  int tail;
  const double d = detail::int_to_double(extend(v, int_bits(src), s), s, tail);
  const RoundMode m = to_mode(rnd);
  // d exact: the host's double -> float conversion is the one rounding (.rn).
  const uint32_t r = (tail == 0 && m == RoundMode::NearestEven) ? f32_bits(static_cast<float>(d))
                                                                : static_cast<uint32_t>(round_to(kF32, d, tail, m));
  return sat ? sat32(r) : r;
}
inline uint16_t cvt_int_to_f16(uint64_t v, ptx::ScalarType src, ptx::Rounding rnd, bool sat = false) {
  const auto r = static_cast<uint16_t>(detail::int_to_format(v, src, rnd, kF16));
  return sat ? sat16(r) : r;
}
inline uint16_t cvt_int_to_bf16(uint64_t v, ptx::ScalarType src, ptx::Rounding rnd) {
  return static_cast<uint16_t>(detail::int_to_format(v, src, rnd, kBF16));
}

// .sat on an f64 result: clamp to [+0, 1]; NaN and -0 become +0.
inline uint64_t sat64(uint64_t a) {
  if (a >= (1ull << 63) || is_nan64(a)) return 0;
  return a > 0x3ff0000000000000ull ? 0x3ff0000000000000ull : a;
}

inline uint64_t cvt_int_to_f64(uint64_t v, ptx::ScalarType src, ptx::Rounding rnd, bool sat = false) {
  const bool s = int_signed(src);
  int tail;
  const double d = detail::int_to_double(extend(v, int_bits(src), s), s, tail);
  const uint64_t r = tail == 0 ? f64_bits(d) : round_to(kF64, d, tail, to_mode(rnd));  // exact in every mode
  return sat ? sat64(r) : r;
}

// cvt{.sat}.<int>.<int>: the low bits of v as `from`, converted to `to`.
// .sat clamps to the destination range; otherwise the value is truncated.
inline uint64_t cvt_int(uint64_t v, ptx::ScalarType from, ptx::ScalarType to, bool sat) {
  const int tb = int_bits(to);
  const bool fs = int_signed(from), ts = int_signed(to);
  v = extend(v, int_bits(from), fs);
  if (sat) {
    const __int128 x = fs ? static_cast<__int128>(static_cast<int64_t>(v)) : static_cast<__int128>(v);
    const __int128 one = 1;
    const __int128 lo = ts ? -(one << (tb - 1)) : 0;
    const __int128 hi = ts ? (one << (tb - 1)) - 1 : (one << tb) - 1;
    v = static_cast<uint64_t>(x < lo ? lo : (x > hi ? hi : x));
  }
  return extend(v, tb, ts);
}

// The modifiers of one cvt besides its types and rounding.
struct CvtModifiers {
  bool ftz = false;        // flush f32 subnormal inputs/results
  bool sat = false;        // integer dst: clamp (always for float src); float dst: [0, 1]
  bool relu = false;       // f16/bf16/tf32/e4m3/e5m2 dst: negatives -> +0
  bool satfinite = false;  // f16/bf16/tf32/e4m3/e5m2 dst: beyond MAX_NORM -> MAX_NORM
};

// Any float -> float cvt, including same-type integral rounding (.rni ...).
uint64_t cvt_float(uint64_t a, ptx::ScalarType dst, ptx::ScalarType src, ptx::Rounding rnd, CvtModifiers mods);

// Any scalar cvt between .u8-.u64, .s8-.s64, .f16, .bf16, .tf32, .f32, .f64,
// .e4m3, .e5m2 (packed x2/x4 forms are the caller's job, element by element).
uint64_t cvt(uint64_t a, ptx::ScalarType dst, ptx::ScalarType src, ptx::Rounding rnd, CvtModifiers mods = {});

}  // namespace warpsim::functional::fp
