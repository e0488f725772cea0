#include "timing/cache/sectored_cache.h"

#include <algorithm>
#include <bit>

#include "common/invariant.h"

namespace warpsim::timing {

SectoredCache::SectoredCache(const CacheConfig& config) : config_(config) {
  const uint64_t set_bytes = uint64_t{config.line_bytes} * config.ways;
  WARPSIM_INVARIANT(std::has_single_bit(config.line_bytes) &&
                        std::has_single_bit(config.sector_bytes) &&
                        config.sector_bytes <= config.line_bytes &&
                        config.line_bytes / config.sector_bytes <= 32,
                    "cache line/sector geometry");
  WARPSIM_INVARIANT(config.ways > 0 && config.size % set_bytes == 0 && config.size >= set_bytes,
                    "cache size must be a whole number of sets (line_bytes * ways)");
  WARPSIM_INVARIANT(config.mshr_entries > 0 && config.mshr_max_merge > 0, "MSHR geometry");
  sets_ = static_cast<uint32_t>(config.size / set_bytes);
  line_shift_ = static_cast<uint32_t>(std::countr_zero(config.line_bytes));
  lines_.resize(size_t{sets_} * config.ways);
  mshrs_.resize(config.mshr_entries);
  mshrs_live_.reserve(config.mshr_entries);
  mshr_tokens_.resize(size_t{config.mshr_entries} * config.mshr_max_merge);
}

int64_t SectoredCache::find_line(uint64_t line) const {
  const size_t base = size_t((line >> line_shift_) % sets_) * config_.ways;
  for (size_t i = base; i < base + config_.ways; ++i)
    if (lines_[i].allocated && lines_[i].tag == line) return static_cast<int64_t>(i);
  return -1;
}

int64_t SectoredCache::find_mshr(uint64_t line) const {
  // Only the entries in use (a handful, of up to hundreds).
  for (uint32_t i : mshrs_live_)
    if (mshrs_[i].line == line) return static_cast<int64_t>(i);
  return -1;
}

int64_t SectoredCache::choose_victim(uint64_t line) const {
  const size_t base = size_t((line >> line_shift_) % sets_) * config_.ways;
  int64_t best = -1;
  for (size_t i = base; i < base + config_.ways; ++i) {
    const Line& l = lines_[i];
    if (!l.allocated) return static_cast<int64_t>(i);
    // In-flight sectors must find their line when the fill arrives.
    if (l.reserved != 0) continue;
    if (best < 0 || l.stamp < lines_[size_t(best)].stamp) best = static_cast<int64_t>(i);
  }
  return best;
}

void SectoredCache::allocate(size_t index, uint64_t line, std::optional<uint64_t>& writeback_line,
                             uint32_t& writeback_sectors) {
  Line& l = lines_[index];
  if (l.allocated) {
    ++counters_.evictions;
    if (l.dirty != 0) {
      ++counters_.writebacks;
      writeback_line = l.tag;
      writeback_sectors = l.dirty;
    }
  }
  // Both policies stamp at allocation; only LRU restamps on use.
  l = Line{line, 0, 0, 0, 0, ++clock_, true};
}

ReadResult SectoredCache::read(uint64_t line, uint32_t sectors, uint32_t token) {
  WARPSIM_INVARIANT(sectors != 0, "a read touches at least one sector");
  ReadResult r;
  const int64_t way = find_line(line);
  Line* l = way >= 0 ? &lines_[size_t(way)] : nullptr;
  const uint32_t missing = sectors & ~(l ? l->valid : 0u);
  if (missing == 0) {
    touch(*l);
    ++counters_.read_accesses;
    ++counters_.read_hits;
    return r;
  }

  const bool queue_full = config_.miss_queue != 0 && queued_misses_ >= config_.miss_queue;
  const int64_t m = find_mshr(line);
  uint32_t fetch = 0;
  size_t entry = 0;
  if (m >= 0) {
    entry = size_t(m);
    fetch = missing & ~mshrs_[entry].pending;
    if (mshrs_[entry].count >= config_.mshr_max_merge || (fetch != 0 && queue_full)) {
      ++counters_.reservation_fails;
      r.outcome = ReadOutcome::ReservationFail;
      return r;
    }
  } else {
    fetch = missing;
    // AllocateOn::Miss reserves a line now unless the line is already here
    // (a sector miss).
    const bool need_victim = config_.allocate_on == AllocateOn::Miss && !l;
    const int64_t victim = need_victim ? choose_victim(line) : -1;
    if (mshrs_used_ == config_.mshr_entries || queue_full || (need_victim && victim < 0)) {
      ++counters_.reservation_fails;
      r.outcome = ReadOutcome::ReservationFail;
      return r;
    }
    if (need_victim) {
      allocate(size_t(victim), line, r.writeback_line, r.writeback_sectors);
      l = &lines_[size_t(victim)];
    }
    while (mshrs_[entry].used) ++entry;  // lowest free entry: deterministic
    mshrs_[entry] = Mshr{line, 0, 0, true};
    ++mshrs_used_;
    mshrs_live_.push_back(static_cast<uint32_t>(entry));
  }

  Mshr& e = mshrs_[entry];
  mshr_tokens_[entry * config_.mshr_max_merge + e.count++] = token;
  ++counters_.read_accesses;
  if (l) touch(*l);
  if (fetch == 0) {
    r.outcome = ReadOutcome::HitReserved;
    ++counters_.read_hit_reserved;
    return r;
  }
  e.pending |= fetch;
  if (config_.allocate_on == AllocateOn::Miss) {
    WARPSIM_INVARIANT(l != nullptr, "an outstanding miss keeps its line reserved");
    l->reserved |= fetch;
  }
  r.outcome = ReadOutcome::Miss;
  r.fetch_sectors = fetch;
  ++queued_misses_;
  ++counters_.read_misses;
  if (l && l->valid != 0) ++counters_.sector_misses;
  return r;
}

WriteResult SectoredCache::write(uint64_t line, uint32_t sectors) {
  WARPSIM_INVARIANT(sectors != 0, "a write touches at least one sector");
  WriteResult w;
  ++counters_.write_accesses;
  const int64_t way = find_line(line);
  Line* l = way >= 0 ? &lines_[size_t(way)] : nullptr;
  w.hit = l && (l->valid & sectors) == sectors;
  ++(w.hit ? counters_.write_hits : counters_.write_misses);

  switch (config_.write_policy) {
    case WritePolicy::WriteEvict:
      // Any tag match drops the whole line's data (Fermi evicts the line);
      // in-flight sectors stay reserved and still land when filled.
      if (l) {
        l->valid = 0;
        l->dirty = 0;
        l->allocated = l->reserved != 0;
      }
      w.forward = true;
      return w;
    case WritePolicy::WriteThrough:
      // Written sectors that were valid are updated in place; invalid ones
      // stay invalid (no allocation, and a partial-sector write leaves the
      // rest of the sector unknown).
      if (l) touch(*l);
      w.forward = true;
      return w;
    case WritePolicy::WriteBack:
      if (!l) {
        const int64_t victim = choose_victim(line);
        if (victim < 0) {  // every way awaits a fill: pass the write on instead
          w.forward = true;
          return w;
        }
        allocate(size_t(victim), line, w.writeback_line, w.writeback_sectors);
        l = &lines_[size_t(victim)];
      } else {
        touch(*l);
      }
      // Write-allocate without fetch: the written sectors are taken as whole.
      l->valid |= sectors;
      l->dirty |= sectors;
      return w;
  }
  return w;
}

ReadResult SectoredCache::fill(uint64_t line, uint32_t sectors, std::vector<uint32_t>& waiting) {
  ReadResult r;
  const int64_t m = find_mshr(line);
  WARPSIM_INVARIANT(m >= 0, "fill of a line without an outstanding miss");
  Mshr& e = mshrs_[size_t(m)];
  WARPSIM_INVARIANT(sectors != 0 && (sectors & ~e.pending) == 0,
                    "fill of sectors that were not fetched");
  e.pending &= ~sectors;

  int64_t way = find_line(line);
  if (config_.allocate_on == AllocateOn::Miss) {
    WARPSIM_INVARIANT(way >= 0, "a reserved line stays allocated until filled");
  } else if (way < 0) {
    way = choose_victim(line);  // never -1: AllocateOn::Fill reserves nothing
    allocate(size_t(way), line, r.writeback_line, r.writeback_sectors);
  }
  Line& l = lines_[size_t(way)];
  l.valid |= sectors;
  l.reserved &= ~sectors;

  if (e.pending == 0) {
    const uint32_t* tokens = &mshr_tokens_[size_t(m) * config_.mshr_max_merge];
    waiting.insert(waiting.end(), tokens, tokens + e.count);
    e = Mshr{};
    --mshrs_used_;
    mshrs_live_.erase(std::find(mshrs_live_.begin(), mshrs_live_.end(), static_cast<uint32_t>(m)));
  }
  return r;
}

void SectoredCache::miss_sent() {
  WARPSIM_INVARIANT(queued_misses_ > 0, "miss_sent without a queued miss");
  --queued_misses_;
}

void SectoredCache::invalidate_all() {
  for (Line& l : lines_) {
    l.valid = 0;
    l.dirty = 0;
    l.allocated = l.reserved != 0;
  }
}

bool SectoredCache::probe(uint64_t line, uint32_t sectors) const {
  const int64_t way = find_line(line);
  return way >= 0 && (lines_[size_t(way)].valid & sectors) == sectors;
}

uint32_t* SectoredCache::metadata(uint64_t line) {
  const int64_t way = find_line(line);
  return way >= 0 ? &lines_[size_t(way)].metadata : nullptr;
}

uint32_t SectoredCache::mshrs_in_use() const { return mshrs_used_; }

}  // namespace warpsim::timing
