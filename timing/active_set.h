#pragma once
// The members of a component array that have work, so that a clock domain's
// per-cycle cost follows what is active rather than how many components
// exist (docs/architecture.md, "Idle domains sleep"). Members are visited in increasing index order,
// so results do not depend on the order in which they became active.
#include <algorithm>
#include <cstdint>
#include <vector>

namespace warpsim::timing {

class ActiveSet {
 public:
  explicit ActiveSet(uint32_t size = 0) : listed_(size, 0) { members_.reserve(size); }

  void add(uint32_t i) {
    if (listed_[i]) return;
    listed_[i] = 1;
    // Kept sorted: the lists are short (the components with work), and the
    // capacity reserved up front means no allocation.
    members_.insert(std::lower_bound(members_.begin(), members_.end(), i), i);
  }
  bool empty() const { return members_.empty(); }
  // The members in increasing order. Adding while iterating is not allowed
  // (collect first, or add to another set).
  const std::vector<uint32_t>& members() const { return members_; }
  // Drops the members for which `still_active(i)` is false.
  template <class Pred>
  void prune(Pred still_active) {
    size_t out = 0;
    for (uint32_t i : members_) {
      if (still_active(i)) {
        members_[out++] = i;
      } else {
        listed_[i] = 0;
      }
    }
    members_.resize(out);
  }

 private:
  std::vector<uint8_t> listed_;
  std::vector<uint32_t> members_;
};

}  // namespace warpsim::timing
