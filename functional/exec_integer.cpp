// Integer, logic and data-movement handlers: mov (with vector pack/unpack),
// add/sub with carry, mul/mad (.lo/.hi/.wide), mul24/mad24, sad, div/rem,
// min/max/abs/neg, bitwise and predicate logic, shifts, setp/set/selp, and
// bit manipulation (popc, clz, brev, bfind, bfe, bfi, prmt, shf, lop3, dp4a).
#include <bit>

#include "functional/exec.h"

namespace warpsim::functional {

namespace {

using ptx::CmpOp;
using ptx::Flag;
using ptx::Opcode;
using ptx::Operation;
using ptx::ScalarType;

struct TypeFacts {
  uint32_t bits;
  bool is_signed;
};
TypeFacts facts(ScalarType t) { return {ptx::type_bits(t), ptx::is_signed(t)}; }

// ---- mov ---------------------------------------------------------------------------

void exec_mov(Warp& w, const DecodedInst& inst, LaneMask active) {
  if (inst.dst_is_pred) {
    w.write_pred(inst.dst[0], active, w.read_pred(inst.src[0]));
    return;
  }
  uint32_t bits = ptx::type_bits(inst.type);
  if (inst.num_dst == 1 && inst.num_src > 1) {  // pack {a, b, ...} into one register
    uint32_t part = bits / inst.num_src;
    write_lanes(w, inst.dst[0], active, [&](uint32_t l) {
      uint64_t v = 0;
      for (uint32_t e = 0; e < inst.num_src; ++e)
        v |= truncate(w.read(inst.src[e], e)[l], part) << (e * part);
      return v;
    });
    return;
  }
  if (inst.num_dst > 1) {  // unpack one register into {a, b, ...}
    uint32_t part = bits / inst.num_dst;
    auto a = w.read(inst.src[0], 0);
    for (uint32_t e = 0; e < inst.num_dst; ++e)
      write_lanes(w, inst.dst[e], active, [&](uint32_t l) { return truncate(a[l] >> (e * part), part); });
    return;
  }
  auto a = w.read(inst.src[0], 0);
  write_lanes(w, inst.dst[0], active, [&](uint32_t l) { return truncate(a[l], bits); });
}

// ---- arithmetic -----------------------------------------------------------------------

template <typename F>
void binary(Warp& w, const DecodedInst& inst, LaneMask active, F&& f) {
  auto a = w.read(inst.src[0], 0);
  auto b = w.read(inst.src[1], 1);
  uint32_t bits = ptx::type_bits(inst.type);
  write_lanes(w, inst.dst[0], active, [&](uint32_t l) { return truncate(f(a[l], b[l]), bits); });
}

// add/sub/addc/subc, with .cc writing the carry flag and .sat for s32.
template <bool kSub, bool kUseCarry>
void exec_addsub(Warp& w, const DecodedInst& inst, LaneMask active) {
  TypeFacts t = facts(inst.type);
  bool set_cc = inst.mods->has(Flag::Cc);
  bool sat = inst.mods->has(Flag::Sat);
  auto a = w.read(inst.src[0], 0);
  auto b = w.read(inst.src[1], 1);
  uint64_t mask = t.bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << t.bits) - 1;
  LaneMask carry_out = 0;
  write_lanes(w, inst.dst[0], active, [&](uint32_t l) {
    uint64_t x = a[l] & mask, y = b[l] & mask;
    uint64_t cin = kUseCarry ? (w.carry >> l & 1) : 0;
    uint64_t r;
    bool c;
    if (!kSub) {
      r = x + y + cin;
      c = t.bits >= 64 ? (r < x || (cin && r == x)) : (r >> t.bits) & 1;
    } else {
      // x - y - borrow; PTX's carry for subtraction is the inverted borrow's
      // complement: CC.CF is set when a borrow occurs.
      r = x - y - cin;
      c = t.bits >= 64 ? (x < y || (x == y && cin)) : (r >> t.bits) & 1;
    }
    if (c) carry_out |= 1u << l;
    if (sat && t.is_signed) {
      int64_t sx = sign_extend(x, t.bits), sy = sign_extend(y, t.bits);
      int64_t s = kSub ? sx - sy : sx + sy;
      int64_t hi = (int64_t{1} << (t.bits - 1)) - 1, lo = -hi - 1;
      return static_cast<uint64_t>(std::clamp(s, lo, hi));
    }
    return r & mask;
  });
  if (set_cc) w.carry = (w.carry & ~active) | (carry_out & active);
}

// The full 128-bit product of two values of `bits` width.
unsigned __int128 product(uint64_t a, uint64_t b, TypeFacts t) {
  if (t.is_signed)
    return static_cast<unsigned __int128>(static_cast<__int128>(sign_extend(a, t.bits)) *
                                          sign_extend(b, t.bits));
  return static_cast<unsigned __int128>(truncate(a, t.bits)) * truncate(b, t.bits);
}

// mul/mad: .lo (low half), .hi (high half), .wide (double width); mad adds c
// (at the result width), with .cc/madc carry and mad.hi.sat.s32.
template <bool kMad, bool kUseCarry>
void exec_mul(Warp& w, const DecodedInst& inst, LaneMask active) {
  TypeFacts t = facts(inst.type);
  const ptx::Modifiers& m = *inst.mods;
  bool wide = m.has(Flag::Wide), hi = m.has(Flag::Hi);
  uint32_t out_bits = wide ? t.bits * 2 : t.bits;
  auto a = w.read(inst.src[0], 0);
  auto b = w.read(inst.src[1], 1);
  auto c = w.read(kMad ? inst.src[2] : inst.src[0], 2);
  bool set_cc = m.has(Flag::Cc);
  LaneMask carry_out = 0;
  write_lanes(w, inst.dst[0], active, [&](uint32_t l) {
    unsigned __int128 p = product(a[l], b[l], t);
    uint64_t r = wide ? static_cast<uint64_t>(p) : hi ? static_cast<uint64_t>(p >> t.bits) : static_cast<uint64_t>(p);
    if (hi && t.bits == 64) r = static_cast<uint64_t>(p >> 64);
    r = truncate(r, out_bits);
    if (kMad) {
      uint64_t addend = truncate(c[l], out_bits);
      uint64_t cin = kUseCarry ? (w.carry >> l & 1) : 0;
      if (m.has(Flag::Sat) && t.is_signed) {  // mad.hi.sat.s32
        int64_t s = sign_extend(r, out_bits) + sign_extend(addend, out_bits);
        int64_t mx = (int64_t{1} << (out_bits - 1)) - 1;
        return static_cast<uint64_t>(std::clamp(s, -mx - 1, mx));
      }
      unsigned __int128 s = static_cast<unsigned __int128>(r) + addend + cin;
      if ((s >> out_bits) & 1) carry_out |= 1u << l;
      r = truncate(static_cast<uint64_t>(s), out_bits);
    }
    return r;
  });
  if (kMad && set_cc) w.carry = (w.carry & ~active) | (carry_out & active);
}

// mul24/mad24: 24-bit operands, .lo or .hi of the 48-bit product; for
// mad24.hi.sat.s32 the 32-bit signed addition of c saturates.
template <bool kMad>
void exec_mul24(Warp& w, const DecodedInst& inst, LaneMask active) {
  bool sgn = ptx::is_signed(inst.type), hi = inst.mods->has(Flag::Hi);
  bool sat = kMad && sgn && inst.mods->has(Flag::Sat);
  auto a = w.read(inst.src[0], 0);
  auto b = w.read(inst.src[1], 1);
  auto c = w.read(kMad ? inst.src[2] : inst.src[0], 2);
  write_lanes(w, inst.dst[0], active, [&](uint32_t l) {
    int64_t x = sgn ? sign_extend(a[l], 24) : static_cast<int64_t>(truncate(a[l], 24));
    int64_t y = sgn ? sign_extend(b[l], 24) : static_cast<int64_t>(truncate(b[l], 24));
    uint64_t p = static_cast<uint64_t>(x * y);
    uint64_t r = hi ? (p >> 16) : p;
    if (sat) {
      int64_t s = sign_extend(r, 32) + sign_extend(c[l], 32);
      return truncate(static_cast<uint64_t>(std::clamp<int64_t>(s, INT32_MIN, INT32_MAX)), 32);
    }
    if (kMad) r += c[l];
    return truncate(r, 32);
  });
}

void exec_sad(Warp& w, const DecodedInst& inst, LaneMask active) {
  TypeFacts t = facts(inst.type);
  auto a = w.read(inst.src[0], 0);
  auto b = w.read(inst.src[1], 1);
  auto c = w.read(inst.src[2], 2);
  write_lanes(w, inst.dst[0], active, [&](uint32_t l) {
    uint64_t d;
    if (t.is_signed) {
      // |x - y| in unsigned arithmetic: for .s64 it can exceed INT64_MAX.
      int64_t x = sign_extend(a[l], t.bits), y = sign_extend(b[l], t.bits);
      uint64_t ux = static_cast<uint64_t>(x), uy = static_cast<uint64_t>(y);
      d = x > y ? ux - uy : uy - ux;
    } else {
      uint64_t x = truncate(a[l], t.bits), y = truncate(b[l], t.bits);
      d = x > y ? x - y : y - x;
    }
    return truncate(c[l] + d, t.bits);
  });
}

// div/rem. Division by zero does not trap on GPUs: the quotient is all ones
// (-1 for signed), the remainder is the dividend. INT_MIN / -1 = INT_MIN.
template <bool kRem>
void exec_divrem(Warp& w, const DecodedInst& inst, LaneMask active) {
  TypeFacts t = facts(inst.type);
  binary(w, inst, active, [&](uint64_t a, uint64_t b) -> uint64_t {
    if (t.is_signed) {
      int64_t x = sign_extend(a, t.bits), y = sign_extend(b, t.bits);
      if (y == 0) return kRem ? static_cast<uint64_t>(x) : ~uint64_t{0};
      int64_t min = t.bits >= 64 ? INT64_MIN : -(int64_t{1} << (t.bits - 1));
      if (x == min && y == -1) return kRem ? 0 : static_cast<uint64_t>(min);
      return static_cast<uint64_t>(kRem ? x % y : x / y);
    }
    uint64_t x = truncate(a, t.bits), y = truncate(b, t.bits);
    if (y == 0) return kRem ? x : ~uint64_t{0};
    return kRem ? x % y : x / y;
  });
}

template <bool kMax>
void exec_minmax(Warp& w, const DecodedInst& inst, LaneMask active) {
  TypeFacts t = facts(inst.type);
  bool relu = inst.mods->has(Flag::Relu);
  binary(w, inst, active, [&](uint64_t a, uint64_t b) -> uint64_t {
    if (t.is_signed) {
      int64_t x = sign_extend(a, t.bits), y = sign_extend(b, t.bits);
      int64_t r = kMax ? std::max(x, y) : std::min(x, y);
      if (relu && r < 0) r = 0;
      return static_cast<uint64_t>(r);
    }
    uint64_t x = truncate(a, t.bits), y = truncate(b, t.bits);
    return kMax ? std::max(x, y) : std::min(x, y);
  });
}

template <bool kAbs>
void exec_absneg(Warp& w, const DecodedInst& inst, LaneMask active) {
  uint32_t bits = ptx::type_bits(inst.type);
  auto a = w.read(inst.src[0], 0);
  write_lanes(w, inst.dst[0], active, [&](uint32_t l) {
    int64_t x = sign_extend(a[l], bits);
    // abs(INT_MIN) = INT_MIN, as two's complement wraps.
    uint64_t r = kAbs ? (x < 0 ? 0 - static_cast<uint64_t>(x) : static_cast<uint64_t>(x))
                      : 0 - static_cast<uint64_t>(x);
    return truncate(r, bits);
  });
}

// ---- logic -------------------------------------------------------------------------------

template <Opcode kOp>
void exec_logic(Warp& w, const DecodedInst& inst, LaneMask active) {
  if (inst.type == ScalarType::Pred) {
    LaneMask a = w.read_pred(inst.src[0]);
    LaneMask b = inst.num_src > 1 ? w.read_pred(inst.src[1]) : 0;
    LaneMask r = kOp == Opcode::And ? a & b : kOp == Opcode::Or ? a | b : kOp == Opcode::Xor ? a ^ b : ~a;
    w.write_pred(inst.dst[0], active, r);
    return;
  }
  uint32_t bits = ptx::type_bits(inst.type);
  auto a = w.read(inst.src[0], 0);
  auto b = w.read(inst.num_src > 1 ? inst.src[1] : inst.src[0], 1);
  write_lanes(w, inst.dst[0], active, [&](uint32_t l) {
    uint64_t r = kOp == Opcode::And   ? a[l] & b[l]
                 : kOp == Opcode::Or  ? a[l] | b[l]
                 : kOp == Opcode::Xor ? a[l] ^ b[l]
                 : kOp == Opcode::Not ? ~a[l]
                                      : (truncate(a[l], bits) == 0 ? 1 : 0);  // cnot
    return truncate(r, bits);
  });
}

// shl/shr: the shift amount is an unsigned 32-bit value; shifting by the
// width or more gives 0 (or all sign bits for shr.s).
template <bool kLeft>
void exec_shift(Warp& w, const DecodedInst& inst, LaneMask active) {
  TypeFacts t = facts(inst.type);
  auto a = w.read(inst.src[0], 0);
  auto b = w.read(inst.src[1], 1);
  write_lanes(w, inst.dst[0], active, [&](uint32_t l) -> uint64_t {
    uint32_t n = static_cast<uint32_t>(b[l]);
    if (kLeft) return n >= t.bits ? 0 : truncate(a[l] << n, t.bits);
    if (t.is_signed) {
      int64_t x = sign_extend(a[l], t.bits);
      return truncate(static_cast<uint64_t>(x >> std::min<uint32_t>(n, 63)), t.bits);
    }
    return n >= t.bits ? 0 : truncate(a[l], t.bits) >> n;
  });
}

// ---- comparison and selection ----------------------------------------------------------

// The lanes where src[0] CmpOp src[1] holds, compared as type `t`.
// Operands become order-preserving unsigned keys (signed values sign-extended
// with the sign bit flipped), so one unsigned comparison, chosen once per
// instruction rather than per lane, serves every type.
template <typename Less>
LaneMask compare_keys(const Warp::Lanes& a, const Warp::Lanes& b, LaneMask active, TypeFacts t,
                      bool as_signed, Less less) {
  auto key = [&](uint64_t v) {
    return as_signed ? static_cast<uint64_t>(sign_extend(v, t.bits)) ^ (uint64_t{1} << 63)
                     : truncate(v, t.bits);
  };
  LaneMask r = 0;
  for_each_lane(active, [&](uint32_t l) {
    if (less(key(a[l]), key(b[l]))) r |= 1u << l;
  });
  return r;
}

LaneMask compare_lanes(Warp& w, const DecodedInst& inst, LaneMask active, ScalarType type) {
  const TypeFacts t = facts(type);
  auto a = w.read(inst.src[0], 0);
  auto b = w.read(inst.src[1], 1);
  const bool s = t.is_signed;
  using U = uint64_t;
  switch (inst.mods->cmp) {
    case CmpOp::Eq: return compare_keys(a, b, active, t, false, [](U x, U y) { return x == y; });
    case CmpOp::Ne: return compare_keys(a, b, active, t, false, [](U x, U y) { return x != y; });
    case CmpOp::Lt: return compare_keys(a, b, active, t, s, [](U x, U y) { return x < y; });
    case CmpOp::Le: return compare_keys(a, b, active, t, s, [](U x, U y) { return x <= y; });
    case CmpOp::Gt: return compare_keys(a, b, active, t, s, [](U x, U y) { return x > y; });
    case CmpOp::Ge: return compare_keys(a, b, active, t, s, [](U x, U y) { return x >= y; });
    case CmpOp::Lo: return compare_keys(a, b, active, t, false, [](U x, U y) { return x < y; });
    case CmpOp::Ls: return compare_keys(a, b, active, t, false, [](U x, U y) { return x <= y; });
    case CmpOp::Hi: return compare_keys(a, b, active, t, false, [](U x, U y) { return x > y; });
    case CmpOp::Hs: return compare_keys(a, b, active, t, false, [](U x, U y) { return x >= y; });
    default: return 0;
  }
}

void exec_setp_int(Warp& w, const DecodedInst& inst, LaneMask active) {
  const ptx::Modifiers& m = *inst.mods;
  LaneMask r = compare_lanes(w, inst, active, inst.type);
  LaneMask c = m.op != Operation::None ? w.read_pred(inst.src[2]) : 0;
  w.write_pred(inst.dst[0], active, combine(m.op, r, c));
  if (inst.dst_pred != kNoSlot) w.write_pred(inst.dst_pred, active, combine(m.op, ~r, c));
}

// set.cmp{.boolop}.dtype.stype d, a, b{, {!}c} with an integer stype:
// d = all ones (integer dtype) or 1.0f (f32 dtype) where the combined
// comparison holds, else 0.
void exec_set_int(Warp& w, const DecodedInst& inst, LaneMask active) {
  const ptx::Modifiers& m = *inst.mods;
  LaneMask r = compare_lanes(w, inst, active, inst.type2);
  r = combine(m.op, r, m.op != Operation::None ? w.read_pred(inst.src[2]) : 0);
  const uint64_t yes = inst.type == ScalarType::F32 ? 0x3f800000u : 0xffffffffu;
  write_lanes(w, inst.dst[0], active, [&](uint32_t l) -> uint64_t { return (r >> l & 1) ? yes : 0; });
}

// slct.dtype.s32 d, a, b, c: d = c >= 0 ? a : b. slct{.ftz}.dtype.f32: the
// same test on a float c (-0.0 counts as >= 0; NaN selects b; .ftz makes a
// negative subnormal c count as -0.0, which also selects a).
template <bool kFloatC>
void exec_slct(Warp& w, const DecodedInst& inst, LaneMask active) {
  uint32_t bits = ptx::type_bits(inst.type);
  auto a = w.read(inst.src[0], 0);
  auto b = w.read(inst.src[1], 1);
  auto c = w.read(inst.src[2], 2);
  const bool ftz = inst.mods->has(ptx::Flag::Ftz);
  write_lanes(w, inst.dst[0], active, [&](uint32_t l) {
    bool take_a;
    if constexpr (kFloatC) {
      uint32_t cb = static_cast<uint32_t>(c[l]);
      if (ftz && (cb & 0x7f800000u) == 0) cb &= 0x80000000u;
      take_a = std::bit_cast<float>(cb) >= 0.0f;
    } else {
      take_a = static_cast<int32_t>(c[l]) >= 0;
    }
    return truncate(take_a ? a[l] : b[l], bits);
  });
}

void exec_selp(Warp& w, const DecodedInst& inst, LaneMask active) {
  uint32_t bits = ptx::type_bits(inst.type);
  auto a = w.read(inst.src[0], 0);
  auto b = w.read(inst.src[1], 1);
  LaneMask c = w.read_pred(inst.src[2]);
  write_lanes(w, inst.dst[0], active,
              [&](uint32_t l) { return truncate((c >> l & 1) ? a[l] : b[l], bits); });
}

// ---- bit manipulation -----------------------------------------------------------------------

void exec_popc(Warp& w, const DecodedInst& inst, LaneMask active) {
  uint32_t bits = ptx::type_bits(inst.type);
  auto a = w.read(inst.src[0], 0);
  write_lanes(w, inst.dst[0], active,
              [&](uint32_t l) -> uint64_t { return std::popcount(truncate(a[l], bits)); });
}

void exec_clz(Warp& w, const DecodedInst& inst, LaneMask active) {
  uint32_t bits = ptx::type_bits(inst.type);
  auto a = w.read(inst.src[0], 0);
  write_lanes(w, inst.dst[0], active, [&](uint32_t l) -> uint64_t {
    return std::countl_zero(truncate(a[l], bits)) - (64 - bits);
  });
}

void exec_brev(Warp& w, const DecodedInst& inst, LaneMask active) {
  uint32_t bits = ptx::type_bits(inst.type);
  auto a = w.read(inst.src[0], 0);
  write_lanes(w, inst.dst[0], active, [&](uint32_t l) {
    uint64_t x = a[l], r = 0;
    for (uint32_t i = 0; i < bits; ++i) r |= ((x >> i) & 1) << (bits - 1 - i);
    return r;
  });
}

// bfind: position of the most significant non-sign bit; 0xffffffff if none.
void exec_bfind(Warp& w, const DecodedInst& inst, LaneMask active) {
  TypeFacts t = facts(inst.type);
  bool shiftamt = inst.mods->has(Flag::Shiftamt);
  auto a = w.read(inst.src[0], 0);
  write_lanes(w, inst.dst[0], active, [&](uint32_t l) -> uint64_t {
    uint64_t x = truncate(a[l], t.bits);
    if (t.is_signed && sign_extend(x, t.bits) < 0) x = truncate(~x, t.bits);
    if (x == 0) return 0xffffffffu;
    uint32_t pos = 63 - static_cast<uint32_t>(std::countl_zero(x));
    return shiftamt ? t.bits - 1 - pos : pos;
  });
}

// bfe d, a, pos, len: extract `len` bits at `pos` (pos/len use their low 8 bits),
// sign-extending for signed types from the last extracted bit.
void exec_bfe(Warp& w, const DecodedInst& inst, LaneMask active) {
  TypeFacts t = facts(inst.type);
  auto a = w.read(inst.src[0], 0);
  auto b = w.read(inst.src[1], 1);
  auto c = w.read(inst.src[2], 2);
  write_lanes(w, inst.dst[0], active, [&](uint32_t l) -> uint64_t {
    uint32_t pos = b[l] & 0xff, len = c[l] & 0xff;
    uint64_t x = truncate(a[l], t.bits);
    bool sbit;
    if (t.is_signed)
      sbit = len == 0 ? false : ((x >> std::min(pos + len - 1, t.bits - 1)) & 1);
    else
      sbit = false;
    uint64_t r = 0;
    for (uint32_t i = 0; i < t.bits; ++i) {
      bool bit = i < len && pos + i < t.bits ? (x >> (pos + i)) & 1 : sbit;
      r |= uint64_t{bit} << i;
    }
    return r;
  });
}

// bfi d, f, b, pos, len: insert the low `len` bits of f into b at `pos`.
void exec_bfi(Warp& w, const DecodedInst& inst, LaneMask active) {
  uint32_t bits = ptx::type_bits(inst.type);
  auto f = w.read(inst.src[0], 0);
  auto b = w.read(inst.src[1], 1);
  auto p = w.read(inst.src[2], 2);
  auto n = w.read(inst.src[3], 3);
  write_lanes(w, inst.dst[0], active, [&](uint32_t l) {
    uint32_t pos = p[l] & 0xff, len = n[l] & 0xff;
    uint64_t r = truncate(b[l], bits);
    for (uint32_t i = 0; i < len && pos + i < bits; ++i) {
      uint64_t bit = (f[l] >> i) & 1;
      r = (r & ~(uint64_t{1} << (pos + i))) | (bit << (pos + i));
    }
    return r;
  });
}

// bmsk.{clamp,wrap}.b32 d, a, b: a mask of b one-bits starting at bit a
// (PTX ISA 7.6, sm_70). .wrap uses a and b modulo 32; .clamp saturates them
// at 32, so a position past the msb gives 0 and a width of 32 or more fills
// to the msb. A width of 0 gives 0.
template <bool Clamp>
void exec_bmsk(Warp& w, const DecodedInst& inst, LaneMask active) {
  auto a = w.read(inst.src[0], 0);
  auto b = w.read(inst.src[1], 1);
  write_lanes(w, inst.dst[0], active, [&](uint32_t l) -> uint64_t {
    const uint32_t pos = static_cast<uint32_t>(a[l]), width = static_cast<uint32_t>(b[l]);
    const uint32_t p = pos & 31, n = width & 31;
    uint32_t low = ~0u << p;   // ones from the start position up
    uint32_t high = 0;         // ones from the end position up (cleared from `low`)
    bool open_ended = p + n >= 32;
    if (Clamp) {
      if (pos >= 32) low = 0;
      if (width >= 32) open_ended = true;
    }
    if (!open_ended) high = n == 0 ? ~0u : ~0u << (p + n);
    return low & ~high;
  });
}

// prmt.b32{.mode} d, a, b, c: byte permute of the 8 bytes {b, a}.
void exec_prmt(Warp& w, const DecodedInst& inst, LaneMask active) {
  Operation mode = inst.mods->op;
  auto a = w.read(inst.src[0], 0);
  auto b = w.read(inst.src[1], 1);
  auto c = w.read(inst.src[2], 2);
  write_lanes(w, inst.dst[0], active, [&](uint32_t l) -> uint64_t {
    uint64_t src = (truncate(b[l], 32) << 32) | truncate(a[l], 32);
    auto byte = [&](uint32_t i) { return static_cast<uint32_t>((src >> (8 * (i & 7))) & 0xff); };
    uint32_t sel = static_cast<uint32_t>(c[l]);
    uint32_t r = 0;
    if (mode == Operation::None) {
      for (uint32_t i = 0; i < 4; ++i) {
        uint32_t s = (sel >> (4 * i)) & 0xf;
        uint32_t v = byte(s & 7);
        if (s & 8) v = (v & 0x80) ? 0xff : 0;  // replicate the sign bit
        r |= v << (8 * i);
      }
      return r;
    }
    uint32_t s = sel & 3;
    static constexpr uint8_t kF4e[4][4] = {{0, 1, 2, 3}, {1, 2, 3, 4}, {2, 3, 4, 5}, {3, 4, 5, 6}};
    static constexpr uint8_t kB4e[4][4] = {{0, 7, 6, 5}, {1, 0, 7, 6}, {2, 1, 0, 7}, {3, 2, 1, 0}};
    static constexpr uint8_t kRc8[4][4] = {{0, 0, 0, 0}, {1, 1, 1, 1}, {2, 2, 2, 2}, {3, 3, 3, 3}};
    static constexpr uint8_t kEcl[4][4] = {{0, 1, 2, 3}, {1, 1, 2, 3}, {2, 2, 2, 3}, {3, 3, 3, 3}};
    static constexpr uint8_t kEcr[4][4] = {{0, 0, 0, 0}, {0, 1, 1, 1}, {0, 1, 2, 2}, {0, 1, 2, 3}};
    static constexpr uint8_t kRc16[4][4] = {{0, 1, 0, 1}, {2, 3, 2, 3}, {0, 1, 0, 1}, {2, 3, 2, 3}};
    const uint8_t(*t)[4] = mode == Operation::F4e   ? kF4e
                           : mode == Operation::B4e ? kB4e
                           : mode == Operation::Rc8 ? kRc8
                           : mode == Operation::Ecl ? kEcl
                           : mode == Operation::Ecr ? kEcr
                                                    : kRc16;
    for (uint32_t i = 0; i < 4; ++i) r |= byte(t[s][i]) << (8 * i);
    return r;
  });
}

// shf.{l,r}.{wrap,clamp}.b32 d, a, b, c: funnel shift of {b:a} by c.
void exec_shf(Warp& w, const DecodedInst& inst, LaneMask active) {
  bool left = inst.mods->has(Flag::L), wrap = inst.mods->has(Flag::Wrap);
  auto a = w.read(inst.src[0], 0);
  auto b = w.read(inst.src[1], 1);
  auto c = w.read(inst.src[2], 2);
  write_lanes(w, inst.dst[0], active, [&](uint32_t l) -> uint64_t {
    uint32_t n = static_cast<uint32_t>(c[l]);
    n = wrap ? (n & 31) : std::min<uint32_t>(n, 32);
    uint64_t v = (truncate(b[l], 32) << 32) | truncate(a[l], 32);
    return left ? truncate((v << n) >> 32, 32) : truncate(v >> n, 32);
  });
}

// lop3.b32 d, a, b, c, immLut: any 3-input boolean function.
void exec_lop3(Warp& w, const DecodedInst& inst, LaneMask active) {
  auto a = w.read(inst.src[0], 0);
  auto b = w.read(inst.src[1], 1);
  auto c = w.read(inst.src[2], 2);
  uint32_t lut = static_cast<uint32_t>(w.read(inst.src[3], 3)[0]) & 0xff;
  write_lanes(w, inst.dst[0], active, [&](uint32_t l) -> uint64_t {
    uint32_t r = 0;
    for (uint32_t i = 0; i < 32; ++i) {
      uint32_t idx = ((a[l] >> i) & 1) << 2 | ((b[l] >> i) & 1) << 1 | ((c[l] >> i) & 1);
      r |= ((lut >> idx) & 1) << i;
    }
    return r;
  });
}

// dp4a / dp2a: dot products of packed bytes / halves, accumulated into c.
template <bool kFour>
void exec_dp(Warp& w, const DecodedInst& inst, LaneMask active) {
  bool sa = ptx::is_signed(inst.type), sb = ptx::is_signed(inst.type2);
  bool hi = inst.mods->has(Flag::Hi);
  auto a = w.read(inst.src[0], 0);
  auto b = w.read(inst.src[1], 1);
  auto c = w.read(inst.src[2], 2);
  write_lanes(w, inst.dst[0], active, [&](uint32_t l) -> uint64_t {
    int64_t acc = (sa || sb) ? sign_extend(c[l], 32) : static_cast<int64_t>(truncate(c[l], 32));
    for (uint32_t i = 0; i < (kFour ? 4u : 2u); ++i) {
      uint64_t x = kFour ? (a[l] >> (8 * i)) & 0xff : (a[l] >> (16 * i)) & 0xffff;
      uint32_t bi = kFour ? i : (hi ? 2 + i : i);
      uint64_t y = (b[l] >> (8 * bi)) & 0xff;
      int64_t xv = sa ? sign_extend(x, kFour ? 8 : 16) : static_cast<int64_t>(x);
      int64_t yv = sb ? sign_extend(y, 8) : static_cast<int64_t>(y);
      acc += xv * yv;
    }
    return truncate(static_cast<uint64_t>(acc), 32);
  });
}

bool integer_type(ScalarType t) {
  ptx::TypeKind k = ptx::type_info(t).kind;
  return (k == ptx::TypeKind::Bits || k == ptx::TypeKind::Signed || k == ptx::TypeKind::Unsigned) &&
         ptx::type_bits(t) >= 8 && ptx::type_bits(t) <= 64 && t != ScalarType::U16x2 &&
         t != ScalarType::S16x2;
}

}  // namespace

Handler select_integer(const ptx::Instruction& inst, const DecodedInst& d) {
  ScalarType t = d.type;
  bool int_t = integer_type(t);
  bool one = d.num_dst == 1;
  switch (inst.opcode) {
    case Opcode::Mov:
      if (d.dst_is_pred) return exec_mov;
      if (ptx::type_bits(t) > 64 || d.num_dst == 0) return nullptr;
      return exec_mov;
    case Opcode::Add: return int_t && one ? exec_addsub<false, false> : nullptr;
    case Opcode::Sub: return int_t && one ? exec_addsub<true, false> : nullptr;
    case Opcode::Addc: return int_t && one ? exec_addsub<false, true> : nullptr;
    case Opcode::Subc: return int_t && one ? exec_addsub<true, true> : nullptr;
    case Opcode::Mul: return int_t && one ? exec_mul<false, false> : nullptr;
    case Opcode::Mad: return int_t && one ? exec_mul<true, false> : nullptr;
    case Opcode::Madc: return int_t && one ? exec_mul<true, true> : nullptr;
    case Opcode::Mul24: return int_t && one ? exec_mul24<false> : nullptr;
    case Opcode::Mad24: return int_t && one ? exec_mul24<true> : nullptr;
    case Opcode::Sad: return int_t && one ? exec_sad : nullptr;
    case Opcode::Div: return int_t && one ? exec_divrem<false> : nullptr;
    case Opcode::Rem: return int_t && one ? exec_divrem<true> : nullptr;
    case Opcode::Min: return int_t && one && d.num_src == 2 ? exec_minmax<false> : nullptr;
    case Opcode::Max: return int_t && one && d.num_src == 2 ? exec_minmax<true> : nullptr;
    case Opcode::Abs: return int_t && one ? exec_absneg<true> : nullptr;
    case Opcode::Neg: return int_t && one ? exec_absneg<false> : nullptr;
    case Opcode::And: return (int_t || t == ScalarType::Pred) && one ? exec_logic<Opcode::And> : nullptr;
    case Opcode::Or: return (int_t || t == ScalarType::Pred) && one ? exec_logic<Opcode::Or> : nullptr;
    case Opcode::Xor: return (int_t || t == ScalarType::Pred) && one ? exec_logic<Opcode::Xor> : nullptr;
    case Opcode::Not: return (int_t || t == ScalarType::Pred) && one ? exec_logic<Opcode::Not> : nullptr;
    case Opcode::Cnot: return int_t && one ? exec_logic<Opcode::Cnot> : nullptr;
    case Opcode::Shl: return int_t && one ? exec_shift<true> : nullptr;
    case Opcode::Shr: return int_t && one ? exec_shift<false> : nullptr;
    case Opcode::Setp: return int_t && d.dst_is_pred ? exec_setp_int : nullptr;
    case Opcode::Selp: return (int_t || ptx::is_float(t)) && one && ptx::type_bits(t) <= 64 ? exec_selp : nullptr;
    case Opcode::Set:
      return integer_type(d.type2) && one && !d.dst_is_pred &&
                     (integer_type(t) || t == ScalarType::F32) && ptx::type_bits(t) == 32
                 ? exec_set_int
                 : nullptr;
    case Opcode::Slct:
      if (!one || ptx::type_bits(t) > 64 || ptx::type_bits(t) < 16) return nullptr;
      if (d.type2 == ScalarType::S32) return exec_slct<false>;
      if (d.type2 == ScalarType::F32) return exec_slct<true>;
      return nullptr;
    case Opcode::Popc: return int_t && one ? exec_popc : nullptr;
    case Opcode::Clz: return int_t && one ? exec_clz : nullptr;
    case Opcode::Brev: return int_t && one ? exec_brev : nullptr;
    case Opcode::Bfind: return int_t && one ? exec_bfind : nullptr;
    case Opcode::Bfe: return int_t && one ? exec_bfe : nullptr;
    case Opcode::Bfi: return int_t && one ? exec_bfi : nullptr;
    case Opcode::Prmt: return one ? exec_prmt : nullptr;
    case Opcode::Bmsk:
      if (!one || ptx::type_bits(t) != 32) return nullptr;
      return d.mods->has(Flag::Wrap) ? exec_bmsk<false> : exec_bmsk<true>;
    case Opcode::Shf: return one ? exec_shf : nullptr;
    case Opcode::Lop3: return one && !d.dst_is_pred && d.num_src == 4 ? exec_lop3 : nullptr;
    case Opcode::Dp4a: return one ? exec_dp<true> : nullptr;
    case Opcode::Dp2a: return one ? exec_dp<false> : nullptr;
    default: return nullptr;
  }
}

}  // namespace warpsim::functional
