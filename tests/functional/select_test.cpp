// set (integer sources) and slct: comparisons that produce values.
#include <gtest/gtest.h>

#include <bit>
#include <vector>

#include "functional/device.h"
#include "tests/functional/exec_test_util.h"

namespace warpsim::functional {
namespace {

using testing::download;
using testing::load;
using testing::run;
using testing::upload;

// Runs `body` (operating on %r1 = a[i], %r2 = b[i], %r3 = c[i], result in
// %r4) for every i and returns out[i] = %r4.
std::vector<uint32_t> run_lanes(const std::string& body, const std::vector<uint32_t>& a,
                                const std::vector<uint32_t>& b, const std::vector<uint32_t>& c) {
  auto l = load(".visible .entry k(.param .u64 pa, .param .u64 pb, .param .u64 pc, .param .u64 po)\n{\n"
                "  .reg .pred %p<4>; .reg .b32 %r<8>; .reg .b64 %rd<12>;\n"
                "  ld.param.u64 %rd1, [pa]; ld.param.u64 %rd2, [pb]; ld.param.u64 %rd3, [pc];\n"
                "  ld.param.u64 %rd4, [po];\n"
                "  mov.u32 %r5, %tid.x; mul.wide.u32 %rd5, %r5, 4;\n"
                "  add.s64 %rd6, %rd1, %rd5; add.s64 %rd7, %rd2, %rd5; add.s64 %rd8, %rd3, %rd5;\n"
                "  add.s64 %rd9, %rd4, %rd5;\n"
                "  ld.global.u32 %r1, [%rd6]; ld.global.u32 %r2, [%rd7]; ld.global.u32 %r3, [%rd8];\n" +
                body + "\n  st.global.u32 [%rd9], %r4;\n  ret;\n}\n");
  const uint32_t n = static_cast<uint32_t>(a.size());
  uint64_t da = upload(l->device, a), db = upload(l->device, b), dc = upload(l->device, c);
  uint64_t out = upload(l->device, std::vector<uint32_t>(n, 0xdeadbeef));
  LaunchResult r = run(*l, "k", {1}, {n}, {param_bytes(da), param_bytes(db), param_bytes(dc), param_bytes(out)});
  EXPECT_TRUE(r.ok()) << (r.fault ? r.fault->message : "");
  return download(l->device, out, n);
}

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
