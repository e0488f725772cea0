#pragma once
// Shared by the tensor-core handler files (exec_wmma.cpp, exec_mma.cpp): the
// fragment operands, the whole-warp rule, element encodings and the one
// multiply-accumulate every tensor instruction uses. Semantics and the
// choices made where the PTX ISA leaves room: docs/functional-tensor.md.
//
// All handlers here are warp-collective: they read every lane's fragment
// registers (and memory) into fixed-size buffers before writing any
// destination, since destinations may alias sources (`mma d, a, b, d`).
#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <optional>

#include "functional/exec.h"
#include "functional/fp/half.h"

namespace warpsim::functional::tensor {

// Vector operand group g of a tensor instruction (DecodedInst::extra_slots).
struct Fragment {
  const Operand* op = nullptr;
  uint32_t count = 0;
};
inline Fragment fragment(const Warp& w, const DecodedInst& inst, uint32_t g) {
  const Operand* p = w.launch().program->extra_operands.data() + inst.extra_slots;
  for (uint32_t i = 0; i < g; ++i) p += inst.extra_count[i];
  return {p, inst.extra_count[g]};
}

// A fragment element's value for `lane` (decoding allows Reg and Imm only).
inline uint64_t read(Warp& w, const Operand& op, uint32_t lane) {
  return op.kind == Src::Reg ? w.reg(op.index)[lane] : op.imm;
}
// Writes a destination element (None: a `_` sink).
inline void write(Warp& w, const Operand& op, uint32_t lane, uint64_t v) {
  if (op.kind == Src::Reg) w.reg(op.index)[lane] = v;
}

// The .sync.aligned tensor instructions are executed by the whole warp at
// once; PTX leaves a partial warp (lanes diverged away, guarded off, exited
// or past the end of the block) undefined, and warpsim stops the kernel with
// an illegal-instruction fault. An instruction no lane executes does nothing.
inline bool whole_warp(Warp& w, LaneMask active, const char* what) {
  if (active == kFullMask) return true;
  if (active != 0)
    w.raise(FaultKind::IllegalInstruction, static_cast<uint32_t>(std::countr_zero(active)),
            fmt::format("{} executed by a partial warp ({} of 32 lanes active, mask 0x{:08x}); "
                        "the .sync.aligned tensor-core instructions need all 32 lanes",
                        what, std::popcount(active), active));
  return false;
}

// ---- elements -------------------------------------------------------------------

// How one matrix element is held: its type and bit width inside a register
// (f16/bf16 pack two to a .b32 register, s8/u8 four, low element first).
enum class Elem : uint8_t { F16, BF16, TF32, F32, F64, S8, U8, S32 };

inline std::optional<Elem> elem_of(ptx::ScalarType t) {
  using ptx::ScalarType;
  switch (t) {
    case ScalarType::F16: return Elem::F16;
    case ScalarType::BF16: return Elem::BF16;
    case ScalarType::TF32: return Elem::TF32;
    case ScalarType::F32: return Elem::F32;
    case ScalarType::F64: return Elem::F64;
    case ScalarType::S8: return Elem::S8;
    case ScalarType::U8: return Elem::U8;
    case ScalarType::S32: return Elem::S32;
    default: return std::nullopt;
  }
}
inline uint32_t elem_bits(Elem e) {
  switch (e) {
    case Elem::F16:
    case Elem::BF16: return 16;
    case Elem::S8:
    case Elem::U8: return 8;
    case Elem::F64: return 64;
    default: return 32;
  }
}
// Elements per register: 32-bit registers hold 32 / bits, f64 ones one.
inline uint32_t per_reg(Elem e) { return e == Elem::F64 ? 1 : 32 / elem_bits(e); }
inline bool is_integer(Elem e) { return e == Elem::S8 || e == Elem::U8 || e == Elem::S32; }

// The exact value of an element's bits (every type here fits a double).
// tf32 operands use the top 19 bits of the register (sign, exponent, 10
// mantissa bits), the low 13 bits are ignored as hardware ignores them.
inline double decode(Elem e, uint64_t raw) {
  switch (e) {
    case Elem::F16: return fp::f16_value(static_cast<uint16_t>(raw));
    case Elem::BF16: return fp::bf16_value(static_cast<uint16_t>(raw));
    case Elem::TF32: {
      const auto b = static_cast<uint32_t>(raw);
      return fp::is_nan32(b) ? std::nan("") : fp::f32_from(b & 0xffffe000u);
    }
    case Elem::F32: return fp::f32_from(static_cast<uint32_t>(raw));
    case Elem::F64: return fp::f64_from(raw);
    case Elem::S8: return static_cast<int8_t>(raw);
    case Elem::U8: return static_cast<uint8_t>(raw);
    case Elem::S32: return static_cast<int32_t>(raw);
  }
  return 0;
}

// The bits of a result element: f32/f64/s32 values are exact already (the
// accumulation rounded them); f16 results round the f32 value once (.rn).
// NaN results are canonical (f32 0x7fffffff, f16 0x7fff).
inline uint64_t encode(Elem e, double v) {
  switch (e) {
    case Elem::F16: return fp::f32_to_f16(fp::f32_bits(static_cast<float>(v)));
    case Elem::F32:
      return std::isnan(v) ? fp::kF32CanonicalNaN : fp::f32_bits(static_cast<float>(v));
    case Elem::F64: return fp::f64_bits(v);
    case Elem::S32: return static_cast<uint32_t>(static_cast<int32_t>(v));
    default: return 0;
  }
}

// ---- fragments <-> matrices -------------------------------------------------------

struct RowCol {
  uint32_t row, col;
};

// The largest matrix any supported shape has (m32n8k16's A, m16n8k32's A).
inline constexpr uint32_t kMaxElems = 512;
inline constexpr uint32_t kMaxRegs = 8;

// Reads every lane's fragment into the row-major matrix `out` (`cols`
// wide): element i of lane l (register i / per_reg, low bits first) is at
// layout(l, i). Replicated elements (wmma) are read from each copy in turn.
template <typename Layout>
void gather(Warp& w, Fragment f, Elem e, uint32_t cols, Layout&& layout, double* out) {
  const uint32_t per = per_reg(e), bits = elem_bits(e);
  for (uint32_t l = 0; l < kWarpSize; ++l)
    for (uint32_t r = 0; r < f.count; ++r) {
      const uint64_t v = read(w, f.op[r], l);
      for (uint32_t s = 0; s < per; ++s) {
        const RowCol rc = layout(l, r * per + s);
        out[rc.row * cols + rc.col] = decode(e, per == 1 ? v : truncate(v >> (s * bits), bits));
      }
    }
}

// Writes the row-major matrix `in` into every lane's fragment (the inverse
// of gather). Call it only once every source has been gathered.
template <typename Layout>
void scatter(Warp& w, Fragment f, Elem e, uint32_t cols, Layout&& layout, const double* in) {
  const uint32_t per = per_reg(e), bits = elem_bits(e);
  for (uint32_t l = 0; l < kWarpSize; ++l)
    for (uint32_t r = 0; r < f.count; ++r) {
      uint64_t v = 0;
      for (uint32_t s = 0; s < per; ++s) {
        const RowCol rc = layout(l, r * per + s);
        v |= truncate(encode(e, in[rc.row * cols + rc.col]), bits) << (s * bits);
      }
      write(w, f.op[r], l, v);
    }
}

// ---- D = A * B + C ---------------------------------------------------------------

struct Gemm {
  uint32_t m = 0, n = 0, k = 0;
  Elem a = Elem::F16, b = Elem::F16, c = Elem::F32, d = Elem::F32;
  bool satfinite = false;  // integer forms: clamp to the s32 range instead of wrapping
};

// Row-major A (m x k), B (k x n), C and D (m x n); D may not alias A/B/C.
//  - f16/bf16/tf32 inputs: every product is exact in f32; each element is
//    accumulated in f32 in k order starting from C, one fused multiply-add
//    (round to nearest even) per step: d = fma(a[i][0], b[0][j], c), then
//    d = fma(a[i][1], b[1][j], d), ... (f16 results then round once, above).
//  - s8/u8: exact in 64 bits, then wrapped to s32 or, with .satfinite,
//    clamped to [INT32_MIN, INT32_MAX].
//  - f64: the same k-order chain of fma in f64 (.rn).
inline void multiply_accumulate(const Gemm& g, const double* A, const double* B, const double* C,
                                double* D) {
  for (uint32_t i = 0; i < g.m; ++i)
    for (uint32_t j = 0; j < g.n; ++j) {
      const double c = C[i * g.n + j];
      double d;
      if (is_integer(g.a)) {
        int64_t acc = static_cast<int64_t>(c);
        for (uint32_t k = 0; k < g.k; ++k)
          acc += static_cast<int64_t>(A[i * g.k + k]) * static_cast<int64_t>(B[k * g.n + j]);
        if (g.satfinite)
          acc = std::clamp<int64_t>(acc, INT32_MIN, INT32_MAX);
        d = static_cast<int32_t>(static_cast<uint32_t>(acc));
      } else if (g.a == Elem::F64) {
        d = c;
        for (uint32_t k = 0; k < g.k; ++k) d = std::fma(A[i * g.k + k], B[k * g.n + j], d);
      } else {
        float acc = static_cast<float>(c);  // exact: C is f16 or f32
        for (uint32_t k = 0; k < g.k; ++k)
          acc = std::fma(static_cast<float>(A[i * g.k + k]), static_cast<float>(B[k * g.n + j]), acc);
        d = acc;
      }
      D[i * g.n + j] = d;
    }
}

// Selector checks: flags beyond `allowed` (sparse, block-scale... forms)
// are not executed; the shape is .mMnNkK (k = 0: .mMnN); memory operands
// live in global, shared or generic space.
inline bool only_flags(const ptx::Modifiers& m, std::initializer_list<ptx::Flag> allowed) {
  ptx::FlagSet ok;
  for (ptx::Flag f : allowed) ok.set(static_cast<size_t>(f));
  return (m.flags & ~ok).none();
}

inline bool shape_is(const ptx::MatrixShape& s, uint16_t m, uint16_t n, uint16_t k) {
  return s.m == m && s.n == n && s.k == k;
}

inline bool memory_space_ok(const ptx::Modifiers& m) {
  using ptx::StateSpace;
  if (m.num_spaces > 1) return false;
  const StateSpace s = m.space(0);
  return s == StateSpace::None || s == StateSpace::Global || s == StateSpace::Shared ||
         s == StateSpace::SharedCta;
}

// Handler selectors of the two files (select_tensor, exec_mma.cpp, asks both).
Handler select_wmma(const ptx::Instruction& inst, const DecodedInst& d);
Handler select_mma(const ptx::Instruction& inst, const DecodedInst& d);

}  // namespace warpsim::functional::tensor
