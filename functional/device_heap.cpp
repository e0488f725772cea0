// DeviceHeap: first-fit allocation with coalescing free.
#include "functional/device_heap.h"

#include <iterator>

namespace warpsim::functional {

bool DeviceHeap::set_capacity(uint64_t bytes) {
  std::lock_guard lock(mu_);
  if (base_ != 0) return false;
  capacity_ = bytes;
  return true;
}

Fault DeviceHeap::create(DeviceMemory& memory) {
  std::lock_guard lock(mu_);
  Fault f;
  if (base_ != 0 || capacity_ == 0) return f;
  base_ = memory.allocate(capacity_, AllocationKind::Device, "device malloc heap", &f);
  if (base_ != 0) free_[base_] = capacity_;
  return f;
}

uint64_t DeviceHeap::malloc(uint64_t bytes) {
  if (bytes == 0) bytes = 1;
  if (bytes > capacity_) return 0;
  const uint64_t size = (bytes + kAlignment - 1) / kAlignment * kAlignment;
  std::lock_guard lock(mu_);
  for (auto it = free_.begin(); it != free_.end(); ++it) {
    if (it->second < size) continue;
    const uint64_t start = it->first, left = it->second - size;
    free_.erase(it);
    if (left) free_[start + size] = left;
    used_[start] = size;
    return start;
  }
  return 0;
}

bool DeviceHeap::free(uint64_t addr) {
  if (addr == 0) return true;
  std::lock_guard lock(mu_);
  auto u = used_.find(addr);
  if (u == used_.end()) return false;
  uint64_t start = u->first, size = u->second;
  used_.erase(u);
  auto next = free_.lower_bound(start);
  if (next != free_.end() && start + size == next->first) {  // merge with the block after
    size += next->second;
    next = free_.erase(next);
  }
  if (next != free_.begin()) {  // and with the one before
    auto prev = std::prev(next);
    if (prev->first + prev->second == start) {
      prev->second += size;
      return true;
    }
  }
  free_[start] = size;
  return true;
}

uint64_t DeviceHeap::bytes_in_use() const {
  std::lock_guard lock(mu_);
  uint64_t n = 0;
  for (const auto& [start, size] : used_) n += size;
  return n;
}

}  // namespace warpsim::functional
