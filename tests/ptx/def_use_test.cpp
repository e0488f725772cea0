// Register def-use tests on hand-written PTX: vectors, pairs, atomics,
// stores, calls, guards, barriers and the per-register instruction lists.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "common/source_file.h"
#include "ptx/def_use.h"
#include "ptx_test_util.h"

namespace warpsim::ptx {
namespace {

using testing::kernel;
using testing::parse_text;
using Names = std::vector<std::string>;

struct Analysed {
  std::unique_ptr<testing::Parsed> parsed;
  const Function* f = nullptr;
  DefUse du;

  Names names(std::span<const uint32_t> regs) const {
    Names out;
    for (uint32_t r : regs) out.push_back(f->register_name(r));
    return out;
  }
  Names defs(uint32_t inst) const { return names(du.defs(inst)); }
  Names uses(uint32_t inst) const { return names(du.uses(inst)); }
  uint32_t reg(const std::string& name) const {
    for (uint32_t r = 0; r < f->registers.size(); ++r)
      if (f->register_name(r) == name) return r;
    ADD_FAILURE() << "no register " << name;
    return 0;
  }
};

Analysed analyse(const std::string& text, size_t function = 0) {
  Analysed a;
  a.parsed = parse_text(text);
  EXPECT_TRUE(a.parsed->ok()) << a.parsed->errors();
  a.f = &a.parsed->module->functions.at(function);
  a.du = compute_def_use(*a.f);
  return a;
}

TEST(DefUse, ArithmeticAndGuard) {
  auto a = analyse(kernel(
      "add.s32 %r1, %r2, %r3;\n"
      "@!%p1 add.s32 %r1, %r1, %r1;\n"
      "mad.lo.s32 %r4, %r1, 4, %r2;\n"
      "mov.u32 %r5, %tid.x;\n"));
  EXPECT_EQ(a.defs(0), Names{"%r1"});
  EXPECT_EQ(a.uses(0), (Names{"%r2", "%r3"}));
  EXPECT_EQ(a.defs(1), Names{"%r1"});
  EXPECT_EQ(a.uses(1), (Names{"%p1", "%r1"}));  // guard first; %r1 listed once
  EXPECT_EQ(a.uses(2), (Names{"%r1", "%r2"}));  // immediates ignored
  EXPECT_EQ(a.defs(3), Names{"%r5"});
  EXPECT_TRUE(a.uses(3).empty());  // special registers are not registers
}

TEST(DefUse, VectorLoadsAndStores) {
  auto a = analyse(kernel(
      "ld.global.nc.v4.f32 {%f0,%f1,_,%f3}, [%rd1+16];\n"
      "st.global.v2.f32 [%rd2], {%f1, %f3};\n"
      "@%p1 st.global.u32 [%rd2+4], %r1;\n"
      "ld.shared.v2.u64 {%rd3, %rd4}, [%rd5];\n"));
  EXPECT_EQ(a.defs(0), (Names{"%f0", "%f1", "%f3"}));  // the sink defines nothing
  EXPECT_EQ(a.uses(0), Names{"%rd1"});
  EXPECT_TRUE(a.defs(1).empty());
  EXPECT_EQ(a.uses(1), (Names{"%rd2", "%f1", "%f3"}));
  EXPECT_TRUE(a.defs(2).empty());
  EXPECT_EQ(a.uses(2), (Names{"%p1", "%rd2", "%r1"}));
  EXPECT_EQ(a.defs(3), (Names{"%rd3", "%rd4"}));
}

TEST(DefUse, MovPacksAndUnpacks) {
  auto a = analyse(kernel("mov.b64 {%r1, %r2}, %rd1;\nmov.b64 %rd2, {%r3, %r4};\n"));
  EXPECT_EQ(a.defs(0), (Names{"%r1", "%r2"}));
  EXPECT_EQ(a.uses(0), Names{"%rd1"});
  EXPECT_EQ(a.defs(1), Names{"%rd2"});
  EXPECT_EQ(a.uses(1), (Names{"%r3", "%r4"}));
}

TEST(DefUse, PairDestinations) {
  auto a = analyse(kernel(
      "setp.lt.s32 %p1|%p2, %r1, %r2;\n"
      "setp.lt.and.s32 %p3, %r1, %r2, !%p1;\n"
      "shfl.sync.bfly.b32 %r3|%p1, %r4, 1, 31, -1;\n"
      "shfl.sync.down.b32 %r5, %r4, %r6, 31, %r7;\n"
      "vote.sync.ballot.b32 %r1, %p2, -1;\n"));
  EXPECT_EQ(a.defs(0), (Names{"%p1", "%p2"}));
  EXPECT_EQ(a.uses(0), (Names{"%r1", "%r2"}));
  EXPECT_EQ(a.defs(1), Names{"%p3"});
  EXPECT_EQ(a.uses(1), (Names{"%r1", "%r2", "%p1"}));
  EXPECT_EQ(a.defs(2), (Names{"%r3", "%p1"}));
  EXPECT_EQ(a.uses(2), Names{"%r4"});
  EXPECT_EQ(a.defs(3), Names{"%r5"});
  EXPECT_EQ(a.uses(3), (Names{"%r4", "%r6", "%r7"}));
  EXPECT_EQ(a.defs(4), Names{"%r1"});
  EXPECT_EQ(a.uses(4), Names{"%p2"});
}

TEST(DefUse, AtomicsAndReductions) {
  auto a = analyse(kernel(
      "atom.global.cas.b32 %r3, [%rd2], %r4, %r5;\n"
      "atom.shared.add.u32 %r1, [%rd1+8], 1;\n"
      "red.global.add.u32 [%rd3], %r2;\n"));
  EXPECT_EQ(a.defs(0), Names{"%r3"});
  EXPECT_EQ(a.uses(0), (Names{"%rd2", "%r4", "%r5"}));
  EXPECT_EQ(a.defs(1), Names{"%r1"});
  EXPECT_EQ(a.uses(1), Names{"%rd1"});
  EXPECT_TRUE(a.defs(2).empty());
  EXPECT_EQ(a.uses(2), (Names{"%rd3", "%r2"}));
}

TEST(DefUse, BranchesAndBarriers) {
  auto a = analyse(kernel(
      "ts: .branchtargets A;\n"
      "@%p1 bra A;\n"                      // 0
      "brx.idx %r1, ts;\n"                 // 1
      "A:\n"
      "bar.sync 0;\n"                      // 2
      "bar.sync %r2, %r3;\n"               // 3
      "bar.red.popc.u32 %r4, 0, %p2;\n"    // 4
      "bar.red.or.pred %p3, 1, !%p2;\n"    // 5
      "ret;\n"));                          // 6
  EXPECT_TRUE(a.defs(0).empty());
  EXPECT_EQ(a.uses(0), Names{"%p1"});
  EXPECT_EQ(a.uses(1), Names{"%r1"});
  EXPECT_TRUE(a.defs(2).empty());
  EXPECT_TRUE(a.uses(2).empty());
  EXPECT_TRUE(a.defs(3).empty());
  EXPECT_EQ(a.uses(3), (Names{"%r2", "%r3"}));
  EXPECT_EQ(a.defs(4), Names{"%r4"});
  EXPECT_EQ(a.uses(4), Names{"%p2"});
  EXPECT_EQ(a.defs(5), Names{"%p3"});
  EXPECT_TRUE(a.defs(6).empty());
}

TEST(DefUse, MbarrierDependsOnOperandShape) {
  auto a = analyse(kernel(
      "mbarrier.init.shared.b64 [%rd1], %r1;\n"
      "mbarrier.arrive.shared.b64 %rd2, [%rd1];\n"
      "mbarrier.test_wait.shared.b64 %p1, [%rd1], %rd2;\n"));
  EXPECT_TRUE(a.defs(0).empty());
  EXPECT_EQ(a.uses(0), (Names{"%rd1", "%r1"}));
  EXPECT_EQ(a.defs(1), Names{"%rd2"});
  EXPECT_EQ(a.uses(1), Names{"%rd1"});
  EXPECT_EQ(a.defs(2), Names{"%p1"});
  EXPECT_EQ(a.uses(2), (Names{"%rd1", "%rd2"}));
}

TEST(DefUse, TextureCoordinatesAreUses) {
  auto a = analyse(std::string(testing::kHeader) +
                   ".global .texref tex0;\n"
                   ".visible .entry k()\n{\n"
                   "  .reg .f32 %f<8>;\n"
                   "  tex.2d.v4.f32.f32 {%f0,%f1,%f2,%f3}, [tex0, {%f4,%f5}];\n"
                   "  ret;\n}\n");
  EXPECT_EQ(a.defs(0), (Names{"%f0", "%f1", "%f2", "%f3"}));
  EXPECT_EQ(a.uses(0), (Names{"%f4", "%f5"}));
}

TEST(DefUse, CallListsThroughParams) {
  // nvcc style: values travel through .param variables, so the call itself
  // names no registers; the st.param/ld.param around it carry the def-use.
  auto a = analyse(std::string(testing::kHeader) +
                   ".func (.param .b32 rv) f(.param .b32 x)\n{\n"
                   "  .reg .b32 %r<2>;\n"
                   "  ld.param.b32 %r1, [x];\n"
                   "  st.param.b32 [rv], %r1;\n"
                   "  ret;\n}\n"
                   ".visible .entry k()\n{\n"
                   "  .reg .b32 %r<4>;\n"
                   "  {\n"
                   "  .param .b32 param0;\n"
                   "  st.param.b32 [param0], %r1;\n"
                   "  .param .b32 retval0;\n"
                   "  call.uni (retval0), f, (param0);\n"
                   "  ld.param.b32 %r2, [retval0];\n"
                   "  }\n"
                   "  ret;\n}\n",
                   1);
  EXPECT_TRUE(a.defs(0).empty());
  EXPECT_EQ(a.uses(0), Names{"%r1"});
  EXPECT_TRUE(a.defs(1).empty());
  EXPECT_TRUE(a.uses(1).empty());
  EXPECT_EQ(a.defs(2), Names{"%r2"});
}

TEST(DefUse, CallListsWithRegisters) {
  auto a = analyse(std::string(testing::kHeader) +
                   ".func (.reg .b32 o) g(.reg .b32 x, .reg .b32 y)\n{\n"
                   "  add.s32 o, x, y;\n"
                   "  ret;\n}\n"
                   ".visible .entry k()\n{\n"
                   "  .reg .b32 %r<8>;\n"
                   "  .reg .b64 %rd<2>;\n"
                   "  call (%r5), g, (%r1, %r2);\n"
                   "  call g, (%r3, %r3);\n"
                   "  proto: .callprototype (.param .b32 _) _ (.param .b32 _);\n"
                   "  call (%r6), %rd1, (%r4), proto;\n"
                   "  ret;\n}\n",
                   1);
  EXPECT_EQ(a.defs(0), Names{"%r5"});
  EXPECT_EQ(a.uses(0), (Names{"%r1", "%r2"}));
  EXPECT_TRUE(a.defs(1).empty());
  EXPECT_EQ(a.uses(1), Names{"%r3"});
  EXPECT_EQ(a.defs(2), Names{"%r6"});
  EXPECT_EQ(a.uses(2), (Names{"%rd1", "%r4"}));  // the indirect target is read
  // Old-style .reg parameters are registers of the callee.
  const Function& g = a.parsed->module->functions.at(0);
  DefUse gdu = compute_def_use(g);
  ASSERT_EQ(gdu.defs(0).size(), 1u);
  EXPECT_EQ(g.register_name(gdu.defs(0)[0]), "o");
  EXPECT_EQ(gdu.uses(0).size(), 2u);
}

TEST(DefUse, WgmmaAccumulatorIsReadAndWritten) {
  auto a = analyse(std::string(".version 8.5\n.target sm_90a\n.address_size 64\n") +
                   ".visible .entry k()\n{\n"
                   "  .reg .f32 %f<4>;\n"
                   "  .reg .b64 %rd<3>;\n"
                   "  .reg .pred %p<2>;\n"
                   "  wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%f0,%f1,%f2,%f3}, %rd1, "
                   "%rd2, %p1, 1, 1, 0, 0;\n"
                   "  ret;\n}\n");
  EXPECT_EQ(a.defs(0), (Names{"%f0", "%f1", "%f2", "%f3"}));
  EXPECT_EQ(a.uses(0), (Names{"%f0", "%f1", "%f2", "%f3", "%rd1", "%rd2", "%p1"}));
}

TEST(DefUse, EmptyFunctionAndDefault) {
  auto a = analyse(std::string(testing::kHeader) + ".visible .entry k()\n{\n}\n");
  EXPECT_EQ(a.du.inst_def_first, std::vector<uint32_t>{0});
  EXPECT_EQ(a.du.reg_use_first, std::vector<uint32_t>{0});
  DefUse none;
  EXPECT_EQ(none.inst_def_first, a.du.inst_def_first);
  EXPECT_EQ(none.inst_use_first, a.du.inst_use_first);
  EXPECT_EQ(none.reg_def_first, a.du.reg_def_first);
  EXPECT_EQ(none.reg_use_first, a.du.reg_use_first);
}

TEST(DefUse, RulesTable) {
  EXPECT_EQ(dest_rule(Opcode::Add), DestRule::First);
  EXPECT_EQ(dest_rule(Opcode::Ld), DestRule::First);
  EXPECT_EQ(dest_rule(Opcode::Atom), DestRule::First);
  EXPECT_EQ(dest_rule(Opcode::St), DestRule::None);
  EXPECT_EQ(dest_rule(Opcode::Red), DestRule::None);
  EXPECT_EQ(dest_rule(Opcode::Sust), DestRule::None);
  EXPECT_EQ(dest_rule(Opcode::Wmma), DestRule::FirstUnlessAddr);
  EXPECT_EQ(dest_rule(Opcode::Bar), DestRule::FirstIfRed);
  EXPECT_EQ(dest_rule(Opcode::Call), DestRule::CallLists);
}

TEST(DefUse, PerRegisterInstructionLists) {
  auto a = analyse(kernel(
      "mov.u32 %r1, 0;\n"            // 0
      "LOOP:\n"
      "add.s32 %r1, %r1, 1;\n"       // 1
      "setp.lt.s32 %p1, %r1, 10;\n"  // 2
      "@%p1 bra LOOP;\n"             // 3
      "st.global.u32 [%rd1], %r1;\n" // 4
      "ret;\n"));
  uint32_t r1 = a.reg("%r1"), p1 = a.reg("%p1"), rd1 = a.reg("%rd1"), r2 = a.reg("%r2");
  using I = std::vector<uint32_t>;
  auto v = [](std::span<const uint32_t> s) { return I(s.begin(), s.end()); };
  EXPECT_EQ(v(a.du.defining(r1)), (I{0, 1}));
  EXPECT_EQ(v(a.du.using_insts(r1)), (I{1, 2, 4}));
  EXPECT_EQ(v(a.du.defining(p1)), I{2});
  EXPECT_EQ(v(a.du.using_insts(p1)), I{3});
  EXPECT_TRUE(a.du.defining(rd1).empty());
  EXPECT_EQ(v(a.du.using_insts(rd1)), I{4});
  EXPECT_TRUE(a.du.defining(r2).empty());
  EXPECT_TRUE(a.du.using_insts(r2).empty());
  EXPECT_EQ(a.du.reg_def_first.size(), a.f->registers.size() + 1);
}

// Optimised compiler output defines every register before reading it, so each
// register that is read must have a def: a register read but never written
// means a destination the table missed. (nvcc -G output is exempt: it stores
// never-written registers for empty struct arguments and padding, e.g. %rs1
// in async.G.ptx memcpy_async_barrier.) Also checks that the two CSR
// directions agree.
TEST(DefUse, CorpusEveryReadRegisterIsDefined) {
  size_t checked = 0;
  testing::for_each_corpus_function(
      {"gen", "examples"},
      [&](const std::string& file, const Module& module, const Function& f) {
    DefUse du = compute_def_use(f);
    std::string where = file + ":" + std::string(f.name);
    const bool debug_build = file.ends_with(".G.ptx");
    ASSERT_EQ(du.inst_def_first.size(), f.instructions.size() + 1) << where;
    ASSERT_EQ(du.reg_defs.size(), du.inst_defs.size()) << where;
    ASSERT_EQ(du.reg_uses.size(), du.inst_uses.size()) << where;
    bool reg_params = false;  // old-style `.reg` parameters arrive defined
    for (const Variable& v : f.params) reg_params |= v.space == StateSpace::Reg;
    for (uint32_t r = 0; r < f.registers.size(); ++r) {
      for (uint32_t i : du.using_insts(r)) {
        auto uses = du.uses(i);
        EXPECT_NE(std::find(uses.begin(), uses.end(), r), uses.end()) << where;
      }
      if (!du.using_insts(r).empty() && !reg_params && !debug_build) {
        EXPECT_FALSE(du.defining(r).empty())
            << where << ": " << f.register_name(r) << " is read at instruction "
            << du.using_insts(r)[0] << " but never written";
      }
    }
    ++checked;
  });
  EXPECT_GT(checked, 0u);
}

}  // namespace
}  // namespace warpsim::ptx
