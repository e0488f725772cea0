#pragma once
// A bounded FIFO whose entries become visible at a time: the port between
// two components of the memory system (docs/architecture.md, "Clock domains
// in picoseconds"). The producer
// pushes a value with the time (picoseconds) from which the consumer may see
// it; full() is back-pressure, never a drop. A ring buffer sized once: no
// allocation after construction.
#include <cstdint>
#include <vector>

#include "common/invariant.h"

namespace warpsim::timing {

template <class T>
class TimedQueue {
 public:
  explicit TimedQueue(uint32_t capacity = 1) : slots_(capacity ? capacity : 1) {}

  uint32_t capacity() const { return static_cast<uint32_t>(slots_.size()); }
  uint32_t size() const { return count_; }
  bool empty() const { return count_ == 0; }
  bool full() const { return count_ == slots_.size(); }
  uint32_t room() const { return capacity() - count_; }

  void push(const T& value, uint64_t ready) {
    WARPSIM_INVARIANT(!full(), "TimedQueue::push on a full queue (the producer must check full())");
    Slot& s = slots_[(head_ + count_) % slots_.size()];
    s.value = value;
    s.ready = ready;
    ++count_;
  }
  // Whether the head is visible at time `now`.
  bool ready(uint64_t now) const { return count_ != 0 && slots_[head_].ready <= now; }
  // When the head becomes visible (UINT64_MAX: empty).
  uint64_t head_time() const { return count_ ? slots_[head_].ready : UINT64_MAX; }
  const T& front() const { return slots_[head_].value; }
  T& front() { return slots_[head_].value; }
  void pop() {
    WARPSIM_INVARIANT(count_ != 0, "TimedQueue::pop on an empty queue");
    head_ = (head_ + 1) % slots_.size();
    --count_;
  }

 private:
  struct Slot {
    T value{};
    uint64_t ready = 0;
  };
  std::vector<Slot> slots_;
  uint32_t head_ = 0, count_ = 0;
};

}  // namespace warpsim::timing
