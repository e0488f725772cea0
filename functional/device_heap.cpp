// DeviceHeap: first-fit allocation with coalescing free, and the report of
// a free() that names no live block.
#include "functional/device_heap.h"


namespace warpsim::functional {

namespace {

constexpr const char* kBlockLabel = "device malloc() block";

AllocationInfo heap_block(uint64_t start, uint64_t size, bool live) {
  AllocationInfo a;
  a.start = start;
  a.size = size;
  a.kind = AllocationKind::Heap;
  a.label = kBlockLabel;
  a.live = live;
  return a;
}

}  // namespace

bool DeviceHeap::set_capacity(uint64_t bytes) {
  std::lock_guard lock(mu_);
  if (created_) return false;
  capacity_ = bytes;
  return true;
}

uint64_t DeviceHeap::capacity() const {
  std::lock_guard lock(mu_);
  return capacity_;
}

bool DeviceHeap::created() const {
  std::lock_guard lock(mu_);
  return created_;
}

Fault DeviceHeap::create(DeviceMemory& memory) {
  std::lock_guard lock(mu_);
  Fault f;
  if (created_) return f;
  created_ = true;
  if (capacity_ == 0) return f;
  base_ = memory.allocate(capacity_, AllocationKind::Heap, "device malloc heap", &f);
  if (base_ != 0) free_.reset(base_, capacity_);
  return f;
}

uint64_t DeviceHeap::malloc(uint64_t bytes) {
  std::lock_guard lock(mu_);
  if (bytes > capacity_) return 0;  // also keeps the rounding below from overflowing
  // malloc(0) gets a minimal block of its own: a distinct pointer that free() accepts.
  const uint64_t size = bytes == 0 ? kAlignment : (bytes + kAlignment - 1) / kAlignment * kAlignment;
  const uint64_t start = free_.take(size, kAlignment);
  if (start == 0) return 0;
  used_[start] = size;
  // Blocks freed earlier that overlap the new one are no longer "freed".
  for (auto f = freed_.lower_bound(start); f != freed_.end() && f->first < start + size;)
    f = freed_.erase(f);
  return start;
}

bool DeviceHeap::free(uint64_t addr) {
  if (addr == 0) return true;
  std::lock_guard lock(mu_);
  auto u = used_.find(addr);
  if (u == used_.end()) return false;
  const uint64_t start = u->first, size = u->second;
  used_.erase(u);
  freed_[start] = size;
  free_.give_back(start, size);
  return true;
}

Fault DeviceHeap::invalid_free(uint64_t addr) const {
  std::lock_guard lock(mu_);
  Fault f;
  f.kind = FaultKind::InvalidFree;
  f.address = addr;
  f.detail = "device free() of a pointer that device malloc() did not return, or freed twice";
  if (auto freed = freed_.find(addr); freed != freed_.end()) {
    f.nearest = heap_block(freed->first, freed->second, /*live=*/false);  // a double free
    return f;
  }
  if (auto u = used_.upper_bound(addr); u != used_.begin()) {
    --u;
    if (addr - u->first < u->second) {  // inside a live block
      f.nearest = heap_block(u->first, u->second, /*live=*/true);
      return f;
    }
  }
  if (base_ != 0) {
    AllocationInfo heap = heap_block(base_, capacity_, /*live=*/true);
    heap.label = "device malloc heap";
    f.nearest = heap;
  }
  return f;
}

void DeviceHeap::note_invalid_free(uint64_t addr) {
  const Fault f = invalid_free(addr);
  std::lock_guard lock(mu_);
  if (invalid_frees_++ == 0) first_invalid_free_ = describe(f);
}

uint64_t DeviceHeap::take_invalid_frees(std::string* first) {
  std::lock_guard lock(mu_);
  const uint64_t n = invalid_frees_;
  if (first) *first = std::move(first_invalid_free_);
  invalid_frees_ = 0;
  first_invalid_free_.clear();
  return n;
}

uint64_t DeviceHeap::bytes_in_use() const {
  std::lock_guard lock(mu_);
  uint64_t n = 0;
  for (const auto& [start, size] : used_) n += size;
  return n;
}

}  // namespace warpsim::functional
