// Which kernels may run their CTAs on several host threads by default: the
// static check finds every way CTAs can act on one another (global atomics,
// gpu-scope strong accesses and fences, device malloc and launches), also
// inside called functions, and nothing in kernels that only race.
#include <gtest/gtest.h>

#include <string>

#include "functional/grid.h"
#include "tests/functional/exec_test_util.h"

namespace warpsim::functional {
namespace {

using namespace testing;  // load

// The interaction of kernel `k` in a module whose kernel body is `body`
// (registers %r1, %r2 and %rd1 declared, %rd1 = the parameter `p`).
std::string interaction_of(const std::string& body, const std::string& before = "") {
  auto l = load(before + ".visible .entry k(.param .u64 p)\n{\n"
                "  .reg .pred %q<2>; .reg .b32 %r<4>; .reg .b64 %rd<4>;\n"
                "  .shared .align 4 .b32 s;\n"
                "  ld.param.u64 %rd1, [p];\n" + body + "\n  ret;\n}\n");
  if (!l->program) return "(did not load)";
  const KernelInfo* k = l->program->find_kernel("k");
  return k ? k->cta_interaction : "(no kernel)";
}

TEST(CtaInteraction, PlainAccessesSharedAtomicsAndBarriersDoNotInteract) {
  EXPECT_EQ(interaction_of("  ld.global.u32 %r1, [%rd1];\n"
                           "  st.global.u32 [%rd1+4], %r1;\n"
                           "  ld.global.nc.u32 %r2, [%rd1+8];\n"
                           "  atom.shared.add.u32 %r2, [s], 1;\n"
                           "  red.shared.add.u32 [s], 1;\n"
                           "  bar.sync 0;\n"
                           "  membar.cta;\n"
                           "  fence.acq_rel.cta;\n"
                           "  ld.volatile.shared.u32 %r3, [s];\n"
                           "  ld.relaxed.cta.global.u32 %r3, [%rd1];\n"
                           "  st.u32 [%rd1], %r3;\n"),
            "");
}

TEST(CtaInteraction, GlobalAndGenericAtomicsInteract) {
  EXPECT_EQ(interaction_of("  atom.global.add.u32 %r1, [%rd1], 1;\n"), "atom on global memory in function `k`");
  EXPECT_EQ(interaction_of("  red.add.u32 [%rd1], 1;\n"), "red on global memory in function `k`");
  EXPECT_EQ(interaction_of("  atom.global.cas.b32 %r1, [%rd1], 0, 1;\n"), "atom on global memory in function `k`");
}

TEST(CtaInteraction, StrongGlobalAccessesAndWideFencesInteract) {
  EXPECT_EQ(interaction_of("  ld.volatile.global.u32 %r1, [%rd1];\n"),
            "a volatile load of global memory in function `k`");
  EXPECT_EQ(interaction_of("  ld.volatile.u32 %r1, [%rd1];\n"),  // generic: may be global
            "a volatile load of global memory in function `k`");
  EXPECT_EQ(interaction_of("  ld.acquire.gpu.global.u32 %r1, [%rd1];\n"),
            "a strong load of global memory in function `k`");
  EXPECT_EQ(interaction_of("  st.release.sys.global.u32 [%rd1], 1;\n"),
            "a strong store of global memory in function `k`");
  EXPECT_EQ(interaction_of("  membar.gl;\n"), "a gpu- or system-scope membar in function `k`");
  EXPECT_EQ(interaction_of("  fence.sc.gpu;\n"), "a gpu- or system-scope fence in function `k`");
  EXPECT_EQ(interaction_of("  membar.sys;\n"), "a gpu- or system-scope membar in function `k`");
}

TEST(CtaInteraction, FoundInsideCalledFunctions) {
  const std::string callee =
      ".func bump(.param .b64 a)\n{\n  .reg .b64 %x; .reg .b32 %y;\n  ld.param.b64 %x, [a];\n"
      "  atom.global.add.u32 %y, [%x], 1;\n  ret;\n}\n";
  EXPECT_EQ(interaction_of("  {\n  .param .b64 a0;\n  st.param.b64 [a0], %rd1;\n"
                           "  call.uni bump, (a0);\n  }\n",
                           callee),
            "atom on global memory in function `bump`");
  // The same function, defined but never called, does not count.
  EXPECT_EQ(interaction_of("", callee), "");
}

TEST(CtaInteraction, DeviceMallocInteracts) {
  EXPECT_EQ(interaction_of("  {\n  .param .b64 n; .param .b64 rv;\n  st.param.b64 [n], 16;\n"
                           "  call.uni (rv), malloc, (n);\n  }\n",
                           ".extern .func (.param .b64 rv) malloc(.param .b64 n);\n"),
            "device malloc/free in function `k`");
}

TEST(CtaInteraction, ThreadsFollowTheKernelUnlessSetExplicitly) {
  KernelInfo independent, atomic;
  atomic.cta_interaction = "atom on global memory in function `k`";
  ExecutorOptions automatic;  // threads = 0
  EXPECT_EQ(automatic.threads, 0u);
  EXPECT_GE(auto_threads(), 1u);
  EXPECT_LE(auto_threads(), 16u);
  EXPECT_EQ(grid_threads(automatic, &independent), auto_threads());
  EXPECT_EQ(grid_threads(automatic, &atomic), 1u);
  EXPECT_EQ(grid_threads(automatic, nullptr), 1u);
  ExecutorOptions three;
  three.threads = 3;
  EXPECT_EQ(grid_threads(three, &atomic), 3u);
  EXPECT_EQ(grid_threads(three, &independent), 3u);
}

}  // namespace
}  // namespace warpsim::functional
