// `separable-input-first` and `separable-output-first`: separable
// allocators with round-robin arbiters (Dally and Towles, "Principles and
// Practices of Interconnection Networks", 2004, sec. 19.3).
//
// Input-first: every input with requests picks one of its requested
// outputs (the one nearest its arbiter's pointer); every output picked by
// some inputs grants one of them (nearest its pointer). Output-first is the
// mirror image: outputs pick first, then each input accepts one of the
// outputs that picked it. One pass, no iterations: unlike iSLIP, an input
// whose pick lost stays unmatched this cycle even if another of its outputs
// is free. Both arbiters of a granted pair move one past their partner, so
// under a steady load every requester is served in turn (no starvation).
#include <algorithm>
#include <memory>

#include "interconnect/allocators/allocator.h"

namespace warpsim::interconnect {
namespace {

class Separable final : public Allocator {
 public:
  Separable(const AllocatorConfig& config, bool input_first)
      : Allocator(config),
        input_first_(input_first),
        in_ptr_(config.inputs, 0),
        out_ptr_(config.outputs, 0),
        in_pick_(config.inputs, kNone),
        out_pick_(config.outputs, kNone) {
    picked_.reserve(std::max(config.inputs, config.outputs));
    second_.reserve(std::max(config.inputs, config.outputs));
  }

  void allocate(std::span<const AllocatorRequest> requests, uint64_t,
                std::vector<uint32_t>& grants) override {
    grants.clear();
    // First stage: each port of the first side picks the request whose
    // partner is nearest its pointer.
    picked_.clear();
    for (uint32_t r = 0; r < requests.size(); ++r) {
      const uint32_t me = first(requests[r]), other = second(requests[r]);
      uint32_t& p = pick1(me);
      if (p == kNone) {
        picked_.push_back(me);
        p = r;
      } else if (distance(ptr1(me), other, n2()) < distance(ptr1(me), second(requests[p]), n2())) {
        p = r;
      }
    }
    // Second stage: each port of the second side chooses among the first
    // side's picks that name it.
    second_.clear();
    for (uint32_t me : picked_) {
      const uint32_t r = pick1(me);
      pick1(me) = kNone;
      const uint32_t other = second(requests[r]);
      uint32_t& p = pick2(other);
      if (p == kNone) {
        second_.push_back(other);
        p = r;
      } else if (distance(ptr2(other), me, n1()) < distance(ptr2(other), first(requests[p]), n1())) {
        p = r;
      }
    }
    for (uint32_t other : second_) {
      const uint32_t r = pick2(other);
      pick2(other) = kNone;
      grants.push_back(r);
      const AllocatorRequest& q = requests[r];
      in_ptr_[q.input] = (q.output + 1) % outputs_;
      out_ptr_[q.output] = (q.input + 1) % inputs_;
    }
  }

 private:
  // The first and second side of the allocation.
  uint32_t first(const AllocatorRequest& q) const { return input_first_ ? q.input : q.output; }
  uint32_t second(const AllocatorRequest& q) const { return input_first_ ? q.output : q.input; }
  uint32_t n1() const { return input_first_ ? inputs_ : outputs_; }
  uint32_t n2() const { return input_first_ ? outputs_ : inputs_; }
  uint32_t& pick1(uint32_t port) { return input_first_ ? in_pick_[port] : out_pick_[port]; }
  uint32_t& pick2(uint32_t port) { return input_first_ ? out_pick_[port] : in_pick_[port]; }
  uint32_t ptr1(uint32_t port) const { return input_first_ ? in_ptr_[port] : out_ptr_[port]; }
  uint32_t ptr2(uint32_t port) const { return input_first_ ? out_ptr_[port] : in_ptr_[port]; }

  bool input_first_;
  std::vector<uint32_t> in_ptr_;   // per input: its arbiter's pointer over the outputs
  std::vector<uint32_t> out_ptr_;  // per output: its arbiter's pointer over the inputs
  // Scratch, reset as it is read.
  std::vector<uint32_t> in_pick_, out_pick_;  // per port: the request it picked, or kNone
  std::vector<uint32_t> picked_, second_;
};

}  // namespace

std::unique_ptr<Allocator> make_separable_input_first_allocator(const AllocatorConfig& config) {
  return std::make_unique<Separable>(config, true);
}

std::unique_ptr<Allocator> make_separable_output_first_allocator(const AllocatorConfig& config) {
  return std::make_unique<Separable>(config, false);
}

}  // namespace warpsim::interconnect
