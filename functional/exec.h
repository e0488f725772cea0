#pragma once
// Helpers for instruction handlers (functional/exec_*.cpp).
//
// Decoding conventions a handler can rely on (see lower.cpp):
//  - dst[0..num_dst) are destination register slots, one per vector element
//    (kNoSlot for a `_` sink); a predicate destination sets dst_is_pred and
//    dst[0] is the predicate index; the predicate half of a `d|p` pair is
//    dst_pred.
//  - src[0..num_src) are the remaining value operands in PTX order, the
//    address operand excluded (it is `addr`); vector sources are expanded
//    one element per src entry.
//  - Register values are stored zero-extended from the instruction type's
//    width; handlers read the low bits they need and write results truncated
//    to the destination type (helpers below).
#include <bit>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "functional/program.h"
#include "functional/warp.h"
#include "ptx/ir.h"

namespace warpsim::functional {

// Calls f(lane) for every lane set in `m`; the full-warp case is a plain loop
// the compiler can unroll and vectorise.
template <typename F>
inline void for_each_lane(LaneMask m, F&& f) {
  if (m == kFullMask) {
    for (uint32_t l = 0; l < kWarpSize; ++l) f(l);
  } else {
    while (m) {
      uint32_t l = static_cast<uint32_t>(std::countr_zero(m));
      m &= m - 1;
      f(l);
    }
  }
}

// Truncates `v` to `bits` (zero-extended), the canonical register contents.
inline uint64_t truncate(uint64_t v, uint32_t bits) {
  return bits >= 64 ? v : v & ((uint64_t{1} << bits) - 1);
}
inline int64_t sign_extend(uint64_t v, uint32_t bits) {
  if (bits >= 64) return static_cast<int64_t>(v);
  uint64_t m = uint64_t{1} << (bits - 1);
  v = truncate(v, bits);
  return static_cast<int64_t>((v ^ m) - m);
}

inline float as_f32(uint64_t v) { return std::bit_cast<float>(static_cast<uint32_t>(v)); }
inline double as_f64(uint64_t v) { return std::bit_cast<double>(v); }
inline uint64_t bits_of(float f) { return std::bit_cast<uint32_t>(f); }
inline uint64_t bits_of(double d) { return std::bit_cast<uint64_t>(d); }

// Writes `value(lane)` to destination slot `slot` for every active lane
// (sinks are skipped).
template <typename F>
inline void write_lanes(Warp& w, uint32_t slot, LaneMask active, F&& value) {
  if (slot == kNoSlot) return;
  uint64_t* d = w.reg(slot);
  for_each_lane(active, [&](uint32_t l) { d[l] = value(l); });
}

// The .and/.or/.xor boolean op of setp/set applied to comparison results `r`
// and predicate `c` (no op: r).
inline LaneMask combine(ptx::Operation op, LaneMask r, LaneMask c) {
  switch (op) {
    case ptx::Operation::And: return r & c;
    case ptx::Operation::Or: return r | c;
    case ptx::Operation::Xor: return r ^ c;
    default: return r;
  }
}

// Handler families: each file exec_<family>.cpp provides one selector that
// returns the handler for an instruction it implements, or nullptr.
using HandlerSelector = Handler (*)(const ptx::Instruction& inst, const DecodedInst& decoded);
Handler select_control(const ptx::Instruction&, const DecodedInst&);
Handler select_memory(const ptx::Instruction&, const DecodedInst&);
Handler select_integer(const ptx::Instruction&, const DecodedInst&);
Handler select_float(const ptx::Instruction&, const DecodedInst&);
Handler select_convert(const ptx::Instruction&, const DecodedInst&);
Handler select_warp(const ptx::Instruction&, const DecodedInst&);
Handler select_async(const ptx::Instruction&, const DecodedInst&);
Handler select_texture(const ptx::Instruction&, const DecodedInst&);
Handler select_tensor(const ptx::Instruction&, const DecodedInst&);

// The handler for an instruction, or nullptr when warpsim cannot execute it
// (the lowering then installs a handler that stops the kernel with a clear
// "unsupported instruction" fault when, and only when, it is executed).
Handler select_handler(const ptx::Instruction& inst, const DecodedInst& decoded);

// Handlers the lowering installs itself.
void exec_unsupported(Warp& w, const DecodedInst& inst, LaneMask active);
void exec_function_end(Warp& w, const DecodedInst& inst, LaneMask active);

}  // namespace warpsim::functional
