// Handler family: asynchronous copies, mbarriers and thread-block clusters —
// cp.async (+ commit/wait groups and cp.async.mbarrier.arrive), cp.async.bulk
// (non-tensor), mbarrier.*, barrier.cluster, mapa, getctarank.
//
// Functional model. Copies complete when they are issued: a program may only
// read the destination after waiting for the copy (wait_group, an mbarrier
// phase), and "already done" is one of the outcomes the ISA allows, so
// commit/wait groups are no-ops. Blocking waits that cannot complete yet end
// the warp's turn (Warp::yield_requested / retry_current) so the warps and
// CTAs they wait for run.
//
// mbarrier objects are 8 bytes of shared memory whose layout the ISA leaves
// opaque; warpsim's is:
//   bits  0..19  pending arrivals of the current phase
//   bits 20..39  expected arrivals per phase (the init count, less drops)
//   bits 40..61  pending transaction bytes (22-bit two's complement)
//   bit  63      parity of the current phase
// The state a plain arrive returns is the object as it was before the arrive,
// so its bit 63 names the phase the thread arrived in.
#include <bit>
#include <cstring>

#include "functional/cta.h"
#include "functional/exec.h"

namespace warpsim::functional {

namespace {

using ptx::Flag;
using ptx::Opcode;

// ---- mbarrier object -----------------------------------------------------------------

struct Mbarrier {
  uint32_t pending = 0, expected = 0;
  int32_t tx = 0;
  bool parity = false;

  static constexpr uint64_t kMask20 = (1u << 20) - 1, kMask22 = (1u << 22) - 1;
  static Mbarrier unpack(uint64_t v) {
    Mbarrier m;
    m.pending = static_cast<uint32_t>(v & kMask20);
    m.expected = static_cast<uint32_t>(v >> 20 & kMask20);
    const uint32_t tx = static_cast<uint32_t>(v >> 40 & kMask22);
    m.tx = static_cast<int32_t>(tx << 10) >> 10;  // sign-extend 22 bits
    m.parity = v >> 63 & 1;
    return m;
  }
  uint64_t pack() const {
    return (pending & kMask20) | uint64_t{expected & kMask20} << 20 |
           uint64_t{static_cast<uint32_t>(tx) & kMask22} << 40 | uint64_t{parity} << 63;
  }
  // Completes the phase when all arrivals and transactions are in.
  void settle() {
    if (pending == 0 && tx == 0) {
      parity = !parity;
      pending = expected;
    }
  }
};

// The 8-byte mbarrier object of `lane`, or null (the fault is raised).
uint8_t* mbarrier_at(Warp& w, const Address& a, const DecodedInst& inst, uint32_t lane) {
  DecodedInst probe = inst;
  probe.addr = a;
  return w.translate(a.window, w.address(probe, lane), 8, lane, AccessKind::Atomic);
}

template <typename F>
bool update_mbarrier(uint8_t* p, F&& f, uint64_t* before = nullptr) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  if (before) *before = v;
  Mbarrier m = Mbarrier::unpack(v);
  f(m);
  v = m.pack();
  std::memcpy(p, &v, 8);
  return true;
}

enum class MbarOp { Init, Arrive, ArriveDrop, ExpectTx, CompleteTx, TestWait, TryWait, PendingCount, Inval };

// mbarrier.<op> forms, executed lane by lane in lane order:
//   init [a], count;   inval [a];   expect_tx [a], tx;   complete_tx [a], tx;
//   arrive{.expect_tx} state, [a]{, count|tx};   arrive_drop ... (same operands);
//   test_wait/try_wait{.parity} p, [a], state|parity{, suspend hint};
//   pending_count count, state.
template <MbarOp kOp>
void exec_mbarrier(Warp& w, const DecodedInst& inst, LaneMask active) {
  const bool expect_tx = inst.mods->has(Flag::ExpectTx);
  const bool parity_form = inst.mods->has(Flag::Parity);
  if constexpr (kOp == MbarOp::PendingCount) {
    auto state = w.read(inst.src[0], 0);
    write_lanes(w, inst.dst[0], active, [&](uint32_t l) { return Mbarrier::unpack(state[l]).pending; });
    return;
  }
  auto v0 = w.read(inst.src[0], 0);  // count / tx / state / parity, when present
  LaneMask waits_done = 0;
  for_each_lane(active, [&](uint32_t l) {
    if (w.faulted()) return;
    uint8_t* p = mbarrier_at(w, inst.addr, inst, l);
    if (!p) return;
    const uint32_t n = inst.num_src > 0 ? static_cast<uint32_t>(v0[l]) : 1;
    uint64_t before = 0;
    switch (kOp) {
      case MbarOp::Init: {
        Mbarrier m;
        m.pending = m.expected = n;
        const uint64_t v = m.pack();
        std::memcpy(p, &v, 8);
        break;
      }
      case MbarOp::Inval: std::memset(p, 0, 8); break;
      case MbarOp::ExpectTx: update_mbarrier(p, [&](Mbarrier& m) { m.tx += static_cast<int32_t>(n); }); break;
      case MbarOp::CompleteTx:
        update_mbarrier(p, [&](Mbarrier& m) { m.tx -= static_cast<int32_t>(n); m.settle(); });
        break;
      case MbarOp::Arrive:
      case MbarOp::ArriveDrop:
        update_mbarrier(
            p,
            [&](Mbarrier& m) {
              // arrive.expect_tx's operand is a byte count; arrive's an arrival count.
              const uint32_t count = expect_tx ? 1 : n;
              if (expect_tx) m.tx += static_cast<int32_t>(n);
              if (kOp == MbarOp::ArriveDrop) m.expected -= std::min(m.expected, count);
              m.pending -= std::min(m.pending, count);
              m.settle();
            },
            &before);
        if (inst.num_dst > 0 && inst.dst[0] != kNoSlot) w.reg(inst.dst[0])[l] = before;
        break;
      case MbarOp::TestWait:
      case MbarOp::TryWait: {
        uint64_t v;
        std::memcpy(&v, p, 8);
        const bool current = Mbarrier::unpack(v).parity;
        // The phase named by the state token (its parity bit) or by the parity
        // operand has completed when the current phase's parity differs.
        const bool named = parity_form ? (v0[l] & 1) : (v0[l] >> 63 & 1);
        if (current != named) waits_done |= LaneMask{1} << l;
        break;
      }
      case MbarOp::PendingCount: break;
    }
  });
  if constexpr (kOp == MbarOp::TestWait || kOp == MbarOp::TryWait) {
    w.write_pred(inst.dst[0], active, waits_done);
    if (waits_done != active) w.yield_requested = true;  // let the others arrive
  }
}

// cp.async.mbarrier.arrive{.noinc}.shared.b64 [a]: arrives when every earlier
// cp.async of the thread is complete — already the case here. Without .noinc
// the pending count is first raised by one, so the net effect is nil.
void exec_cp_async_mbarrier_arrive(Warp& w, const DecodedInst& inst, LaneMask active) {
  if (!inst.mods->has(Flag::Noinc)) return;
  for_each_lane(active, [&](uint32_t l) {
    if (w.faulted()) return;
    if (uint8_t* p = mbarrier_at(w, inst.addr, inst, l))
      update_mbarrier(p, [](Mbarrier& m) {
        m.pending -= std::min<uint32_t>(m.pending, 1);
        m.settle();
      });
  });
}

// ---- copies ------------------------------------------------------------------------------

// Copies `size` bytes from src to dst for one lane through the executor's
// address checks; bytes past `valid` are zeros (cp.async src-size).
bool copy_lane(Warp& w, uint32_t lane, const Address& dst, const Address& src, const DecodedInst& inst,
               uint32_t size, uint32_t valid) {
  DecodedInst probe = inst;
  probe.addr = src;
  const uint64_t s = w.address(probe, lane);
  probe.addr = dst;
  const uint64_t d = w.address(probe, lane);
  uint8_t buf[16];
  for (uint32_t done = 0; done < size; done += 16) {
    const uint32_t chunk = std::min<uint32_t>(16, size - done);
    std::memset(buf, 0, sizeof buf);
    if (done < valid) {
      const uint32_t n = std::min(chunk, valid - done);
      const uint8_t* from = w.translate(src.window, s + done, n, lane, AccessKind::Read);
      if (!from) return false;
      std::memcpy(buf, from, n);
    }
    uint8_t* to = w.translate(dst.window, d + done, chunk, lane, AccessKind::Write);
    if (!to) return false;
    std::memcpy(to, buf, chunk);
  }
  return true;
}

// cp.async.{ca,cg}.shared.global [dst], [src], cp-size{, src-size | , ignore-src}.
void exec_cp_async(Warp& w, const DecodedInst& inst, LaneMask active) {
  const Program& prog = *w.launch().program;
  const Address& src = prog.addresses[inst.more_addrs];
  auto size = w.read(inst.src[0], 0);
  const bool has_src_size = inst.num_src > 1 && inst.src[1].kind != Src::Pred;
  const bool has_ignore = inst.num_src > 1 && inst.src[1].kind == Src::Pred;
  auto src_size = w.read(inst.src[has_src_size ? 1 : 0], 1);
  const LaneMask ignore = has_ignore ? w.read_pred(inst.src[1]) : 0;
  for_each_lane(active, [&](uint32_t l) {
    if (w.faulted()) return;
    const uint32_t n = static_cast<uint32_t>(size[l]);
    uint32_t valid = has_src_size ? static_cast<uint32_t>(std::min<uint64_t>(src_size[l], n)) : n;
    if (ignore >> l & 1) valid = 0;  // ignore-src: the destination is zero-filled
    copy_lane(w, l, inst.addr, src, inst, n, valid);
  });
}

// cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [dst], [src], size, [mbar]
// and cp.async.bulk.global.shared::cta.bulk_group [dst], [src], size.
void exec_cp_async_bulk(Warp& w, const DecodedInst& inst, LaneMask active) {
  const Program& prog = *w.launch().program;
  const Address& src = prog.addresses[inst.more_addrs];
  const bool has_mbar = inst.mods->has(Flag::MbarrierCompleteTxBytes);
  auto size = w.read(inst.src[0], 0);
  for_each_lane(active, [&](uint32_t l) {
    if (w.faulted()) return;
    const uint32_t n = static_cast<uint32_t>(size[l]);
    if (!copy_lane(w, l, inst.addr, src, inst, n, n) || !has_mbar) return;
    if (uint8_t* p = mbarrier_at(w, prog.addresses[inst.more_addrs + 1], inst, l)) {
      if (w.deferred_tx != nullptr) w.deferred_tx->push_back({p, n});
      else complete_mbarrier_tx(p, n);
    }
  });
}

void exec_nop(Warp&, const DecodedInst&, LaneMask) {}

// ---- clusters ----------------------------------------------------------------------------

// barrier.cluster.arrive: the warp's active threads arrive in the current phase.
void exec_cluster_arrive(Warp& w, const DecodedInst&, LaneMask active) {
  Cluster& c = w.cta().cluster();
  w.cluster_barrier_phase = c.barrier_phase;
  c.barrier_arrived += static_cast<uint32_t>(std::popcount(active));
  c.try_complete_barrier();
}

// barrier.cluster.wait: until the phase the warp arrived in completes.
void exec_cluster_wait(Warp& w, const DecodedInst&, LaneMask) {
  Cluster& c = w.cta().cluster();
  if (c.barrier_phase == w.cluster_barrier_phase) c.try_complete_barrier();  // threads may have exited
  if (c.barrier_phase == w.cluster_barrier_phase) w.retry_current();
}

// mapa{.shared::cluster}.{u32,u64} d, a, rank: the address of the variable at
// `a` in the shared memory of CTA `rank` of the cluster.
void exec_mapa(Warp& w, const DecodedInst& inst, LaneMask active) {
  const bool generic = inst.mods->space(0) == ptx::StateSpace::None;
  auto a = w.read(inst.src[0], 0);
  auto rank = w.read(inst.src[1], 1);
  write_lanes(w, inst.dst[0], active, [&](uint32_t l) -> uint64_t {
    const uint64_t off = (generic ? a[l] - kSharedWindow : a[l]) % kClusterSharedStride;
    const uint64_t mapped = (static_cast<uint32_t>(rank[l]) + 1) * kClusterSharedStride + off;
    return generic ? kSharedWindow + mapped : truncate(mapped, ptx::type_bits(inst.type));
  });
}

// getctarank{.shared::cluster}.{u32,u64} d, a: the rank of the CTA whose
// shared memory holds `a`.
void exec_getctarank(Warp& w, const DecodedInst& inst, LaneMask active) {
  const bool generic = inst.mods->space(0) == ptx::StateSpace::None;
  auto a = w.read(inst.src[0], 0);
  const uint32_t own = w.cta().cluster_rank();
  write_lanes(w, inst.dst[0], active, [&](uint32_t l) -> uint64_t {
    const uint64_t off = generic ? a[l] - kSharedWindow : a[l];
    return off >= kClusterSharedStride ? off / kClusterSharedStride - 1 : own;
  });
}

Handler select_mbarrier(const ptx::Instruction& inst, const DecodedInst& d) {
  const ptx::Modifiers& m = inst.mods;
  const bool has_addr = d.addr.base.kind != Src::None || d.addr.offset != 0;
  if (m.has(Flag::Init)) return has_addr && d.num_src == 1 ? exec_mbarrier<MbarOp::Init> : nullptr;
  if (m.has(Flag::Inval)) return exec_mbarrier<MbarOp::Inval>;
  if (m.has(Flag::PendingCount)) return d.num_src == 1 ? exec_mbarrier<MbarOp::PendingCount> : nullptr;
  if (m.has(Flag::TestWait)) return d.dst_is_pred && d.num_src >= 1 ? exec_mbarrier<MbarOp::TestWait> : nullptr;
  if (m.has(Flag::TryWait)) return d.dst_is_pred && d.num_src >= 1 ? exec_mbarrier<MbarOp::TryWait> : nullptr;
  if (m.has(Flag::ArriveDrop)) return exec_mbarrier<MbarOp::ArriveDrop>;
  if (m.has(Flag::Arrive)) return exec_mbarrier<MbarOp::Arrive>;
  if (m.has(Flag::ExpectTx)) return d.num_src == 1 ? exec_mbarrier<MbarOp::ExpectTx> : nullptr;
  if (m.has(Flag::CompleteTx)) return d.num_src == 1 ? exec_mbarrier<MbarOp::CompleteTx> : nullptr;
  return nullptr;
}

Handler select_cp(const ptx::Instruction& inst, const DecodedInst& d) {
  const ptx::Modifiers& m = inst.mods;
  if (!m.has(Flag::Async)) return nullptr;
  if (m.has(Flag::CommitGroup) || m.has(Flag::WaitGroup) || m.has(Flag::WaitAll)) return exec_nop;
  if (m.has(Flag::MbarrierFlag) && m.has(Flag::Arrive)) return exec_cp_async_mbarrier_arrive;
  if (m.has(Flag::Tensor) || m.has(Flag::MulticastCluster)) return nullptr;
  if (m.has(Flag::Bulk)) {
    if (d.more_addrs == kNoSlot || d.num_src != 1) return nullptr;
    return exec_cp_async_bulk;
  }
  if (d.more_addrs == kNoSlot || d.num_src < 1 || d.num_src > 3) return nullptr;
  return exec_cp_async;
}

}  // namespace

void complete_mbarrier_tx(uint8_t* mbarrier, uint32_t bytes) {
  update_mbarrier(mbarrier, [&](Mbarrier& m) {
    m.tx -= static_cast<int32_t>(bytes);
    m.settle();
  });
}

Handler select_async(const ptx::Instruction& inst, const DecodedInst& d) {
  switch (inst.opcode) {
    case Opcode::Mbarrier: return select_mbarrier(inst, d);
    case Opcode::Cp: return select_cp(inst, d);
    case Opcode::Barrier:
      if (inst.mods.scope != ptx::Scope::Cluster) return nullptr;
      if (inst.mods.has(Flag::Arrive)) return exec_cluster_arrive;
      if (inst.mods.has(Flag::Wait)) return exec_cluster_wait;
      return nullptr;
    case Opcode::Mapa: return d.num_src == 2 && d.num_dst == 1 ? exec_mapa : nullptr;
    case Opcode::Getctarank: return d.num_src == 1 && d.num_dst == 1 ? exec_getctarank : nullptr;
    default: return nullptr;
  }
}

}  // namespace warpsim::functional
