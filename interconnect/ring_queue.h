#pragma once
// A FIFO on a ring buffer that grows (doubling) when full and never shrinks:
// the per-destination delivery queues and event lists of the networks. After
// the first few cycles the capacity matches the traffic and pushes and pops
// no longer allocate (no allocation per packet).
#include <cstddef>
#include <utility>
#include <vector>

#include "common/invariant.h"

namespace warpsim::interconnect {

template <class T>
class RingQueue {
 public:
  bool empty() const { return count_ == 0; }
  size_t size() const { return count_; }

  const T& front() const {
    WARPSIM_INVARIANT(count_ != 0, "RingQueue::front on an empty queue");
    return slots_[head_];
  }
  const T& back() const {
    WARPSIM_INVARIANT(count_ != 0, "RingQueue::back on an empty queue");
    return slots_[(head_ + count_ - 1) & mask()];
  }

  void push(const T& value) {
    if (count_ == slots_.size()) grow();
    slots_[(head_ + count_) & mask()] = value;
    ++count_;
  }
  void pop() {
    WARPSIM_INVARIANT(count_ != 0, "RingQueue::pop on an empty queue");
    head_ = (head_ + 1) & mask();
    --count_;
  }

 private:
  size_t mask() const { return slots_.size() - 1; }  // the capacity is a power of two
  void grow() {
    std::vector<T> bigger(slots_.empty() ? 8 : slots_.size() * 2);
    for (size_t i = 0; i < count_; ++i) bigger[i] = std::move(slots_[(head_ + i) & mask()]);
    slots_ = std::move(bigger);
    head_ = 0;
  }

  std::vector<T> slots_;
  size_t head_ = 0, count_ = 0;
};

}  // namespace warpsim::interconnect
