// L2Slice: one access and one fill per L2 cycle, outputs checked before
// anything changes so a blocked step leaves the slice untouched.
#include "timing/memory/l2_slice.h"

#include <algorithm>
#include <bit>

namespace warpsim::timing {

namespace {

// A queue with a latency holds the entries still in their latency window on
// top of the configured queue (which bounds the entries waiting past it):
// one entry per producer cycle can be in the window (GPGPU-Sim's ROP and
// DRAM-return delay queues are unbounded; its partition queues are not).
uint32_t with_window(uint32_t queue, uint64_t latency_ps, uint64_t producer_period_ps) {
  return queue + static_cast<uint32_t>(latency_ps / producer_period_ps) + 1;
}

}  // namespace

L2Slice::L2Slice(const PartitionConfig& config, const CacheConfig& cache, const ClockDomains& clocks,
                 RequestPool& pool)
    : config_(config),
      clocks_(clocks),
      pool_(pool),
      cache_(cache),
      cycle_ps_(clocks.period(Domain::L2)),
      hit_ps_(uint64_t{std::max(1u, cache.hit_latency)} * cycle_ps_),
      atomic_ps_(uint64_t{config.atomic_latency} * cycle_ps_),
      rop_ps_(uint64_t{config.rop_latency} * cycle_ps_),
      from_icnt_(with_window(config.icnt_to_l2_queue, rop_ps_, clocks.period(Domain::Interconnect))),
      // Room for a whole fill's replies on top of the configured queue: a
      // fill answers up to mshr_max_merge requests at once.
      to_icnt_(with_window(config.l2_to_icnt_queue + cache.mshr_max_merge, hit_ps_ + atomic_ps_, cycle_ps_)),
      // Likewise for DRAM: a fill may write back a victim and forward each
      // atomic's write (write-through L2).
      to_dram_(config.l2_to_dram_queue + cache.mshr_max_merge + 1),
      from_dram_(with_window(config.dram_to_l2_queue,
                             uint64_t{config.dram_return_latency} * cycle_ps_, clocks.period(Domain::Dram))) {
  waiting_.reserve(cache.mshr_max_merge);
}

void L2Slice::accept(uint32_t id, uint64_t now_ps) { from_icnt_.push(id, now_ps + rop_ps_); }

void L2Slice::push_writeback(const std::optional<uint64_t>& line, uint32_t sectors, uint64_t now_ps) {
  if (line && sectors != 0) to_dram_.push({*line, sectors, true}, now_ps);
}

bool L2Slice::do_fill(uint64_t now_ps) {
  if (!from_dram_.ready(now_ps)) return false;
  // A fill may answer a whole MSHR entry and evict a dirty line.
  if (to_icnt_.room() < cache_.config().mshr_max_merge) {
    ++stats_.reply_full_stall_cycles;
    return false;
  }
  if (to_dram_.size() > config_.l2_to_dram_queue) {
    ++stats_.dram_full_stall_cycles;
    return false;
  }
  const DramOp fill = from_dram_.front();
  from_dram_.pop();
  waiting_.clear();
  const ReadResult wb = cache_.fill(fill.line, fill.sectors, waiting_);
  push_writeback(wb.writeback_line, wb.writeback_sectors, now_ps);
  for (uint32_t id : waiting_) {
    InFlight& r = pool_[id];
    uint64_t ready = now_ps + cycle_ps_;
    // An atomic's read-modify-write completes now that the data is here.
    if (r.request.kind == MemKind::Atomic) ready += write_atomic(r, now_ps);
    to_icnt_.push(id, ready);
  }
  return true;
}

bool L2Slice::do_access(uint64_t now_ps) {
  if (!from_icnt_.ready(now_ps)) return false;
  const uint32_t id = from_icnt_.front();
  InFlight& r = pool_[id];
  // Outputs first: one reply and up to two DRAM operations (a miss and a
  // dirty victim, or a forwarded write and a victim).
  if (to_icnt_.room() <= cache_.config().mshr_max_merge) {  // keep a fill's worth for fills
    ++stats_.reply_full_stall_cycles;
    return false;
  }
  if (to_dram_.size() + 2 > config_.l2_to_dram_queue) {
    ++stats_.dram_full_stall_cycles;
    return false;
  }
  if (!mechanisms_.empty() && decided_ != id) {
    const SliceDecision d = decide(id, r, now_ps);
    if (d.kind == SliceDecision::Kind::Reply) {
      to_icnt_.push(id, now_ps + d.latency_ps);
      ++stats_.served;
      from_icnt_.pop();
      return true;
    }
    decided_ = id;
  }
  if (r.request.kind == MemKind::Store) {
    const WriteResult w = cache_.write(r.l2_line, r.l2_sectors);
    accessed(id, r, w.hit);
    if (w.forward) to_dram_.push({r.l2_line, r.l2_sectors, true}, now_ps);
    push_writeback(w.writeback_line, w.writeback_sectors, now_ps);
    to_icnt_.push(id, now_ps + hit_ps_);
  } else {
    const ReadResult rr = cache_.read(r.l2_line, r.l2_sectors, id);
    if (rr.outcome == ReadOutcome::ReservationFail) {
      ++stats_.reservation_stall_cycles;
      return false;
    }
    accessed(id, r, rr.outcome == ReadOutcome::Hit);
    push_writeback(rr.writeback_line, rr.writeback_sectors, now_ps);
    if (rr.fetch_sectors != 0) {
      to_dram_.push({r.l2_line, rr.fetch_sectors, false}, now_ps);
      cache_.miss_sent();
    }
    if (r.request.kind == MemKind::Atomic) ++stats_.atomics;
    if (rr.outcome == ReadOutcome::Hit) {
      uint64_t ready = now_ps + hit_ps_;
      if (r.request.kind == MemKind::Atomic) ready += write_atomic(r, now_ps);
      to_icnt_.push(id, ready);
    }
  }
  ++stats_.requests;
  from_icnt_.pop();
  decided_ = kNoRequest;
  return true;
}

uint64_t L2Slice::write_atomic(const InFlight& r, uint64_t now_ps) {
  const WriteResult w = cache_.write(r.l2_line, r.l2_sectors);
  if (w.forward) to_dram_.push({r.l2_line, r.l2_sectors, true}, now_ps);
  push_writeback(w.writeback_line, w.writeback_sectors, now_ps);
  return atomic_ps_;
}

void L2Slice::add_mechanism(std::unique_ptr<L2SliceMechanism> mechanism) {
  mechanisms_.push_back(std::move(mechanism));
}

SliceDecision L2Slice::decide(uint32_t id, const InFlight& r, uint64_t now_ps) {
  for (auto& m : mechanisms_) {
    const SliceDecision d = m->on_request(id, r, now_ps);
    if (d.kind != SliceDecision::Kind::Access) return d;
  }
  return SliceDecision::access();
}

void L2Slice::accessed(uint32_t id, const InFlight& r, bool hit) {
  if (mechanisms_.empty()) return;
  uint32_t* metadata = cache_.metadata(r.l2_line);
  for (auto& m : mechanisms_) m->on_access(id, r, hit, metadata);
}

void L2Slice::tick(uint64_t now_ps) {
  const bool filled = do_fill(now_ps);
  const bool accessed = do_access(now_ps);
  // A ready head that could not move retries every cycle (see next_work).
  stalled_ = (!filled && from_dram_.ready(now_ps)) || (!accessed && from_icnt_.ready(now_ps));
}

uint64_t L2Slice::next_work(uint64_t now_ps) const {
  if (stalled_) return now_ps;
  return std::min(from_icnt_.head_time(), from_dram_.head_time());
}

bool L2Slice::idle() const {
  return from_icnt_.empty() && to_icnt_.empty() && to_dram_.empty() && from_dram_.empty() &&
         cache_.mshrs_in_use() == 0;
}

const stats::StatTable<L2SliceStats>& l2_slice_stats_table() {
  static const stats::StatTable<L2SliceStats> table = [] {
    using L = L2SliceStats;
    stats::StatTable<L> t("The L2 slices' pipelines (summed over the slices)");
    t.counter("requests", &L::requests, "requests", "requests that reached the cache (each once)");
    t.counter("atomics", &L::atomics, "requests", "atomics executed at the slices");
    t.counter("served", &L::served, "requests", "requests a slice mechanism served without the cache");
    t.counter("dram_full_stall_cycles", &L::dram_full_stall_cycles, "L2 cycles",
              "cycles a slice's access or fill waited because its L2->DRAM queue was full")
        .headline("gpu_stall_dramfull");
    t.counter("reply_full_stall_cycles", &L::reply_full_stall_cycles, "L2 cycles",
              "cycles a slice's access or fill waited for room in its reply queue");
    t.counter("reservation_stall_cycles", &L::reservation_stall_cycles, "L2 cycles",
              "cycles a slice's next access waited for an MSHR or a line");
    return t;
  }();
  return table;
}

}  // namespace warpsim::timing
