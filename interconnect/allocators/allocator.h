#pragma once
// Switch allocators: each cycle, match the inputs of a switch that want an
// output to the outputs they want. Every switch (the crossbar, later the
// routers of a mesh) takes its allocator by name from the allocator registry
// (allocators.def), so the policies are written once.
//
// Contract of Allocator::allocate(requests, cycle, grants):
//   - requests: (input, output) pairs with input < inputs() and
//     output < outputs(), no pair twice, in any order. Each pair is a
//     requester: that input has something for that output and both are
//     free this cycle.
//   - grants: cleared, then filled with indices into `requests` (each at
//     most once) whose requests form a matching: no two granted requests
//     share an input or an output. Only requested pairs are granted.
//   - Non-empty whenever `requests` is.
//   - The matching depends on the requests as a set, the cycle and the
//     allocator's own state (its priority pointers, one per port), not on
//     the order of `requests`; the order of `grants` may.
//   - Fair: under a steady load (the same requests every cycle), every
//     requesting input is granted within a bounded number of cycles (the
//     contract tests hold it to inputs x outputs). islip also serves every
//     requested (input, output) pair; round-robin need not (round_robin.cpp).
//   - `cycle` is the switch's clock: a policy that rotates with time uses it
//     rather than counting calls, so skipping idle cycles changes nothing.
//   - No allocation per call once the scratch has grown to the largest
//     request set: the cost is proportional to the requests.
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "common/invariant.h"
#include "common/registry.h"

namespace warpsim::interconnect {

struct AllocatorRequest {
  uint32_t input = 0;
  uint32_t output = 0;
};

struct AllocatorConfig {
  uint32_t inputs = 1;      // ports numbered 0 .. inputs-1
  uint32_t outputs = 1;     // ports numbered 0 .. outputs-1
  uint32_t iterations = 1;  // islip: request-grant-accept rounds per allocation
};

class Allocator {
 public:
  explicit Allocator(const AllocatorConfig& config)
      : inputs_(config.inputs), outputs_(config.outputs) {
    WARPSIM_INVARIANT(inputs_ >= 1 && outputs_ >= 1 && config.iterations >= 1,
                      "an allocator has ports and runs at least one iteration");
  }
  virtual ~Allocator() = default;
  Allocator(const Allocator&) = delete;
  Allocator& operator=(const Allocator&) = delete;

  // See the contract above.
  virtual void allocate(std::span<const AllocatorRequest> requests, uint64_t cycle,
                        std::vector<uint32_t>& grants) = 0;

  uint32_t inputs() const { return inputs_; }
  uint32_t outputs() const { return outputs_; }

 protected:
  static constexpr uint32_t kNone = UINT32_MAX;
  // Round-robin distance from `from` to `to` among n ports.
  static uint32_t distance(uint32_t from, uint32_t to, uint32_t n) { return (to + n - from) % n; }

  uint32_t inputs_, outputs_;
};

using AllocatorRegistry = Registry<std::unique_ptr<Allocator> (*)(const AllocatorConfig&)>;

// The allocators of allocators.def, by name.
const AllocatorRegistry& allocators();

}  // namespace warpsim::interconnect
