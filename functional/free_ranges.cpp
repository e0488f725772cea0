#include "functional/free_ranges.h"

#include <iterator>

namespace warpsim::functional {

void FreeRanges::reset(uint64_t base, uint64_t size) {
  ranges_.clear();
  if (size != 0) ranges_[base] = size;
}

uint64_t FreeRanges::take(uint64_t size, uint64_t alignment) {
  for (auto it = ranges_.begin(); it != ranges_.end(); ++it) {
    const uint64_t start = it->first, end = it->first + it->second;
    const uint64_t at = (start + alignment - 1) & ~(alignment - 1);
    if (at < start || at > end || end - at < size) continue;
    ranges_.erase(it);
    if (at > start) ranges_[start] = at - start;
    if (at + size < end) ranges_[at + size] = end - (at + size);
    return at;
  }
  return 0;
}

void FreeRanges::give_back(uint64_t start, uint64_t size) {
  auto next = ranges_.lower_bound(start);
  if (next != ranges_.end() && start + size == next->first) {  // merge with the range after
    size += next->second;
    next = ranges_.erase(next);
  }
  if (next != ranges_.begin()) {  // and with the one before
    auto prev = std::prev(next);
    if (prev->first + prev->second == start) {
      prev->second += size;
      return;
    }
  }
  ranges_[start] = size;
}

}  // namespace warpsim::functional
