// What one allocator does beyond the contract (allocator_contract_test.cpp):
// iSLIP serves every requested (input, output) pair under a steady load,
// within N x N cycles (McKeown 1999: the first-round pointer rule). The
// crafted iSLIP and round-robin patterns are in network_test.cpp, through
// the crossbar.
#include "interconnect/allocators/allocator.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <vector>

namespace warpsim::interconnect {
namespace {

TEST(Islip, NoRequestedPairStarvesUnderSteadyLoad) {
  constexpr uint32_t kN = 7;
  // All to all, and a hot output 0 that every input also wants.
  std::vector<AllocatorRequest> all, hot;
  for (uint32_t i = 0; i < kN; ++i)
    for (uint32_t o = 0; o < kN; ++o) {
      all.push_back({i, o});
      if (o == 0 || o == (i + 3) % kN) hot.push_back({i, o});
    }
  for (uint32_t iterations : {1u, 2u})
    for (const std::vector<AllocatorRequest>* requests : {&all, &hot}) {
      auto a = allocators().make("islip", AllocatorConfig{kN, kN, iterations});
      std::vector<uint64_t> last(requests->size(), 0), longest(requests->size(), 0);
      std::vector<uint32_t> grants;
      constexpr uint64_t kCycles = 2000;
      for (uint64_t cycle = 1; cycle <= kCycles; ++cycle) {
        a->allocate(*requests, cycle, grants);
        for (uint32_t r : grants) {
          longest[r] = std::max(longest[r], cycle - last[r]);
          last[r] = cycle;
        }
      }
      for (size_t r = 0; r < requests->size(); ++r)
        EXPECT_LE(std::max(longest[r], kCycles + 1 - last[r]), uint64_t{kN} * kN)
            << "iterations " << iterations << ": input " << (*requests)[r].input << " -> output "
            << (*requests)[r].output;
    }
}

}  // namespace
}  // namespace warpsim::interconnect
