// Tensor-core handlers, part 1: wmma.load.{a,b,c}, wmma.store.d and wmma.mma
// for the shapes and types nvcc's <mma.h> emits (m16n16k16, m32n8k16,
// m8n32k16 with f16, bf16, s8/u8 inputs; m16n16k8 tf32; m8n8k4 f64).
//
// The PTX ISA leaves wmma fragment layouts unspecified; warpsim's layout
// (docs/functional-tensor.md): a lane holding E elements of an R x C matrix
// holds, as its element i (register i / per_reg, low bits first), the
// logical element number (lane * E + i) mod (R * C) in row-major order —
// the same for every memory layout, so wmma.mma ignores its .alayout /
// .blayout (they only have to match the loads, which is the program's
// promise). Where E * 32 > R * C (f16 A/B fragments are always 8 registers)
// each element is held by several lanes. fill_fragment and element-wise
// operations on x[i] work with any consistent layout.
#include "functional/exec_tensor.h"

namespace warpsim::functional::tensor {

namespace {

using ptx::Flag;
using ptx::MatrixShape;
using ptx::ScalarType;

enum class Which : uint8_t { A, B, C, D };

// One wmma operand: the matrix (rows x cols), its element encoding and its
// fragment size in registers.
struct WmmaOperand {
  uint32_t rows = 0, cols = 0;
  Elem elem = Elem::F16;
  uint32_t regs = 0;
  uint32_t per_lane() const { return regs * per_reg(elem); }
};

std::optional<WmmaOperand> wmma_operand(const MatrixShape& s, Which which, ScalarType type) {
  const auto e = elem_of(type);
  if (!e) return std::nullopt;
  const bool ab = which == Which::A || which == Which::B;
  const bool k16 = shape_is(s, 16, 16, 16) || shape_is(s, 32, 8, 16) || shape_is(s, 8, 32, 16);
  bool ok = false;
  switch (*e) {
    case Elem::F16: ok = k16; break;
    case Elem::BF16:
    case Elem::S8:
    case Elem::U8: ok = k16 && ab; break;
    case Elem::S32: ok = k16 && !ab; break;
    case Elem::F32: ok = (k16 || shape_is(s, 16, 16, 8)) && !ab; break;
    case Elem::TF32: ok = shape_is(s, 16, 16, 8) && ab; break;
    case Elem::F64: ok = shape_is(s, 8, 8, 4); break;
  }
  if (!ok) return std::nullopt;
  WmmaOperand o;
  o.rows = which == Which::B ? s.k : s.m;
  o.cols = which == Which::A ? s.k : s.n;
  o.elem = *e;
  // nvcc's fragment sizes: f16 A/B fragments are 8 registers (16 halves)
  // for every shape; every other fragment holds rows * cols / 32 elements.
  const uint32_t per_lane = *e == Elem::F16 && ab ? 16 : o.rows * o.cols / kWarpSize;
  o.regs = per_lane / per_reg(*e);
  return o;
}

// warpsim's wmma fragment layout (see the top of the file).
auto linear_layout(const WmmaOperand& o) {
  const uint32_t per_lane = o.per_lane(), total = o.rows * o.cols, cols = o.cols;
  return [=](uint32_t lane, uint32_t i) {
    const uint32_t idx = (lane * per_lane + i) % total;
    return RowCol{idx / cols, idx % cols};
  };
}

// ---- wmma.load / wmma.store --------------------------------------------------------

// The operand a wmma.load / wmma.store names (validated by the selector).
std::optional<WmmaOperand> memory_operand(const ptx::Modifiers& m) {
  Which which;
  if (m.has(Flag::Store)) {
    if (!m.has(Flag::D)) return std::nullopt;
    which = Which::D;
  } else if (m.has(Flag::A) + m.has(Flag::B) + m.has(Flag::C) != 1) {
    return std::nullopt;
  } else {
    which = m.has(Flag::A) ? Which::A : m.has(Flag::B) ? Which::B : Which::C;
  }
  return wmma_operand(m.shape, which, m.type(0));
}

// Memory offset, in elements, of (row, col) with the given leading dimension.
inline uint64_t offset(RowCol rc, bool row_major, uint64_t ld) {
  return row_major ? rc.row * ld + rc.col : rc.col * ld + rc.row;
}

// Calls fn(lane, i, host pointer) for element i of every lane's fragment in
// memory at [p] with the instruction's layout and stride (the optional
// src[0]; it counts elements between consecutive rows (.row) or columns
// (.col) and defaults to the leading dimension). Each lane uses its own p
// and stride (PTX requires them uniform). False when an access faulted.
template <typename F>
bool for_each_fragment_element(Warp& w, const DecodedInst& inst, const WmmaOperand& o, AccessKind kind,
                               F&& fn) {
  const bool row_major = inst.mods->layouts[0] == ptx::Layout::Row;
  const uint64_t ld_default = row_major ? o.cols : o.rows;
  const uint32_t bytes = elem_bits(o.elem) / 8;
  auto layout = linear_layout(o);
  for (uint32_t l = 0; l < kWarpSize; ++l) {
    const uint64_t base = w.address(inst, l);
    const uint64_t ld = inst.num_src ? truncate(w.read(inst.src[0], 0)[l], 32) : ld_default;
    for (uint32_t i = 0; i < o.per_lane(); ++i) {
      const uint64_t addr = base + offset(layout(l, i), row_major, ld) * bytes;
      uint8_t* p = w.translate(inst.addr.window, addr, bytes, l, kind);
      if (!p) return false;
      fn(l, i, p);
    }
  }
  return true;
}

// wmma.load.{a,b,c}.sync.aligned.layout.shape{.ss}.type r, [p]{, stride}.
void exec_wmma_load(Warp& w, const DecodedInst& inst, LaneMask active) {
  if (!whole_warp(w, active, "wmma.load")) return;
  const WmmaOperand o = *memory_operand(*inst.mods);
  const Fragment f = fragment(w, inst, 0);
  const uint32_t per = per_reg(o.elem), bits = elem_bits(o.elem), bytes = bits / 8;
  uint64_t regs[kMaxRegs][kWarpSize] = {};
  const bool ok = for_each_fragment_element(w, inst, o, AccessKind::Read, [&](uint32_t l, uint32_t i, uint8_t* p) {
    uint64_t v = 0;
    std::memcpy(&v, p, bytes);
    regs[i / per][l] |= v << (i % per * bits);
  });
  if (!ok) return;
  for (uint32_t r = 0; r < f.count; ++r)
    for (uint32_t l = 0; l < kWarpSize; ++l) write(w, f.op[r], l, regs[r][l]);
}

// wmma.store.d.sync.aligned.layout.shape{.ss}.type [p], r{, stride}.
void exec_wmma_store(Warp& w, const DecodedInst& inst, LaneMask active) {
  if (!whole_warp(w, active, "wmma.store")) return;
  const WmmaOperand o = *memory_operand(*inst.mods);
  const Fragment f = fragment(w, inst, 0);
  const uint32_t per = per_reg(o.elem), bits = elem_bits(o.elem), bytes = bits / 8;
  for_each_fragment_element(w, inst, o, AccessKind::Write, [&](uint32_t l, uint32_t i, uint8_t* p) {
    const uint64_t v = truncate(read(w, f.op[i / per], l) >> (i % per * bits), bits);
    std::memcpy(p, &v, bytes);
  });
}

// ---- wmma.mma ------------------------------------------------------------------------

struct WmmaMma {
  WmmaOperand a, b, c, d;
  Gemm gemm;
};

// wmma.mma.sync.aligned.alayout.blayout.shape.dtype.ctype (f16 inputs) or
// .shape.dtype.atype.btype.ctype{.rnd}{.satfinite} (the others).
std::optional<WmmaMma> wmma_mma_form(const ptx::Modifiers& m) {
  ScalarType dt, at, bt, ct;
  if (m.num_types == 2) {
    dt = m.types[0], ct = m.types[1], at = bt = ScalarType::F16;
  } else if (m.num_types == 4) {
    dt = m.types[0], at = m.types[1], bt = m.types[2], ct = m.types[3];
  } else {
    return std::nullopt;
  }
  auto a = wmma_operand(m.shape, Which::A, at), b = wmma_operand(m.shape, Which::B, bt);
  auto c = wmma_operand(m.shape, Which::C, ct), d = wmma_operand(m.shape, Which::D, dt);
  if (!a || !b || !c || !d) return std::nullopt;
  const bool integer = is_integer(a->elem);
  if (integer ? !is_integer(b->elem) : a->elem != b->elem) return std::nullopt;
  // Accumulators: f16 inputs take f16 or f32, integer inputs s32, f64 f64,
  // bf16 and tf32 f32.
  auto acc_ok = [&](Elem e) {
    switch (a->elem) {
      case Elem::F16: return e == Elem::F16 || e == Elem::F32;
      case Elem::F64: return e == Elem::F64;
      default: return integer ? e == Elem::S32 : e == Elem::F32;
    }
  };
  if (!acc_ok(c->elem) || !acc_ok(d->elem)) return std::nullopt;
  if (m.has(Flag::Satfinite) && !integer) return std::nullopt;  // deprecated float form
  const bool f64 = a->elem == Elem::F64;
  if (m.rounding != ptx::Rounding::None && !(f64 && m.rounding == ptx::Rounding::Rn))
    return std::nullopt;
  WmmaMma f{*a, *b, *c, *d, Gemm{}};
  f.gemm = Gemm{m.shape.m, m.shape.n, m.shape.k, a->elem, b->elem, c->elem, d->elem,
                m.has(Flag::Satfinite)};
  return f;
}

// wmma.mma: D = A * B + C over the whole warp's fragments.
void exec_wmma_mma(Warp& w, const DecodedInst& inst, LaneMask active) {
  if (!whole_warp(w, active, "wmma.mma")) return;
  const WmmaMma f = *wmma_mma_form(*inst.mods);
  double a[kMaxElems] = {}, b[kMaxElems] = {}, c[kMaxElems] = {}, d[kMaxElems] = {};
  gather(w, fragment(w, inst, 1), f.a.elem, f.a.cols, linear_layout(f.a), a);
  gather(w, fragment(w, inst, 2), f.b.elem, f.b.cols, linear_layout(f.b), b);
  gather(w, fragment(w, inst, 3), f.c.elem, f.c.cols, linear_layout(f.c), c);
  multiply_accumulate(f.gemm, a, b, c, d);
  scatter(w, fragment(w, inst, 0), f.d.elem, f.d.cols, linear_layout(f.d), d);
}

}  // namespace

Handler select_wmma(const ptx::Instruction& inst, const DecodedInst& d) {
  const ptx::Modifiers& m = inst.mods;
  if (inst.opcode != ptx::Opcode::Wmma || !m.has(Flag::Sync) || !m.has(Flag::Aligned) ||
      d.extra_slots == kNoSlot)
    return nullptr;
  if (m.has(Flag::Load) || m.has(Flag::Store)) {
    const bool load = m.has(Flag::Load);
    if (load == m.has(Flag::Store) || m.num_types != 1 || m.num_layouts != 1 ||
        !memory_space_ok(m) || d.num_src > 1 || d.num_dst != 0 || d.extra_count[1] != 0 ||
        !only_flags(m, {Flag::Sync, Flag::Aligned, Flag::Load, Flag::Store, Flag::A, Flag::B,
                        Flag::C, Flag::D}))
      return nullptr;
    const auto o = memory_operand(m);
    if (!o || d.extra_count[0] != o->regs) return nullptr;
    return load ? exec_wmma_load : exec_wmma_store;
  }
  if (!m.has(Flag::MmaFlag) || m.num_layouts != 2 || d.num_dst != 0 || d.num_src != 0 ||
      !only_flags(m, {Flag::Sync, Flag::Aligned, Flag::MmaFlag, Flag::Satfinite}))
    return nullptr;
  const auto f = wmma_mma_form(m);
  if (!f || d.extra_count[0] != f->d.regs || d.extra_count[1] != f->a.regs ||
      d.extra_count[2] != f->b.regs || d.extra_count[3] != f->c.regs)
    return nullptr;
  return exec_wmma_mma;
}

}  // namespace warpsim::functional::tensor
