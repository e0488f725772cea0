// The Allocator contract (interconnect/allocators/allocator.h), checked for
// every allocator of the registry: a new allocator is tested here without
// editing this file. Random request sets on square and non-square switches
// must get a valid, non-empty matching that does not depend on the order of
// the requests, and under steady loads every requesting input must be
// granted within a bounded wait.
#include <gtest/gtest.h>

#include "tests/plugin_test_util.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdint>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "interconnect/allocators/allocator.h"

namespace warpsim::interconnect {
namespace {

struct Shape {
  uint32_t inputs, outputs, iterations;
};
constexpr Shape kShapes[] = {{1, 1, 1}, {2, 2, 1}, {4, 4, 1}, {8, 8, 1},
                             {8, 8, 3}, {3, 7, 1}, {7, 3, 2}, {27, 27, 1}};

// Each (input, output) pair requested with probability `density`.
std::vector<AllocatorRequest> random_requests(std::mt19937_64& rng, const Shape& s,
                                              double density) {
  std::vector<AllocatorRequest> r;
  std::uniform_real_distribution<double> u(0, 1);
  for (uint32_t i = 0; i < s.inputs; ++i)
    for (uint32_t o = 0; o < s.outputs; ++o)
      if (u(rng) < density) r.push_back({i, o});
  std::shuffle(r.begin(), r.end(), rng);
  return r;
}

// "" when `grants` is a valid matching of `requests`, else what is wrong.
std::string check_matching(const std::vector<AllocatorRequest>& requests,
                           const std::vector<uint32_t>& grants, const Shape& s) {
  std::vector<bool> granted(requests.size()), in(s.inputs), out(s.outputs);
  for (uint32_t r : grants) {
    if (r >= requests.size()) return "grant " + std::to_string(r) + " is not a request";
    if (granted[r]) return "request " + std::to_string(r) + " granted twice";
    granted[r] = true;
    const AllocatorRequest& q = requests[r];
    if (in[q.input]) return "input " + std::to_string(q.input) + " matched twice";
    if (out[q.output]) return "output " + std::to_string(q.output) + " matched twice";
    in[q.input] = out[q.output] = true;
  }
  if (!requests.empty() && grants.empty()) return "no grant although there were requests";
  return "";
}

std::set<std::pair<uint32_t, uint32_t>> granted_pairs(const std::vector<AllocatorRequest>& requests,
                                                      const std::vector<uint32_t>& grants) {
  std::set<std::pair<uint32_t, uint32_t>> pairs;
  for (uint32_t r : grants) pairs.insert({requests[r].input, requests[r].output});
  return pairs;
}

class AllocatorContract : public ::testing::TestWithParam<std::string_view> {
 protected:
  std::unique_ptr<Allocator> make(const Shape& s) const {
    return allocators().make(GetParam(), AllocatorConfig{s.inputs, s.outputs, s.iterations});
  }
};

TEST_P(AllocatorContract, GrantsAValidNonEmptyMatching) {
  std::mt19937_64 rng(7);
  for (const Shape& s : kShapes) {
    SCOPED_TRACE(std::to_string(s.inputs) + "x" + std::to_string(s.outputs) + " iterations " +
                 std::to_string(s.iterations));
    auto a = make(s);
    EXPECT_EQ(a->inputs(), s.inputs);
    EXPECT_EQ(a->outputs(), s.outputs);
    std::vector<uint32_t> grants = {12345};  // cleared by allocate
    uint64_t cycle = 0;
    for (int call = 0; call < 2000; ++call) {
      const double density = std::array{0.02, 0.1, 0.3, 0.7, 1.0}[call % 5];
      const std::vector<AllocatorRequest> requests = random_requests(rng, s, density);
      a->allocate(requests, cycle, grants);
      const std::string problem = check_matching(requests, grants, s);
      ASSERT_EQ(problem, "") << "call " << call;
      cycle += 1 + rng() % 3;  // cycles without allocation are skipped
    }
  }
}

TEST_P(AllocatorContract, MatchingDoesNotDependOnTheOrderOfRequests) {
  std::mt19937_64 rng(11);
  for (const Shape& s : kShapes) {
    auto a = make(s), b = make(s);
    std::vector<uint32_t> ga, gb;
    for (uint64_t cycle = 0; cycle < 1000; ++cycle) {
      std::vector<AllocatorRequest> requests = random_requests(rng, s, 0.4);
      a->allocate(requests, cycle, ga);
      const auto pairs = granted_pairs(requests, ga);
      std::reverse(requests.begin(), requests.end());
      std::shuffle(requests.begin(), requests.end(), rng);
      b->allocate(requests, cycle, gb);
      ASSERT_EQ(granted_pairs(requests, gb), pairs)
          << s.inputs << "x" << s.outputs << " cycle " << cycle;
    }
  }
}

// Steady loads: the same requests every cycle. Every requesting input is
// granted, and waits at most inputs x outputs cycles between grants.
TEST_P(AllocatorContract, NoRequesterStarvesUnderSteadyLoad) {
  std::mt19937_64 rng(13);
  for (const Shape& s : kShapes) {
    std::vector<std::pair<std::string, std::vector<AllocatorRequest>>> loads;
    std::vector<AllocatorRequest> all, hot;
    for (uint32_t i = 0; i < s.inputs; ++i)
      for (uint32_t o = 0; o < s.outputs; ++o) {
        all.push_back({i, o});
        if (o == 0 || o == i % s.outputs) hot.push_back({i, o});
      }
    loads.emplace_back("all to all", all);
    loads.emplace_back("hot output 0", hot);
    for (double density : {0.3, 0.6})
      loads.emplace_back("random", random_requests(rng, s, density));
    for (const auto& [what, requests] : loads) {
      SCOPED_TRACE(std::to_string(s.inputs) + "x" + std::to_string(s.outputs) + " iterations " +
                   std::to_string(s.iterations) + ", " + what);
      auto a = make(s);
      const uint64_t bound = uint64_t{s.inputs} * s.outputs;
      std::vector<uint64_t> last(s.inputs, 0), longest(s.inputs, 0);
      std::vector<bool> requesting(s.inputs, false);
      for (const AllocatorRequest& q : requests) requesting[q.input] = true;
      std::vector<uint32_t> grants;
      const uint64_t cycles = 20 * bound + 100;
      for (uint64_t cycle = 1; cycle <= cycles; ++cycle) {
        a->allocate(requests, cycle, grants);
        for (uint32_t r : grants) {
          const uint32_t in = requests[r].input;
          longest[in] = std::max(longest[in], cycle - last[in]);
          last[in] = cycle;
        }
      }
      for (uint32_t in = 0; in < s.inputs; ++in) {
        if (!requesting[in]) continue;
        longest[in] = std::max(longest[in], cycles + 1 - last[in]);
        EXPECT_LE(longest[in], bound) << "input " << in;
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Registered, AllocatorContract, ::testing::ValuesIn(allocators().names()),
                         plugin_test_name<std::string_view>);

}  // namespace
}  // namespace warpsim::interconnect
