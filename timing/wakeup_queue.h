#pragma once
// When each member of a component array next has work: a min-heap of
// (time, member) with one live entry per member, so a clock domain ticks
// only the members due at an edge, and finds its next edge in O(1)
// (docs/architecture.md, "Idle domains sleep"). Due members come out in increasing index order,
// so results do not depend on the order in which they were scheduled.
#include <algorithm>
#include <cstdint>
#include <queue>
#include <vector>

namespace warpsim::timing {

class WakeupQueue {
 public:
  explicit WakeupQueue(uint32_t size = 0) : at_(size, UINT64_MAX) {}

  // Member `i` has work at time `t` (an earlier wake-up already scheduled
  // covers it: the member recomputes its next time when it runs).
  void schedule(uint32_t i, uint64_t t) {
    if (t >= at_[i]) return;
    at_[i] = t;
    heap_.push({t, i});
  }
  // The earliest scheduled time (UINT64_MAX: none).
  uint64_t next() const {
    drop_stale();
    return heap_.empty() ? UINT64_MAX : heap_.top().time;
  }
  // Moves every member due at or before `now` into `out` (sorted); they are
  // unscheduled until scheduled again.
  void pop_due(uint64_t now, std::vector<uint32_t>& out) {
    out.clear();
    for (drop_stale(); !heap_.empty() && heap_.top().time <= now; drop_stale()) {
      const uint32_t i = heap_.top().member;
      heap_.pop();
      at_[i] = UINT64_MAX;
      out.push_back(i);
    }
    std::sort(out.begin(), out.end());
  }

 private:
  struct Entry {
    uint64_t time;
    uint32_t member;
    bool operator>(const Entry& o) const { return time != o.time ? time > o.time : member > o.member; }
  };
  // Entries superseded by an earlier schedule() of the same member.
  void drop_stale() const {
    while (!heap_.empty() && at_[heap_.top().member] != heap_.top().time) heap_.pop();
  }
  std::vector<uint64_t> at_;
  // Mutable: dropping superseded entries does not change what is scheduled.
  mutable std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> heap_;
};

}  // namespace warpsim::timing
