// Control-flow graph tests: leaders, block ranges, successors/predecessors and
// the virtual exit node on hand-written PTX.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "ptx/cfg.h"
#include "ptx_test_util.h"

namespace warpsim::ptx {
namespace {

using testing::kernel;
using testing::parse_text;
using V = std::vector<uint32_t>;

V vec(std::span<const uint32_t> s) { return V(s.begin(), s.end()); }

struct Built {
  std::unique_ptr<testing::Parsed> parsed;
  Cfg cfg;
  const Function& f() const { return parsed->module->functions.at(0); }
};

Built build(const std::string& text) {
  Built b;
  b.parsed = parse_text(text);
  EXPECT_TRUE(b.parsed->ok()) << b.parsed->errors();
  if (b.parsed->module->functions.empty()) return b;
  b.cfg = build_cfg(*b.parsed->module, b.f());
  return b;
}

void expect_block(const Cfg& cfg, uint32_t b, uint32_t first, uint32_t end) {
  ASSERT_LT(b, cfg.blocks.size());
  EXPECT_EQ(cfg.blocks[b].first, first) << "block " << b;
  EXPECT_EQ(cfg.blocks[b].end, end) << "block " << b;
}

TEST(Cfg, StraightLineIsOneBlockIntoExit) {
  auto b = build(kernel("mov.u32 %r1, 1;\nadd.s32 %r2, %r1, 2;\nret;\n"));
  const Cfg& cfg = b.cfg;
  ASSERT_EQ(cfg.blocks.size(), 1u);
  expect_block(cfg, 0, 0, 3);
  EXPECT_EQ(cfg.exit(), 1u);
  EXPECT_EQ(cfg.blocks[0].terminator, Terminator::Return);
  EXPECT_EQ(vec(cfg.successors(0)), V{cfg.exit()});
  EXPECT_EQ(vec(cfg.predecessors(cfg.exit())), V{0});
  EXPECT_TRUE(cfg.successors(cfg.exit()).empty());
  EXPECT_TRUE(cfg.predecessors(0).empty());
}

TEST(Cfg, IfElseDiamond) {
  auto b = build(kernel(
      "setp.lt.s32 %p1, %r1, %r2;\n"  // 0  B0
      "@%p1 bra ELSE;\n"              // 1
      "add.s32 %r3, %r1, 1;\n"        // 2  B1
      "bra JOIN;\n"                   // 3
      "ELSE:\n"
      "add.s32 %r3, %r1, 2;\n"        // 4  B2
      "JOIN:\n"
      "st.global.u32 [%rd1], %r3;\n"  // 5  B3
      "ret;\n"));                     // 6
  const Cfg& cfg = b.cfg;
  ASSERT_EQ(cfg.blocks.size(), 4u);
  expect_block(cfg, 0, 0, 2);
  expect_block(cfg, 1, 2, 4);
  expect_block(cfg, 2, 4, 5);
  expect_block(cfg, 3, 5, 7);
  EXPECT_EQ(cfg.blocks[0].terminator, Terminator::Branch);
  EXPECT_TRUE(cfg.blocks[0].guarded);
  EXPECT_FALSE(cfg.blocks[1].guarded);
  EXPECT_EQ(cfg.blocks[2].terminator, Terminator::FallThrough);
  EXPECT_EQ(vec(cfg.successors(0)), (V{2, 1}));  // target first, then fall-through
  EXPECT_EQ(vec(cfg.successors(1)), V{3});
  EXPECT_EQ(vec(cfg.successors(2)), V{3});
  EXPECT_EQ(vec(cfg.successors(3)), V{4});
  EXPECT_EQ(vec(cfg.predecessors(3)), (V{1, 2}));
  EXPECT_EQ(vec(cfg.predecessors(2)), V{0});
  EXPECT_EQ(cfg.block_of(0), 0u);
  EXPECT_EQ(cfg.block_of(3), 1u);
  EXPECT_EQ(cfg.block_of(4), 2u);
  EXPECT_EQ(cfg.block_of(6), 3u);
  EXPECT_EQ(cfg.block_of(7), cfg.exit());
}

TEST(Cfg, LabelAfterLastInstructionTargetsExit) {
  auto b = build(kernel("@%p1 bra END;\nadd.s32 %r1, %r1, 1;\nEND:\n"));
  const Cfg& cfg = b.cfg;
  ASSERT_EQ(cfg.blocks.size(), 2u);
  EXPECT_EQ(vec(cfg.successors(0)), (V{cfg.exit(), 1}));
  EXPECT_EQ(vec(cfg.successors(1)), V{cfg.exit()});  // falls off the end
  EXPECT_EQ(vec(cfg.predecessors(cfg.exit())), (V{0, 1}));
}

TEST(Cfg, UnusedLabelStillStartsABlock) {
  auto b = build(kernel("mov.u32 %r1, 1;\nL_unused:\nmov.u32 %r2, 2;\nret;\n"));
  ASSERT_EQ(b.cfg.blocks.size(), 2u);
  expect_block(b.cfg, 1, 1, 3);
  EXPECT_EQ(vec(b.cfg.successors(0)), V{1});
}

TEST(Cfg, BranchToNextInstructionHasOneEdge) {
  auto b = build(kernel("@%p1 bra NEXT;\nNEXT:\nret;\n"));
  ASSERT_EQ(b.cfg.blocks.size(), 2u);
  EXPECT_EQ(vec(b.cfg.successors(0)), V{1});
  EXPECT_EQ(vec(b.cfg.predecessors(1)), V{0});
}

TEST(Cfg, UnconditionalBranchSkipsCodeThatBecomesUnreachable) {
  auto b = build(kernel(
      "bra.uni L;\n"           // 0 B0
      "add.s32 %r1, 1, 2;\n"   // 1 B1 (unreachable)
      "L:\n"
      "ret;\n"));              // 2 B2
  const Cfg& cfg = b.cfg;
  ASSERT_EQ(cfg.blocks.size(), 3u);
  EXPECT_EQ(vec(cfg.successors(0)), V{2});
  EXPECT_TRUE(cfg.predecessors(1).empty());
  EXPECT_EQ(vec(cfg.successors(1)), V{2});
  EXPECT_EQ(vec(cfg.predecessors(2)), (V{0, 1}));
}

TEST(Cfg, GuardedReturnAndExitAlsoFallThrough) {
  auto b = build(kernel(
      "@%p1 ret;\n"            // 0 B0
      "@!%p2 exit;\n"          // 1 B1
      "trap;\n"                // 2 B2
      "add.s32 %r1, 1, 2;\n"   // 3 B3 (after trap: unreachable)
      "exit;\n"));             // 4
  const Cfg& cfg = b.cfg;
  ASSERT_EQ(cfg.blocks.size(), 4u);
  const uint32_t x = cfg.exit();
  EXPECT_EQ(vec(cfg.successors(0)), (V{x, 1}));
  EXPECT_EQ(vec(cfg.successors(1)), (V{x, 2}));
  EXPECT_EQ(vec(cfg.successors(2)), V{x});
  EXPECT_EQ(vec(cfg.successors(3)), V{x});
  EXPECT_EQ(cfg.blocks[1].terminator, Terminator::Return);
  EXPECT_TRUE(cfg.blocks[1].guarded);
  EXPECT_FALSE(cfg.blocks[2].guarded);
  EXPECT_EQ(vec(cfg.predecessors(x)), (V{0, 1, 2, 3}));
}

TEST(Cfg, CallAndBreakpointDoNotEndBlocks) {
  auto b = build(std::string(testing::kHeader) +
                 ".func f()\n{\nret;\n}\n"
                 ".visible .entry k()\n{\n"
                 "  .reg .b32 %r<2>;\n"
                 "  call.uni f, ();\n"
                 "  brkpt;\n"
                 "  mov.u32 %r1, 1;\n"
                 "  ret;\n}\n");
  const Function& k = b.parsed->module->functions.at(1);
  Cfg cfg = build_cfg(*b.parsed->module, k);
  ASSERT_EQ(cfg.blocks.size(), 1u);
  expect_block(cfg, 0, 0, 4);
}

TEST(Cfg, BrxIdxReachesEveryListedLabel) {
  auto b = build(kernel(
      "ts: .branchtargets C0, C1, C2, C1;\n"
      "brx.idx %r1, ts;\n"       // 0 B0
      "C0:\n"
      "mov.u32 %r2, 10;\n"       // 1 B1
      "bra END;\n"               // 2
      "C1:\n"
      "mov.u32 %r2, 20;\n"       // 3 B2
      "bra END;\n"               // 4
      "C2:\n"
      "mov.u32 %r2, 30;\n"       // 5 B3
      "END:\n"
      "st.global.u32 [%rd1], %r2;\n"  // 6 B4
      "ret;\n"));
  const Cfg& cfg = b.cfg;
  ASSERT_EQ(cfg.blocks.size(), 5u);
  EXPECT_EQ(cfg.blocks[0].terminator, Terminator::IndirectBranch);
  EXPECT_EQ(vec(cfg.successors(0)), (V{1, 2, 3}));  // duplicate C1 listed once
  EXPECT_EQ(vec(cfg.predecessors(4)), (V{1, 2, 3}));
}

TEST(Cfg, GuardedBrxAlsoFallsThrough) {
  auto b = build(kernel(
      "ts: .branchtargets A, B;\n"
      "@%p1 brx.idx %r1, ts;\n"  // 0 B0
      "ret;\n"                   // 1 B1
      "A:\n"
      "ret;\n"                   // 2 B2
      "B:\n"
      "ret;\n"));                // 3 B3
  EXPECT_EQ(vec(b.cfg.successors(0)), (V{2, 3, 1}));
}

TEST(Cfg, EmptyBody) {
  auto b = build(std::string(testing::kHeader) + ".visible .entry k()\n{\n}\n");
  const Cfg& cfg = b.cfg;
  EXPECT_TRUE(cfg.blocks.empty());
  EXPECT_EQ(cfg.exit(), 0u);
  EXPECT_EQ(cfg.num_nodes(), 1u);
  EXPECT_TRUE(cfg.successors(cfg.exit()).empty());
  EXPECT_TRUE(cfg.predecessors(cfg.exit()).empty());
  EXPECT_EQ(cfg.block_of(0), cfg.exit());
  // A default-constructed CFG (what a declaration gets) is the same empty graph.
  Cfg none;
  EXPECT_EQ(none.exit(), 0u);
  EXPECT_TRUE(none.successors(none.exit()).empty());
  EXPECT_TRUE(none.predecessors(none.exit()).empty());
  EXPECT_EQ(none.succ_first, cfg.succ_first);
  EXPECT_EQ(none.pred_first, cfg.pred_first);
}

TEST(Cfg, LoopBackEdge) {
  auto b = build(kernel(
      "mov.u32 %r1, 0;\n"               // 0 B0
      "LOOP:\n"
      "add.s32 %r1, %r1, 1;\n"          // 1 B1
      "setp.lt.s32 %p1, %r1, %r2;\n"    // 2
      "@%p1 bra LOOP;\n"                // 3
      "ret;\n"));                       // 4 B2
  const Cfg& cfg = b.cfg;
  ASSERT_EQ(cfg.blocks.size(), 3u);
  EXPECT_EQ(vec(cfg.successors(1)), (V{1, 2}));
  EXPECT_EQ(vec(cfg.predecessors(1)), (V{0, 1}));
}

}  // namespace
}  // namespace warpsim::ptx
