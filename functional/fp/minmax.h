#pragma once
// min/max (with .NaN and .xorsign.abs), abs, neg, copysign and testp, all as
// integer operations on bit patterns (no FP compare, no FP environment).
//
// min/max follow PTX ISA 9.7.3.11/12 and 9.7.4.7/8: one NaN operand gives
// the other operand; two NaNs (or any NaN with .NaN) give NaN; -0 < +0.
// NaN results: canonical for f32/f16/bf16; f64 (which supports payloads)
// returns the first NaN operand, quieted. .xorsign.abs: the magnitude is the
// min/max of |a|, |b| and the sign is sign(a) ^ sign(b), both ignored when
// the result is NaN.
//
// abs/neg: f64 passes NaN through unchanged (the ISA says so for abs; we do
// the same for neg). For f32/f16/bf16 the ISA leaves the NaN unspecified; we
// return the canonical NaN, as the FADD-based lowering on hardware does.
#include <cstdint>

#include "functional/fp/format.h"

namespace warpsim::functional::fp {

namespace detail {

// Per-format facts for the generic code below.
template <typename T, T kSign, T kExpMask, T kCanonicalNaN, bool kPayloadNaN>
struct MinMaxTraits {
  using Bits = T;
  static constexpr T sign = kSign;
  static constexpr T exp_mask = kExpMask;
  static bool is_nan(T a) { return static_cast<T>(a & ~kSign) > kExpMask; }
  static T nan_of(T first) {
    if constexpr (kPayloadNaN) return static_cast<T>(first | (T{1} << 51));  // f64: quiet, keep payload
    else return kCanonicalNaN;
  }
  static T flush(T a) { return (a & kExpMask) == 0 ? static_cast<T>(a & kSign) : a; }
};
using T32 = MinMaxTraits<uint32_t, 0x80000000u, 0x7f800000u, kF32CanonicalNaN, false>;
using T64 = MinMaxTraits<uint64_t, 1ull << 63, 0x7ff0000000000000ull, kF64DefaultNaN, true>;
using T16 = MinMaxTraits<uint16_t, 0x8000u, 0x7c00u, kF16CanonicalNaN, false>;
using TB16 = MinMaxTraits<uint16_t, 0x8000u, 0x7f80u, kBF16CanonicalNaN, false>;

// Total order on non-NaN patterns with -0 < +0: flipping the magnitude bits
// of negative patterns turns sign-magnitude into two's complement, so one
// signed compare (no data-dependent branch) orders them.
template <typename Tr>
inline int64_t order_key(typename Tr::Bits a) {
  constexpr int kBits = 8 * sizeof(typename Tr::Bits);
  const auto v = static_cast<int64_t>(static_cast<uint64_t>(a) << (64 - kBits));  // sign to bit 63
  return v ^ static_cast<int64_t>(static_cast<uint64_t>(v >> 63) >> 1);
}
template <typename Tr>
inline bool less(typename Tr::Bits a, typename Tr::Bits b) {
  return order_key<Tr>(a) < order_key<Tr>(b);
}

template <typename Tr, bool kMax>
inline typename Tr::Bits minmax2(typename Tr::Bits a, typename Tr::Bits b, bool propagate_nan) {
  const bool an = Tr::is_nan(a), bn = Tr::is_nan(b);
  if (an || bn) {
    if ((an && bn) || propagate_nan) return Tr::nan_of(an ? a : b);
    return an ? b : a;
  }
  return (kMax ? less<Tr>(b, a) : less<Tr>(a, b)) ? a : b;
}

template <typename Tr, bool kMax>
inline typename Tr::Bits minmax(typename Tr::Bits a, typename Tr::Bits b, bool ftz, bool nan, bool xorsign_abs) {
  using B = typename Tr::Bits;
  if (ftz) {
    a = Tr::flush(a);
    b = Tr::flush(b);
  }
  const B xsign = static_cast<B>((a ^ b) & Tr::sign);
  if (xorsign_abs) {
    a = static_cast<B>(a & ~Tr::sign);
    b = static_cast<B>(b & ~Tr::sign);
  }
  B d = minmax2<Tr, kMax>(a, b, nan);
  if (xorsign_abs && !Tr::is_nan(d)) d = static_cast<B>(d | xsign);
  return d;
}

// min/max{.ftz}{.NaN}{.abs}.f32 d, a, b, c
template <bool kMax>
inline uint32_t minmax3_f32(uint32_t a, uint32_t b, uint32_t c, bool ftz, bool nan, bool abs) {
  if (ftz) {
    a = T32::flush(a);
    b = T32::flush(b);
    c = T32::flush(c);
  }
  if (abs) {
    a &= 0x7fffffffu;
    b &= 0x7fffffffu;
    c &= 0x7fffffffu;
  }
  return minmax2<T32, kMax>(minmax2<T32, kMax>(a, b, nan), c, nan);
}

}  // namespace detail

inline uint32_t min_f32(uint32_t a, uint32_t b, bool ftz = false, bool nan = false, bool xorsign_abs = false) {
  return detail::minmax<detail::T32, false>(a, b, ftz, nan, xorsign_abs);
}
inline uint32_t max_f32(uint32_t a, uint32_t b, bool ftz = false, bool nan = false, bool xorsign_abs = false) {
  return detail::minmax<detail::T32, true>(a, b, ftz, nan, xorsign_abs);
}
inline uint32_t min3_f32(uint32_t a, uint32_t b, uint32_t c, bool ftz = false, bool nan = false, bool abs = false) {
  return detail::minmax3_f32<false>(a, b, c, ftz, nan, abs);
}
inline uint32_t max3_f32(uint32_t a, uint32_t b, uint32_t c, bool ftz = false, bool nan = false, bool abs = false) {
  return detail::minmax3_f32<true>(a, b, c, ftz, nan, abs);
}
inline uint64_t min_f64(uint64_t a, uint64_t b) { return detail::minmax<detail::T64, false>(a, b, false, false, false); }
inline uint64_t max_f64(uint64_t a, uint64_t b) { return detail::minmax<detail::T64, true>(a, b, false, false, false); }
inline uint16_t min_f16(uint16_t a, uint16_t b, bool ftz = false, bool nan = false, bool xorsign_abs = false) {
  return detail::minmax<detail::T16, false>(a, b, ftz, nan, xorsign_abs);
}
inline uint16_t max_f16(uint16_t a, uint16_t b, bool ftz = false, bool nan = false, bool xorsign_abs = false) {
  return detail::minmax<detail::T16, true>(a, b, ftz, nan, xorsign_abs);
}
inline uint16_t min_bf16(uint16_t a, uint16_t b, bool nan = false, bool xorsign_abs = false) {
  return detail::minmax<detail::TB16, false>(a, b, false, nan, xorsign_abs);
}
inline uint16_t max_bf16(uint16_t a, uint16_t b, bool nan = false, bool xorsign_abs = false) {
  return detail::minmax<detail::TB16, true>(a, b, false, nan, xorsign_abs);
}

// ---- abs / neg / copysign ---------------------------------------------------

inline uint32_t abs_f32(uint32_t a, bool ftz = false) {
  if (is_nan32(a)) return kF32CanonicalNaN;
  return ftz32(a, ftz) & 0x7fffffffu;
}
inline uint32_t neg_f32(uint32_t a, bool ftz = false) {
  if (is_nan32(a)) return kF32CanonicalNaN;
  return ftz32(a, ftz) ^ 0x80000000u;
}
inline uint64_t abs_f64(uint64_t a) { return is_nan64(a) ? a : a & ~(1ull << 63); }
inline uint64_t neg_f64(uint64_t a) { return is_nan64(a) ? a : a ^ (1ull << 63); }
inline uint16_t abs_f16(uint16_t a, bool ftz = false) {
  if (is_nan16(a)) return kF16CanonicalNaN;
  return static_cast<uint16_t>(ftz16(a, ftz) & 0x7fffu);
}
inline uint16_t neg_f16(uint16_t a, bool ftz = false) {
  if (is_nan16(a)) return kF16CanonicalNaN;
  return static_cast<uint16_t>(ftz16(a, ftz) ^ 0x8000u);
}
inline uint16_t abs_bf16(uint16_t a) { return is_nan_bf16(a) ? kBF16CanonicalNaN : static_cast<uint16_t>(a & 0x7fffu); }
inline uint16_t neg_bf16(uint16_t a) { return is_nan_bf16(a) ? kBF16CanonicalNaN : static_cast<uint16_t>(a ^ 0x8000u); }

// copysign.type d, a, b: the sign of a on the value of b (payloads kept).
inline uint32_t copysign_f32(uint32_t a, uint32_t b) { return (b & 0x7fffffffu) | (a & 0x80000000u); }
inline uint64_t copysign_f64(uint64_t a, uint64_t b) { return (b & ~(1ull << 63)) | (a & (1ull << 63)); }

// ---- testp ------------------------------------------------------------------

// testp.op.{f32,f64}; `op` is one of Flag::Finite, Infinite, Number,
// Notanumber, Normal, Subnormal. Zeros count as normal (ISA 9.7.3.1).
template <typename T, T kExpMask>
inline bool testp_bits(T a, ptx::Flag op) {
  const T mag = static_cast<T>(a & (static_cast<T>(~T{0}) >> 1));
  const T exp = static_cast<T>(mag & kExpMask);
  switch (op) {
    case ptx::Flag::Finite: return exp != kExpMask;
    case ptx::Flag::Infinite: return mag == kExpMask;
    case ptx::Flag::Number: return mag <= kExpMask;
    case ptx::Flag::Notanumber: return mag > kExpMask;
    case ptx::Flag::Normal: return (exp != 0 && exp != kExpMask) || mag == 0;
    case ptx::Flag::Subnormal: return exp == 0 && mag != 0;
    default: return false;
  }
}
inline bool testp_f32(uint32_t a, ptx::Flag op) { return testp_bits<uint32_t, 0x7f800000u>(a, op); }
inline bool testp_f64(uint64_t a, ptx::Flag op) { return testp_bits<uint64_t, 0x7ff0000000000000ull>(a, op); }

}  // namespace warpsim::functional::fp
