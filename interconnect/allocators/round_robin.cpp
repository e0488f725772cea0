// `round-robin`: the requested outputs are walked in a rotating order,
// starting at output cycle % outputs; each grants the first requesting,
// still unmatched input at or after its pointer, which then moves one past
// that input. An input is granted by one output at most. (cycle % outputs
// rather than a counter of calls: skipping idle cycles leaves the order
// unchanged.)
//
// Fair per input, not per pair: under a steady load an input that an
// earlier output in the walk keeps serving may never be granted a
// particular output (that output's pointer moves past it to the inputs it
// does grant). iSLIP's pointer rule avoids this.
//
// The walk is a sort of the requests by (output's place in the walk,
// input's distance from the output's pointer): O(R log R) for R requests.
#include <algorithm>
#include <memory>
#include <utility>

#include "interconnect/allocators/allocator.h"

namespace warpsim::interconnect {
namespace {

class RoundRobin final : public Allocator {
 public:
  explicit RoundRobin(const AllocatorConfig& config)
      : Allocator(config),
        grant_ptr_(config.outputs, 0),
        in_matched_(config.inputs, 0),
        out_matched_(config.outputs, 0) {}

  void allocate(std::span<const AllocatorRequest> requests, uint64_t cycle,
                std::vector<uint32_t>& grants) override {
    grants.clear();
    const uint32_t start = static_cast<uint32_t>(cycle % outputs_);
    order_.clear();
    for (uint32_t r = 0; r < requests.size(); ++r) {
      const AllocatorRequest& q = requests[r];
      const uint64_t key = uint64_t{distance(start, q.output, outputs_)} << 32 |
                           distance(grant_ptr_[q.output], q.input, inputs_);
      order_.emplace_back(key, r);
    }
    // Keys are unique (no pair is requested twice): the order is total.
    std::sort(order_.begin(), order_.end());
    for (const auto& [key, r] : order_) {
      const AllocatorRequest& q = requests[r];
      if (in_matched_[q.input] || out_matched_[q.output]) continue;
      grants.push_back(r);
      in_matched_[q.input] = 1;
      out_matched_[q.output] = 1;
      grant_ptr_[q.output] = (q.input + 1) % inputs_;
    }
    for (uint32_t r : grants) {
      in_matched_[requests[r].input] = 0;
      out_matched_[requests[r].output] = 0;
    }
  }

 private:
  std::vector<uint32_t> grant_ptr_;  // per output
  // Scratch, reused every call.
  std::vector<std::pair<uint64_t, uint32_t>> order_;  // (walk key, request)
  std::vector<uint8_t> in_matched_, out_matched_;  // bytes, not vector<bool>: read per request
};

}  // namespace

std::unique_ptr<Allocator> make_round_robin_allocator(const AllocatorConfig& config) {
  return std::make_unique<RoundRobin>(config);
}

}  // namespace warpsim::interconnect
