// Handler family: floating point — add/sub/mul/fma/mad/div/rcp/sqrt/rsqrt,
// sin/cos/lg2/ex2/tanh, min/max, abs/neg/copysign, testp, and setp/set with
// float operands, for .f32, .f64, .f16, .bf16, the packed .f16x2/.bf16x2/
// .f32x2, and the mixed-precision add/sub/fma.f32.{f16,bf16}.
//
// All numerics come from functional/fp (correct rounding in every mode, .ftz,
// .sat, .relu, PTX NaN rules); this file only maps instruction forms onto it.
// An element-wise operation is a small struct naming the modifiers its form
// accepts, its operand count, and a static apply() on bit patterns. The
// selector checks the instruction's modifiers against that list (a modifier
// the form does not take makes the instruction unsupported instead of being
// silently ignored) and picks, once at decode time, the handler instantiated
// for exactly that rounding mode and modifier set: the lane loops test no
// modifiers. Packed forms apply the scalar operation to each element (low
// half = element 0).
#include <optional>
#include <type_traits>

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
using u16 = uint16_t;
using u32 = uint32_t;
using u64 = uint64_t;

inline u16 h(u64 v) { return static_cast<u16>(v); }
inline u32 s(u64 v) { return static_cast<u32>(v); }

// ---- modifiers ------------------------------------------------------------------------------

// The modifier flags a handler is specialised on. kXorAbs is `.xorsign.abs`
// (two-input min/max); kAbs a lone `.abs` (three-input min/max).
enum : uint8_t { kFtz = 1, kSat = 2, kRelu = 4, kNaN = 8, kXorAbs = 16, kAbs = 32 };
constexpr int kModBits = 6;

// The rounding modifiers a form accepts: none, .rn only (half precision), or
// any of .rn .rz .rm .rp. No modifier means .rn.
enum class Rnd : uint8_t { None, RnOnly, Any };

struct Mods {
  Rounding rnd = Rounding::None;
  uint8_t bits = 0;
  constexpr bool ftz() const { return bits & kFtz; }
  constexpr bool sat() const { return bits & kSat; }
  constexpr bool relu() const { return bits & kRelu; }
  constexpr bool nan() const { return bits & kNaN; }
  constexpr bool xorsign_abs() const { return bits & kXorAbs; }
  constexpr bool abs() const { return bits & kAbs; }
};

// The instruction's modifiers, or nullopt when it carries a flag no float
// form takes (.noftz, .satfinite, .oob, integer flags...) or an invalid mix.
std::optional<Mods> decode_mods(const ptx::Modifiers& m) {
  static const ptx::FlagSet kKnown = [] {
    ptx::FlagSet f;
    for (Flag x : {Flag::Ftz, Flag::Sat, Flag::Relu, Flag::NaN, Flag::Xorsign, Flag::Abs, Flag::Approx,
                   Flag::Full})
      f.set(static_cast<size_t>(x));
    return f;
  }();
  if ((m.flags & ~kKnown).any()) return std::nullopt;
  Mods r;
  r.rnd = m.rounding;
  if (m.has(Flag::Ftz)) r.bits |= kFtz;
  if (m.has(Flag::Sat)) r.bits |= kSat;
  if (m.has(Flag::Relu)) r.bits |= kRelu;
  if (m.has(Flag::NaN)) r.bits |= kNaN;
  if (m.has(Flag::Xorsign)) {
    if (!m.has(Flag::Abs)) return std::nullopt;  // .xorsign only comes with .abs
    r.bits |= kXorAbs;
  } else if (m.has(Flag::Abs)) {
    r.bits |= kAbs;
  }
  if (r.sat() && r.relu()) return std::nullopt;  // no form takes both
  return r;
}

// What an element-wise operation accepts: rounding, modifier flags, operands.
template <Rnd kR, uint8_t kU, int kN>
struct Form {
  static constexpr Rnd kRound = kR;
  static constexpr uint8_t kUses = kU;
  static constexpr int kArity = kN;
};

// ---- element-wise operations (bit patterns in, bit pattern out) ---------------------------

// FLOAT_OP(Name, rounding, flags, operands, result): an operation whose form
// takes that rounding (Rnd::...) and those modifier flags; `result` reads the
// operand bits a, b, c and the Mods m.
#define FLOAT_OP(Name, R, U, N, ...)                                             \
  struct Name : Form<Rnd::R, U, N> {                                             \
    static u64 apply(const Mods& m, u64 a, u64 b, u64 c) { return __VA_ARGS__; } \
  }

// f32
FLOAT_OP(AddF32, Any, kFtz | kSat, 2, fp::add_f32(s(a), s(b), m.rnd, m.ftz(), m.sat()));
FLOAT_OP(SubF32, Any, kFtz | kSat, 2, fp::sub_f32(s(a), s(b), m.rnd, m.ftz(), m.sat()));
FLOAT_OP(MulF32, Any, kFtz | kSat, 2, fp::mul_f32(s(a), s(b), m.rnd, m.ftz(), m.sat()));
FLOAT_OP(FmaF32, Any, kFtz | kSat, 3, fp::fma_f32(s(a), s(b), s(c), m.rnd, m.ftz(), m.sat()));
FLOAT_OP(DivF32, Any, kFtz, 2, fp::div_f32(s(a), s(b), m.rnd, m.ftz()));
FLOAT_OP(DivApproxF32, None, kFtz, 2, fp::div_approx_f32(s(a), s(b), m.ftz()));
FLOAT_OP(DivFullF32, None, kFtz, 2, fp::div_full_f32(s(a), s(b), m.ftz()));
FLOAT_OP(RcpF32, Any, kFtz, 1, fp::rcp_f32(s(a), m.rnd, m.ftz()));
FLOAT_OP(RcpApproxF32, None, kFtz, 1, fp::rcp_approx_f32(s(a), m.ftz()));
FLOAT_OP(SqrtF32, Any, kFtz, 1, fp::sqrt_f32(s(a), m.rnd, m.ftz()));
FLOAT_OP(SqrtApproxF32, None, kFtz, 1, fp::sqrt_approx_f32(s(a), m.ftz()));
FLOAT_OP(RsqrtApproxF32, None, kFtz, 1, fp::rsqrt_approx_f32(s(a), m.ftz()));
FLOAT_OP(SinF32, None, kFtz, 1, fp::sin_approx_f32(s(a), m.ftz()));
FLOAT_OP(CosF32, None, kFtz, 1, fp::cos_approx_f32(s(a), m.ftz()));
FLOAT_OP(Lg2F32, None, kFtz, 1, fp::lg2_approx_f32(s(a), m.ftz()));
FLOAT_OP(Ex2F32, None, kFtz, 1, fp::ex2_approx_f32(s(a), m.ftz()));
FLOAT_OP(TanhF32, None, 0, 1, fp::tanh_approx_f32(s(a)));
FLOAT_OP(MinF32, None, kFtz | kNaN | kXorAbs, 2, fp::min_f32(s(a), s(b), m.ftz(), m.nan(), m.xorsign_abs()));
FLOAT_OP(MaxF32, None, kFtz | kNaN | kXorAbs, 2, fp::max_f32(s(a), s(b), m.ftz(), m.nan(), m.xorsign_abs()));
FLOAT_OP(Min3F32, None, kFtz | kNaN | kAbs, 3, fp::min3_f32(s(a), s(b), s(c), m.ftz(), m.nan(), m.abs()));
FLOAT_OP(Max3F32, None, kFtz | kNaN | kAbs, 3, fp::max3_f32(s(a), s(b), s(c), m.ftz(), m.nan(), m.abs()));
FLOAT_OP(AbsF32, None, kFtz, 1, fp::abs_f32(s(a), m.ftz()));
FLOAT_OP(NegF32, None, kFtz, 1, fp::neg_f32(s(a), m.ftz()));
FLOAT_OP(CopysignF32, None, 0, 2, fp::copysign_f32(s(a), s(b)));

// f64 (no .ftz/.sat forms, except the .approx.ftz ones)
FLOAT_OP(AddF64, Any, 0, 2, fp::add_f64(a, b, m.rnd));
FLOAT_OP(SubF64, Any, 0, 2, fp::sub_f64(a, b, m.rnd));
FLOAT_OP(MulF64, Any, 0, 2, fp::mul_f64(a, b, m.rnd));
FLOAT_OP(FmaF64, Any, 0, 3, fp::fma_f64(a, b, c, m.rnd));
FLOAT_OP(DivF64, Any, 0, 2, fp::div_f64(a, b, m.rnd));
FLOAT_OP(RcpF64, Any, 0, 1, fp::rcp_f64(a, m.rnd));
FLOAT_OP(SqrtF64, Any, 0, 1, fp::sqrt_f64(a, m.rnd));
FLOAT_OP(RcpApproxFtzF64, None, kFtz, 1, fp::rcp_approx_ftz_f64(a));
FLOAT_OP(RsqrtApproxF64, None, 0, 1, fp::rsqrt_approx_f64(a));
FLOAT_OP(RsqrtApproxFtzF64, None, kFtz, 1, fp::rsqrt_approx_ftz_f64(a));
FLOAT_OP(MinF64, None, 0, 2, fp::min_f64(a, b));
FLOAT_OP(MaxF64, None, 0, 2, fp::max_f64(a, b));
FLOAT_OP(AbsF64, None, 0, 1, fp::abs_f64(a));
FLOAT_OP(NegF64, None, 0, 1, fp::neg_f64(a));
FLOAT_OP(CopysignF64, None, 0, 2, fp::copysign_f64(a, b));

// f16 (PTX defines only .rn for the arithmetic; ex2.approx.f16 has no .ftz)
FLOAT_OP(AddF16, RnOnly, kFtz | kSat, 2, fp::add_f16(h(a), h(b), m.rnd, m.ftz(), m.sat()));
FLOAT_OP(SubF16, RnOnly, kFtz | kSat, 2, fp::sub_f16(h(a), h(b), m.rnd, m.ftz(), m.sat()));
FLOAT_OP(MulF16, RnOnly, kFtz | kSat, 2, fp::mul_f16(h(a), h(b), m.rnd, m.ftz(), m.sat()));
FLOAT_OP(FmaF16, RnOnly, kFtz | kSat | kRelu, 3, fp::fma_f16(h(a), h(b), h(c), m.rnd, m.ftz(), m.sat(), m.relu()));
FLOAT_OP(MinF16, None, kFtz | kNaN | kXorAbs, 2, fp::min_f16(h(a), h(b), m.ftz(), m.nan(), m.xorsign_abs()));
FLOAT_OP(MaxF16, None, kFtz | kNaN | kXorAbs, 2, fp::max_f16(h(a), h(b), m.ftz(), m.nan(), m.xorsign_abs()));
FLOAT_OP(AbsF16, None, kFtz, 1, fp::abs_f16(h(a), m.ftz()));
FLOAT_OP(NegF16, None, kFtz, 1, fp::neg_f16(h(a), m.ftz()));
FLOAT_OP(Ex2F16, None, 0, 1, fp::ex2_approx_f16(h(a)));
FLOAT_OP(TanhF16, None, 0, 1, fp::tanh_approx_f16(h(a)));

// bf16 (no .ftz/.sat forms; ex2 exists only as ex2.approx.ftz, which the selector checks)
FLOAT_OP(AddBF16, RnOnly, 0, 2, fp::add_bf16(h(a), h(b), m.rnd));
FLOAT_OP(SubBF16, RnOnly, 0, 2, fp::sub_bf16(h(a), h(b), m.rnd));
FLOAT_OP(MulBF16, RnOnly, 0, 2, fp::mul_bf16(h(a), h(b), m.rnd));
FLOAT_OP(FmaBF16, RnOnly, kRelu, 3, fp::fma_bf16(h(a), h(b), h(c), m.rnd, m.relu()));
FLOAT_OP(MinBF16, None, kNaN | kXorAbs, 2, fp::min_bf16(h(a), h(b), m.nan(), m.xorsign_abs()));
FLOAT_OP(MaxBF16, None, kNaN | kXorAbs, 2, fp::max_bf16(h(a), h(b), m.nan(), m.xorsign_abs()));
FLOAT_OP(AbsBF16, None, 0, 1, fp::abs_bf16(h(a)));
FLOAT_OP(NegBF16, None, 0, 1, fp::neg_bf16(h(a)));
FLOAT_OP(Ex2BF16, None, kFtz, 1, fp::ex2_approx_ftz_bf16(h(a)));
FLOAT_OP(TanhBF16, None, 0, 1, fp::tanh_approx_bf16(h(a)));
#undef FLOAT_OP

// Mixed precision (sm_100): add/sub{.rnd}{.sat}.f32.atype d, a, c and
// fma.rnd{.sat}.f32.abtype d, a, b, c. The 16-bit operands widen exactly,
// so the f32 operation rounds once.
template <bool kBF>
u32 widen(u64 v) {
  return kBF ? fp::bf16_to_f32(h(v)) : fp::f16_to_f32(h(v));
}
template <bool kBF>
struct AddF32Half : Form<Rnd::Any, kSat, 2> {
  static u64 apply(const Mods& m, u64 a, u64 c, u64) {
    return fp::add_f32(widen<kBF>(a), s(c), m.rnd, false, m.sat());
  }
};
template <bool kBF>
struct SubF32Half : Form<Rnd::Any, kSat, 2> {
  static u64 apply(const Mods& m, u64 a, u64 c, u64) {
    return fp::sub_f32(widen<kBF>(a), s(c), m.rnd, false, m.sat());
  }
};
template <bool kBF>
struct FmaF32Half : Form<Rnd::Any, kSat, 3> {
  static u64 apply(const Mods& m, u64 a, u64 b, u64 c) {
    return fp::fma_f32(widen<kBF>(a), widen<kBF>(b), s(c), m.rnd, false, m.sat());
  }
};

// A 16-bit operation on both halves of .f16x2/.bf16x2 operands.
template <typename Op>
struct X2 : Form<Op::kRound, Op::kUses, Op::kArity> {
  static u64 apply(const Mods& m, u64 a, u64 b, u64 c) {
    const u64 lo = Op::apply(m, a & 0xffff, b & 0xffff, c & 0xffff) & 0xffff;
    const u64 hi = Op::apply(m, a >> 16 & 0xffff, b >> 16 & 0xffff, c >> 16 & 0xffff) & 0xffff;
    return lo | hi << 16;
  }
};
// An f32 operation on both halves of .f32x2 operands (b64 registers); the
// .f32x2 forms take .rnd and .ftz but not .sat.
template <typename Op>
struct X2F32 : Form<Op::kRound, Op::kUses & kFtz, Op::kArity> {
  static u64 apply(const Mods& m, u64 a, u64 b, u64 c) {
    const u64 lo = Op::apply(m, s(a), s(b), s(c)) & 0xffffffffu;
    const u64 hi = Op::apply(m, a >> 32, b >> 32, c >> 32) & 0xffffffffu;
    return lo | hi << 32;
  }
};

// ---- element-wise handlers -------------------------------------------------------------------

template <typename Op, Rounding kRnd, uint8_t kBits>
void exec_elementwise(Warp& w, const DecodedInst& inst, LaneMask active) {
  static constexpr Mods m{kRnd, kBits};
  const auto a = w.read(inst.src[0], 0);
  if constexpr (Op::kArity == 1) {
    write_lanes(w, inst.dst[0], active, [&](uint32_t l) { return Op::apply(m, a[l], 0, 0); });
  } else if constexpr (Op::kArity == 2) {
    const auto b = w.read(inst.src[1], 1);
    write_lanes(w, inst.dst[0], active, [&](uint32_t l) { return Op::apply(m, a[l], b[l], 0); });
  } else {
    const auto b = w.read(inst.src[1], 1);
    const auto c = w.read(inst.src[2], 2);
    write_lanes(w, inst.dst[0], active, [&](uint32_t l) { return Op::apply(m, a[l], b[l], c[l]); });
  }
}

// The instantiation for the flags in `bits`, one flag Op accepts at a time.
template <typename Op, Rounding kRnd, uint8_t kBits = 0, int kBit = 0>
Handler with_flags(uint8_t bits) {
  if constexpr (kBit == kModBits) {
    return exec_elementwise<Op, kRnd, kBits>;
  } else {
    constexpr auto b = static_cast<uint8_t>(1u << kBit);
    if constexpr ((Op::kUses & b) != 0)
      if (bits & b) return with_flags<Op, kRnd, static_cast<uint8_t>(kBits | b), kBit + 1>(bits);
    return with_flags<Op, kRnd, kBits, kBit + 1>(bits);
  }
}

// The handler for Op under modifiers `m`, or nullptr when the form does not
// take one of them.
template <typename Op>
Handler specialise(const Mods& m) {
  if ((m.bits & ~Op::kUses) != 0) return nullptr;
  if (m.rnd == Rounding::None) return with_flags<Op, Rounding::Rn>(m.bits);
  if constexpr (Op::kRound != Rnd::None)
    if (m.rnd == Rounding::Rn) return with_flags<Op, Rounding::Rn>(m.bits);
  if constexpr (Op::kRound == Rnd::Any) {
    if (m.rnd == Rounding::Rz) return with_flags<Op, Rounding::Rz>(m.bits);
    if (m.rnd == Rounding::Rm) return with_flags<Op, Rounding::Rm>(m.bits);
    if (m.rnd == Rounding::Rp) return with_flags<Op, Rounding::Rp>(m.bits);
  }
  return nullptr;
}

// Op when the instruction has its operand count (void: no such form).
template <typename Op>
Handler form(const Mods& m, const DecodedInst& d) {
  if constexpr (std::is_void_v<Op>) {
    return nullptr;
  } else {
    return d.num_src == Op::kArity ? specialise<Op>(m) : nullptr;
  }
}

template <template <typename> class Pack, typename Op>
using Packed = std::conditional_t<std::is_void_v<Op>, void, Pack<Op>>;

bool any_immediate(const DecodedInst& d) {
  for (uint32_t i = 0; i < d.num_src; ++i)
    if (d.src[i].kind == Src::Imm) return true;
  return false;
}

// The handler for an operation by instruction type; the 16-bit operations
// also give the packed forms, the f32 one the .f32x2 form when kF32x2.
template <typename F32, typename F64, typename F16 = void, typename BF16 = void, bool kF32x2 = false>
Handler by_type(const Mods& m, const DecodedInst& d) {
  switch (d.type) {
    case ScalarType::F32: return form<F32>(m, d);
    case ScalarType::F64: return form<F64>(m, d);
    case ScalarType::F16: return form<F16>(m, d);
    case ScalarType::BF16: return form<BF16>(m, d);
    case ScalarType::F16x2: return form<Packed<X2, F16>>(m, d);
    case ScalarType::BF16x2: return form<Packed<X2, BF16>>(m, d);
    case ScalarType::F32x2:
      // A float literal would have been decoded as one f64, not two f32.
      if constexpr (kF32x2) return any_immediate(d) ? nullptr : form<X2F32<F32>>(m, d);
      return nullptr;
    default: return nullptr;
  }
}

// ---- comparisons -----------------------------------------------------------------------------

// A float comparison as the set of outcomes for which it holds.
enum : uint8_t { kLt = 1, kEq = 2, kGt = 4, kUnordered = 8 };

constexpr uint8_t truth_table(CmpOp op) {
  switch (op) {
    case CmpOp::Eq: return kEq;
    case CmpOp::Ne: return kLt | kGt;
    case CmpOp::Lt: return kLt;
    case CmpOp::Le: return kLt | kEq;
    case CmpOp::Gt: return kGt;
    case CmpOp::Ge: return kGt | kEq;
    case CmpOp::Equ: return kEq | kUnordered;
    case CmpOp::Neu: return kLt | kGt | kUnordered;
    case CmpOp::Ltu: return kLt | kUnordered;
    case CmpOp::Leu: return kLt | kEq | kUnordered;
    case CmpOp::Gtu: return kGt | kUnordered;
    case CmpOp::Geu: return kGt | kEq | kUnordered;
    case CmpOp::Num: return kLt | kEq | kGt;
    case CmpOp::Nan: return kUnordered;
    default: return 0;  // the integer-only lo/ls/hi/hs
  }
}

constexpr bool is_packed(ScalarType t) { return t == ScalarType::F16x2 || t == ScalarType::BF16x2; }

// The exact value of an element (the low 16 bits of `v` for 16-bit types);
// .ftz flushes a subnormal f32/f16 input to a zero of the same sign.
template <ScalarType kType, bool kFtz>
double value_of(u64 v) {
  if constexpr (kType == ScalarType::F64) {
    return fp::f64_from(v);
  } else if constexpr (kType == ScalarType::F32) {
    return fp::f32_from(fp::ftz32(s(v), kFtz));
  } else if constexpr (kType == ScalarType::F16 || kType == ScalarType::F16x2) {
    return fp::f16_value(fp::ftz16(h(v), kFtz));
  } else {
    return fp::bf16_value(h(v));
  }
}

template <ScalarType kType, bool kFtz>
bool holds(uint8_t table, u64 a, u64 b) {
  const double x = value_of<kType, kFtz>(a), y = value_of<kType, kFtz>(b);
  const unsigned outcome = (x < y ? kLt : 0) | (x == y ? kEq : 0) | (x > y ? kGt : 0) |
                           (x != x || y != y ? kUnordered : 0);
  return (table & outcome) != 0;
}

// The lanes where src[0] CmpOp src[1] holds: `lo` for the (low) element, `hi`
// for the high element of packed types. Both then go through the boolean op.
template <ScalarType kType, bool kFtz>
void compare_lanes(Warp& w, const DecodedInst& inst, LaneMask active, LaneMask& lo, LaneMask& hi) {
  const ptx::Modifiers& m = *inst.mods;
  const uint8_t table = truth_table(m.cmp);
  const auto a = w.read(inst.src[0], 0);
  const auto b = w.read(inst.src[1], 1);
  LaneMask r0 = 0, r1 = 0;
  for_each_lane(active, [&](uint32_t l) {
    r0 |= LaneMask{holds<kType, kFtz>(table, a[l], b[l])} << l;
    if constexpr (is_packed(kType)) r1 |= LaneMask{holds<kType, kFtz>(table, a[l] >> 16, b[l] >> 16)} << l;
  });
  const LaneMask c = m.op != Operation::None ? w.read_pred(inst.src[2]) : 0;
  lo = combine(m.op, r0, c);
  // Scalar types: q uses the complement of the comparison (BoolOp(!t, c)).
  hi = combine(m.op, is_packed(kType) ? r1 : ~r0, c);
}

// setp.CmpOp{.BoolOp}{.ftz}.type p[|q], a, b{, {!}c}. Scalar types: p =
// BoolOp(t, c), q = BoolOp(!t, c). Packed types: p from the low elements, q
// from the high ones. Either destination may be a sink.
template <ScalarType kType, bool kFtz>
void exec_setp_float(Warp& w, const DecodedInst& inst, LaneMask active) {
  LaneMask p, q;
  compare_lanes<kType, kFtz>(w, inst, active, p, q);
  if (inst.dst_is_pred) w.write_pred(inst.dst[0], active, p);
  if (inst.dst_pred != kNoSlot) w.write_pred(inst.dst_pred, active, q);
}

// The value set writes for "true" in a destination of type `d`: 1.0 for a
// float type, all ones for an integer type; for packed sources, per element.
u64 set_true_value(ScalarType d, bool packed) {
  switch (d) {
    case ScalarType::F32: return 0x3f800000u;
    case ScalarType::F16:
    case ScalarType::F16x2: return 0x3c00u;
    case ScalarType::BF16:
    case ScalarType::BF16x2: return 0x3f80u;
    case ScalarType::U16:
    case ScalarType::S16: return 0xffffu;
    default: return packed ? 0xffffu : 0xffffffffu;  // .u32/.s32
  }
}

// set.CmpOp{.BoolOp}{.ftz}.dtype.stype d, a, b{, {!}c} with a float stype.
template <ScalarType kType, bool kFtz>
void exec_set_float(Warp& w, const DecodedInst& inst, LaneMask active) {
  LaneMask lo, hi;
  compare_lanes<kType, kFtz>(w, inst, active, lo, hi);
  const u64 yes = set_true_value(inst.type, is_packed(kType));
  write_lanes(w, inst.dst[0], active, [&](uint32_t l) -> u64 {
    const u64 d0 = (lo >> l & 1) ? yes : 0;
    if constexpr (is_packed(kType)) return d0 | ((hi >> l & 1) ? yes : 0) << 16;
    return d0;
  });
}

// testp.op.type p, a.
template <ScalarType kType, Flag kTest>
void exec_testp(Warp& w, const DecodedInst& inst, LaneMask active) {
  const auto a = w.read(inst.src[0], 0);
  LaneMask r = 0;
  for_each_lane(active, [&](uint32_t l) {
    bool t;
    if constexpr (kType == ScalarType::F64) t = fp::testp_f64(a[l], kTest);
    else t = fp::testp_f32(s(a[l]), kTest);
    r |= LaneMask{t} << l;
  });
  w.write_pred(inst.dst[0], active, r);
}

// ---- selection -------------------------------------------------------------------------------

template <bool kSet, ScalarType kType>
Handler compare_handler(bool ftz) {
  if constexpr (kSet) return ftz ? exec_set_float<kType, true> : exec_set_float<kType, false>;
  else return ftz ? exec_setp_float<kType, true> : exec_setp_float<kType, false>;
}

template <bool kSet>
Handler compare_by_type(ScalarType t, bool ftz) {
  switch (t) {
    case ScalarType::F32: return compare_handler<kSet, ScalarType::F32>(ftz);
    case ScalarType::F64: return compare_handler<kSet, ScalarType::F64>(false);  // f64 keeps subnormals
    case ScalarType::F16: return compare_handler<kSet, ScalarType::F16>(ftz);
    case ScalarType::F16x2: return compare_handler<kSet, ScalarType::F16x2>(ftz);
    case ScalarType::BF16: return ftz ? nullptr : compare_handler<kSet, ScalarType::BF16>(false);
    case ScalarType::BF16x2: return ftz ? nullptr : compare_handler<kSet, ScalarType::BF16x2>(false);
    default: return nullptr;
  }
}

// The parts setp and set share: a float compare op, an optional boolean op
// with its predicate, .ftz as the only flag, no rounding.
bool compare_form_ok(const ptx::Modifiers& m, const DecodedInst& d) {
  if (truth_table(m.cmp) == 0 || m.rounding != Rounding::None) return false;
  ptx::FlagSet others = m.flags;
  others.reset(static_cast<size_t>(Flag::Ftz));
  if (others.any()) return false;
  if (m.op == Operation::None) return d.num_src == 2;
  if (m.op != Operation::And && m.op != Operation::Or && m.op != Operation::Xor) return false;
  return d.num_src == 3 && (d.src[2].kind == Src::Pred || d.src[2].kind == Src::Imm);
}

Handler select_setp(const ptx::Modifiers& m, const DecodedInst& d) {
  if (!ptx::is_float(d.type) || d.type2 != ScalarType::None || !compare_form_ok(m, d)) return nullptr;
  // p, p|q, p|_ (dst_is_pred), or _|q (a sink first, then dst_pred).
  const bool dests = d.dst_is_pred || (d.num_dst == 1 && d.dst[0] == kNoSlot && d.dst_pred != kNoSlot);
  return dests ? compare_by_type<false>(d.type, m.has(Flag::Ftz)) : nullptr;
}

// Destination types of set with a float source (PTX 9.7.5.3 and 9.7.7.1).
bool set_dtype_ok(ScalarType dst, ScalarType src) {
  switch (src) {
    case ScalarType::F16x2:
    case ScalarType::BF16x2:
      return dst == src || dst == ScalarType::U32 || dst == ScalarType::S32;
    case ScalarType::F32:
    case ScalarType::F64:
    case ScalarType::F16:
    case ScalarType::BF16:
      return dst == ScalarType::U32 || dst == ScalarType::S32 || dst == ScalarType::F32 || dst == ScalarType::U16 ||
             dst == ScalarType::S16 || dst == ScalarType::F16 || dst == ScalarType::BF16;
    default: return false;
  }
}

Handler select_set(const ptx::Modifiers& m, const DecodedInst& d) {
  if (!ptx::is_float(d.type2) || d.num_dst != 1 || d.dst_is_pred || !compare_form_ok(m, d) ||
      !set_dtype_ok(d.type, d.type2))
    return nullptr;
  return compare_by_type<true>(d.type2, m.has(Flag::Ftz));
}

template <ScalarType kType>
Handler testp_handler(Flag test) {
  switch (test) {
    case Flag::Finite: return exec_testp<kType, Flag::Finite>;
    case Flag::Infinite: return exec_testp<kType, Flag::Infinite>;
    case Flag::Number: return exec_testp<kType, Flag::Number>;
    case Flag::Notanumber: return exec_testp<kType, Flag::Notanumber>;
    case Flag::Normal: return exec_testp<kType, Flag::Normal>;
    case Flag::Subnormal: return exec_testp<kType, Flag::Subnormal>;
    default: return nullptr;
  }
}

// testp.op.{f32,f64} p, a: exactly one test flag and nothing else.
Handler select_testp(const ptx::Modifiers& m, const DecodedInst& d) {
  if (!d.dst_is_pred || d.num_src != 1 || m.rounding != Rounding::None || m.flags.count() != 1) return nullptr;
  for (Flag test : {Flag::Finite, Flag::Infinite, Flag::Number, Flag::Notanumber, Flag::Normal, Flag::Subnormal}) {
    if (!m.has(test)) continue;
    if (d.type == ScalarType::F32) return testp_handler<ScalarType::F32>(test);
    if (d.type == ScalarType::F64) return testp_handler<ScalarType::F64>(test);
  }
  return nullptr;
}

// div: .approx / .full (f32), or a rounding mode (required for f32 since PTX
// 1.4; a legacy div.f64 without one is div.rn.f64).
Handler select_div(const Mods& m, const DecodedInst& d, bool approx, bool full) {
  if (d.type == ScalarType::F32) {
    if (approx) return full ? nullptr : form<DivApproxF32>(m, d);
    if (full) return form<DivFullF32>(m, d);
    return m.rnd == Rounding::None ? nullptr : form<DivF32>(m, d);
  }
  if (d.type == ScalarType::F64 && !approx && !full) return form<DivF64>(m, d);
  return nullptr;
}

// rcp/sqrt: .approx{.ftz}.f32 or .rnd{.ftz}.f32 (mode required), .rnd.f64,
// and rcp.approx.ftz.f64. rsqrt: .approx{.ftz}.f32, .approx{.ftz}.f64.
Handler select_roots(Opcode op, const Mods& m, const DecodedInst& d, bool approx, bool full) {
  const ScalarType t = d.type;
  if (full) return nullptr;
  if (op == Opcode::Rsqrt) {
    if (!approx) return nullptr;
    if (t == ScalarType::F32) return form<RsqrtApproxF32>(m, d);
    if (t == ScalarType::F64) return m.ftz() ? form<RsqrtApproxFtzF64>(m, d) : form<RsqrtApproxF64>(m, d);
    return nullptr;
  }
  const bool rcp = op == Opcode::Rcp;
  if (t == ScalarType::F32) {
    if (approx) return rcp ? form<RcpApproxF32>(m, d) : form<SqrtApproxF32>(m, d);
    if (m.rnd == Rounding::None) return nullptr;
    return rcp ? form<RcpF32>(m, d) : form<SqrtF32>(m, d);
  }
  if (t == ScalarType::F64) {
    if (approx) return rcp && m.ftz() ? form<RcpApproxFtzF64>(m, d) : nullptr;
    return rcp ? form<RcpF64>(m, d) : form<SqrtF64>(m, d);
  }
  return nullptr;
}

// sin/cos/lg2/ex2/tanh: .approx only (required since PTX 1.4).
Handler select_transcendental(Opcode op, const Mods& m, const DecodedInst& d) {
  switch (op) {
    case Opcode::Sin: return by_type<SinF32, void>(m, d);
    case Opcode::Cos: return by_type<CosF32, void>(m, d);
    case Opcode::Lg2: return by_type<Lg2F32, void>(m, d);
    case Opcode::Ex2:
      // bf16 has only ex2.approx.ftz (and f16 only the form without .ftz).
      if ((d.type == ScalarType::BF16 || d.type == ScalarType::BF16x2) && !m.ftz()) return nullptr;
      return by_type<Ex2F32, void, Ex2F16, Ex2BF16>(m, d);
    case Opcode::Tanh: return by_type<TanhF32, void, TanhF16, TanhBF16>(m, d);
    default: return nullptr;
  }
}

// add/sub{.rnd}{.sat}.f32.{f16,bf16} d, a, c and fma.rnd{.sat}.f32.{f16,bf16}.
Handler select_mixed(Opcode op, const Mods& m, const DecodedInst& d) {
  if (d.type != ScalarType::F32 || (d.type2 != ScalarType::F16 && d.type2 != ScalarType::BF16)) return nullptr;
  // The 16-bit operands are registers: a float literal there would have been
  // decoded as f32 bits.
  if (d.src[0].kind == Src::Imm || (op == Opcode::Fma && d.src[1].kind == Src::Imm)) return nullptr;
  const bool bf = d.type2 == ScalarType::BF16;
  switch (op) {
    case Opcode::Add: return bf ? form<AddF32Half<true>>(m, d) : form<AddF32Half<false>>(m, d);
    case Opcode::Sub: return bf ? form<SubF32Half<true>>(m, d) : form<SubF32Half<false>>(m, d);
    case Opcode::Fma: return bf ? form<FmaF32Half<true>>(m, d) : form<FmaF32Half<false>>(m, d);
    default: return nullptr;
  }
}

// The element-wise forms with one destination register.
Handler select_arith(Opcode op, const ptx::Modifiers& pm, const DecodedInst& d) {
  if (!ptx::is_float(d.type) || d.num_dst != 1 || d.dst_is_pred) return nullptr;
  const std::optional<Mods> decoded = decode_mods(pm);
  if (!decoded) return nullptr;
  const Mods& m = *decoded;
  const bool approx = pm.has(Flag::Approx), full = pm.has(Flag::Full);
  if (d.type2 != ScalarType::None) return approx || full ? nullptr : select_mixed(op, m, d);
  switch (op) {
    case Opcode::Div: return select_div(m, d, approx, full);
    case Opcode::Rcp:
    case Opcode::Sqrt:
    case Opcode::Rsqrt: return select_roots(op, m, d, approx, full);
    case Opcode::Sin:
    case Opcode::Cos:
    case Opcode::Lg2:
    case Opcode::Ex2:
    case Opcode::Tanh: return approx && !full ? select_transcendental(op, m, d) : nullptr;
    default: break;
  }
  if (approx || full) return nullptr;  // only the forms above take them
  switch (op) {
    case Opcode::Add: return by_type<AddF32, AddF64, AddF16, AddBF16, true>(m, d);
    case Opcode::Sub: return by_type<SubF32, SubF64, SubF16, SubBF16, true>(m, d);
    case Opcode::Mul: return by_type<MulF32, MulF64, MulF16, MulBF16, true>(m, d);
    case Opcode::Fma: return by_type<FmaF32, FmaF64, FmaF16, FmaBF16, true>(m, d);
    // mad.f32 (sm_20+, with or without a mode) and mad.rnd.f64 are fma.
    case Opcode::Mad: return by_type<FmaF32, FmaF64>(m, d);
    case Opcode::Min:
      if (d.num_src == 3) return by_type<Min3F32, void>(m, d);
      return by_type<MinF32, MinF64, MinF16, MinBF16>(m, d);
    case Opcode::Max:
      if (d.num_src == 3) return by_type<Max3F32, void>(m, d);
      return by_type<MaxF32, MaxF64, MaxF16, MaxBF16>(m, d);
    case Opcode::Abs: return by_type<AbsF32, AbsF64, AbsF16, AbsBF16>(m, d);
    case Opcode::Neg: return by_type<NegF32, NegF64, NegF16, NegBF16>(m, d);
    case Opcode::Copysign: return by_type<CopysignF32, CopysignF64>(m, d);
    default: return nullptr;
  }
}

}  // namespace

Handler select_float(const ptx::Instruction& inst, const DecodedInst& d) {
  switch (inst.opcode) {
    case Opcode::Setp: return select_setp(inst.mods, d);
    case Opcode::Set: return select_set(inst.mods, d);
    case Opcode::Testp: return select_testp(inst.mods, d);
    case Opcode::Add:
    case Opcode::Sub:
    case Opcode::Mul:
    case Opcode::Fma:
    case Opcode::Mad:
    case Opcode::Div:
    case Opcode::Rcp:
    case Opcode::Sqrt:
    case Opcode::Rsqrt:
    case Opcode::Sin:
    case Opcode::Cos:
    case Opcode::Lg2:
    case Opcode::Ex2:
    case Opcode::Tanh:
    case Opcode::Min:
    case Opcode::Max:
    case Opcode::Abs:
    case Opcode::Neg:
    case Opcode::Copysign: return select_arith(inst.opcode, inst.mods, d);
    default: return nullptr;
  }
}

}  // namespace warpsim::functional
