#include "timing/cache/sectored_cache.h"

#include <algorithm>
#include <bit>

#include "common/invariant.h"

namespace warpsim::timing {

namespace {

// Lines per page of sets (about 160 KB): small enough that touching a few
// addresses of a huge cache stays cheap, large enough that the page table
// of a 1 GiB cache stays small (at most 2^26 sets / 4096 = 16K entries).
constexpr uint64_t kPageLines = 4096;

}  // namespace

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
  sets_ = config.size / set_bytes;
  line_shift_ = static_cast<uint32_t>(std::countr_zero(config.line_bytes));
  const uint64_t page_sets = std::bit_floor(std::max<uint64_t>(1, kPageLines / config.ways));
  page_shift_ = static_cast<uint32_t>(std::countr_zero(page_sets));
  page_mask_ = page_sets - 1;
  pages_.resize(static_cast<size_t>((sets_ + page_mask_) >> page_shift_));
  mshrs_live_.reserve(std::min<uint32_t>(config.mshr_entries, 64));
}

SectoredCache::Line* SectoredCache::set_of(uint64_t line) {
  const uint64_t set = set_index(line);
  const uint64_t page = set >> page_shift_;
  std::unique_ptr<Line[]>& p = pages_[page];
  if (!p) {
    // The last page holds only the sets that exist.
    const uint64_t first = page << page_shift_;
    const uint64_t sets = std::min(page_mask_ + 1, sets_ - first);
    p = std::make_unique<Line[]>(sets * config_.ways);
    live_pages_.push_back(static_cast<uint32_t>(page));
  }
  return p.get() + (set & page_mask_) * config_.ways;
}

SectoredCache::Line* SectoredCache::find_line(uint64_t line) const {
  Line* set = find_set(line);
  if (!set) return nullptr;
  for (Line* l = set; l != set + config_.ways; ++l)
    if (l->allocated && l->tag == line) return l;
  return nullptr;
}

int64_t SectoredCache::find_mshr(uint64_t line) const {
  // Only the entries in use (a handful, of up to hundreds).
  for (uint32_t i : mshrs_live_)
    if (mshrs_[i].line == line) return static_cast<int64_t>(i);
  return -1;
}

SectoredCache::Line* SectoredCache::choose_victim(uint64_t line) {
  Line* set = set_of(line);
  Line* best = nullptr;
  for (Line* l = set; l != set + config_.ways; ++l) {
    if (!l->allocated) return l;
    // In-flight sectors must find their line when the fill arrives.
    if (l->reserved != 0) continue;
    if (!best || l->stamp < best->stamp) best = l;
  }
  return best;
}

void SectoredCache::allocate(Line& l, uint64_t line, std::optional<uint64_t>& writeback_line,
                             uint32_t& writeback_sectors) {
  ++allocations_;
  if (!l.allocated) {
    ++lines_in_use_;
  } else {
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
  Line* l = find_line(line);
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
    Line* victim = need_victim ? choose_victim(line) : nullptr;
    if (mshrs_used_ == config_.mshr_entries || queue_full || (need_victim && !victim)) {
      ++counters_.reservation_fails;
      r.outcome = ReadOutcome::ReservationFail;
      return r;
    }
    if (need_victim) {
      allocate(*victim, line, r.writeback_line, r.writeback_sectors);
      l = victim;
    }
    // Lowest free entry (deterministic); a new one when all in use are busy.
    while (entry < mshrs_.size() && mshrs_[entry].used) ++entry;
    if (entry == mshrs_.size()) {
      mshrs_.emplace_back();
      mshr_tokens_.resize(mshrs_.size() * config_.mshr_max_merge);
    }
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
  Line* l = find_line(line);
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
        if (!l->allocated) --lines_in_use_;
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
        Line* victim = choose_victim(line);
        if (!victim) {  // every way awaits a fill: pass the write on instead
          w.forward = true;
          return w;
        }
        allocate(*victim, line, w.writeback_line, w.writeback_sectors);
        l = victim;
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

  Line* l = find_line(line);
  if (config_.allocate_on == AllocateOn::Miss) {
    WARPSIM_INVARIANT(l != nullptr, "a reserved line stays allocated until filled");
  } else if (!l) {
    l = choose_victim(line);  // never null: AllocateOn::Fill reserves nothing
    allocate(*l, line, r.writeback_line, r.writeback_sectors);
  }
  l->valid |= sectors;
  l->reserved &= ~sectors;

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
  // Only pages ever used hold lines.
  for (uint32_t page : live_pages_) {
    const uint64_t sets = std::min(page_mask_ + 1, sets_ - (uint64_t{page} << page_shift_));
    Line* lines = pages_[page].get();
    for (Line* l = lines; l != lines + sets * config_.ways; ++l) {
      if (l->allocated && l->reserved == 0) --lines_in_use_;
      l->valid = 0;
      l->dirty = 0;
      l->allocated = l->reserved != 0;
    }
  }
}

bool SectoredCache::probe(uint64_t line, uint32_t sectors) const {
  const Line* l = find_line(line);
  return l && (l->valid & sectors) == sectors;
}

uint32_t* SectoredCache::metadata(uint64_t line) {
  Line* l = find_line(line);
  return l ? &l->metadata : nullptr;
}

uint32_t SectoredCache::mshrs_in_use() const { return mshrs_used_; }

}  // namespace warpsim::timing
