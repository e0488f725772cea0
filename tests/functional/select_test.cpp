// set (integer sources) and slct: comparisons that produce values.
#include <gtest/gtest.h>

#include <bit>
#include <vector>

#include "functional/device.h"
#include "tests/functional/exec_test_util.h"

namespace warpsim::functional {
namespace {

using namespace testing;  // load, upload, run, download, run_lanes

using testing::run_lanes;

TEST(Select, SetWithIntegerSourcesGivesAllOnesOrOnePointZero) {
  const std::vector<uint32_t> a = {1, 5, 0xffffffffu, 7, 0x80000000u};
  const std::vector<uint32_t> b = {2, 5, 1, 3, 0x7fffffffu};
  const std::vector<uint32_t> c(5, 0);
  // Signed: -1 < 1 and INT_MIN < INT_MAX; unsigned: the opposite.
  EXPECT_EQ(run_lanes("  set.lt.u32.s32 %r4, %r1, %r2;", a, b, c),
            (std::vector<uint32_t>{~0u, 0, ~0u, 0, ~0u}));
  EXPECT_EQ(run_lanes("  set.lt.u32.u32 %r4, %r1, %r2;", a, b, c),
            (std::vector<uint32_t>{~0u, 0, 0, 0, 0}));
  const uint32_t one = std::bit_cast<uint32_t>(1.0f);
  EXPECT_EQ(run_lanes("  set.ge.f32.s32 %r4, %r1, %r2;", a, b, c),
            (std::vector<uint32_t>{0, one, 0, one, 0}));
  // With a boolean op: (a == b) or (c != 0), c taken from lane parity.
  EXPECT_EQ(run_lanes("  and.b32 %r6, %r5, 1; setp.ne.u32 %p1, %r6, 0;\n"
                      "  set.eq.or.s32.u32 %r4, %r1, %r2, %p1;",
                      a, b, c),
            (std::vector<uint32_t>{0, ~0u, 0, ~0u, 0}));
}

TEST(Select, SlctPicksByTheSignOfC) {
  const std::vector<uint32_t> a(6, 111), b(6, 222);
  const uint32_t neg_zero = 0x80000000u, neg_sub = 0x80000001u, nan = 0x7fc00000u;
  const uint32_t minus_one = std::bit_cast<uint32_t>(-1.0f);
  // Integer c: >= 0 picks a.
  EXPECT_EQ(run_lanes("  slct.u32.s32 %r4, %r1, %r2, %r3;", a, b,
                      {0, 1, 0xffffffffu, 0x7fffffffu, 0x80000000u, 5}),
            (std::vector<uint32_t>{111, 111, 222, 111, 222, 111}));
  // Float c: -0.0 >= 0; NaN picks b; a negative subnormal is < 0 unless .ftz.
  const std::vector<uint32_t> fc = {0, neg_zero, minus_one, nan, neg_sub, 0x3f800000u};
  EXPECT_EQ(run_lanes("  slct.u32.f32 %r4, %r1, %r2, %r3;", a, b, fc),
            (std::vector<uint32_t>{111, 111, 222, 222, 222, 111}));
  EXPECT_EQ(run_lanes("  slct.ftz.u32.f32 %r4, %r1, %r2, %r3;", a, b, fc),
            (std::vector<uint32_t>{111, 111, 222, 222, 111, 111}));
}

}  // namespace
}  // namespace warpsim::functional
