// Handler family: floating point — add/sub/mul/fma/mad/div/rcp/sqrt/rsqrt,
// sin/cos/lg2/ex2/tanh, min/max, abs/neg/copysign, testp, and setp/set with
// float operands, for .f32, .f64, .f16, .bf16 and the packed .f16x2/.bf16x2.
//
// All numerics come from functional/fp (correct rounding in every mode, .ftz,
// .sat, .relu, PTX NaN rules); this file only maps instruction forms onto it.
// An element-wise operation is a small struct with a static apply() on bit
// patterns; the selector picks the struct once at decode time, and packed
// forms apply the 16-bit operation to both halves (low half = element 0).
#include <bit>

#include "functional/exec.h"
#include "functional/fp/fp.h"

namespace warpsim::functional {

namespace {

using ptx::CmpOp;
using ptx::Flag;
using ptx::Opcode;
using ptx::Operation;
using ptx::Rounding;
using ptx::ScalarType;

// The modifiers an operation may use, read once per instruction.
struct Mods {
  Rounding rnd = Rounding::Rn;
  bool ftz = false, sat = false, relu = false, nan = false, xorsign_abs = false;
  Flag test = Flag::Finite;
};

Mods mods_of(const ptx::Modifiers& m) {
  Mods r;
  r.rnd = m.rounding == Rounding::None ? Rounding::Rn : m.rounding;
  r.ftz = m.has(Flag::Ftz);
  r.sat = m.has(Flag::Sat);
  r.relu = m.has(Flag::Relu);
  r.nan = m.has(Flag::NaN);
  r.xorsign_abs = m.has(Flag::Xorsign) && m.has(Flag::Abs);
  for (Flag f : {Flag::Finite, Flag::Infinite, Flag::Number, Flag::Notanumber, Flag::Normal,
                 Flag::Subnormal})
    if (m.has(f)) r.test = f;
  return r;
}

using u16 = uint16_t;
using u32 = uint32_t;
using u64 = uint64_t;
inline u16 h(u64 v) { return static_cast<u16>(v); }
inline u32 s(u64 v) { return static_cast<u32>(v); }

// ---- element-wise operations --------------------------------------------------------------

// f32
struct AddF32 { static u64 apply(const Mods& m, u64 a, u64 b, u64) { return fp::add_f32(s(a), s(b), m.rnd, m.ftz, m.sat); } };
struct SubF32 { static u64 apply(const Mods& m, u64 a, u64 b, u64) { return fp::sub_f32(s(a), s(b), m.rnd, m.ftz, m.sat); } };
struct MulF32 { static u64 apply(const Mods& m, u64 a, u64 b, u64) { return fp::mul_f32(s(a), s(b), m.rnd, m.ftz, m.sat); } };
struct FmaF32 { static u64 apply(const Mods& m, u64 a, u64 b, u64 c) { return fp::fma_f32(s(a), s(b), s(c), m.rnd, m.ftz, m.sat); } };
struct DivF32 { static u64 apply(const Mods& m, u64 a, u64 b, u64) { return fp::div_f32(s(a), s(b), m.rnd, m.ftz); } };
struct DivApproxF32 { static u64 apply(const Mods& m, u64 a, u64 b, u64) { return fp::div_approx_f32(s(a), s(b), m.ftz); } };
struct DivFullF32 { static u64 apply(const Mods& m, u64 a, u64 b, u64) { return fp::div_full_f32(s(a), s(b), m.ftz); } };
struct RcpF32 { static u64 apply(const Mods& m, u64 a, u64, u64) { return fp::rcp_f32(s(a), m.rnd, m.ftz); } };
struct RcpApproxF32 { static u64 apply(const Mods& m, u64 a, u64, u64) { return fp::rcp_approx_f32(s(a), m.ftz); } };
struct SqrtF32 { static u64 apply(const Mods& m, u64 a, u64, u64) { return fp::sqrt_f32(s(a), m.rnd, m.ftz); } };
struct SqrtApproxF32 { static u64 apply(const Mods& m, u64 a, u64, u64) { return fp::sqrt_approx_f32(s(a), m.ftz); } };
struct RsqrtApproxF32 { static u64 apply(const Mods& m, u64 a, u64, u64) { return fp::rsqrt_approx_f32(s(a), m.ftz); } };
struct SinF32 { static u64 apply(const Mods& m, u64 a, u64, u64) { return fp::sin_approx_f32(s(a), m.ftz); } };
struct CosF32 { static u64 apply(const Mods& m, u64 a, u64, u64) { return fp::cos_approx_f32(s(a), m.ftz); } };
struct Lg2F32 { static u64 apply(const Mods& m, u64 a, u64, u64) { return fp::lg2_approx_f32(s(a), m.ftz); } };
struct Ex2F32 { static u64 apply(const Mods& m, u64 a, u64, u64) { return fp::ex2_approx_f32(s(a), m.ftz); } };
struct TanhF32 { static u64 apply(const Mods&, u64 a, u64, u64) { return fp::tanh_approx_f32(s(a)); } };
struct MinF32 { static u64 apply(const Mods& m, u64 a, u64 b, u64) { return fp::min_f32(s(a), s(b), m.ftz, m.nan, m.xorsign_abs); } };
struct MaxF32 { static u64 apply(const Mods& m, u64 a, u64 b, u64) { return fp::max_f32(s(a), s(b), m.ftz, m.nan, m.xorsign_abs); } };
struct Min3F32 { static u64 apply(const Mods& m, u64 a, u64 b, u64 c) { return fp::min3_f32(s(a), s(b), s(c), m.ftz, m.nan, m.xorsign_abs); } };
struct Max3F32 { static u64 apply(const Mods& m, u64 a, u64 b, u64 c) { return fp::max3_f32(s(a), s(b), s(c), m.ftz, m.nan, m.xorsign_abs); } };
struct AbsF32 { static u64 apply(const Mods& m, u64 a, u64, u64) { return fp::abs_f32(s(a), m.ftz); } };
struct NegF32 { static u64 apply(const Mods& m, u64 a, u64, u64) { return fp::neg_f32(s(a), m.ftz); } };
struct CopysignF32 { static u64 apply(const Mods&, u64 a, u64 b, u64) { return fp::copysign_f32(s(a), s(b)); } };

// f64
struct AddF64 { static u64 apply(const Mods& m, u64 a, u64 b, u64) { return fp::add_f64(a, b, m.rnd); } };
struct SubF64 { static u64 apply(const Mods& m, u64 a, u64 b, u64) { return fp::sub_f64(a, b, m.rnd); } };
struct MulF64 { static u64 apply(const Mods& m, u64 a, u64 b, u64) { return fp::mul_f64(a, b, m.rnd); } };
struct FmaF64 { static u64 apply(const Mods& m, u64 a, u64 b, u64 c) { return fp::fma_f64(a, b, c, m.rnd); } };
struct DivF64 { static u64 apply(const Mods& m, u64 a, u64 b, u64) { return fp::div_f64(a, b, m.rnd); } };
struct RcpF64 { static u64 apply(const Mods& m, u64 a, u64, u64) { return fp::rcp_f64(a, m.rnd); } };
struct RcpApproxFtzF64 { static u64 apply(const Mods&, u64 a, u64, u64) { return fp::rcp_approx_ftz_f64(a); } };
struct SqrtF64 { static u64 apply(const Mods& m, u64 a, u64, u64) { return fp::sqrt_f64(a, m.rnd); } };
struct RsqrtApproxF64 { static u64 apply(const Mods&, u64 a, u64, u64) { return fp::rsqrt_approx_f64(a); } };
struct RsqrtApproxFtzF64 { static u64 apply(const Mods&, u64 a, u64, u64) { return fp::rsqrt_approx_ftz_f64(a); } };
struct MinF64 { static u64 apply(const Mods&, u64 a, u64 b, u64) { return fp::min_f64(a, b); } };
struct MaxF64 { static u64 apply(const Mods&, u64 a, u64 b, u64) { return fp::max_f64(a, b); } };
struct AbsF64 { static u64 apply(const Mods&, u64 a, u64, u64) { return fp::abs_f64(a); } };
struct NegF64 { static u64 apply(const Mods&, u64 a, u64, u64) { return fp::neg_f64(a); } };
struct CopysignF64 { static u64 apply(const Mods&, u64 a, u64 b, u64) { return fp::copysign_f64(a, b); } };

// f16
struct AddF16 { static u64 apply(const Mods& m, u64 a, u64 b, u64) { return fp::add_f16(h(a), h(b), m.rnd, m.ftz, m.sat); } };
struct SubF16 { static u64 apply(const Mods& m, u64 a, u64 b, u64) { return fp::sub_f16(h(a), h(b), m.rnd, m.ftz, m.sat); } };
struct MulF16 { static u64 apply(const Mods& m, u64 a, u64 b, u64) { return fp::mul_f16(h(a), h(b), m.rnd, m.ftz, m.sat); } };
struct FmaF16 { static u64 apply(const Mods& m, u64 a, u64 b, u64 c) { return fp::fma_f16(h(a), h(b), h(c), m.rnd, m.ftz, m.sat, m.relu); } };
struct MinF16 { static u64 apply(const Mods& m, u64 a, u64 b, u64) { return fp::min_f16(h(a), h(b), m.ftz, m.nan, m.xorsign_abs); } };
struct MaxF16 { static u64 apply(const Mods& m, u64 a, u64 b, u64) { return fp::max_f16(h(a), h(b), m.ftz, m.nan, m.xorsign_abs); } };
struct AbsF16 { static u64 apply(const Mods& m, u64 a, u64, u64) { return fp::abs_f16(h(a), m.ftz); } };
struct NegF16 { static u64 apply(const Mods& m, u64 a, u64, u64) { return fp::neg_f16(h(a), m.ftz); } };
struct Ex2F16 { static u64 apply(const Mods& m, u64 a, u64, u64) { return fp::ftz16(fp::ex2_approx_f16(fp::ftz16(h(a), m.ftz)), m.ftz); } };
struct TanhF16 { static u64 apply(const Mods&, u64 a, u64, u64) { return fp::tanh_approx_f16(h(a)); } };

// bf16
struct AddBF16 { static u64 apply(const Mods& m, u64 a, u64 b, u64) { return fp::add_bf16(h(a), h(b), m.rnd); } };
struct SubBF16 { static u64 apply(const Mods& m, u64 a, u64 b, u64) { return fp::sub_bf16(h(a), h(b), m.rnd); } };
struct MulBF16 { static u64 apply(const Mods& m, u64 a, u64 b, u64) { return fp::mul_bf16(h(a), h(b), m.rnd); } };
struct FmaBF16 { static u64 apply(const Mods& m, u64 a, u64 b, u64 c) { return fp::fma_bf16(h(a), h(b), h(c), m.rnd, m.relu); } };
struct MinBF16 { static u64 apply(const Mods& m, u64 a, u64 b, u64) { return fp::min_bf16(h(a), h(b), m.nan, m.xorsign_abs); } };
struct MaxBF16 { static u64 apply(const Mods& m, u64 a, u64 b, u64) { return fp::max_bf16(h(a), h(b), m.nan, m.xorsign_abs); } };
struct AbsBF16 { static u64 apply(const Mods&, u64 a, u64, u64) { return fp::abs_bf16(h(a)); } };
struct NegBF16 { static u64 apply(const Mods&, u64 a, u64, u64) { return fp::neg_bf16(h(a)); } };
struct Ex2BF16 { static u64 apply(const Mods&, u64 a, u64, u64) { return fp::ex2_approx_ftz_bf16(h(a)); } };
struct TanhBF16 { static u64 apply(const Mods&, u64 a, u64, u64) { return fp::tanh_approx_bf16(h(a)); } };

// A 16-bit operation applied to both halves of packed operands.
template <typename Op>
struct X2 {
  static u64 apply(const Mods& m, u64 a, u64 b, u64 c) {
    return (Op::apply(m, a & 0xffff, b & 0xffff, c & 0xffff) & 0xffff) |
           (Op::apply(m, a >> 16 & 0xffff, b >> 16 & 0xffff, c >> 16 & 0xffff) & 0xffff) << 16;
  }
};

template <typename Op>
void exec_elementwise(Warp& w, const DecodedInst& inst, LaneMask active) {
  const Mods m = mods_of(*inst.mods);
  auto a = w.read(inst.src[0], 0);
  auto b = w.read(inst.num_src > 1 ? inst.src[1] : inst.src[0], 1);
  auto c = w.read(inst.num_src > 2 ? inst.src[2] : inst.src[0], 2);
  write_lanes(w, inst.dst[0], active, [&](uint32_t l) { return Op::apply(m, a[l], b[l], c[l]); });
}

// ---- comparisons ----------------------------------------------------------------------------

// a CmpOp b on host doubles (exact for every format here); NaN compares
// false except in the unordered forms.
bool compare_float(CmpOp op, double a, double b) {
  const bool unordered = a != a || b != b;
  switch (op) {
    case CmpOp::Eq: return !unordered && a == b;
    case CmpOp::Ne: return !unordered && a != b;
    case CmpOp::Lt: return !unordered && a < b;
    case CmpOp::Le: return !unordered && a <= b;
    case CmpOp::Gt: return !unordered && a > b;
    case CmpOp::Ge: return !unordered && a >= b;
    case CmpOp::Equ: return unordered || a == b;
    case CmpOp::Neu: return unordered || a != b;
    case CmpOp::Ltu: return unordered || a < b;
    case CmpOp::Leu: return unordered || a <= b;
    case CmpOp::Gtu: return unordered || a > b;
    case CmpOp::Geu: return unordered || a >= b;
    case CmpOp::Num: return !unordered;
    case CmpOp::Nan: return unordered;
    default: return false;
  }
}

// The value of element `v` of type t (a 16-bit element of packed types), with
// .ftz flushing a subnormal f32/f16 input to zero.
template <ScalarType kType>
double value_of(u64 v, bool ftz) {
  if constexpr (kType == ScalarType::F64) {
    return std::bit_cast<double>(v);
  } else if constexpr (kType == ScalarType::F32) {
    return std::bit_cast<float>(fp::ftz32(s(v), ftz));
  } else if constexpr (kType == ScalarType::F16 || kType == ScalarType::F16x2) {
    return fp::f16_value(fp::ftz16(h(v), ftz));
  } else {
    return fp::bf16_value(h(v));
  }
}


constexpr bool is_packed(ScalarType t) { return t == ScalarType::F16x2 || t == ScalarType::BF16x2; }

// setp.CmpOp{.BoolOp}{.ftz}.type p[|q], a, b{, {!}c}. Scalar types: p =
// BoolOp(t, c), q = BoolOp(!t, c). Packed types compare each half: p from
// the low halves, q from the high halves.
template <ScalarType kType>
void exec_setp_float(Warp& w, const DecodedInst& inst, LaneMask active) {
  const ptx::Modifiers& m = *inst.mods;
  const bool ftz = m.has(Flag::Ftz);
  auto a = w.read(inst.src[0], 0);
  auto b = w.read(inst.src[1], 1);
  LaneMask lo = 0, hi = 0;
  for_each_lane(active, [&](uint32_t l) {
    if (compare_float(m.cmp, value_of<kType>(a[l], ftz), value_of<kType>(b[l], ftz))) lo |= 1u << l;
    if constexpr (is_packed(kType))
      if (compare_float(m.cmp, value_of<kType>(a[l] >> 16, ftz), value_of<kType>(b[l] >> 16, ftz)))
        hi |= 1u << l;
  });
  const LaneMask c = m.op != Operation::None ? w.read_pred(inst.src[2]) : 0;
  if constexpr (is_packed(kType)) {
    w.write_pred(inst.dst[0], active, combine(m.op, lo, c));
    if (inst.dst_pred != kNoSlot) w.write_pred(inst.dst_pred, active, combine(m.op, hi, c));
  } else {
    w.write_pred(inst.dst[0], active, combine(m.op, lo, c));
    if (inst.dst_pred != kNoSlot) w.write_pred(inst.dst_pred, active, combine(m.op, ~lo, c));
  }
}

// set.CmpOp{.BoolOp}{.ftz}.dtype.stype d, a, b{, {!}c} with a float stype:
// d = all ones (integer dtype) or 1.0f (f32 dtype) where true, else 0. With
// packed types, each half of d is 0xffff / 1.0 (f16x2) per element.
template <ScalarType kSrc>
void exec_set_float(Warp& w, const DecodedInst& inst, LaneMask active) {
  const ptx::Modifiers& m = *inst.mods;
  const bool ftz = m.has(Flag::Ftz);
  auto a = w.read(inst.src[0], 0);
  auto b = w.read(inst.src[1], 1);
  const LaneMask c = m.op != Operation::None ? w.read_pred(inst.src[2]) : 0;
  auto bit_of = [&](LaneMask mask, uint32_t l) { return (mask >> l & 1) != 0; };
  auto truth = [&](bool t, uint32_t l) {
    switch (m.op) {
      case Operation::And: return t && bit_of(c, l);
      case Operation::Or: return t || bit_of(c, l);
      case Operation::Xor: return t != bit_of(c, l);
      default: return t;
    }
  };
  const ScalarType d = inst.type;
  write_lanes(w, inst.dst[0], active, [&](uint32_t l) -> u64 {
    const bool t0 = truth(compare_float(m.cmp, value_of<kSrc>(a[l], ftz), value_of<kSrc>(b[l], ftz)), l);
    if constexpr (is_packed(kSrc)) {
      const bool t1 =
          truth(compare_float(m.cmp, value_of<kSrc>(a[l] >> 16, ftz), value_of<kSrc>(b[l] >> 16, ftz)), l);
      const u64 one = d == ScalarType::F16x2 ? 0x3c00 : d == ScalarType::BF16x2 ? 0x3f80 : 0xffff;
      return (t0 ? one : 0) | (t1 ? one : 0) << 16;
    } else {
      const u64 one = d == ScalarType::F32 ? 0x3f800000u : d == ScalarType::F16 ? 0x3c00u
                      : d == ScalarType::BF16 ? 0x3f80u : truncate(~0ull, ptx::type_bits(d));
      return t0 ? one : 0;
    }
  });
}

// testp.op.type p, a.
template <ScalarType kType>
void exec_testp(Warp& w, const DecodedInst& inst, LaneMask active) {
  const Flag test = mods_of(*inst.mods).test;
  auto a = w.read(inst.src[0], 0);
  LaneMask r = 0;
  for_each_lane(active, [&](uint32_t l) {
    const bool t = kType == ScalarType::F64 ? fp::testp_f64(a[l], test) : fp::testp_f32(s(a[l]), test);
    if (t) r |= 1u << l;
  });
  w.write_pred(inst.dst[0], active, r);
}

// ---- selection -------------------------------------------------------------------------------

template <typename Op>
Handler ew() { return exec_elementwise<Op>; }

// The handler for an element-wise op by type: f32, f64, f16, bf16, and the
// packed forms of the 16-bit ops (nullptr where a type has no such op).
template <typename F32, typename F64, typename F16, typename BF16>
Handler by_type(ScalarType t) {
  auto pick = [](auto tag) -> Handler {
    using Op = typename decltype(tag)::type;
    if constexpr (std::is_void_v<Op>) return nullptr;
    else return exec_elementwise<Op>;
  };
  auto pick_x2 = [](auto tag) -> Handler {
    using Op = typename decltype(tag)::type;
    if constexpr (std::is_void_v<Op>) return nullptr;
    else return exec_elementwise<X2<Op>>;
  };
  switch (t) {
    case ScalarType::F32: return pick(std::type_identity<F32>{});
    case ScalarType::F64: return pick(std::type_identity<F64>{});
    case ScalarType::F16: return pick(std::type_identity<F16>{});
    case ScalarType::BF16: return pick(std::type_identity<BF16>{});
    case ScalarType::F16x2: return pick_x2(std::type_identity<F16>{});
    case ScalarType::BF16x2: return pick_x2(std::type_identity<BF16>{});
    default: return nullptr;
  }
}

template <template <ScalarType> class H>
Handler by_float_type(ScalarType t) {
  switch (t) {
    case ScalarType::F32: return H<ScalarType::F32>::get();
    case ScalarType::F64: return H<ScalarType::F64>::get();
    case ScalarType::F16: return H<ScalarType::F16>::get();
    case ScalarType::BF16: return H<ScalarType::BF16>::get();
    case ScalarType::F16x2: return H<ScalarType::F16x2>::get();
    case ScalarType::BF16x2: return H<ScalarType::BF16x2>::get();
    default: return nullptr;
  }
}
template <ScalarType T> struct SetpH { static Handler get() { return exec_setp_float<T>; } };
template <ScalarType T> struct SetH { static Handler get() { return exec_set_float<T>; } };

Handler select_div(const ptx::Modifiers& m, ScalarType t) {
  if (t == ScalarType::F64) return m.has(Flag::Approx) || m.has(Flag::Full) ? nullptr : ew<DivF64>();
  if (t != ScalarType::F32) return nullptr;
  if (m.has(Flag::Approx)) return ew<DivApproxF32>();
  if (m.has(Flag::Full)) return ew<DivFullF32>();
  return m.rounding == Rounding::None ? nullptr : ew<DivF32>();  // div.f32 needs a mode
}

Handler select_rcp_sqrt(Opcode op, const ptx::Modifiers& m, ScalarType t) {
  const bool approx = m.has(Flag::Approx);
  if (op == Opcode::Rsqrt) {
    if (!approx) return nullptr;
    if (t == ScalarType::F32) return ew<RsqrtApproxF32>();
    if (t == ScalarType::F64) return m.has(Flag::Ftz) ? ew<RsqrtApproxFtzF64>() : ew<RsqrtApproxF64>();
    return nullptr;
  }
  if (t == ScalarType::F32) {
    if (op == Opcode::Rcp) return approx ? ew<RcpApproxF32>() : ew<RcpF32>();
    return approx ? ew<SqrtApproxF32>() : ew<SqrtF32>();
  }
  if (t == ScalarType::F64) {
    if (op == Opcode::Rcp) return approx ? (m.has(Flag::Ftz) ? ew<RcpApproxFtzF64>() : nullptr) : ew<RcpF64>();
    return approx ? nullptr : ew<SqrtF64>();
  }
  return nullptr;
}

Handler select_transcendental(Opcode op, ScalarType t) {
  switch (op) {
    case Opcode::Sin: return t == ScalarType::F32 ? ew<SinF32>() : nullptr;
    case Opcode::Cos: return t == ScalarType::F32 ? ew<CosF32>() : nullptr;
    case Opcode::Lg2: return t == ScalarType::F32 ? ew<Lg2F32>() : nullptr;
    case Opcode::Ex2: return by_type<Ex2F32, void, Ex2F16, Ex2BF16>(t);
    case Opcode::Tanh: return by_type<TanhF32, void, TanhF16, TanhBF16>(t);
    default: return nullptr;
  }
}

}  // namespace

Handler select_float(const ptx::Instruction& inst, const DecodedInst& d) {
  const ptx::Modifiers& m = inst.mods;
  const ScalarType t = d.type;
  const bool one = d.num_dst == 1 && !d.dst_is_pred;
  switch (inst.opcode) {
    case Opcode::Setp:
      if (!ptx::is_float(t) || !d.dst_is_pred || d.num_src < 2) return nullptr;
      return by_float_type<SetpH>(t);
    case Opcode::Set:
      if (!ptx::is_float(d.type2) || !one || d.num_src < 2) return nullptr;
      return by_float_type<SetH>(d.type2);
    case Opcode::Testp:
      if (!d.dst_is_pred) return nullptr;
      if (t == ScalarType::F32) return exec_testp<ScalarType::F32>;
      if (t == ScalarType::F64) return exec_testp<ScalarType::F64>;
      return nullptr;
    default: break;
  }
  if (!ptx::is_float(t) || !one) return nullptr;
  switch (inst.opcode) {
    case Opcode::Add: return by_type<AddF32, AddF64, AddF16, AddBF16>(t);
    case Opcode::Sub: return by_type<SubF32, SubF64, SubF16, SubBF16>(t);
    case Opcode::Mul: return by_type<MulF32, MulF64, MulF16, MulBF16>(t);
    case Opcode::Fma:
    case Opcode::Mad:  // mad.f32/.f64 is the fused multiply-add (sm_20 and later)
      return d.num_src == 3 ? by_type<FmaF32, FmaF64, FmaF16, FmaBF16>(t) : nullptr;
    case Opcode::Div: return select_div(m, t);
    case Opcode::Rcp:
    case Opcode::Sqrt:
    case Opcode::Rsqrt: return select_rcp_sqrt(inst.opcode, m, t);
    case Opcode::Sin:
    case Opcode::Cos:
    case Opcode::Lg2:
    case Opcode::Ex2:
    case Opcode::Tanh: return select_transcendental(inst.opcode, t);
    case Opcode::Min:
      if (d.num_src == 3) return t == ScalarType::F32 ? ew<Min3F32>() : nullptr;
      return by_type<MinF32, MinF64, MinF16, MinBF16>(t);
    case Opcode::Max:
      if (d.num_src == 3) return t == ScalarType::F32 ? ew<Max3F32>() : nullptr;
      return by_type<MaxF32, MaxF64, MaxF16, MaxBF16>(t);
    case Opcode::Abs: return by_type<AbsF32, AbsF64, AbsF16, AbsBF16>(t);
    case Opcode::Neg: return by_type<NegF32, NegF64, NegF16, NegBF16>(t);
    case Opcode::Copysign: return by_type<CopysignF32, CopysignF64, void, void>(t);
    default: return nullptr;
  }
}

}  // namespace warpsim::functional
