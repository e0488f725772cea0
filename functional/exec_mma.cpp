// Tensor-core handlers, part 2: mma.sync.aligned with the fragment layouts
// the PTX ISA specifies ("Matrix Fragments for mma.mMnNkK"), ldmatrix,
// stmatrix and movmatrix (.m8n8 .b16); and select_tensor, the family's
// selector, which also asks exec_wmma.cpp.
//
// Supported mma.sync.aligned.shape.row.col.dtype.atype.btype.ctype forms:
//   m16n8k16, m16n8k8   f16 inputs, f16/f32 accumulators; bf16 inputs, f32
//   m16n8k8, m16n8k4    tf32 inputs, f32
//   m8n8k4              f64 (.rn implied)
//   m16n8k32, m16n8k16, m8n8k16   s8/u8 inputs, s32 (.satfinite optional)
// Everything else (m8n8k4 f16, sparse mma.sp, b1/s4/u4, fp8, f64 m16n8kK,
// block scaling) has no handler.
#include "functional/exec_tensor.h"

namespace warpsim::functional {

namespace tensor {

namespace {

using ptx::Flag;
using ptx::ScalarType;

// ---- mma.sync ------------------------------------------------------------------------

// The ISA's fragment formulas, with groupID = lane >> 2, threadID_in_group
// = lane % 4, written once for every shape: counted in registers (`per`
// elements each), A's register r covers row g + 8 (r & 1), register
// columns t + 4 (r >> 1); B's register r covers column g, register rows
// t + 4 r; C/D element i is at row g + 8 (i >> 1), column 2 t + (i & 1).
// E.g. m16n8k16 .f16 A: a0,a1 (g, 2t..2t+1), a2,a3 (g+8, 2t..), a4,a5
// (g, 2t+8..), a6,a7 (g+8, 2t+8..); m16n8k8 .tf32 A: a0 (g, t), a1
// (g+8, t), a2 (g, t+4), a3 (g+8, t+4); m16n8k32 .s8 B: b0..b3 rows
// 4t..4t+3, b4..b7 rows 4t+16.., column g.
RowCol mma_a(uint32_t lane, uint32_t i, uint32_t per) {
  const uint32_t g = lane >> 2, t = lane & 3, r = i / per, s = i % per;
  return {g + 8 * (r & 1), (t + 4 * (r >> 1)) * per + s};
}
RowCol mma_b(uint32_t lane, uint32_t i, uint32_t per) {
  const uint32_t g = lane >> 2, t = lane & 3, r = i / per, s = i % per;
  return {(t + 4 * r) * per + s, g};
}
RowCol mma_c(uint32_t lane, uint32_t i) {
  const uint32_t g = lane >> 2, t = lane & 3;
  return {g + 8 * (i >> 1), 2 * t + (i & 1)};
}

struct MmaForm {
  Gemm gemm;
  uint32_t a_regs = 0, b_regs = 0, c_regs = 0, d_regs = 0;
};

std::optional<MmaForm> mma_form(const ptx::Modifiers& m) {
  if (m.num_types != 4 || m.num_layouts != 2 || m.layouts[0] != ptx::Layout::Row ||
      m.layouts[1] != ptx::Layout::Col)
    return std::nullopt;
  const auto d = elem_of(m.types[0]), a = elem_of(m.types[1]), b = elem_of(m.types[2]),
             c = elem_of(m.types[3]);
  if (!a || !b || !c || !d) return std::nullopt;
  const ptx::MatrixShape& s = m.shape;
  const bool integer = is_integer(*a);
  bool ok = false;
  switch (*a) {
    case Elem::F16:
      ok = *b == Elem::F16 && (*c == Elem::F16 || *c == Elem::F32) &&
           (*d == Elem::F16 || *d == Elem::F32) && (shape_is(s, 16, 8, 16) || shape_is(s, 16, 8, 8));
      break;
    case Elem::BF16:
      ok = *b == Elem::BF16 && *c == Elem::F32 && *d == Elem::F32 &&
           (shape_is(s, 16, 8, 16) || shape_is(s, 16, 8, 8));
      break;
    case Elem::TF32:
      ok = *b == Elem::TF32 && *c == Elem::F32 && *d == Elem::F32 &&
           (shape_is(s, 16, 8, 8) || shape_is(s, 16, 8, 4));
      break;
    case Elem::F64:
      ok = *b == Elem::F64 && *c == Elem::F64 && *d == Elem::F64 && shape_is(s, 8, 8, 4);
      break;
    case Elem::S8:
    case Elem::U8:
      ok = (*b == Elem::S8 || *b == Elem::U8) && *c == Elem::S32 && *d == Elem::S32 &&
           (shape_is(s, 16, 8, 32) || shape_is(s, 16, 8, 16) || shape_is(s, 8, 8, 16));
      break;
    default: break;
  }
  if (!ok || (m.has(Flag::Satfinite) && !integer)) return std::nullopt;
  if (m.rounding != ptx::Rounding::None && !(*a == Elem::F64 && m.rounding == ptx::Rounding::Rn))
    return std::nullopt;
  MmaForm f;
  f.gemm = Gemm{s.m, s.n, s.k, *a, *b, *c, *d, m.has(Flag::Satfinite)};
  f.a_regs = s.m * s.k / kWarpSize / per_reg(*a);
  f.b_regs = s.k * s.n / kWarpSize / per_reg(*b);
  f.c_regs = s.m * s.n / kWarpSize / per_reg(*c);
  f.d_regs = s.m * s.n / kWarpSize / per_reg(*d);
  return f;
}

// mma.sync.aligned: D = A * B + C (numerics: multiply_accumulate).
void exec_mma(Warp& w, const DecodedInst& inst, LaneMask active) {
  if (!whole_warp(w, active, "mma.sync")) return;
  const Gemm g = mma_form(*inst.mods)->gemm;
  const uint32_t pa = per_reg(g.a), pb = per_reg(g.b);
  double a[kMaxElems] = {}, b[kMaxElems] = {}, c[kMaxElems] = {}, d[kMaxElems] = {};
  gather(w, fragment(w, inst, 1), g.a, g.k, [&](uint32_t l, uint32_t i) { return mma_a(l, i, pa); }, a);
  gather(w, fragment(w, inst, 2), g.b, g.n, [&](uint32_t l, uint32_t i) { return mma_b(l, i, pb); }, b);
  gather(w, fragment(w, inst, 3), g.c, g.n, mma_c, c);
  multiply_accumulate(g, a, b, c, d);
  scatter(w, fragment(w, inst, 0), g.d, g.n, mma_c, d);
}

// ---- ldmatrix / stmatrix / movmatrix -------------------------------------------------

// Fragments of 8x8 .b16 matrices: lane l holds, of matrix j, row l / 4,
// columns 2 (l % 4) and 2 (l % 4) + 1 (low half first) in register j.
// ldmatrix/stmatrix take row r of matrix j from the address of lane 8 j + r
// (16 contiguous bytes, 16-byte aligned); .trans exchanges rows and columns.
using Matrices = uint16_t[4][8][8];  // [matrix][row][col]

// The registers of an ldmatrix/stmatrix operand: its vector group, or a
// lone register (`ldmatrix.x1 %r, [p]`).
struct RegList {
  Operand op[4];
  uint32_t count = 0;
};
RegList registers(Warp& w, const DecodedInst& inst, bool is_dst) {
  RegList r;
  if (inst.extra_slots != kNoSlot) {
    const Fragment f = fragment(w, inst, 0);
    for (uint32_t i = 0; i < f.count; ++i) r.op[i] = f.op[i];
    r.count = f.count;
  } else if (is_dst) {
    r.op[0] = inst.dst[0] == kNoSlot ? Operand{} : Operand{Src::Reg, false, inst.dst[0], 0};
    r.count = 1;
  } else {
    r.op[0] = inst.src[0];
    r.count = 1;
  }
  return r;
}

// The element of matrix m in lane l's register, half h (0 low, 1 high).
inline uint16_t& element(Matrices& m, uint32_t j, uint32_t l, uint32_t h, bool trans) {
  const uint32_t row = l >> 2, col = 2 * (l & 3) + h;
  return trans ? m[j][col][row] : m[j][row][col];
}

// ldmatrix.sync.aligned.m8n8.{x1,x2,x4}{.trans}{.shared{::cta}}.b16 r, [p]
template <bool kTrans>
void exec_ldmatrix(Warp& w, const DecodedInst& inst, LaneMask active) {
  if (!whole_warp(w, active, "ldmatrix")) return;
  const RegList regs = registers(w, inst, true);
  Matrices m{};
  for (uint32_t j = 0; j < regs.count; ++j)
    for (uint32_t r = 0; r < 8; ++r) {
      const uint32_t lane = 8 * j + r;
      const uint8_t* p = w.translate(inst.addr.window, w.address(inst, lane), 16, lane, AccessKind::Read);
      if (!p) return;
      std::memcpy(m[j][r], p, 16);
    }
  for (uint32_t j = 0; j < regs.count; ++j)
    for (uint32_t l = 0; l < kWarpSize; ++l)
      write(w, regs.op[j], l,
            element(m, j, l, 0, kTrans) | uint64_t{element(m, j, l, 1, kTrans)} << 16);
}

// stmatrix.sync.aligned.m8n8.{x1,x2,x4}{.trans}{.shared{::cta}}.b16 [p], r
template <bool kTrans>
void exec_stmatrix(Warp& w, const DecodedInst& inst, LaneMask active) {
  if (!whole_warp(w, active, "stmatrix")) return;
  const RegList regs = registers(w, inst, false);
  Matrices m{};
  for (uint32_t j = 0; j < regs.count; ++j)
    for (uint32_t l = 0; l < kWarpSize; ++l) {
      const uint64_t v = read(w, regs.op[j], l);
      element(m, j, l, 0, kTrans) = static_cast<uint16_t>(v);
      element(m, j, l, 1, kTrans) = static_cast<uint16_t>(v >> 16);
    }
  for (uint32_t j = 0; j < regs.count; ++j)
    for (uint32_t r = 0; r < 8; ++r) {
      const uint32_t lane = 8 * j + r;
      uint8_t* p = w.translate(inst.addr.window, w.address(inst, lane), 16, lane, AccessKind::Write);
      if (!p) return;
      std::memcpy(p, m[j][r], 16);
    }
}

// movmatrix.sync.aligned.m8n8.trans.b16 d, a: the fragment of the transpose.
void exec_movmatrix(Warp& w, const DecodedInst& inst, LaneMask active) {
  if (!whole_warp(w, active, "movmatrix")) return;
  auto a = w.read(inst.src[0], 0);
  Matrices m{};
  for (uint32_t l = 0; l < kWarpSize; ++l) {
    element(m, 0, l, 0, true) = static_cast<uint16_t>(a[l]);
    element(m, 0, l, 1, true) = static_cast<uint16_t>(a[l] >> 16);
  }
  write_lanes(w, inst.dst[0], active, [&](uint32_t l) {
    return element(m, 0, l, 0, false) | uint64_t{element(m, 0, l, 1, false)} << 16;
  });
}

uint32_t matrix_count(ptx::MatrixCount c) {
  switch (c) {
    case ptx::MatrixCount::X1: return 1;
    case ptx::MatrixCount::X2: return 2;
    case ptx::MatrixCount::X4: return 4;
    default: return 0;
  }
}

// ldmatrix/stmatrix: .m8n8 .b16 in shared (or generic) memory, with as many
// registers as matrices.
bool matrix_memory_form(const ptx::Modifiers& m, const DecodedInst& d, bool is_dst) {
  const uint32_t count = matrix_count(m.count);
  if (!shape_is(m.shape, 8, 8, 0) || m.num_types != 1 || m.type(0) != ScalarType::B16 ||
      count == 0 || m.space(0) == ptx::StateSpace::Global || !memory_space_ok(m) ||
      !only_flags(m, {Flag::Sync, Flag::Aligned, Flag::Trans}))
    return false;
  if (d.extra_slots != kNoSlot) return d.extra_count[0] == count && d.extra_count[1] == 0;
  return count == 1 && (is_dst ? d.num_dst == 1 && !d.dst_is_pred : d.num_src == 1);
}

}  // namespace

Handler select_mma(const ptx::Instruction& inst, const DecodedInst& d) {
  const ptx::Modifiers& m = inst.mods;
  if (!m.has(Flag::Sync) || !m.has(Flag::Aligned)) return nullptr;
  const bool trans = m.has(Flag::Trans);
  switch (inst.opcode) {
    case ptx::Opcode::Mma: {
      if (d.extra_slots == kNoSlot || d.num_dst != 0 || d.num_src != 0 ||
          !only_flags(m, {Flag::Sync, Flag::Aligned, Flag::Satfinite}))
        return nullptr;
      const auto f = mma_form(m);
      if (!f || d.extra_count[0] != f->d_regs || d.extra_count[1] != f->a_regs ||
          d.extra_count[2] != f->b_regs || d.extra_count[3] != f->c_regs)
        return nullptr;
      return exec_mma;
    }
    case ptx::Opcode::Ldmatrix:
      if (!matrix_memory_form(m, d, true)) return nullptr;
      return trans ? exec_ldmatrix<true> : exec_ldmatrix<false>;
    case ptx::Opcode::Stmatrix:
      if (!matrix_memory_form(m, d, false)) return nullptr;
      return trans ? exec_stmatrix<true> : exec_stmatrix<false>;
    case ptx::Opcode::Movmatrix:
      if (!trans || !shape_is(m.shape, 8, 8, 0) || m.num_types != 1 || m.type(0) != ScalarType::B16 ||
          d.num_dst != 1 || d.dst_is_pred || d.num_src != 1 ||
          !only_flags(m, {Flag::Sync, Flag::Aligned, Flag::Trans}))
        return nullptr;
      return exec_movmatrix;
    default: return nullptr;
  }
}

}  // namespace tensor

Handler select_tensor(const ptx::Instruction& inst, const DecodedInst& d) {
  if (inst.opcode == ptx::Opcode::Wmma) return tensor::select_wmma(inst, d);
  return tensor::select_mma(inst, d);
}

}  // namespace warpsim::functional
