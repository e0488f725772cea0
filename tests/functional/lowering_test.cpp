// Lowering details checked through execution: where variables live and what
// they hold when a kernel starts.
#include <gtest/gtest.h>

#include <vector>

#include "functional/device.h"
#include "tests/functional/exec_test_util.h"

namespace warpsim::functional {
namespace {

using namespace testing;  // load, upload, run, download, run_lanes

// Regression: .global/.const variables declared inside a function were
// allocated but their initialisers never written (printf format strings read
// as empty).
TEST(Lowering, FunctionScopeGlobalAndConstVariablesAreInitialised) {
  auto l = load(R"(
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<4>; .reg .b64 %rd<4>;
  .global .align 4 .u32 g[2] = {11, 22};
  .const .align 4 .u32 c[2] = {33, 44};
  ld.param.u64 %rd1, [out];
  ld.global.u32 %r1, [g+4];
  ld.const.u32 %r2, [c];
  st.global.v2.u32 [%rd1], {%r1, %r2};
  ret;
}
)");
  uint64_t out = upload(l->device, std::vector<uint32_t>(2));
  ASSERT_TRUE(run(*l, "k", {1}, {1}, {param_bytes(out)}).ok());
  EXPECT_EQ(download(l->device, out, 2), (std::vector<uint32_t>{22, 33}));
}

// Regression: a float literal given to a .f16/.bf16 operand was passed on as
// f32 bits, whose low 16 bits are 0 for 1.0 (0f3F800000).
TEST(Lowering, FloatLiteralsForHalfOperandsAreRoundedToHalf) {
  auto l = load(R"(
.visible .entry k(.param .u64 out)
{
  .reg .b16 %h<4>; .reg .b32 %r<4>; .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  mov.b16 %h1, 0x0000;
  cvt.f32.f16 %r1, 0f3F800000;
  cvt.f32.bf16 %r2, 0f40490FDB;
  st.global.v2.u32 [%rd1], {%r1, %r2};
  ret;
}
)");
  uint64_t out = upload(l->device, std::vector<uint32_t>(2));
  ASSERT_TRUE(run(*l, "k", {1}, {1}, {param_bytes(out)}).ok());
  // 1.0 exactly; pi rounds to bf16 0x4049 = 3.140625.
  EXPECT_EQ(download(l->device, out, 2), (std::vector<uint32_t>{0x3f800000u, 0x40490000u}));
}

}  // namespace
}  // namespace warpsim::functional
