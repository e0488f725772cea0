// Handler family: warp-collective instructions — shfl (.sync and the old
// form), vote (.sync and old), match.sync, redux.sync, activemask, elect.sync.
//
// How the collectives map onto the SIMT-stack model (a warp instruction runs
// once for the lanes of the top entry, guard applied = `active`):
//  - The participating lanes of a collective are `active & membermask`; the
//    non-.sync forms use a full membermask. Lanes that are inactive (diverged
//    away, guarded off, exited or beyond the end of a partial block) never
//    contribute a value.
//    In the defined case (every non-exited lane of the membermask executes
//    the instruction with the same membermask), the participants are exactly
//    the PTX ISA's "non-exited threads in membermask".
//  - The membermask is read per lane: lanes may name different, disjoint
//    groups in one instruction (cooperative-groups tiles do: each tile passes
//    its own mask), and each lane gets the result for the group it named.
//    An active lane that is not in its own membermask, or masks that overlap
//    inconsistently, are undefined behaviour in PTX; they are executed anyway
//    (no fault) and each lane receives the result computed over the
//    participating lanes of the membermask it supplied.
//  - shfl ignores membermask: it never changes which lane is read. A lane
//    whose source lane is inactive or outside membermask reads that lane's
//    register as it stands (what hardware does reading the register file;
//    PTX calls the value undefined) — the last value written there by that
//    lane, or 0 when it never was.
//  - Results are built in a buffer before any destination is written, since
//    the destination may be the source register (`shfl d, d, ...`) and other
//    lanes still have to read the old value.
#include <algorithm>
#include <bit>
#include <cmath>

#include "functional/exec.h"

namespace warpsim::functional {

namespace {

using ptx::Flag;
using ptx::Opcode;
using ptx::Operation;
using ptx::ScalarType;

constexpr LaneMask bit(uint32_t lane) { return LaneMask{1} << lane; }

// The membermask operand at src[index] as per-lane values; absent (the
// non-.sync forms) means the whole warp.
Warp::Lanes member_masks(Warp& w, const DecodedInst& inst, uint32_t index) {
  static const Operand kWholeWarp{Src::Imm, false, kNoSlot, kFullMask};
  return w.read(index < inst.num_src ? inst.src[index] : kWholeWarp, index);
}

// Calls f(lane, participants) for every active lane, where participants are
// the active lanes of that lane's membermask.
template <typename F>
void for_each_member(const Warp::Lanes& members, LaneMask active, F&& f) {
  for_each_lane(active, [&](uint32_t l) { f(l, active & static_cast<LaneMask>(members[l])); });
}

// ---- shfl ------------------------------------------------------------------------------

// shfl{.sync}.mode.b32 d[|p], a, b, c{, membermask}, following the PTX ISA
// pseudocode: b[4:0] is the source lane or offset, c[4:0] the clamp value
// and c[12:8] the segment mask (__shfl_*_sync(mask, v, x, width) passes
// c = (32 - width) << 8 | (up ? 0 : 31)). p reports whether the computed
// source lane was in range; out of range, a lane reads its own `a`.
template <Operation kMode>
void exec_shfl(Warp& w, const DecodedInst& inst, LaneMask active) {
  auto a = w.read(inst.src[0], 0);
  auto b = w.read(inst.src[1], 1);
  auto c = w.read(inst.src[2], 2);
  uint64_t out[kWarpSize];
  LaneMask in_range = 0;
  for_each_lane(active, [&](uint32_t lane) {
    const int32_t ln = static_cast<int32_t>(lane);
    const int32_t bval = static_cast<int32_t>(b[lane] & 31);
    const int32_t cval = static_cast<int32_t>(c[lane] & 31);
    const int32_t seg = static_cast<int32_t>((c[lane] >> 8) & 31);
    const int32_t max_lane = (ln & seg) | (cval & ~seg);
    const int32_t min_lane = ln & seg;
    int32_t j;
    bool p;
    if constexpr (kMode == Operation::Up) {
      j = ln - bval;  // may go negative: then below any max_lane, out of range
      p = j >= max_lane;
    } else if constexpr (kMode == Operation::Down) {
      j = ln + bval;  // up to 62: above any max_lane when out of range
      p = j <= max_lane;
    } else if constexpr (kMode == Operation::Bfly) {
      j = ln ^ bval;
      p = j <= max_lane;
    } else {
      j = min_lane | (bval & ~seg);
      p = j <= max_lane;
    }
    if (!p) j = ln;
    out[lane] = truncate(a[static_cast<uint32_t>(j)], 32);
    if (p) in_range |= bit(lane);
  });
  write_lanes(w, inst.dst[0], active, [&](uint32_t l) { return out[l]; });
  if (inst.dst_pred != kNoSlot) w.write_pred(inst.dst_pred, active, in_range);
}

// ---- vote ------------------------------------------------------------------------------

enum class VoteKind { All, Any, Uni, Ballot };

// vote{.sync}.{all,any,uni}.pred d, {!}a{, membermask} and
// vote{.sync}.ballot.b32 d, {!}a{, membermask}. Over an empty participant
// set (only possible in undefined cases) all/uni are true and any is false.
template <VoteKind kKind>
void exec_vote(Warp& w, const DecodedInst& inst, LaneMask active) {
  const LaneMask a = w.read_pred(inst.src[0]);  // negation already applied
  auto members = member_masks(w, inst, 1);
  if constexpr (kKind == VoteKind::Ballot) {
    uint64_t out[kWarpSize];
    for_each_member(members, active, [&](uint32_t l, LaneMask set) { out[l] = set & a; });
    write_lanes(w, inst.dst[0], active, [&](uint32_t l) { return out[l]; });
  } else {
    LaneMask result = 0;
    for_each_member(members, active, [&](uint32_t l, LaneMask set) {
      const bool all = (set & ~a) == 0, none = (set & a) == 0;
      const bool v = kKind == VoteKind::All ? all : kKind == VoteKind::Any ? !none : all || none;
      if (v) result |= bit(l);
    });
    w.write_pred(inst.dst[0], active, result);
  }
}

// ---- match -----------------------------------------------------------------------------

// match.any.sync.{b32,b64} d, a, membermask: d = the participants whose `a`
// equals this lane's. match.all.sync.{b32,b64} d[|p], a, membermask: d = the
// participants ("the non-exited threads in membermask" in the PTX ISA: not
// the membermask itself, which may name exited lanes or lanes past the end of
// a partial block) when they all have the same `a`, else 0; p = whether they
// did. Either destination may be the sink `_`.
template <bool kAll>
void exec_match(Warp& w, const DecodedInst& inst, LaneMask active) {
  const uint32_t bits = ptx::type_bits(inst.type);
  auto a = w.read(inst.src[0], 0);
  auto members = member_masks(w, inst, 1);
  uint64_t out[kWarpSize];
  LaneMask same = 0;
  for_each_member(members, active, [&](uint32_t l, LaneMask set) {
    const uint64_t mine = truncate(a[l], bits);
    LaneMask equal = 0;
    for_each_lane(set, [&](uint32_t j) {
      if (truncate(a[j], bits) == mine) equal |= bit(j);
    });
    if constexpr (kAll) {
      const bool all_same = equal == set;
      out[l] = all_same ? set : 0;
      if (all_same) same |= bit(l);
    } else {
      out[l] = equal;
    }
  });
  write_lanes(w, inst.dst[0], active, [&](uint32_t l) { return out[l]; });
  if (kAll && inst.dst_pred != kNoSlot) w.write_pred(inst.dst_pred, active, same);
}

// ---- redux -----------------------------------------------------------------------------

// Reduces `a` over the lanes of `set` (32-bit values).
template <Operation kOp, bool kSigned>
uint32_t reduce_int(const Warp::Lanes& a, LaneMask set) {
  // Start from the operation's identity (reached only for an empty set).
  uint32_t acc = kOp == Operation::And ? 0xffffffffu
                 : kOp == Operation::Min ? (kSigned ? 0x7fffffffu : 0xffffffffu)
                 : kOp == Operation::Max ? (kSigned ? 0x80000000u : 0u)
                                         : 0u;
  for_each_lane(set, [&](uint32_t j) {
    const uint32_t x = static_cast<uint32_t>(a[j]);
    if constexpr (kOp == Operation::Add) acc += x;  // wraps: the result is truncated to 32 bits
    else if constexpr (kOp == Operation::And) acc &= x;
    else if constexpr (kOp == Operation::Or) acc |= x;
    else if constexpr (kOp == Operation::Xor) acc ^= x;
    else if constexpr (kSigned) {
      const int32_t sx = static_cast<int32_t>(x), sa = static_cast<int32_t>(acc);
      acc = static_cast<uint32_t>(kOp == Operation::Min ? std::min(sx, sa) : std::max(sx, sa));
    } else {
      acc = kOp == Operation::Min ? std::min(x, acc) : std::max(x, acc);
    }
  });
  return acc;
}

constexpr uint32_t kCanonicalNaN = 0x7fffffffu;

// redux.sync.{min,max}{.abs}{.NaN}.f32 (sm_100a): .abs reduces |a|; +0.0 is
// greater than -0.0; NaN inputs are skipped unless .NaN, which makes any NaN
// input give the canonical NaN; all inputs NaN (or none) give the canonical NaN.
// a < b for non-NaN f32 bit patterns, with -0.0 < +0.0.
bool f32_less(uint32_t a, uint32_t b) {
  const float fa = std::bit_cast<float>(a), fb = std::bit_cast<float>(b);
  return fa < fb || (fa == fb && (a >> 31) > (b >> 31));
}

template <bool kMax>
uint32_t reduce_f32(const Warp::Lanes& a, LaneMask set, bool abs, bool nan) {
  bool have = false, saw_nan = false;
  uint32_t acc = 0;
  for_each_lane(set, [&](uint32_t j) {
    uint32_t x = static_cast<uint32_t>(a[j]);
    if (abs) x &= 0x7fffffffu;
    if (std::isnan(std::bit_cast<float>(x))) {
      saw_nan = true;
      return;
    }
    if (!have || (kMax ? f32_less(acc, x) : f32_less(x, acc))) acc = x;
    have = true;
  });
  return (!have || (nan && saw_nan)) ? kCanonicalNaN : acc;
}

// redux.sync.op.type d, a, membermask. The reduction is computed once per
// distinct participant set (normally one per instruction).
template <typename Reduce>
void redux_with(Warp& w, const DecodedInst& inst, LaneMask active, Reduce&& reduce) {
  auto a = w.read(inst.src[0], 0);
  auto members = member_masks(w, inst, 1);
  uint64_t out[kWarpSize];
  LaneMask last_set = 0;
  uint32_t last = 0;
  bool cached = false;
  for_each_member(members, active, [&](uint32_t l, LaneMask set) {
    if (!cached || set != last_set) {
      last = reduce(a, set);
      last_set = set;
      cached = true;
    }
    out[l] = last;
  });
  write_lanes(w, inst.dst[0], active, [&](uint32_t l) { return out[l]; });
}

template <Operation kOp, bool kSigned>
void exec_redux_int(Warp& w, const DecodedInst& inst, LaneMask active) {
  redux_with(w, inst, active, reduce_int<kOp, kSigned>);
}

template <bool kMax>
void exec_redux_f32(Warp& w, const DecodedInst& inst, LaneMask active) {
  const bool abs = inst.mods->has(Flag::Abs), nan = inst.mods->has(Flag::NaN);
  redux_with(w, inst, active,
             [&](const Warp::Lanes& a, LaneMask set) { return reduce_f32<kMax>(a, set, abs, nan); });
}

// ---- activemask, elect -------------------------------------------------------------------

// activemask.b32 d: the lanes executing this instruction (guard applied, as
// PTX counts predicated-off threads as inactive).
void exec_activemask(Warp& w, const DecodedInst& inst, LaneMask active) {
  write_lanes(w, inst.dst[0], active, [&](uint32_t) -> uint64_t { return active; });
}

// elect.sync d|p, membermask: the leader is the lowest participating lane
// (deterministic for a given membermask, as PTX requires); d = its lane id in
// every lane, p = true in the leader only. With no participant at all (an
// undefined case) nobody is elected and d = 0xffffffff, which is no lane id.
void exec_elect(Warp& w, const DecodedInst& inst, LaneMask active) {
  auto members = member_masks(w, inst, 0);
  uint64_t out[kWarpSize];
  LaneMask leaders = 0;
  for_each_member(members, active, [&](uint32_t l, LaneMask set) {
    if (set == 0) {
      out[l] = 0xffffffffu;
      return;
    }
    const uint32_t leader = static_cast<uint32_t>(std::countr_zero(set));
    out[l] = leader;
    if (leader == l) leaders |= bit(l);
  });
  write_lanes(w, inst.dst[0], active, [&](uint32_t l) { return out[l]; });
  if (inst.dst_pred != kNoSlot) w.write_pred(inst.dst_pred, active, leaders);
}

// ---- selection ----------------------------------------------------------------------------

Handler select_shfl(const ptx::Modifiers& m) {
  switch (m.op) {
    case Operation::Up: return exec_shfl<Operation::Up>;
    case Operation::Down: return exec_shfl<Operation::Down>;
    case Operation::Bfly: return exec_shfl<Operation::Bfly>;
    case Operation::Idx: return exec_shfl<Operation::Idx>;
    default: return nullptr;
  }
}

Handler select_vote(const ptx::Modifiers& m, const DecodedInst& d) {
  if (d.src[0].kind != Src::Pred && d.src[0].kind != Src::Imm) return nullptr;
  if (m.op == Operation::Ballot)
    return d.type == ScalarType::B32 && !d.dst_is_pred ? exec_vote<VoteKind::Ballot> : nullptr;
  if (d.type != ScalarType::Pred || !d.dst_is_pred) return nullptr;
  if (m.has(Flag::Uni)) return m.op == Operation::None ? exec_vote<VoteKind::Uni> : nullptr;
  if (m.op == Operation::All) return exec_vote<VoteKind::All>;
  if (m.op == Operation::Any) return exec_vote<VoteKind::Any>;
  return nullptr;
}

Handler select_redux(const ptx::Modifiers& m, ScalarType t) {
  const bool int_t = t == ScalarType::U32 || t == ScalarType::S32;
  const bool s = t == ScalarType::S32;
  const bool float_flags = m.has(Flag::Abs) || m.has(Flag::NaN);
  if (t == ScalarType::F32) {
    if (m.op == Operation::Min) return exec_redux_f32<false>;
    if (m.op == Operation::Max) return exec_redux_f32<true>;
    return nullptr;
  }
  if (float_flags) return nullptr;
  switch (m.op) {
    case Operation::Add: return int_t ? exec_redux_int<Operation::Add, false> : nullptr;
    case Operation::Min:
      return !int_t ? nullptr : s ? exec_redux_int<Operation::Min, true> : exec_redux_int<Operation::Min, false>;
    case Operation::Max:
      return !int_t ? nullptr : s ? exec_redux_int<Operation::Max, true> : exec_redux_int<Operation::Max, false>;
    case Operation::And: return t == ScalarType::B32 ? exec_redux_int<Operation::And, false> : nullptr;
    case Operation::Or: return t == ScalarType::B32 ? exec_redux_int<Operation::Or, false> : nullptr;
    case Operation::Xor: return t == ScalarType::B32 ? exec_redux_int<Operation::Xor, false> : nullptr;
    default: return nullptr;
  }
}

}  // namespace

Handler select_warp(const ptx::Instruction& inst, const DecodedInst& d) {
  const ptx::Modifiers& m = inst.mods;
  const bool sync = m.has(Flag::Sync);
  const bool reg_dst = d.num_dst == 1 && !d.dst_is_pred;
  // `d|_` (the predicate half sunk) decodes as a second, sink destination.
  const bool reg_dst_pair = reg_dst || (d.num_dst == 2 && !d.dst_is_pred && d.dst[1] == kNoSlot &&
                                        d.dst_pred == kNoSlot);
  // The .sync forms carry a trailing membermask operand.
  const uint32_t extra = sync ? 1 : 0;
  switch (inst.opcode) {
    case Opcode::Shfl:
      if (d.type != ScalarType::B32 || !reg_dst_pair || d.num_src != 3 + extra) return nullptr;
      return select_shfl(m);
    case Opcode::Vote:
      if (d.num_dst != 1 || d.num_src != 1 + extra) return nullptr;
      return select_vote(m, d);
    case Opcode::Match:
      if (!sync || !reg_dst_pair || d.num_src != 2) return nullptr;
      if (d.type != ScalarType::B32 && d.type != ScalarType::B64) return nullptr;
      if (m.op == Operation::Any) return reg_dst && d.dst_pred == kNoSlot ? exec_match<false> : nullptr;
      if (m.op == Operation::All) return exec_match<true>;
      return nullptr;
    case Opcode::Redux:
      if (!sync || !reg_dst || d.dst_pred != kNoSlot || d.num_src != 2) return nullptr;
      return select_redux(m, d.type);
    case Opcode::Activemask:
      return reg_dst && d.num_src == 0 && d.type == ScalarType::B32 ? exec_activemask : nullptr;
    case Opcode::Elect:
      return sync && reg_dst_pair && d.num_src == 1 ? exec_elect : nullptr;
    default: return nullptr;
  }
}

}  // namespace warpsim::functional
