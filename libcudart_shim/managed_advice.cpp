#include "libcudart_shim/managed_advice.h"

#include <algorithm>

namespace warpsim::cudart {

void ManagedAdvice::split(uint64_t at) {
  auto it = segments_.upper_bound(at);
  if (it == segments_.begin()) return;
  --it;
  if (it->first == at || it->second.end <= at) return;
  Segment tail{it->second.end, it->second.advice};
  it->second.end = at;
  segments_.emplace(at, tail);
}

template <typename F>
void ManagedAdvice::for_each(uint64_t start, uint64_t end, F&& f) const {
  uint64_t pos = start;
  auto it = segments_.upper_bound(start);
  if (it != segments_.begin() && std::prev(it)->second.end > start) --it;
  for (; it != segments_.end() && it->first < end && pos < end; ++it) {
    if (it->first > pos) f(RangeAdvice{});  // a gap: no advice
    f(it->second.advice);
    pos = std::max(pos, it->second.end);
  }
  if (pos < end) f(RangeAdvice{});
}

template <typename F>
void ManagedAdvice::update(uint64_t start, uint64_t end, F&& f) {
  if (start >= end) return;
  split(start);
  split(end);
  // Fill the gaps with default segments, then apply f to every segment.
  uint64_t pos = start;
  auto it = segments_.lower_bound(start);
  while (pos < end) {
    if (it == segments_.end() || it->first > pos) {
      const uint64_t gap_end = it == segments_.end() ? end : std::min(end, it->first);
      it = segments_.emplace_hint(it, pos, Segment{gap_end, RangeAdvice{}});
    }
    f(it->second.advice);
    pos = it->second.end;
    ++it;
  }
  // Merge neighbours with equal advice, and drop default segments.
  for (auto i = segments_.begin(); i != segments_.end();) {
    if (i->second.advice == RangeAdvice{}) {
      i = segments_.erase(i);
      continue;
    }
    auto next = std::next(i);
    if (next != segments_.end() && next->first == i->second.end &&
        next->second.advice == i->second.advice) {
      i->second.end = next->second.end;
      segments_.erase(next);
      continue;
    }
    i = next;
  }
}

void ManagedAdvice::advise(uint64_t start, uint64_t end, int advice, int location) {
  update(start, end, [&](RangeAdvice& a) {
    switch (advice) {
      case 1: a.read_mostly = true; break;
      case 2: a.read_mostly = false; break;
      case 3: a.preferred = location; break;
      case 4: a.preferred = kInvalidDevice; break;
      case 5: (location == kCpuDevice ? a.accessed_by_cpu : a.accessed_by_gpu) = true; break;
      case 6: (location == kCpuDevice ? a.accessed_by_cpu : a.accessed_by_gpu) = false; break;
      default: break;
    }
  });
}

void ManagedAdvice::prefetched(uint64_t start, uint64_t end, int location) {
  update(start, end, [&](RangeAdvice& a) { a.last_prefetch = location; });
}

void ManagedAdvice::forget(uint64_t start, uint64_t end) {
  update(start, end, [](RangeAdvice& a) { a = RangeAdvice{}; });
}

bool ManagedAdvice::read_mostly(uint64_t start, uint64_t end) const {
  bool all = true;
  for_each(start, end, [&](const RangeAdvice& a) { all = all && a.read_mostly; });
  return all;
}

int ManagedAdvice::preferred(uint64_t start, uint64_t end) const {
  bool first = true;
  int value = kInvalidDevice;
  for_each(start, end, [&](const RangeAdvice& a) {
    if (first) value = a.preferred;
    else if (value != a.preferred) value = kInvalidDevice;
    first = false;
  });
  return value;
}

int ManagedAdvice::last_prefetch(uint64_t start, uint64_t end) const {
  bool first = true;
  int value = kInvalidDevice;
  for_each(start, end, [&](const RangeAdvice& a) {
    if (first) value = a.last_prefetch;
    else if (value != a.last_prefetch) value = kInvalidDevice;
    first = false;
  });
  return value;
}

std::vector<int> ManagedAdvice::accessed_by(uint64_t start, uint64_t end) const {
  bool gpu = true, cpu = true;
  for_each(start, end, [&](const RangeAdvice& a) {
    gpu = gpu && a.accessed_by_gpu;
    cpu = cpu && a.accessed_by_cpu;
  });
  std::vector<int> out;
  if (gpu) out.push_back(0);
  if (cpu) out.push_back(kCpuDevice);
  return out;
}

}  // namespace warpsim::cudart
