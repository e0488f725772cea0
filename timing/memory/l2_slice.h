#pragma once
// One L2 slice: the cache of a memory sub-partition, with its pipeline and
// the queues to the network and to the partition's DRAM channel.
//
// Requests arrive from the network into a queue and reach the cache after
// `rop_latency` L2 cycles (GPGPU-Sim's ROP delay). One access per L2 cycle:
//   load/fetch  hit -> reply after the hit latency; miss -> an MSHR and a
//               DRAM read of the missing sectors; merge into an in-flight
//               miss; a reservation failure retries the next cycle;
//   store       written per the L2 write policy (normally write-back,
//               write-allocate without fetch); the acknowledgement leaves
//               after the hit latency; forwarded writes and dirty victims go
//               to DRAM as writes;
//   atomic      executes here: read like a load (fetching on a miss), then
//               the line's sectors are written (dirty) and the reply leaves
//               after the hit latency plus the atomic latency.
// DRAM data returns after `dram_return_latency` L2 cycles and fills the
// cache; every request the MSHR held gets its reply. An access or fill that
// cannot place its outputs (reply queue, DRAM queue full) waits: that is the
// back-pressure GPGPU-Sim counts as gpu_stall_dramfull / icnt2sh.
//
// Time: the slice is ticked on L2 clock edges with the edge's time in
// picoseconds; queue entries carry picosecond ready times, so neighbours in
// other clock domains see them at the right moment.
//
// Mechanisms (l2_slice_mechanism.h) decide per request whether it accesses
// the cache or is served another way, and keep per-line state in the
// cache's metadata words.
#include <cstdint>
#include <memory>
#include <vector>

#include "common/stat_table.h"
#include "timing/clock_domains.h"
#include "timing/memory/l2_slice_mechanism.h"
#include "timing/memory/memory_system_config.h"
#include "timing/memory/request_pool.h"
#include "timing/cache/sectored_cache.h"
#include "timing/timed_queue.h"

namespace warpsim::timing {

// What the slice asks of DRAM: a read of a line's sectors (answered with a
// fill) or a write (fire and forget).
struct DramOp {
  uint64_t line = 0;
  uint32_t sectors = 0;
  bool write = false;
};

struct L2SliceStats {
  uint64_t requests = 0;                  // requests that reached the cache (each once)
  uint64_t dram_full_stall_cycles = 0;    // L2 cycles the head waited for the DRAM queue
  uint64_t reply_full_stall_cycles = 0;   // L2 cycles the head waited for the reply queue
  uint64_t reservation_stall_cycles = 0;  // L2 cycles the head waited for an MSHR / line
  uint64_t atomics = 0;
  uint64_t served = 0;                    // requests a mechanism served without the cache
};

// Published summed over the slices at "timing.l2" (the cache's own counters
// are cache_stats_table()'s, published there too). Table: l2_slice.cpp.
const stats::StatTable<L2SliceStats>& l2_slice_stats_table();

class L2Slice {
 public:
  L2Slice(const PartitionConfig& config, const CacheConfig& cache, const ClockDomains& clocks,
          RequestPool& pool);

  // Asked, in order, about every request before it accesses the cache.
  void add_mechanism(std::unique_ptr<L2SliceMechanism> mechanism);

  // Network side.
  bool can_accept() const { return !from_icnt_.full(); }
  void accept(uint32_t id, uint64_t now_ps);
  bool reply_ready(uint64_t now_ps) const { return to_icnt_.ready(now_ps); }
  uint32_t reply_front() const { return to_icnt_.front(); }
  void reply_pop() { to_icnt_.pop(); }

  // DRAM side (the partition moves these).
  bool dram_op_ready(uint64_t now_ps) const { return to_dram_.ready(now_ps); }
  uint64_t dram_op_time() const { return to_dram_.head_time(); }
  uint64_t reply_time() const { return to_icnt_.head_time(); }
  const DramOp& dram_op_front() const { return to_dram_.front(); }
  void dram_op_pop() { to_dram_.pop(); }
  bool can_fill() const { return !from_dram_.full(); }
  void fill_arrives(uint64_t line, uint32_t sectors, uint64_t ready_ps) {
    from_dram_.push({line, sectors, false}, ready_ps);
  }

  // One L2 cycle starting at `now_ps`.
  void tick(uint64_t now_ps);
  // The earliest time >= now_ps at which tick() has something to do
  // (UINT64_MAX: nothing); conservative: it may be earlier than needed.
  uint64_t next_work(uint64_t now_ps) const;
  bool idle() const;

  const SectoredCache& cache() const { return cache_; }
  const L2SliceStats& stats() const { return stats_; }

 private:
  bool do_fill(uint64_t now_ps);
  bool do_access(uint64_t now_ps);
  void push_writeback(const std::optional<uint64_t>& line, uint32_t sectors, uint64_t now_ps);
  // The write half of an atomic whose read is done; returns the time it adds.
  uint64_t write_atomic(const InFlight& r, uint64_t now_ps);
  SliceDecision decide(uint32_t id, const InFlight& r, uint64_t now_ps);
  void accessed(uint32_t id, const InFlight& r, bool hit);

  PartitionConfig config_;
  const ClockDomains& clocks_;
  RequestPool& pool_;
  SectoredCache cache_;
  uint64_t cycle_ps_ = 0, hit_ps_ = 0, atomic_ps_ = 0, rop_ps_ = 0;
  TimedQueue<uint32_t> from_icnt_;
  TimedQueue<uint32_t> to_icnt_;
  TimedQueue<DramOp> to_dram_;
  TimedQueue<DramOp> from_dram_;
  std::vector<uint32_t> waiting_;  // scratch for fills
  bool stalled_ = false;           // the last tick could not make progress on a ready head
  std::vector<std::unique_ptr<L2SliceMechanism>> mechanisms_;
  uint32_t decided_ = kNoRequest;  // the head, already told to access the cache (a retry is not asked again)
  L2SliceStats stats_;
};

}  // namespace warpsim::timing
