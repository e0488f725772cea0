// Memory pools: chunks reserved from DeviceMemory, blocks carved from them
// first-fit, freed blocks reused under CUDA's stream-ordering rules, idle
// chunks given back on trim (mem_pool.h explains the model).
#include "libcudart_shim/mem_pool.h"

#include <algorithm>
#include <iterator>

namespace warpsim::cudart {

namespace {

uint64_t round_up(uint64_t n, uint64_t to) { return (n + to - 1) / to * to; }

}  // namespace

// ---- MemPool ---------------------------------------------------------------------------------

MemPool::MemPool(uint64_t max_size)
    : max_size_(max_size > ~uint64_t{0} - kChunkGranularity ? 0
                                                             : round_up(max_size, kChunkGranularity)) {}

Error MemPool::allocate(functional::DeviceMemory& memory, uint64_t bytes, const PoolRequest& at,
                        PoolAllocation* out) {
  if (bytes == 0 || bytes > ~uint64_t{0} - kChunkGranularity) return Error::MemoryAllocation;
  const uint64_t size = round_up(bytes, kBlockAlignment);
  uint64_t start = 0;
  double wait = 0;
  if (!find_free(size, at, &start, &wait)) {
    // A new chunk; when the device is full, the pool's own idle chunks go
    // back first (the driver does the same before failing).
    if (!reserve_chunk(memory, size)) {
      trim(memory, 0, at.host_ns);
      if (!reserve_chunk(memory, size)) return Error::MemoryAllocation;
    }
    if (!find_free(size, at, &start, &wait)) return Error::MemoryAllocation;
  }
  if (!take(start, size)) return Error::MemoryAllocation;
  out->address = start;
  out->wait_ns = wait;
  return Error::Success;
}

bool MemPool::reusable_without_wait(const Piece& p, const PoolRequest& at) const {
  if (p.fresh) return true;
  if (p.stream == at.stream && p.stream != kNoStream) return true;
  if (follow_event_dependencies_ && p.freed_ns <= at.at_ns) return true;
  return allow_opportunistic_ && p.freed_ns <= at.host_ns;
}

bool MemPool::find_free(uint64_t bytes, const PoolRequest& at, uint64_t* start,
                        double* wait_ns) const {
  for (int pass = 0; pass < 2; ++pass) {
    if (pass == 1 && !allow_internal_dependencies_) break;
    for (const auto& [chunk_start, chunk] : chunks_) {
      for (const auto& [piece_start, p] : chunk.pieces) {
        if (p.live || p.size < bytes) continue;
        if (pass == 0 && !reusable_without_wait(p, at)) continue;
        *start = piece_start;
        *wait_ns = pass == 0 ? 0 : p.freed_ns;
        return true;
      }
    }
  }
  return false;
}

bool MemPool::reserve_chunk(functional::DeviceMemory& memory, uint64_t bytes) {
  const uint64_t size = round_up(bytes, kChunkGranularity);
  if (max_size_ != 0 && (size > max_size_ || reserved_ > max_size_ - size)) return false;
  functional::Fault f;
  const uint64_t start = memory.allocate(size, functional::AllocationKind::Device,
                                         "cudaMallocAsync memory pool chunk", &f);
  if (start == 0) return false;
  Chunk c;
  c.size = size;
  // Fresh memory is free "since forever": any stream may take it at once.
  c.pieces[start] = Piece{size, false, kNoStream, 0, true};
  chunks_.emplace(start, std::move(c));
  reserved_ += size;
  reserved_high_ = std::max(reserved_high_, reserved_);
  return true;
}

bool MemPool::take(uint64_t start, uint64_t bytes) {
  Chunk* c = chunk_of(start);
  if (c == nullptr) return false;
  auto it = c->pieces.find(start);
  if (it == c->pieces.end() || it->second.live || it->second.size < bytes) return false;
  Piece rest = it->second;
  it->second = Piece{bytes, true, kNoStream, 0, false};
  if (rest.size > bytes) {
    rest.size -= bytes;
    c->pieces.emplace(start + bytes, rest);
  }
  used_ += bytes;
  used_high_ = std::max(used_high_, used_);
  ++live_blocks_;
  return true;
}

bool MemPool::free(uint64_t address, uint64_t stream, double done_ns) {
  Chunk* c = chunk_of(address);
  if (c == nullptr) return false;
  auto it = c->pieces.find(address);
  if (it == c->pieces.end() || !it->second.live) return false;
  Piece& p = it->second;
  used_ -= p.size;
  --live_blocks_;
  p.live = false;
  p.stream = stream;
  p.freed_ns = done_ns;
  p.fresh = false;
  // Coalesce with free neighbours: the merged piece is usable once both
  // frees are, by the one stream that freed both (if it is one stream);
  // never-used space does not change who may take it.
  auto merge = [&](std::map<uint64_t, Piece>::iterator lo, std::map<uint64_t, Piece>::iterator hi) {
    Piece& a = lo->second;
    const Piece& b = hi->second;
    if (a.fresh) {
      a.stream = b.stream;
      a.freed_ns = b.freed_ns;
      a.fresh = b.fresh;
    } else if (!b.fresh) {
      if (a.stream != b.stream) a.stream = kNoStream;
      a.freed_ns = std::max(a.freed_ns, b.freed_ns);
    }
    a.size += b.size;
    c->pieces.erase(hi);
  };
  auto next = std::next(it);
  if (next != c->pieces.end() && !next->second.live) merge(it, next);
  if (it != c->pieces.begin()) {
    auto prev = std::prev(it);
    if (!prev->second.live) merge(prev, it);
  }
  return true;
}

bool MemPool::idle(const Chunk& c, double completed_ns) {
  return c.pieces.size() == 1 && !c.pieces.begin()->second.live &&
         c.pieces.begin()->second.freed_ns <= completed_ns;
}

void MemPool::trim(functional::DeviceMemory& memory, uint64_t keep_bytes, double completed_ns) {
  for (auto it = chunks_.end(); it != chunks_.begin();) {
    --it;
    if (!idle(it->second, completed_ns) || reserved_ - it->second.size < keep_bytes) continue;
    (void)memory.free(it->first);
    reserved_ -= it->second.size;
    it = chunks_.erase(it);
  }
}

void MemPool::release_all(functional::DeviceMemory& memory) {
  for (const auto& [start, chunk] : chunks_) (void)memory.free(start);
  chunks_.clear();
  reserved_ = 0;
  used_ = 0;
  live_blocks_ = 0;
}

MemPool::Chunk* MemPool::chunk_of(uint64_t address) {
  return const_cast<Chunk*>(static_cast<const MemPool*>(this)->chunk_of(address));
}

const MemPool::Chunk* MemPool::chunk_of(uint64_t address) const {
  auto it = chunks_.upper_bound(address);
  if (it == chunks_.begin()) return nullptr;
  --it;
  return address - it->first < it->second.size ? &it->second : nullptr;
}

bool MemPool::holds(uint64_t address) const { return chunk_of(address) != nullptr; }

uint64_t MemPool::live_block_size(uint64_t address) const {
  const Chunk* c = chunk_of(address);
  if (c == nullptr) return 0;
  auto it = c->pieces.find(address);
  return it != c->pieces.end() && it->second.live ? it->second.size : 0;
}

Error MemPool::set_attribute(PoolAttribute attribute, uint64_t value) {
  switch (attribute) {
    case PoolAttribute::ReuseFollowEventDependencies:
      follow_event_dependencies_ = value != 0;
      return Error::Success;
    case PoolAttribute::ReuseAllowOpportunistic:
      allow_opportunistic_ = value != 0;
      return Error::Success;
    case PoolAttribute::ReuseAllowInternalDependencies:
      allow_internal_dependencies_ = value != 0;
      return Error::Success;
    case PoolAttribute::ReleaseThreshold:
      release_threshold_ = value;
      return Error::Success;
    case PoolAttribute::ReservedMemHigh:
      if (value != 0) return Error::InvalidValue;
      reserved_high_ = reserved_;
      return Error::Success;
    case PoolAttribute::UsedMemHigh:
      if (value != 0) return Error::InvalidValue;
      used_high_ = used_;
      return Error::Success;
    default:  // the *Current ones are read-only; anything else is unknown
      return Error::InvalidValue;
  }
}

Error MemPool::get_attribute(PoolAttribute attribute, uint64_t* value) const {
  switch (attribute) {
    case PoolAttribute::ReuseFollowEventDependencies: *value = follow_event_dependencies_; break;
    case PoolAttribute::ReuseAllowOpportunistic: *value = allow_opportunistic_; break;
    case PoolAttribute::ReuseAllowInternalDependencies:
      *value = allow_internal_dependencies_;
      break;
    case PoolAttribute::ReleaseThreshold: *value = release_threshold_; break;
    case PoolAttribute::ReservedMemCurrent: *value = reserved_; break;
    case PoolAttribute::ReservedMemHigh: *value = reserved_high_; break;
    case PoolAttribute::UsedMemCurrent: *value = used_; break;
    case PoolAttribute::UsedMemHigh: *value = used_high_; break;
    default: return Error::InvalidValue;
  }
  return Error::Success;
}

// ---- MemPoolTable ----------------------------------------------------------------------------

MemPoolTable::MemPoolTable() : default_(std::make_unique<MemPool>()), current_(default_.get()) {}

MemPool* MemPoolTable::find(const void* handle) {
  auto* p = static_cast<MemPool*>(const_cast<void*>(handle));
  if (p == nullptr) return nullptr;
  if (p == default_.get()) return p;
  return created_.count(p) ? p : nullptr;
}

MemPool* MemPoolTable::create(uint64_t max_size) {
  auto pool = std::make_unique<MemPool>(max_size);
  MemPool* raw = pool.get();
  created_.emplace(raw, std::move(pool));
  return raw;
}

Error MemPoolTable::destroy(functional::DeviceMemory& memory, const void* handle) {
  auto it = created_.find(static_cast<MemPool*>(const_cast<void*>(handle)));
  if (it == created_.end()) return Error::InvalidValue;  // unknown, or the default pool
  if (current_ == it->first) current_ = default_.get();
  if (it->second->live_blocks() == 0) {
    it->second->release_all(memory);
  } else {
    destroyed_.emplace(it->first, std::move(it->second));
  }
  created_.erase(it);
  return Error::Success;
}

MemPool* MemPoolTable::owner(uint64_t address) {
  if (default_->holds(address)) return default_.get();
  for (auto* table : {&created_, &destroyed_})
    for (auto& [raw, pool] : *table)
      if (pool->holds(address)) return raw;
  return nullptr;
}

bool MemPoolTable::free(functional::DeviceMemory& memory, MemPool* pool, uint64_t address,
                        uint64_t stream, double done_ns) {
  if (!pool->free(address, stream, done_ns)) return false;
  auto it = destroyed_.find(pool);
  if (it != destroyed_.end() && pool->live_blocks() == 0) {
    pool->release_all(memory);
    destroyed_.erase(it);
  }
  return true;
}

void MemPoolTable::release_above_thresholds(functional::DeviceMemory& memory, double completed_ns) {
  auto release = [&](MemPool& p) {
    if (p.reserved() > p.release_threshold()) p.trim(memory, p.release_threshold(), completed_ns);
  };
  release(*default_);
  for (auto& [raw, pool] : created_) release(*pool);
}

void MemPoolTable::trim_all(functional::DeviceMemory& memory, double completed_ns) {
  default_->trim(memory, 0, completed_ns);
  for (auto& [raw, pool] : created_) pool->trim(memory, 0, completed_ns);
}

void MemPoolTable::clear() {
  created_.clear();
  destroyed_.clear();
  default_ = std::make_unique<MemPool>();
  current_ = default_.get();
}

}  // namespace warpsim::cudart
