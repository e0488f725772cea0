// Memory handlers: ld/ldu/st in every state space (vector widths included),
// cvta and isspacep, and atom/red executed lane by lane in lane order, so
// results are deterministic.
#include <fmt/format.h>

#include <atomic>
#include <cmath>

#include "functional/cta.h"
#include "functional/exec.h"
#include "functional/fp/fp.h"

namespace warpsim::functional {

namespace {

using ptx::Opcode;
using ptx::Operation;
using ptx::ScalarType;

// Loaded values are sign-extended for signed types (PTX: ld.s8 into a wider
// register sign-extends), zero-extended otherwise.
uint64_t widen(uint64_t raw, uint32_t bytes, bool is_signed) {
  return is_signed ? static_cast<uint64_t>(sign_extend(raw, bytes * 8)) : raw;
}

void exec_ld(Warp& w, const DecodedInst& inst, LaneMask active) {
  const uint32_t size = inst.access_size;
  const uint32_t lanes = inst.lanes;
  const bool is_signed = ptx::is_signed(inst.type);
  for_each_lane(active, [&](uint32_t l) {
    uint64_t addr = w.address(inst, l);
    uint8_t* p = w.translate(inst.addr.window, addr, size * lanes, l, AccessKind::Read);
    if (!p) return;
    for (uint32_t e = 0; e < lanes && e < inst.num_dst; ++e) {
      if (inst.dst[e] == kNoSlot) continue;
      uint64_t v = 0;
      std::memcpy(&v, p + e * size, size);
      w.reg(inst.dst[e])[l] = widen(v, size, is_signed);
    }
  });
}

// Scalar ld/st of kSize bytes: the common case, with the size known at
// compile time and an inline path for shared memory of this CTA (no cluster
// peer, in bounds, aligned); anything else goes through Warp::translate,
// which also reports faults.
template <uint32_t kSize>
inline uint8_t* scalar_pointer(Warp& w, const DecodedInst& inst, uint8_t* shared, uint64_t shared_size,
                               uint32_t l, AccessKind kind) {
  const uint64_t addr = w.address(inst, l);
  if (shared && addr < shared_size && addr + kSize <= shared_size && addr % kSize == 0) [[likely]]
    return shared + addr;
  return w.translate(inst.addr.window, addr, kSize, l, kind);
}

template <uint32_t kSize, bool kSigned>
void exec_ld_scalar(Warp& w, const DecodedInst& inst, LaneMask active) {
  const bool is_shared = inst.addr.window == Window::Shared;
  // The timing model records every access: no inline shortcut then.
  uint8_t* shared = is_shared && w.access_trace == nullptr ? w.cta().shared() : nullptr;
  const uint64_t shared_size = is_shared ? w.cta().shared_size() : 0;
  uint64_t* d = inst.dst[0] == kNoSlot ? nullptr : w.reg(inst.dst[0]);
  for_each_lane(active, [&](uint32_t l) {
    const uint8_t* p = scalar_pointer<kSize>(w, inst, shared, shared_size, l, AccessKind::Read);
    if (!p) return;
    uint64_t v = 0;
    std::memcpy(&v, p, kSize);
    if (d) d[l] = kSigned ? static_cast<uint64_t>(sign_extend(v, kSize * 8)) : v;
  });
}

template <uint32_t kSize>
void exec_st_scalar(Warp& w, const DecodedInst& inst, LaneMask active) {
  const bool is_shared = inst.addr.window == Window::Shared;
  // The timing model records every access: no inline shortcut then.
  uint8_t* shared = is_shared && w.access_trace == nullptr ? w.cta().shared() : nullptr;
  const uint64_t shared_size = is_shared ? w.cta().shared_size() : 0;
  auto src = w.read(inst.src[0], 0);
  for_each_lane(active, [&](uint32_t l) {
    uint8_t* p = scalar_pointer<kSize>(w, inst, shared, shared_size, l, AccessKind::Write);
    if (!p) return;
    const uint64_t v = src[l];
    std::memcpy(p, &v, kSize);
  });
}

template <bool kSigned>
Handler ld_scalar(uint32_t size) {
  switch (size) {
    case 1: return exec_ld_scalar<1, kSigned>;
    case 2: return exec_ld_scalar<2, kSigned>;
    case 4: return exec_ld_scalar<4, kSigned>;
    case 8: return exec_ld_scalar<8, kSigned>;
    default: return nullptr;
  }
}

Handler st_scalar(uint32_t size) {
  switch (size) {
    case 1: return exec_st_scalar<1>;
    case 2: return exec_st_scalar<2>;
    case 4: return exec_st_scalar<4>;
    case 8: return exec_st_scalar<8>;
    default: return nullptr;
  }
}

void exec_st(Warp& w, const DecodedInst& inst, LaneMask active) {
  const uint32_t size = inst.access_size;
  const uint32_t lanes = inst.lanes;
  for_each_lane(active, [&](uint32_t l) {
    uint64_t addr = w.address(inst, l);
    uint8_t* p = w.translate(inst.addr.window, addr, size * lanes, l, AccessKind::Write);
    if (!p) return;
    for (uint32_t e = 0; e < lanes && e < inst.num_src; ++e) {
      uint64_t v = w.read(inst.src[e], e)[l];
      std::memcpy(p + e * size, &v, size);
    }
  });
}

// cvta.space d, a (space -> generic) and cvta.to.space d, a (generic -> space).
template <bool kToSpace>
void exec_cvta(Warp& w, const DecodedInst& inst, LaneMask active) {
  uint64_t window = 0;
  switch (inst.mods->space(0)) {
    case ptx::StateSpace::Shared:
    case ptx::StateSpace::SharedCta:
    case ptx::StateSpace::SharedCluster: window = kSharedWindow; break;
    case ptx::StateSpace::Local: window = kLocalWindow; break;
    default: window = 0; break;  // global and const addresses are generic already
  }
  auto a = w.read(inst.src[0], 0);
  uint32_t bits = ptx::type_bits(inst.type);
  write_lanes(w, inst.dst[0], active, [&](uint32_t l) {
    uint64_t v = kToSpace ? a[l] - window : a[l] + window;
    return truncate(v, bits);
  });
}

void exec_isspacep(Warp& w, const DecodedInst& inst, LaneMask active) {
  auto a = w.read(inst.src[0], 0);
  LaneMask result = 0;
  ptx::StateSpace s = inst.mods->space(0);
  for_each_lane(active, [&](uint32_t l) {
    uint64_t g = a[l];
    bool shared = g - kSharedWindow < kSharedWindowSize;
    bool local = g - kLocalWindow < kLocalWindowSize;
    bool in = false;
    switch (s) {
      case ptx::StateSpace::Shared:
      case ptx::StateSpace::SharedCta:
      case ptx::StateSpace::SharedCluster: in = shared; break;
      case ptx::StateSpace::Local: in = local; break;
      case ptx::StateSpace::Global: in = !shared && !local; break;
      case ptx::StateSpace::Const: {
        auto alloc = w.launch().memory->find_allocation(g);
        in = alloc && alloc->live && alloc->kind == AllocationKind::Const && g >= alloc->start &&
             g < alloc->start + alloc->size;
        break;
      }
      default: in = false; break;
    }
    if (in) result |= 1u << l;
  });
  w.write_pred(inst.dst[0], active, result);
}

// ---- atomics -------------------------------------------------------------------------

// One atomic operation on `old` with operands b (and c for cas); returns the
// new memory value.
uint64_t atomic_apply(Operation op, ScalarType t, uint64_t old, uint64_t b, uint64_t c) {
  uint32_t bits = ptx::type_bits(t);
  bool sgn = ptx::is_signed(t);
  switch (op) {
    case Operation::Add:
      switch (t) {
        // atom.add.f32 rounds to nearest and flushes subnormal inputs and results.
        case ScalarType::F32:
          return fp::add_f32(static_cast<uint32_t>(old), static_cast<uint32_t>(b), ptx::Rounding::Rn, true);
        case ScalarType::F64: return fp::add_f64(old, b);
        // The 16-bit forms are .noftz: subnormals are kept.
        case ScalarType::F16: return fp::add_f16(uint16_t(old), uint16_t(b));
        case ScalarType::BF16: return fp::add_bf16(uint16_t(old), uint16_t(b));
        case ScalarType::F16x2:
          return fp::add_f16(uint16_t(old), uint16_t(b)) |
                 uint64_t{fp::add_f16(uint16_t(old >> 16), uint16_t(b >> 16))} << 16;
        case ScalarType::BF16x2:
          return fp::add_bf16(uint16_t(old), uint16_t(b)) |
                 uint64_t{fp::add_bf16(uint16_t(old >> 16), uint16_t(b >> 16))} << 16;
        default: break;
      }
      return truncate(old + b, bits);
    case Operation::Min:
      return sgn ? (sign_extend(b, bits) < sign_extend(old, bits) ? b : old)
                 : (truncate(b, bits) < truncate(old, bits) ? b : old);
    case Operation::Max:
      return sgn ? (sign_extend(b, bits) > sign_extend(old, bits) ? b : old)
                 : (truncate(b, bits) > truncate(old, bits) ? b : old);
    case Operation::Inc: return truncate(old, bits) >= truncate(b, bits) ? 0 : truncate(old + 1, bits);
    case Operation::Dec:
      return (truncate(old, bits) == 0 || truncate(old, bits) > truncate(b, bits))
                 ? truncate(b, bits)
                 : truncate(old - 1, bits);
    case Operation::And: return old & b;
    case Operation::Or: return old | b;
    case Operation::Xor: return old ^ b;
    case Operation::Exch: return b;
    case Operation::Cas: return truncate(old, bits) == truncate(b, bits) ? c : old;
    default: return old;
  }
}

// Read-modify-write of the `size`-byte value at p as one host atomic
// operation (a compare-and-swap loop); returns the old value.
template <typename T, typename F>
uint64_t atomic_update_as(uint8_t* p, F&& update) {
  std::atomic_ref<T> ref(*reinterpret_cast<T*>(p));
  T old = ref.load(std::memory_order_relaxed);
  while (!ref.compare_exchange_weak(old, static_cast<T>(update(old)), std::memory_order_seq_cst,
                                    std::memory_order_relaxed)) {
  }
  return old;
}
template <typename F>
uint64_t atomic_update(uint8_t* p, uint32_t size, F&& update) {
  switch (size) {
    case 2: return atomic_update_as<uint16_t>(p, update);
    case 4: return atomic_update_as<uint32_t>(p, update);
    default: return atomic_update_as<uint64_t>(p, update);
  }
}

template <bool kReturnsOld>
void exec_atomic(Warp& w, const DecodedInst& inst, LaneMask active) {
  const uint32_t size = inst.access_size;
  const Operation op = inst.mods->op;
  auto b = w.read(inst.src[0], 0);
  auto c = w.read(inst.num_src > 1 ? inst.src[1] : inst.src[0], 1);
  // Other host threads may run CTAs at the same time (parallel grid executor):
  // then global updates must be real host atomics. Shared memory is per CTA.
  const bool concurrent = w.launch().concurrent;
  // Lane order is the serialisation order: deterministic, as the design asks.
  for (uint32_t l = 0; l < kWarpSize; ++l) {
    if (!(active >> l & 1)) continue;
    uint64_t addr = w.address(inst, l);
    uint8_t* p = w.translate(inst.addr.window, addr, size, l, AccessKind::Atomic);
    if (!p) return;
    uint64_t old = 0;
    if (concurrent && inst.addr.window != Window::Shared) {
      old = atomic_update(p, size, [&](uint64_t x) { return atomic_apply(op, inst.type, x, b[l], c[l]); });
    } else {
      std::memcpy(&old, p, size);
      uint64_t v = atomic_apply(op, inst.type, old, b[l], c[l]);
      std::memcpy(p, &v, size);
    }
    if (kReturnsOld && inst.dst[0] != kNoSlot) w.reg(inst.dst[0])[l] = old;
  }
}

bool atomic_supported(const ptx::Instruction& inst) {
  ScalarType t = inst.mods.type(0);
  if (inst.mods.vec != ptx::VectorWidth::None || inst.mods.num_types != 1) return false;
  if (t == ScalarType::B128) return false;
  const bool half = t == ScalarType::F16 || t == ScalarType::F16x2 || t == ScalarType::BF16 ||
                    t == ScalarType::BF16x2;
  // 16-bit float atomics exist only as add (.noftz); f32/f64 as add and exch.
  if (half && inst.mods.op != Operation::Add) return false;
  if (ptx::is_float(t) && inst.mods.op != Operation::Add && inst.mods.op != Operation::Exch)
    return false;
  return inst.mods.op != Operation::None;
}

}  // namespace

Handler select_memory(const ptx::Instruction& inst, const DecodedInst& d) {
  switch (inst.opcode) {
    case Opcode::Ld:
    case Opcode::Ldu:
      if (d.access_size == 0 || d.access_size > 16 || d.num_dst != d.lanes) return nullptr;
      if (d.lanes == 1) {
        Handler h = ptx::is_signed(d.type) ? ld_scalar<true>(d.access_size) : ld_scalar<false>(d.access_size);
        if (h) return h;
      }
      return exec_ld;
    case Opcode::St:
      if (d.access_size == 0 || d.access_size > 16 || d.num_src < d.lanes) return nullptr;
      if (d.lanes == 1)
        if (Handler h = st_scalar(d.access_size)) return h;
      return exec_st;
    case Opcode::Cvta:
      if (d.num_dst != 1 || d.num_src != 1) return nullptr;
      return inst.mods.has(ptx::Flag::To) ? exec_cvta<true> : exec_cvta<false>;
    case Opcode::Isspacep: return d.dst_is_pred ? exec_isspacep : nullptr;
    case Opcode::Atom:
      if (!atomic_supported(inst) || d.num_dst != 1) return nullptr;
      return exec_atomic<true>;
    case Opcode::Red:
      if (!atomic_supported(inst)) return nullptr;
      return exec_atomic<false>;
    default: return nullptr;
  }
}

}  // namespace warpsim::functional
