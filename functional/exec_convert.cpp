// Conversion handlers: cvt between .u8-.u64/.s8-.s64 (.b* as unsigned),
// .f16, .bf16, .f32, .f64 (and .tf32 from .f32) with integer and
// floating-point rounding, .ftz, .sat, .relu, .satfinite; the packed forms
// {f16x2,bf16x2} <- f32 pair, {e4m3x2,e5m2x2} <- f32 pair / f16x2 / bf16x2,
// f16x2 <- {e4m3x2,e5m2x2}; and cvt.pack.sat. The conversion semantics are
// functional/fp's (convert.h, half.h); this file only picks the right
// function once per instruction and applies it per lane and per element.
//
// Not executed (select_convert returns nullptr, so they fault as unsupported
// when run): .rs (stochastic rounding), the e2m1/e2m3/e3m2/ue8m0/s2f6 and
// x4 formats, .scaled, scalar .e4m3/.e5m2/.tf32 sources, and modifier/type
// combinations the ISA gives no meaning (e.g. .relu on an integer result,
// .sat on .bf16, integer rounding between different float sizes).
#include <algorithm>
#include <array>
#include <iterator>
#include <utility>

#include "functional/exec.h"
#include "functional/fp/convert.h"

namespace warpsim::functional {

namespace {

using ptx::Flag;
using ptx::Opcode;
using ptx::Rounding;
using ptx::ScalarType;
using T = ScalarType;

// The scalar cvt types: integers first (indices 0-7), then floats (8-11).
constexpr ScalarType kTypes[] = {T::U8, T::U16, T::U32, T::U64, T::S8,  T::S16,
                                 T::S32, T::S64, T::F16, T::BF16, T::F32, T::F64};
constexpr size_t kNumTypes = std::size(kTypes);
constexpr size_t kFirstFloat = 8;

// Index in kTypes, or -1; .b types convert as the unsigned type of their size.
int type_index(ScalarType t) {
  switch (t) {
    case T::B8: t = T::U8; break;
    case T::B16: t = T::U16; break;
    case T::B32: t = T::U32; break;
    case T::B64: t = T::U64; break;
    default: break;
  }
  for (size_t i = 0; i < kNumTypes; ++i)
    if (kTypes[i] == t) return static_cast<int>(i);
  return -1;
}

fp::CvtModifiers modifiers_of(const DecodedInst& inst) {
  const ptx::Modifiers& m = *inst.mods;
  return {m.has(Flag::Ftz), m.has(Flag::Sat), m.has(Flag::Relu), m.has(Flag::Satfinite)};
}

// One scalar conversion with the types fixed at compile time, so the
// library's type dispatch folds away; rounding and modifiers are per
// instruction (loop-invariant). Results are sign-extended for signed integer
// destinations (as a wider destination register holds them) and
// zero-extended otherwise.
template <ScalarType D, ScalarType S>
inline uint64_t convert(uint64_t a, Rounding rnd, fp::CvtModifiers m) {
  constexpr bool kIntD = fp::int_bits(D) != 0, kIntS = fp::int_bits(S) != 0;
  if constexpr (kIntD && kIntS) {
    return fp::cvt_int(a, S, D, m.sat);
  } else if constexpr (kIntD) {  // float -> int always saturates; .sat is redundant
    if constexpr (S == T::F32) return fp::cvt_f32_to_int(static_cast<uint32_t>(a), D, rnd, m.ftz);
    else if constexpr (S == T::F64) return fp::cvt_f64_to_int(a, D, rnd);
    else if constexpr (S == T::F16) return fp::cvt_f16_to_int(static_cast<uint16_t>(a), D, rnd);
    else return fp::cvt_bf16_to_int(static_cast<uint16_t>(a), D, rnd);
  } else if constexpr (kIntS) {
    if constexpr (D == T::F32) return fp::cvt_int_to_f32(a, S, rnd, m.sat);
    else if constexpr (D == T::F64) return fp::cvt_int_to_f64(a, S, rnd, m.sat);
    else if constexpr (D == T::F16) return fp::cvt_int_to_f16(a, S, rnd, m.sat);
    else return fp::cvt_int_to_bf16(a, S, rnd);  // .sat rejected at decode
  } else if constexpr (D == T::F16 && S == T::F32) {  // the common half conversions inline
    return fp::f32_to_f16(static_cast<uint32_t>(a), rnd, m.ftz, m.sat, m.relu, m.satfinite);
  } else if constexpr (D == T::BF16 && S == T::F32) {
    return fp::f32_to_bf16(static_cast<uint32_t>(a), rnd, m.ftz, m.relu, m.satfinite);
  } else if constexpr (D == T::F32 && S == T::F16) {
    const uint32_t f = fp::f16_to_f32(static_cast<uint16_t>(a));  // exact, never subnormal: .ftz is moot
    return m.sat ? fp::sat32(f) : f;
  } else if constexpr (D == T::F32 && S == T::BF16) {
    const uint32_t f = fp::bf16_to_f32(static_cast<uint16_t>(a), m.ftz);
    return m.sat ? fp::sat32(f) : f;
  } else {
    return fp::cvt_float(a, D, S, rnd, m);
  }
}

template <size_t kDst, size_t kSrc>
void exec_cvt(Warp& w, const DecodedInst& inst, LaneMask active) {
  const Rounding rnd = inst.mods->rounding;
  const fp::CvtModifiers m = modifiers_of(inst);
  auto a = w.read(inst.src[0], 0);
  write_lanes(w, inst.dst[0], active,
              [&](uint32_t l) { return convert<kTypes[kDst], kTypes[kSrc]>(a[l], rnd, m); });
}

template <size_t... I>
constexpr std::array<Handler, sizeof...(I)> scalar_table(std::index_sequence<I...>) {
  return {&exec_cvt<I / kNumTypes, I % kNumTypes>...};
}
constexpr auto kScalar = scalar_table(std::make_index_sequence<kNumTypes * kNumTypes>{});

// cvt{.rna,.rn,.rz}{.satfinite}{.relu}.tf32.f32: the f32 pattern with the low
// 13 mantissa bits zero.
void exec_cvt_tf32(Warp& w, const DecodedInst& inst, LaneMask active) {
  const Rounding rnd = inst.mods->rounding;
  const fp::CvtModifiers m = modifiers_of(inst);
  auto a = w.read(inst.src[0], 0);
  write_lanes(w, inst.dst[0], active,
              [&](uint32_t l) { return fp::cvt_float(a[l], T::TF32, T::F32, rnd, m); });
}

// cvt.frnd{.relu}{.satfinite}.{f16x2,bf16x2}.f32 d, a, b: a -> d[31:16], b -> d[15:0].
template <ScalarType E>
void exec_cvt_x2_f32(Warp& w, const DecodedInst& inst, LaneMask active) {
  const Rounding rnd = inst.mods->rounding;
  const fp::CvtModifiers m = modifiers_of(inst);
  auto a = w.read(inst.src[0], 0);
  auto b = w.read(inst.src[1], 1);
  write_lanes(w, inst.dst[0], active, [&](uint32_t l) {
    return convert<E, T::F32>(a[l], rnd, m) << 16 | convert<E, T::F32>(b[l], rnd, m);
  });
}

// One element to e4m3/e5m2 (always .rn and saturating to MAX_NORM in PTX).
template <ScalarType E, ScalarType S>
inline uint64_t to_f8(uint64_t a, bool relu) {
  constexpr bool kE4 = E == T::E4M3x2;
  if constexpr (S == T::F32) {
    const auto x = static_cast<uint32_t>(a);
    return kE4 ? fp::f32_to_e4m3(x, relu) : fp::f32_to_e5m2(x, relu);
  } else if constexpr (S == T::F16x2) {
    const auto x = static_cast<uint16_t>(a);
    return kE4 ? fp::f16_to_e4m3(x, relu) : fp::f16_to_e5m2(x, relu);
  } else {
    const auto x = static_cast<uint16_t>(a);
    return kE4 ? fp::bf16_to_e4m3(x, relu) : fp::bf16_to_e5m2(x, relu);
  }
}

// cvt.rn.satfinite{.relu}.{e4m3x2,e5m2x2}.f32 d, a, b: a -> d[15:8], b -> d[7:0].
template <ScalarType E>
void exec_cvt_f8x2_f32(Warp& w, const DecodedInst& inst, LaneMask active) {
  const bool relu = inst.mods->has(Flag::Relu);
  auto a = w.read(inst.src[0], 0);
  auto b = w.read(inst.src[1], 1);
  write_lanes(w, inst.dst[0], active,
              [&](uint32_t l) { return to_f8<E, T::F32>(a[l], relu) << 8 | to_f8<E, T::F32>(b[l], relu); });
}

// cvt.rn.satfinite{.relu}.{e4m3x2,e5m2x2}.{f16x2,bf16x2} d, a: a[31:16] -> d[15:8], a[15:0] -> d[7:0].
template <ScalarType E, ScalarType S>
void exec_cvt_f8x2_x2(Warp& w, const DecodedInst& inst, LaneMask active) {
  const bool relu = inst.mods->has(Flag::Relu);
  auto a = w.read(inst.src[0], 0);
  write_lanes(w, inst.dst[0], active,
              [&](uint32_t l) { return to_f8<E, S>(a[l] >> 16, relu) << 8 | to_f8<E, S>(a[l], relu); });
}

// cvt.rn{.relu}.f16x2.{e4m3x2,e5m2x2} d, a: a[15:8] -> d[31:16], a[7:0] -> d[15:0] (exact).
template <ScalarType S>
void exec_cvt_f16x2_f8x2(Warp& w, const DecodedInst& inst, LaneMask active) {
  const bool relu = inst.mods->has(Flag::Relu);
  auto a = w.read(inst.src[0], 0);
  auto one = [relu](uint64_t x) -> uint64_t {
    const auto b = static_cast<uint8_t>(x);
    return S == T::E4M3x2 ? fp::e4m3_to_f16(b, relu) : fp::e5m2_to_f16(b, relu);
  };
  write_lanes(w, inst.dst[0], active, [&](uint32_t l) { return one(a[l] >> 8) << 16 | one(a[l]); });
}

// cvt.pack.sat.{u16,s16}.s32 d, a, b and cvt.pack.sat.{u8,s8,u4,s4}.s32.b32 d, a, b, c:
// a and b (s32) saturated to the n-bit type; b -> d[n-1:0], a -> d[2n-1:n], and
// for the narrow types the low bits of c fill d[31:2n]. (fp/ has no 4-bit types,
// and this is a plain integer clamp.)
template <uint32_t kBits, bool kSigned>
void exec_cvt_pack(Warp& w, const DecodedInst& inst, LaneMask active) {
  static constexpr int64_t kLo = kSigned ? -(int64_t{1} << (kBits - 1)) : 0;
  static constexpr int64_t kHi = kSigned ? (int64_t{1} << (kBits - 1)) - 1 : (int64_t{1} << kBits) - 1;
  auto sat = [](uint64_t v) {
    return truncate(static_cast<uint64_t>(std::clamp(sign_extend(v, 32), kLo, kHi)), kBits);
  };
  auto a = w.read(inst.src[0], 0);
  auto b = w.read(inst.src[1], 1);
  auto c = w.read(inst.num_src > 2 ? inst.src[2] : inst.src[0], 2);
  const bool with_c = inst.num_src > 2;
  write_lanes(w, inst.dst[0], active, [&](uint32_t l) {
    uint64_t d = sat(b[l]) | sat(a[l]) << kBits;
    if (with_c) d |= c[l] << (2 * kBits);
    return truncate(d, 32);
  });
}

bool is_int_rounding(Rounding r) {
  return r == Rounding::Rni || r == Rounding::Rzi || r == Rounding::Rmi || r == Rounding::Rpi;
}
bool is_float_rounding(Rounding r) {
  return r == Rounding::Rn || r == Rounding::Rz || r == Rounding::Rm || r == Rounding::Rp;
}

// Scalar cvt: which rounding/modifier combinations have an ISA meaning. A
// missing rounding modifier (mandatory in PTX for float<->int and narrowing)
// takes the library's defaults: .rzi for float -> int, .rn otherwise.
Handler select_scalar(ScalarType dt, ScalarType st, const ptx::Modifiers& m) {
  const Rounding r = m.rounding;
  const bool sat = m.has(Flag::Sat), relu = m.has(Flag::Relu), satfinite = m.has(Flag::Satfinite);
  if (m.has(Flag::Ftz) && dt != T::F32 && st != T::F32) return nullptr;  // .ftz is f32-only
  if (dt == T::TF32) {
    if (st != T::F32 || sat) return nullptr;
    return r == Rounding::Rna || r == Rounding::Rn || r == Rounding::Rz ? exec_cvt_tf32 : nullptr;
  }
  const int di = type_index(dt), si = type_index(st);
  if (di < 0 || si < 0) return nullptr;
  const bool int_dst = static_cast<size_t>(di) < kFirstFloat, int_src = static_cast<size_t>(si) < kFirstFloat;
  if (int_dst) {
    if (relu || satfinite) return nullptr;
    if (int_src ? r != Rounding::None : (r != Rounding::None && !is_int_rounding(r))) return nullptr;
  } else {
    // .sat clamps .f16/.f32/.f64 only; .relu/.satfinite narrow to .f16/.bf16 only.
    if (sat && dt == T::BF16) return nullptr;
    if ((relu || satfinite) && (int_src || dt == T::F32 || dt == T::F64)) return nullptr;
    // Integer rounding keeps the type (cvt.rni.f32.f32); .rna/.rs are not scalar modes.
    const bool ok =
        r == Rounding::None || is_float_rounding(r) || (is_int_rounding(r) && !int_src && dt == st);
    if (!ok) return nullptr;
  }
  return kScalar[static_cast<size_t>(di) * kNumTypes + static_cast<size_t>(si)];
}

Handler select_pack(const ptx::Modifiers& m, const DecodedInst& d) {
  if (!m.has(Flag::Sat) || d.type2 != T::S32) return nullptr;
  const bool narrow = d.num_src == 3 && m.type(2) == T::B32;
  switch (d.type) {
    case T::U16: return d.num_src == 2 ? exec_cvt_pack<16, false> : nullptr;
    case T::S16: return d.num_src == 2 ? exec_cvt_pack<16, true> : nullptr;
    case T::U8: return narrow ? exec_cvt_pack<8, false> : nullptr;
    case T::S8: return narrow ? exec_cvt_pack<8, true> : nullptr;
    case T::U4: return narrow ? exec_cvt_pack<4, false> : nullptr;
    case T::S4: return narrow ? exec_cvt_pack<4, true> : nullptr;
    default: return nullptr;
  }
}

}  // namespace

Handler select_convert(const ptx::Instruction& inst, const DecodedInst& d) {
  if (inst.opcode != Opcode::Cvt || d.num_dst != 1 || d.dst_is_pred) return nullptr;
  for (uint32_t i = 0; i < d.num_src; ++i)
    if (d.src[i].kind == Src::Pred) return nullptr;
  const ptx::Modifiers& m = inst.mods;
  if (m.has(Flag::Pack)) return select_pack(m, d);
  const ScalarType dt = d.type, st = d.type2;
  const Rounding r = m.rounding;
  const bool rn = r == Rounding::Rn || r == Rounding::None;  // the only mode of the fp8 forms
  const bool ftz = m.has(Flag::Ftz), sat = m.has(Flag::Sat);
  if (m.num_types != 2) return nullptr;

  if (dt == T::F16x2 || dt == T::BF16x2) {
    if (st == T::F32 && d.num_src == 2) {
      // Each element is the scalar .f16/.bf16 <- .f32 conversion (same checks).
      const ScalarType e = dt == T::F16x2 ? T::F16 : T::BF16;
      if (!select_scalar(e, T::F32, m)) return nullptr;
      return dt == T::F16x2 ? exec_cvt_x2_f32<T::F16> : exec_cvt_x2_f32<T::BF16>;
    }
    if (dt == T::F16x2 && (st == T::E4M3x2 || st == T::E5M2x2) && d.num_src == 1 && rn && !ftz &&
        !sat && !m.has(Flag::Satfinite))
      return st == T::E4M3x2 ? exec_cvt_f16x2_f8x2<T::E4M3x2> : exec_cvt_f16x2_f8x2<T::E5M2x2>;
    return nullptr;
  }
  if (dt == T::E4M3x2 || dt == T::E5M2x2) {
    if (!rn || ftz || sat) return nullptr;
    const bool e4 = dt == T::E4M3x2;
    if (st == T::F32 && d.num_src == 2)
      return e4 ? exec_cvt_f8x2_f32<T::E4M3x2> : exec_cvt_f8x2_f32<T::E5M2x2>;
    if (d.num_src != 1) return nullptr;
    if (st == T::F16x2)
      return e4 ? exec_cvt_f8x2_x2<T::E4M3x2, T::F16x2> : exec_cvt_f8x2_x2<T::E5M2x2, T::F16x2>;
    if (st == T::BF16x2)
      return e4 ? exec_cvt_f8x2_x2<T::E4M3x2, T::BF16x2> : exec_cvt_f8x2_x2<T::E5M2x2, T::BF16x2>;
    return nullptr;
  }
  if (d.num_src != 1) return nullptr;
  return select_scalar(dt, st, m);
}

}  // namespace warpsim::functional
