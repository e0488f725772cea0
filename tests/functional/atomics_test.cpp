// atom/red: floating-point forms and atomicity when CTAs run on several threads.
#include <gtest/gtest.h>

#include <bit>
#include <vector>

#include "functional/device.h"
#include "tests/functional/exec_test_util.h"

namespace warpsim::functional {
namespace {

using namespace testing;  // load, upload, run, download, run_lanes

// Every thread adds `v` to the one word at out, with the given atom form.
std::string add_kernel(const std::string& form, const std::string& type) {
  return ".visible .entry k(.param .u64 out, .param ." + type + " v)\n{\n"
         "  .reg .b32 %r<4>; .reg .b64 %rd<4>;\n"
         "  ld.param.u64 %rd1, [out]; ld.param.b32 %r1, [v];\n"
         "  " + form + " %r2, [%rd1], %r1;\n  ret;\n}\n";
}

uint32_t run_add(const std::string& form, const std::string& type, uint32_t init, uint32_t v,
                 uint32_t threads = 1) {
  auto l = load(add_kernel(form, type));
  uint64_t out = upload(l->device, std::vector<uint32_t>{init});
  EXPECT_TRUE(run(*l, "k", {1}, {threads}, {param_bytes(out), param_bytes(v)}).ok());
  return download(l->device, out, 1)[0];
}

TEST(Atomics, HalfPrecisionPairsAddElementwiseRoundToNearest) {
  // f16x2: low 1.0 + 0.5 = 1.5 (0x3e00); high 2048 + 1 = 2049 rounds to even 2048 (0x6800).
  EXPECT_EQ(run_add("atom.global.add.noftz.f16x2", "b32", 0x68003c00u, 0x3c003800u), 0x68003e00u);
  // Subnormals are kept (.noftz): 0x0001 + 0x0001 = 0x0002 in both halves.
  EXPECT_EQ(run_add("atom.global.add.noftz.f16x2", "b32", 0x00010001u, 0x00010001u), 0x00020002u);
  // bf16x2: 1.0 (0x3f80) + 1.0 = 2.0 (0x4000); 256 (0x4380) + 1 = 257 -> ties to even 256.
  EXPECT_EQ(run_add("atom.global.add.noftz.bf16x2", "b32", 0x43803f80u, 0x3f803f80u), 0x43804000u);
  // 32 lanes each add 1.0 (f16x2 0x3c00 low, 0 high): 32.0 = 0x5000.
  EXPECT_EQ(run_add("atom.global.add.noftz.f16x2", "b32", 0, 0x00003c00u, 32), 0x00005000u);
}

TEST(Atomics, F32AddFlushesSubnormalInputsAndResults) {
  const uint32_t min_sub = 0x00000001u, one = std::bit_cast<uint32_t>(1.0f);
  // A subnormal operand counts as zero: 1.0 + tiny = 1.0 exactly, and tiny + tiny = +0.
  EXPECT_EQ(run_add("atom.global.add.f32", "b32", one, min_sub), one);
  EXPECT_EQ(run_add("atom.global.add.f32", "b32", min_sub, min_sub), 0u);
  // Normal values add as usual: 1.5 + 2.25 = 3.75.
  EXPECT_EQ(run_add("atom.global.add.f32", "b32", std::bit_cast<uint32_t>(1.5f),
                    std::bit_cast<uint32_t>(2.25f)),
            std::bit_cast<uint32_t>(3.75f));
}

// Many CTAs on several host threads hammer one counter and one max: no update
// may be lost.
TEST(Atomics, GlobalAtomicsStayAtomicWithParallelCtas) {
  auto l = load(R"(
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<8>; .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %ctaid.x; mov.u32 %r2, %ntid.x; mov.u32 %r3, %tid.x;
  mad.lo.s32 %r4, %r1, %r2, %r3;
  red.global.add.u32 [%rd1], 1;
  red.global.max.u32 [%rd1+4], %r4;
  atom.global.add.u64 %rd2, [%rd1+8], 3;
  ret;
}
)");
  ExecutorOptions opt;
  opt.threads = 4;
  l->device.set_executor_options(opt);
  uint64_t out = upload(l->device, std::vector<uint32_t>(4));
  ASSERT_TRUE(run(*l, "k", {200}, {128}, {param_bytes(out)}).ok());
  auto v = download(l->device, out, 4);
  EXPECT_EQ(v[0], 200u * 128);
  EXPECT_EQ(v[1], 200u * 128 - 1);
  EXPECT_EQ(v[2] | uint64_t{v[3]} << 32, 3ull * 200 * 128);
}

}  // namespace
}  // namespace warpsim::functional
