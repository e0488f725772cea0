// Kernel resource tests: registers, static and dynamic shared memory, local
// frames through calls, constant memory, parameter layout and the call graph.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "common/source_file.h"
#include "ptx/resources.h"
#include "ptx_test_util.h"

namespace warpsim::ptx {
namespace {

using testing::parse_text;
using I = std::vector<uint32_t>;

struct Analysed {
  std::unique_ptr<testing::Parsed> parsed;
  KernelResources r;
  const Module& m() const { return *parsed->module; }
  uint32_t fn(std::string_view name) const {
    return static_cast<uint32_t>(m().find_function(name) - m().functions.data());
  }
  uint32_t global(std::string_view name) const {
    return static_cast<uint32_t>(m().find_global(name) - m().globals.data());
  }
};

Analysed analyse(const std::string& body, std::string_view kernel) {
  Analysed a;
  a.parsed = parse_text(std::string(testing::kHeader) + body);
  EXPECT_TRUE(a.parsed->ok()) << a.parsed->errors();
  const Function* k = a.parsed->module->find_function(kernel);
  EXPECT_NE(k, nullptr);
  if (k) a.r = compute_resources(*a.parsed->module, *k);
  return a;
}

// A kernel with static and dynamic shared memory, a local array, two callees
// with their own local frames (one calling a third), and constant tables.
const char* kModule = R"(
.const .align 4 .b8 ctab[100];
.const .f32 cscale;
.const .f32 cunused;
.shared .align 4 .b8 tile[1000];
.shared .align 16 .b8 helper_buf[64];
.shared .f32 unused_sh[8];
.extern .shared .align 16 .b8 dyn[];

.func leaf3()
{
  .local .align 8 .b8 big[300];
  .reg .b64 %rd<2>;
  mov.u64 %rd1, big;
  ret;
}

.func (.param .b32 rv) helper(.param .b32 a)
{
  .local .align 8 .b8 frame[40];
  .reg .b32 %r<4>;
  .reg .b64 %rd<3>;
  .reg .f32 %f<2>;
  ld.param.b32 %r1, [a];
  st.shared.u32 [helper_buf+4], %r1;
  ld.const.f32 %f1, [cscale];
  call.uni leaf3, ();
  st.param.b32 [rv], %r1;
  ret;
}

.func leaf2()
{
  .local .b8 mid[200];
  ret;
}

.func never_called()
{
  .local .b8 huge[5000];
  ret;
}

.visible .entry kern(.param .align 8 .b8 p[24], .param .u32 n)
{
  .local .align 4 .b8 arr[64];
  .reg .pred %p<2>;
  .reg .b16 %h<3>;
  .reg .b32 %r<10>;
  .reg .f32 %f<5>;
  .reg .b64 %rd<6>;
  .reg .f64 %fd<2>;
  ld.shared.u32 %r1, [tile+8];
  ld.shared.u32 %r2, [dyn];
  mov.u64 %rd1, ctab;
  {
  .param .b32 param0;
  st.param.b32 [param0], %r1;
  .param .b32 retval0;
  call.uni (retval0), helper, (param0);
  ld.param.b32 %r3, [retval0];
  }
  call.uni leaf2, ();
  ret;
}
)";

TEST(Resources, Registers) {
  auto a = analyse(kModule, "kern");
  const KernelResources& r = a.r;
  auto count = [&](ScalarType t) { return r.regs_by_type[static_cast<size_t>(t)]; };
  EXPECT_EQ(count(ScalarType::Pred), 2u);
  EXPECT_EQ(count(ScalarType::B16), 3u);
  EXPECT_EQ(count(ScalarType::B32), 10u);
  EXPECT_EQ(count(ScalarType::F32), 5u);
  EXPECT_EQ(count(ScalarType::B64), 6u);
  EXPECT_EQ(count(ScalarType::F64), 2u);
  // pred 0, b16 3x1, b32 10x1, f32 5x1, b64 6x2, f64 2x2
  EXPECT_EQ(r.reg32, 34u);
  EXPECT_EQ(r.reg32_with_callees, 34u);  // callees declare fewer
}

TEST(Resources, RegisterUnitsAndVectorRegisters) {
  EXPECT_EQ(reg32_units(ScalarType::Pred), 0u);
  EXPECT_EQ(reg32_units(ScalarType::B8), 1u);
  EXPECT_EQ(reg32_units(ScalarType::F16), 1u);
  EXPECT_EQ(reg32_units(ScalarType::F16x2), 1u);
  EXPECT_EQ(reg32_units(ScalarType::U32), 1u);
  EXPECT_EQ(reg32_units(ScalarType::U64), 2u);
  EXPECT_EQ(reg32_units(ScalarType::F64), 2u);
  EXPECT_EQ(reg32_units(ScalarType::B128), 4u);
  auto a = analyse(
      ".func big()\n{\n  .reg .b64 %x<40>;\n  ret;\n}\n"
      ".visible .entry k()\n{\n  .reg .v4 .f32 %v;\n  .reg .b32 %r<3>;\n"
      "  call.uni big, ();\n  ret;\n}\n",
      "k");
  EXPECT_EQ(a.r.regs_by_type[static_cast<size_t>(ScalarType::F32)], 4u);  // one per lane
  EXPECT_EQ(a.r.reg32, 7u);
  EXPECT_EQ(a.r.reg32_with_callees, 80u);  // the callee's 40 x b64
}

TEST(Resources, StaticAndDynamicShared) {
  auto a = analyse(kModule, "kern");
  const KernelResources& r = a.r;
  // tile (kernel) at 0, helper_buf (through helper) at align_up(1000, 16).
  ASSERT_EQ(r.shared.size(), 2u);
  EXPECT_EQ(r.shared[0].var, (VarRef{kNone, a.global("tile")}));
  EXPECT_EQ(r.shared[0].offset, 0u);
  EXPECT_EQ(r.shared[0].size, 1000u);
  EXPECT_EQ(r.shared[1].var, (VarRef{kNone, a.global("helper_buf")}));
  EXPECT_EQ(r.shared[1].offset, 1008u);
  EXPECT_EQ(r.shared[1].align, 16u);
  EXPECT_EQ(r.shared_bytes, 1072u);  // unused_sh is not referenced
  EXPECT_TRUE(r.uses_dynamic_shared);
  EXPECT_EQ(r.dynamic_shared_align, 16u);
}

TEST(Resources, FunctionScopeSharedAndNoDynamic) {
  auto a = analyse(
      ".visible .entry k()\n{\n"
      "  .shared .align 8 .b8 buf[12];\n"
      "  .shared .u16 h;\n"
      "  .shared .align 4 .u32 w[3];\n"
      "  ret;\n}\n",
      "k");
  ASSERT_EQ(a.r.shared.size(), 3u);
  EXPECT_EQ(a.r.shared[0].var, (VarRef{a.fn("k"), 0}));
  EXPECT_EQ(a.r.shared[1].offset, 12u);
  EXPECT_EQ(a.r.shared[2].offset, 16u);
  EXPECT_EQ(a.r.shared_bytes, 28u);
  EXPECT_FALSE(a.r.uses_dynamic_shared);
  EXPECT_EQ(a.r.dynamic_shared_align, 0u);
}

TEST(Resources, LocalFramesThroughCalls) {
  auto a = analyse(kModule, "kern");
  const KernelResources& r = a.r;
  EXPECT_EQ(r.local_frame_bytes, 64u);
  ASSERT_EQ(r.local.size(), 1u);
  EXPECT_EQ(r.local[0].var, (VarRef{a.fn("kern"), 0}));
  // kern 64 + max(helper 40 + leaf3 300, leaf2 200); never_called does not count.
  EXPECT_EQ(r.local_bytes, 404u);
  EXPECT_FALSE(r.has_recursion);
  EXPECT_FALSE(r.has_indirect_calls);
}

TEST(Resources, ConstantsReferencedTransitively) {
  auto a = analyse(kModule, "kern");
  const KernelResources& r = a.r;
  ASSERT_EQ(r.constants.size(), 2u);
  EXPECT_EQ(r.constants[0].var, (VarRef{kNone, a.global("ctab")}));
  EXPECT_EQ(r.constants[1].var, (VarRef{kNone, a.global("cscale")}));
  EXPECT_EQ(r.constants[1].offset, 100u);
  EXPECT_EQ(r.const_bytes, 104u);  // cunused is not referenced
}

TEST(Resources, Callees) {
  auto a = analyse(kModule, "kern");
  EXPECT_EQ(a.r.callees, (I{a.fn("leaf3"), a.fn("helper"), a.fn("leaf2")}));
}

TEST(Resources, StructParameterThenScalar) {
  auto a = analyse(kModule, "kern");
  const KernelResources& r = a.r;
  ASSERT_EQ(r.params.size(), 2u);
  EXPECT_EQ(r.params[0].offset, 0u);
  EXPECT_EQ(r.params[0].size, 24u);
  EXPECT_EQ(r.params[0].align, 8u);
  EXPECT_EQ(r.params[1].offset, 24u);
  EXPECT_EQ(r.params[1].size, 4u);
  EXPECT_EQ(r.param_bytes, 28u);  // not padded to param_align
  EXPECT_EQ(r.param_align, 8u);
}

TEST(Resources, ByteThenPointerParameter) {
  auto a = analyse(".visible .entry k(.param .u8 c, .param .u64 q)\n{\n  ret;\n}\n", "k");
  ASSERT_EQ(a.r.params.size(), 2u);
  EXPECT_EQ(a.r.params[0].offset, 0u);
  EXPECT_EQ(a.r.params[0].size, 1u);
  EXPECT_EQ(a.r.params[1].offset, 8u);
  EXPECT_EQ(a.r.params[1].size, 8u);
  EXPECT_EQ(a.r.param_bytes, 16u);
}

TEST(Resources, VectorAndArrayParameters) {
  auto a = analyse(
      ".visible .entry k(.param .u32 n, .param .v2 .f32 v, .param .b16 h, "
      ".param .align 16 .b8 s[20], .param .f64 d[2])\n{\n  ret;\n}\n",
      "k");
  ASSERT_EQ(a.r.params.size(), 5u);
  EXPECT_EQ(a.r.params[1].offset, 8u);   // .v2 .f32: aligned to 8
  EXPECT_EQ(a.r.params[1].size, 8u);
  EXPECT_EQ(a.r.params[2].offset, 16u);
  EXPECT_EQ(a.r.params[3].offset, 32u);  // .align 16
  EXPECT_EQ(a.r.params[3].size, 20u);
  EXPECT_EQ(a.r.params[4].offset, 56u);  // f64 array: aligned to 8
  EXPECT_EQ(a.r.params[4].size, 16u);
  EXPECT_EQ(a.r.param_bytes, 72u);
  EXPECT_EQ(a.r.param_align, 16u);
}

TEST(Resources, NoParameters) {
  auto a = analyse(".visible .entry k()\n{\n  ret;\n}\n", "k");
  EXPECT_TRUE(a.r.params.empty());
  EXPECT_EQ(a.r.param_bytes, 0u);
  EXPECT_TRUE(a.r.callees.empty());
  EXPECT_EQ(a.r.local_bytes, 0u);
}

TEST(Resources, RecursionIsDetected) {
  auto a = analyse(
      ".func g();\n"
      ".func f()\n{\n  .local .b8 fa[16];\n  call.uni g, ();\n  ret;\n}\n"
      ".func g()\n{\n  .local .b8 ga[32];\n  call.uni f, ();\n  ret;\n}\n"
      ".func self()\n{\n  call.uni self, ();\n  ret;\n}\n"
      ".visible .entry k()\n{\n  call.uni f, ();\n  ret;\n}\n"
      ".visible .entry k2()\n{\n  call.uni self, ();\n  ret;\n}\n"
      ".visible .entry k3()\n{\n  ret;\n}\n",
      "k");
  EXPECT_TRUE(a.r.has_recursion);
  EXPECT_EQ(a.r.callees, (I{a.fn("g"), a.fn("f")}));
  EXPECT_EQ(a.r.local_bytes, 48u);  // each function of the cycle counted once
  KernelResources r2 = compute_resources(a.m(), a.m().functions[a.fn("k2")]);
  EXPECT_TRUE(r2.has_recursion);
  EXPECT_EQ(r2.callees, I{a.fn("self")});
  KernelResources r3 = compute_resources(a.m(), a.m().functions[a.fn("k3")]);
  EXPECT_FALSE(r3.has_recursion);
}

TEST(Resources, IndirectCalls) {
  auto a = analyse(
      ".func t1()\n{\n  .local .b8 x[8];\n  ret;\n}\n"
      ".func t2()\n{\n  .local .b8 y[24];\n  ret;\n}\n"
      ".visible .entry listed()\n{\n"
      "  .reg .b64 %rd<2>;\n"
      "  mov.u64 %rd1, t1;\n"
      "  tl: .calltargets t1, t2;\n"
      "  call %rd1, (), tl;\n"
      "  ret;\n}\n"
      ".visible .entry unknown()\n{\n"
      "  .reg .b64 %rd<2>;\n"
      "  mov.u64 %rd1, t1;\n"
      "  pr: .callprototype _ ();\n"
      "  call %rd1, (), pr;\n"
      "  ret;\n}\n",
      "listed");
  EXPECT_FALSE(a.r.has_indirect_calls);
  EXPECT_EQ(a.r.callees, (I{a.fn("t1"), a.fn("t2")}));
  EXPECT_EQ(a.r.local_bytes, 24u);
  KernelResources u = compute_resources(a.m(), *a.m().find_function("unknown"));
  EXPECT_TRUE(u.has_indirect_calls);
  EXPECT_TRUE(u.callees.empty());  // taking t1's address is not a call
}

TEST(Resources, ExternalDeclarationIsACalleeWithoutFrame) {
  auto a = analyse(
      ".extern .func (.param .b32 r) vprintf(.param .b64 f, .param .b64 a);\n"
      ".visible .entry k()\n{\n"
      "  .reg .b32 %r<2>;\n"
      "  {\n"
      "  .param .b64 param0;\n  .param .b64 param1;\n  .param .b32 retval0;\n"
      "  call.uni (retval0), vprintf, (param0, param1);\n"
      "  }\n"
      "  ret;\n}\n",
      "k");
  EXPECT_EQ(a.r.callees, I{a.fn("vprintf")});
  EXPECT_EQ(a.r.local_bytes, 0u);
}

// Layouts ptxas produced (nvcc 13.0, sm_80: EIATTR_KPARAM_INFO offsets and
// EIATTR_CBANK_PARAM_SIZE read from the cubin) for these signatures.
TEST(Resources, ParameterLayoutsMatchNvccCubins) {
  auto a = analyse(
      ".visible .entry k1(.param .u64 a, .param .u64 b, .param .u64 c, .param .u32 n)\n{\n ret;\n}\n"
      ".visible .entry k2(.param .align 8 .b8 s[16], .param .u32 n, .param .u8 c)\n{\n ret;\n}\n"
      ".visible .entry k3(.param .u8 c, .param .u64 q)\n{\n ret;\n}\n"
      ".visible .entry k4(.param .u64 q, .param .u8 c)\n{\n ret;\n}\n"
      ".visible .entry k5(.param .align 1 .b8 t[20], .param .u16 s)\n{\n ret;\n}\n",
      "k1");
  struct Want {
    const char* kernel;
    std::vector<uint64_t> offsets;
    uint64_t bytes;
  };
  for (const Want& w : {Want{"k1", {0, 8, 16, 24}, 28}, Want{"k2", {0, 16, 20}, 21},
                        Want{"k3", {0, 8}, 16}, Want{"k4", {0, 8}, 9}, Want{"k5", {0, 20}, 22}}) {
    KernelResources r = compute_resources(a.m(), *a.m().find_function(w.kernel));
    std::vector<uint64_t> offsets;
    for (const ParamSlot& p : r.params) offsets.push_back(p.offset);
    EXPECT_EQ(offsets, w.offsets) << w.kernel;
    EXPECT_EQ(r.param_bytes, w.bytes) << w.kernel;
  }
}

// Every kernel of the PTX corpus: a consistent layout and call graph.
TEST(Resources, CorpusKernelsAreConsistent) {
  size_t kernels = 0;
  testing::for_each_corpus_function(
      {"gen", "handwritten", "examples"},
      [&](const std::string& file, const Module& module, const Function& f) {
    if (!f.is_entry) return;
    ++kernels;
    std::string where = file + ":" + std::string(f.name);
    KernelResources r = compute_resources(module, f);
    ASSERT_EQ(r.params.size(), f.params.size()) << where;
    uint64_t end = 0;
    for (const ParamSlot& s : r.params) {
      EXPECT_GE(s.offset, end) << where;
      EXPECT_EQ(s.offset % s.align, 0u) << where;
      end = s.offset + s.size;
    }
    EXPECT_EQ(r.param_bytes, end) << where;
    for (const auto* slots : {&r.shared, &r.constants, &r.local}) {
      uint64_t used = 0;
      for (const MemorySlot& s : *slots) {
        EXPECT_GE(s.offset, used) << where;
        EXPECT_EQ(s.offset % s.align, 0u) << where;
        used = s.offset + s.size;
      }
    }
    EXPECT_TRUE(std::is_sorted(r.callees.begin(), r.callees.end())) << where;
    EXPECT_GE(r.local_bytes, r.local_frame_bytes) << where;
    EXPECT_GE(r.reg32_with_callees, r.reg32) << where;
  });
  EXPECT_GT(kernels, 0u);
}

}  // namespace
}  // namespace warpsim::ptx
