// The LD/ST unit of an SM: shared memory, kernel parameters, the constant
// cache, and global/local accesses through the coalescer, the L1 data cache
// and its MSHRs to the memory below L1; replies, fills and completions.
#include <algorithm>
#include <bit>

#include "common/invariant.h"
#include "ptx/modifiers.h"
#include "timing/sm/sm.h"

namespace warpsim::timing {

using functional::AccessKind;
using functional::AccessRecord;
using functional::Window;

namespace {
// Reply tokens: a LoadOp or warp slot, with flags saying how to route it.
constexpr uint32_t kDirect = 1u << 31;    // not through a cache's MSHRs
constexpr uint32_t kStoreAck = 1u << 30;  // the value is a warp slot waiting for a store ack
constexpr uint32_t kTokenMask = kStoreAck - 1;
constexpr uint32_t kNoToken = UINT32_MAX;  // a write-back: nobody waits
// Local memory (at kLocalL1Base, lower_memory.h) is interleaved by 4-byte
// words across the lanes of a warp, so that lanes reading the same local
// offset coalesce (as the hardware lays local memory out).
}  // namespace

uint64_t Sm::l1_address(const AccessRecord& a, const WarpSlot& w) const {
  if (a.window != Window::Local) return a.address;
  return kLocalL1Base + w.local_base + (a.address / 4) * (4 * functional::kWarpSize) + a.lane * 4 +
         a.address % 4;
}

// A warp waiting for a memory event (a load's registers, a fence's stores)
// looks again at its next instruction.
void Sm::wake(WarpSlot& w, uint64_t now) {
  if (w.ready_at == kPending && w.reason != IssueSlot::Fetch) w.ready_at = now;
}

uint32_t Sm::new_load(uint32_t warp) {
  uint32_t id;
  if (!free_loads_.empty()) {
    id = free_loads_.back();
    free_loads_.pop_back();
  } else {
    id = static_cast<uint32_t>(loads_.size());
    loads_.emplace_back();
  }
  loads_[id] = LoadOp{warp, 0, true, kNotAsync};
  return id;
}

// cp.async.wait_group N issues once at most the N most recent committed
// groups have copies in flight; wait_all (commit, then wait_group 0) once no
// copy is in flight. Other cp forms never wait here.
bool Sm::async_wait_satisfied(const WarpSlot& w, const functional::DecodedInst& inst) {
  const ptx::Modifiers& mods = *inst.mods;
  if (mods.has(ptx::Flag::WaitAll)) {
    for (uint32_t n : w.async_pending)
      if (n != 0) return false;
    return true;
  }
  if (!mods.has(ptx::Flag::WaitGroup)) return true;
  // Groups before async_base have completed; the oldest kept one may have too.
  size_t first = 0;
  const size_t committed = w.async_pending.size() - 1;
  while (first < committed && w.async_pending[first] == 0) ++first;
  const uint64_t allowed = inst.src[0].kind == functional::Src::Imm ? inst.src[0].imm : 0;
  return committed - first <= allowed;
}

void Sm::async_commit(WarpSlot& w) {
  // Drop the completed groups at the front, keeping the open one.
  size_t done = 0;
  while (done + 1 < w.async_pending.size() && w.async_pending[done] == 0) ++done;
  w.async_pending.erase(w.async_pending.begin(), w.async_pending.begin() + static_cast<long>(done));
  w.async_base += static_cast<uint32_t>(done);
  w.async_pending.push_back(0);
}

void Sm::async_copy_done(WarpSlot& w, uint32_t group) {
  WARPSIM_INVARIANT(group >= w.async_base && group - w.async_base < w.async_pending.size() &&
                        w.async_pending[group - w.async_base] > 0,
                    "a cp.async completion for a group without copies in flight");
  --w.async_pending[group - w.async_base];
}

void Sm::load_part_done(uint32_t op, uint64_t now) {
  LoadOp& l = loads_[op];
  WARPSIM_INVARIANT(l.used && l.remaining > 0, "a memory reply for an operation that is not in flight");
  if (--l.remaining != 0) return;
  WarpSlot& w = warps_[l.warp];
  if (l.async_group != kNotAsync) async_copy_done(w, l.async_group);
  if (l.has_tx) {
    for (const PendingTx& p : pending_tx_)
      if (p.op == op) functional::complete_mbarrier_tx(p.tx.mbarrier, p.tx.bytes);
    std::erase_if(pending_tx_, [op](const PendingTx& p) { return p.op == op; });
  }
  for (ScoreEntry& e : w.pending)
    if (e.ready == kPending && e.load == op) e.ready = now;
  --w.loads_in_flight;
  wake(w, now);
  l.used = false;
  free_loads_.push_back(op);
  maybe_retire_ = true;
}

void Sm::send_below(MemKind kind, uint64_t line, uint32_t sectors, uint32_t bytes, uint32_t token,
                    uint64_t now, bool cache_miss, uint32_t parts) {
  MemRequest r;
  r.parts = parts;
  r.address = line;
  r.sector_mask = sectors;
  r.bytes = bytes;
  r.kind = kind;
  r.sm = id_;
  r.token = token;
  r.sent = now;
  outbox_.push_back({r, cache_miss});
}

void Sm::issue_memory(uint32_t ws, const functional::DecodedInst& inst, uint64_t now) {
  WarpSlot& w = warps_[ws];
  ldst_free_ = now + 1;
  bool has_dst = false;
  for_each_destination(inst, [&](uint32_t) { has_dst = true; });
  const ptx::Modifiers* mods = inst.mods;
  const bool constant = mods != nullptr && mods->space(0) == ptx::StateSpace::Const;
  const bool bypass_hint =
      mods != nullptr && (mods->cache == ptx::CacheOp::Cg || mods->cache == ptx::CacheOp::Cv);
  // ld.global.nc (and textures) use the read-only path, cached in L1 even
  // where ordinary global loads are not (cache_global_loads = false).
  const bool read_only = mods != nullptr && (mods->has(ptx::Flag::Nc) || inst.opcode == ptx::Opcode::Tex ||
                                             inst.opcode == ptx::Opcode::Tld4 || inst.opcode == ptx::Opcode::Ldu);
  const uint32_t op = new_load(ws);
  LoadOp& load = loads_[op];

  // Shared memory: one pass over the banks per conflict-free group. Another
  // CTA's shared memory (a cluster address of another rank) is a trip over
  // the SM-to-SM network.
  lanes_.clear();
  cluster_lanes_.clear();
  const uint64_t own_rank = uint64_t{w.warp->cta().cluster_rank()} + 1;
  for (const AccessRecord& a : trace_) {
    if (a.window != Window::Shared) continue;
    const uint64_t rank = a.address / functional::kClusterSharedStride;
    (rank == 0 || rank == own_rank ? lanes_ : cluster_lanes_)
        .push_back({a.address % functional::kClusterSharedStride, a.size, a.lane});
  }
  if (!cluster_lanes_.empty()) {
    const uint32_t cycles = shared_access_cycles(cluster_lanes_, config_.shared.banks, config_.shared.bank_width);
    ++stats_.shared_cluster_accesses;
    ldst_free_ = std::max(ldst_free_, now + cycles);
    ++load.remaining;
    completions_.push({now + config_.shared.cluster_latency + cycles - 1, op});
  }
  if (!lanes_.empty()) {
    const uint32_t cycles = shared_access_cycles(lanes_, config_.shared.banks, config_.shared.bank_width);
    ++stats_.shared_accesses;
    stats_.shared_bank_conflict_cycles += cycles - 1;
    ldst_free_ = std::max(ldst_free_, now + cycles);
    ++load.remaining;
    completions_.push({now + config_.shared.latency + cycles - 1, op});
  }
  // Kernel parameters come from the constant bank the driver fills.
  bool param = false;
  for (const AccessRecord& a : trace_) param |= a.window == Window::KernelParam;
  if (param) {
    ++stats_.param_accesses;
    ++load.remaining;
    completions_.push({now + config_.ldst.param_latency, op});
  }
  // Global and local accesses, by kind: loads, stores, atomics.
  for (AccessKind kind : {AccessKind::Read, AccessKind::Write, AccessKind::Atomic}) {
    for (bool local : {false, true}) {
      lanes_.clear();
      const Window window = local ? Window::Local : Window::Global;
      for (const AccessRecord& a : trace_)
        if (a.window == window && a.kind == kind) lanes_.push_back({l1_address(a, w), a.size, a.lane});
      if (lanes_.empty()) continue;
      CoalescerConfig cc = coalescer_;
      if (constant && kind == AccessKind::Read && !local) {
        cc.line_bytes = config_.constant.line_bytes;
        cc.sector_bytes = config_.constant.sector_bytes;
        ++stats_.constant_accesses;
        // The constant cache serves one distinct address per cycle.
        ldst_free_ = std::max(ldst_free_, now + distinct_words(lanes_, 4));
      }
      coalesce(lanes_, cc, requests_);
      for (const CoalescedRequest& r : requests_) {
        LdstRequest q;
        q.line = r.line;
        q.sectors = r.sector_mask;
        q.bytes = r.bytes;
        q.parts = r.parts;
        q.op = op;
        if (kind == AccessKind::Read) {
          if (constant && !local) q.path = Path::Constant;
          else if (local) q.path = config_.ldst.cache_local ? Path::L1Read : Path::Bypass;
          else q.path = (config_.ldst.cache_global_loads || read_only) && !bypass_hint ? Path::L1Read : Path::Bypass;
          ++load.remaining;
          if (local) ++stats_.local_requests;
          else if (!constant) ++stats_.global_load_requests;
        } else if (kind == AccessKind::Write) {
          q.path = local && !config_.ldst.cache_local ? Path::StoreThrough : Path::L1Write;
          q.op = ws;
          if (local) ++stats_.local_requests;
          else ++stats_.global_store_requests;
        } else {
          q.path = Path::Atomic;
          ++load.remaining;
          ++stats_.atomic_requests;
        }
        ldst_queue_.push_back(q);
      }
    }
  }
  if (inst.opcode == ptx::Opcode::Cp && mods->has(ptx::Flag::CommitGroup)) async_commit(w);
  // A cp.async copy belongs to the group not yet committed (the bulk forms
  // complete through their mbarrier or bulk groups, not these).
  const bool async_copy = inst.opcode == ptx::Opcode::Cp && mods->has(ptx::Flag::Async) &&
                          !mods->has(ptx::Flag::Bulk) && !mods->has(ptx::Flag::CommitGroup) &&
                          !mods->has(ptx::Flag::WaitGroup) && !mods->has(ptx::Flag::WaitAll) &&
                          !mods->has(ptx::Flag::Arrive);  // cp.async.mbarrier.arrive
  if (async_copy && load.remaining != 0) {
    load.async_group = w.async_base + static_cast<uint32_t>(w.async_pending.size()) - 1;
    ++w.async_pending.back();
  }
  // A bulk copy completes its mbarrier transactions when its traffic is done.
  if (!deferred_tx_.empty()) {
    for (const functional::DeferredTx& tx : deferred_tx_) {
      if (load.remaining == 0) functional::complete_mbarrier_tx(tx.mbarrier, tx.bytes);
      else pending_tx_.push_back({op, tx});
    }
    load.has_tx = load.remaining != 0;
    deferred_tx_.clear();
  }
  if (load.remaining == 0) {
    // Nothing to wait for (no active lane, a prefetch, or stores only).
    load.used = false;
    free_loads_.push_back(op);
    for_each_destination(inst, [&](uint32_t reg) { add_pending(w, reg, now + 1, 0); });
    return;
  }
  ++w.loads_in_flight;
  if (has_dst) for_each_destination(inst, [&](uint32_t reg) { add_pending(w, reg, kPending, op); });
}

bool Sm::ldst_step(uint64_t now) {
  if (ldst_head_ >= ldst_queue_.size()) return false;
  const LdstRequest& q = ldst_queue_[ldst_head_];
  auto writeback = [&](const std::optional<uint64_t>& line, uint32_t sectors, uint32_t sector_bytes) {
    if (line)
      send_below(MemKind::Store, *line, sectors, std::popcount(sectors) * sector_bytes, kNoToken, now,
                 false);
  };
  switch (q.path) {
    case Path::L1Read:
    case Path::Constant: {
      SectoredCache& cache = q.path == Path::L1Read ? l1d_ : const_;
      const ReadResult r = cache.read(q.line, q.sectors, q.op);
      if (r.outcome == ReadOutcome::ReservationFail) {
        ++stats_.ldst_reservation_stall_cycles;
        ldst_blocked_ = true;
        return false;  // retried when the SM next runs; the LD/ST unit stays busy
      }
      if (r.outcome == ReadOutcome::Hit) completions_.push({now + cache.config().hit_latency, q.op});
      if (r.fetch_sectors != 0)
        send_below(q.path == Path::L1Read ? MemKind::Load : MemKind::Constant, q.line, r.fetch_sectors,
                   std::popcount(r.fetch_sectors) * cache.config().sector_bytes, q.op, now, true, q.parts);
      writeback(r.writeback_line, r.writeback_sectors, cache.config().sector_bytes);
      break;
    }
    case Path::L1Write: {
      const WriteResult r = l1d_.write(q.line, q.sectors);
      if (r.forward) {
        ++warps_[q.op].stores_in_flight;
        send_below(MemKind::Store, q.line, q.sectors, q.bytes, q.op | kStoreAck, now, false);
      }
      writeback(r.writeback_line, r.writeback_sectors, config_.l1d.sector_bytes);
      break;
    }
    case Path::StoreThrough:
      ++warps_[q.op].stores_in_flight;
      send_below(MemKind::Store, q.line, q.sectors, q.bytes, q.op | kStoreAck, now, false);
      break;
    case Path::Bypass:
      send_below(MemKind::Load, q.line, q.sectors, q.bytes, q.op | kDirect, now, false, q.parts);
      break;
    case Path::Atomic:
      send_below(MemKind::Atomic, q.line, q.sectors, q.bytes, q.op | kDirect, now, false);
      break;
  }
  ldst_blocked_ = false;
  if (++ldst_head_ == ldst_queue_.size()) {
    ldst_queue_.clear();
    ldst_head_ = 0;
    for (uint32_t ws : ldst_waiters_)
      if (warps_[ws].ready_at == kLdstWait) warps_[ws].ready_at = now;
    ldst_waiters_.clear();
  }
  return true;
}

bool Sm::drain_outbox(uint64_t now) {
  bool sent = false;
  while (outbox_head_ < outbox_.size() && memory_.can_accept(id_)) {
    const Outgoing& o = outbox_[outbox_head_++];
    memory_.send(o.request, now);
    ++in_flight_;
    ++stats_.memory_requests;
    stats_.memory_bytes += o.request.bytes;
    if (o.cache_miss) {
      switch (o.request.kind) {
        case MemKind::Instruction: l1i_.miss_sent(); break;
        case MemKind::Constant: const_.miss_sent(); break;
        default: l1d_.miss_sent(); break;
      }
    }
    sent = true;
  }
  if (outbox_head_ == outbox_.size()) {
    outbox_.clear();
    outbox_head_ = 0;
  }
  if (sent) ldst_blocked_ = false;  // a miss-queue place may have freed
  return sent;
}

bool Sm::receive_replies(uint64_t now) {
  bool any = false;
  MemRequest r;
  while (memory_.receive(id_, now, r)) {
    any = true;
    ldst_blocked_ = false;  // a fill frees MSHRs and lines
    --in_flight_;
    filled_.clear();
    switch (r.kind) {
      case MemKind::Instruction:
        (void)l1i_.fill(r.address, r.sector_mask, filled_);
        for (uint32_t ws : filled_) {
          WarpSlot& w = warps_[ws];
          if (!w.fetching) continue;
          w.fetching = false;
          w.ibuf_ready = now + config_.sm.decode_latency;
          w.ready_at = w.ibuf_ready;
        }
        break;
      case MemKind::Constant:
        (void)const_.fill(r.address, r.sector_mask, filled_);
        for (uint32_t op : filled_) load_part_done(op, now);
        break;
      case MemKind::Load:
        if (r.token & kDirect) {
          load_part_done(r.token & kTokenMask, now);
        } else {
          const ReadResult wb = l1d_.fill(r.address, r.sector_mask, filled_);
          for (uint32_t op : filled_) load_part_done(op, now);
          if (wb.writeback_line)
            send_below(MemKind::Store, *wb.writeback_line, wb.writeback_sectors,
                       std::popcount(wb.writeback_sectors) * config_.l1d.sector_bytes, kNoToken, now,
                       false);
        }
        break;
      case MemKind::Atomic: load_part_done(r.token & kTokenMask, now); break;
      case MemKind::Store:
        if (r.token != kNoToken) {
          WarpSlot& w = warps_[r.token & kTokenMask];
          --w.stores_in_flight;
          wake(w, now);
          maybe_retire_ = true;
        }
        break;
    }
  }
  return any;
}

bool Sm::complete_due(uint64_t now) {
  bool any = false;
  while (!completions_.empty() && completions_.top().ready <= now) {
    const uint32_t op = completions_.top().op;
    completions_.pop();
    load_part_done(op, now);
    any = true;
  }
  return any;
}

}  // namespace warpsim::timing
