#pragma once
// A sectored, set-associative cache with miss status holding registers
// (MSHRs): the L1 data, L1 instruction and constant caches of an SM and the
// L2 slices.
//
// Lines of `line_bytes` are split into sectors of `sector_bytes`; each line
// keeps a tag and per-sector valid and dirty bits, so a miss fetches only the
// sectors asked for. The cache is a tag store only (data lives in the
// functional model); it decides hits, misses, merges, evictions and
// write-backs, and counts them.
//
// Reads: all sectors valid -> Hit. Otherwise the missing sectors need an
// MSHR (one entry per line). If the line's entry already has every missing
// sector in flight, the read merges into it (HitReserved); if some missing
// sectors are not in flight yet, the entry grows and those sectors are
// fetched too (Miss with fetch_sectors != 0). Either way the entry must have
// room for one more request (`mshr_max_merge`). Without an entry for the
// line, a new one is allocated (Miss) if one is free and the miss queue has
// room. Otherwise: ReservationFail, nothing changed, the caller retries.
// With AllocateOn::Miss the victim line is chosen (and reserved) at miss
// time; with AllocateOn::Fill when the data returns. A victim with dirty
// sectors produces a write-back.
//
// Writes follow the write policy:
//   write-evict    (Fermi L1 for global stores): a hit invalidates the line;
//                  the write always goes to the next level; no allocation.
//   write-through  a hit updates the line (sectors stay valid); the write
//                  always goes to the next level; no allocation on a miss.
//   write-back     the line is allocated (write-allocate, no fetch: written
//                  sectors become valid and dirty); nothing goes to the
//                  next level until the line is evicted.
// Deterministic: replacement ties resolve to the lowest way.
#include <cstdint>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "common/stat_table.h"

namespace warpsim::timing {

enum class Replacement : uint8_t { Lru, Fifo };
enum class WritePolicy : uint8_t { WriteEvict, WriteThrough, WriteBack };
enum class AllocateOn : uint8_t { Miss, Fill };
// How a line's address picks its set. Linear: the line number modulo the set
// count. FermiHash: the hash Nugteren et al. measured on Fermi's L1 ("A
// Detailed GPU Cache Model Based on Reuse Distance Theory", HPCA 2014): the
// five address bits above a 128-byte line XORed with bits 13, 14, 15, 17 and
// 19, and with 64 sets bit 12 as the sixth; power-of-two strides of a warp's
// lanes then spread over the sets instead of piling into one.
enum class SetIndex : uint8_t { Linear, FermiHash };

struct CacheConfig {
  uint64_t size = 16 * 1024;  // bytes; size / (line_bytes * ways) sets, indexed modulo the set count
  uint32_t line_bytes = 128;
  uint32_t sector_bytes = 32;
  uint32_t ways = 4;
  Replacement replacement = Replacement::Lru;
  WritePolicy write_policy = WritePolicy::WriteEvict;
  AllocateOn allocate_on = AllocateOn::Miss;
  SetIndex set_index = SetIndex::Linear;  // FermiHash: 128-byte lines, 32 or 64 sets
  uint32_t mshr_entries = 32;
  uint32_t mshr_max_merge = 8;  // requests one MSHR entry holds (the first included)
  uint32_t miss_queue = 8;      // outstanding new misses not yet sent below (0: unlimited)
  uint32_t hit_latency = 1;     // L1s: core cycles (the SM); L2 slices: L2 cycles; not used by this class
};

enum class ReadOutcome : uint8_t { Hit, HitReserved, Miss, ReservationFail };

struct ReadResult {
  ReadOutcome outcome = ReadOutcome::Hit;
  uint32_t fetch_sectors = 0;  // sectors to request from the next level (0: none)
  // A dirty line evicted to make room (AllocateOn::Miss): its address and
  // dirty sectors must be written to the next level.
  std::optional<uint64_t> writeback_line;
  uint32_t writeback_sectors = 0;
};

struct WriteResult {
  bool hit = false;
  bool forward = false;  // the write goes to the next level now
  std::optional<uint64_t> writeback_line;  // write-back: an evicted dirty line
  uint32_t writeback_sectors = 0;
};

// read_accesses = read_hits + read_hit_reserved + read_misses: a
// ReservationFail changes nothing and counts only in reservation_fails (the
// caller retries). A write hits when all its sectors are valid. evictions:
// allocated lines replaced to make room; writebacks: those of them with dirty
// sectors (write-evict and invalidate_all are not evictions).
struct CacheCounters {
  uint64_t read_accesses = 0, read_hits = 0, read_hit_reserved = 0, read_misses = 0;
  uint64_t reservation_fails = 0;
  uint64_t write_accesses = 0, write_hits = 0, write_misses = 0;
  uint64_t writebacks = 0, evictions = 0;
  uint64_t sector_misses = 0;  // misses whose line was present with other sectors valid
};

// Published per cache at timing.l1d / .l1i / .constant / .l2, with
// GPGPU-Sim's headline names (L1D_total_cache_accesses, ...); per SM
// (timing.sm.N.l1d) and per partition (timing.partition.N.l2) for the rows
// marked per instance. Table: cache_stats.cpp.
const stats::StatTable<CacheCounters>& cache_stats_table();

class SectoredCache {
 public:
  explicit SectoredCache(const CacheConfig& config);

  // `line` is line-aligned; `sectors` the sectors read (non-zero). `token`
  // identifies the requester; it is returned by fill() when the read was a
  // Miss or HitReserved.
  ReadResult read(uint64_t line, uint32_t sectors, uint32_t token);
  // A write to a line with sectors in flight keeps the reservation (the
  // fill still lands): write-evict clears its valid sectors but keeps the
  // line. Write-back with every way of the set reserved forwards the write
  // without allocating.
  WriteResult write(uint64_t line, uint32_t sectors);
  // The next level answered the fetch of `sectors` of `line`: the sectors
  // become valid (allocating the line now with AllocateOn::Fill, which may
  // evict a dirty line: returned like in ReadResult), and the tokens of every
  // request the MSHR entry held are appended to `waiting` once all the
  // sectors the entry fetched have arrived (then the entry is freed).
  ReadResult fill(uint64_t line, uint32_t sectors, std::vector<uint32_t>& waiting);
  // The caller sent one queued miss below (frees a miss-queue place).
  void miss_sent();
  // Invalidates every line (kernel boundary for L1: no coherence).
  // Outstanding MSHRs are kept, and so are the reservations of their lines
  // so the fills still land. Dirty sectors are dropped (no write-back).
  void invalidate_all();
  // Whether `line` is present with all of `sectors` valid (tests, checks).
  bool probe(uint64_t line, uint32_t sectors) const;
  // One 32-bit word per allocated line for mechanisms that keep per-line
  // state (l2_slice_mechanism.h): zero when the line is allocated; null when
  // `line` has no place in the cache.
  uint32_t* metadata(uint64_t line);

  const CacheConfig& config() const { return config_; }
  const CacheCounters& counters() const { return counters_; }
  // Lines holding an address, lines in all, and lines allocated so far
  // (filling a free one or replacing one): whether the cache still fills or
  // still holds older data (sampled simulation; not statistics).
  uint64_t lines_in_use() const { return lines_in_use_; }
  uint64_t lines() const { return sets_ * config_.ways; }
  uint64_t allocations() const { return allocations_; }
  uint32_t mshrs_in_use() const;

 private:
  // Lines live in pages of sets allocated when a set is first used, so that
  // a cache of any configured size costs memory only for the sets a program
  // touches (a 1 GiB L1 per SM would otherwise need gigabytes up front).
  // Within a page, lines are flat (set-major); no allocation per access once
  // a page exists. MSHR entries likewise grow on demand up to mshr_entries.
  struct Line {
    uint64_t tag = 0;
    uint32_t valid = 0;     // sectors valid
    uint32_t dirty = 0;     // sectors dirty
    uint32_t reserved = 0;  // sectors being fetched into this line (AllocateOn::Miss)
    uint32_t metadata = 0;  // mechanisms' word (metadata()); fills the padding before `stamp`
    uint64_t stamp = 0;     // LRU: last use; FIFO: allocation
    bool allocated = false;
  };
  struct Mshr {
    uint64_t line = 0;
    uint32_t pending = 0;  // sectors still in flight
    uint32_t count = 0;    // tokens held
    bool used = false;
  };
  // The ways of `line`'s set, or null when its page was never used.
  uint64_t set_index(uint64_t line) const {
    if (config_.set_index == SetIndex::Linear) return (line >> line_shift_) % sets_;
    const uint64_t low = (line >> 7) & 31;
    const uint64_t high = ((line >> 13) & 7) | ((line >> 17) & 1) << 3 | ((line >> 19) & 1) << 4;
    return (low ^ high) | (sets_ == 64 ? ((line >> 12) & 1) << 5 : 0);
  }
  Line* find_set(uint64_t line) const {
    const uint64_t set = set_index(line);
    Line* page = pages_[set >> page_shift_].get();
    return page ? page + (set & page_mask_) * config_.ways : nullptr;
  }
  // The same, allocating the page on first use.
  Line* set_of(uint64_t line);
  // `line`'s Line if allocated, or null.
  Line* find_line(uint64_t line) const;
  int64_t find_mshr(uint64_t line) const;
  // The way to replace in `line`'s set: a free way first, else the smallest
  // stamp among lines without reserved sectors (ties: lowest way); null if
  // every way is reserved.
  Line* choose_victim(uint64_t line);
  // Gives `l` to `line` (stamped now), reporting a dirty victim.
  void allocate(Line& l, uint64_t line, std::optional<uint64_t>& writeback_line,
                uint32_t& writeback_sectors);
  void touch(Line& l) {
    if (config_.replacement == Replacement::Lru) l.stamp = ++clock_;
  }

  CacheConfig config_;
  uint64_t sets_ = 0;
  uint32_t line_shift_ = 0;             // log2(line_bytes)
  uint32_t page_shift_ = 0;             // log2(sets per page)
  uint64_t page_mask_ = 0;              // sets per page - 1
  uint32_t mshrs_used_ = 0;
  std::vector<std::unique_ptr<Line[]>> pages_;  // null until a set of the page is used
  std::vector<uint32_t> live_pages_;    // indices of the allocated pages
  std::vector<Mshr> mshrs_;             // up to config.mshr_entries, grown on demand
  std::vector<uint32_t> mshrs_live_;    // indices of the entries in use
  std::vector<uint32_t> mshr_tokens_;   // mshrs_.size() * mshr_max_merge
  uint32_t queued_misses_ = 0;
  uint64_t lines_in_use_ = 0;
  uint64_t allocations_ = 0;
  uint64_t clock_ = 0;                  // access counter for LRU/FIFO stamps
  CacheCounters counters_;
};

}  // namespace warpsim::timing
