// Immediate post-dominator and reconvergence-point tests on hand-written PTX:
// the cases SIMT reconvergence must get right (diamonds, loops with break and
// continue, early returns, switches, unstructured loops, endless loops).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "common/source_file.h"
#include "ptx/cfg.h"
#include "ptx/post_dominators.h"
#include "ptx_test_util.h"

namespace warpsim::ptx {
namespace {

using testing::kernel;
using testing::parse_text;

struct Analysed {
  std::unique_ptr<testing::Parsed> parsed;
  Cfg cfg;
  PostDominators pd;
};

Analysed analyse(const std::string& text) {
  Analysed a;
  a.parsed = parse_text(text);
  EXPECT_TRUE(a.parsed->ok()) << a.parsed->errors();
  if (a.parsed->module->functions.empty()) return a;
  a.cfg = build_cfg(*a.parsed->module, a.parsed->module->functions[0]);
  a.pd = compute_post_dominators(a.cfg);
  return a;
}

TEST(PostDominators, IfElseDiamondReconvergesAtJoin) {
  auto a = analyse(kernel(
      "setp.lt.s32 %p1, %r1, %r2;\n"  // 0  B0
      "@%p1 bra ELSE;\n"              // 1
      "add.s32 %r3, %r1, 1;\n"        // 2  B1
      "bra JOIN;\n"                   // 3
      "ELSE:\n"
      "add.s32 %r3, %r1, 2;\n"        // 4  B2
      "JOIN:\n"
      "st.global.u32 [%rd1], %r3;\n"  // 5  B3
      "ret;\n"));                     // 6
  const uint32_t x = a.cfg.exit();
  EXPECT_EQ(a.pd.ipdom, (std::vector<uint32_t>{3, 3, 3, x, x}));
  EXPECT_EQ(a.pd.reconvergence[1], 5u);  // the divergent branch: at JOIN
  EXPECT_EQ(a.pd.reconvergence[3], 5u);  // an unconditional bra: its target
  EXPECT_EQ(a.pd.reconvergence[0], kNone);
  EXPECT_EQ(a.pd.reconvergence[6], kNone);  // ret is not a branch
  EXPECT_TRUE(a.pd.post_dominates(3, 0));
  EXPECT_FALSE(a.pd.post_dominates(1, 0));
  EXPECT_FALSE(a.pd.post_dominates(2, 0));
  EXPECT_TRUE(a.pd.post_dominates(0, 0));
  EXPECT_TRUE(a.pd.post_dominates(x, 2));
  for (uint32_t n = 0; n < a.cfg.num_nodes(); ++n) EXPECT_TRUE(a.pd.reaches_exit[n]);
}

TEST(PostDominators, IfWithoutElse) {
  auto a = analyse(kernel(
      "@%p1 bra SKIP;\n"        // 0 B0
      "add.s32 %r1, 1, 2;\n"    // 1 B1
      "SKIP:\n"
      "ret;\n"));               // 2 B2
  EXPECT_EQ(a.pd.ipdom[0], 2u);
  EXPECT_EQ(a.pd.reconvergence[0], 2u);
}

TEST(PostDominators, LoopWithBreakAndContinue) {
  auto a = analyse(kernel(
      "mov.u32 %r1, 0;\n"              // 0  B0
      "LOOP:\n"
      "setp.ge.s32 %p1, %r1, %r2;\n"   // 1  B1  loop test
      "@%p1 bra DONE;\n"               // 2
      "setp.eq.s32 %p2, %r1, 5;\n"     // 3  B2
      "@%p2 bra BREAK;\n"              // 4       break
      "setp.eq.s32 %p3, %r1, 3;\n"     // 5  B3
      "@%p3 bra CONT;\n"               // 6       continue
      "add.s32 %r3, %r3, %r1;\n"       // 7  B4
      "CONT:\n"
      "add.s32 %r1, %r1, 1;\n"         // 8  B5
      "bra LOOP;\n"                    // 9
      "BREAK:\n"
      "st.global.u32 [%rd1], %r3;\n"   // 10 B6
      "DONE:\n"
      "ret;\n"));                      // 11 B7
  ASSERT_EQ(a.cfg.blocks.size(), 8u);
  const uint32_t x = a.cfg.exit();
  EXPECT_EQ(a.pd.ipdom, (std::vector<uint32_t>{1, 7, 7, 5, 5, 1, 7, x, x}));
  EXPECT_EQ(a.pd.reconvergence[2], 11u);  // loop exit test: after the loop
  EXPECT_EQ(a.pd.reconvergence[4], 11u);  // break: after the loop too
  EXPECT_EQ(a.pd.reconvergence[6], 8u);   // continue: at the latch
  EXPECT_EQ(a.pd.reconvergence[9], 1u);   // back edge: at the loop head
}

TEST(PostDominators, EarlyReturnReconvergesAtExit) {
  auto a = analyse(kernel(
      "setp.lt.s32 %p1, %r1, %r2;\n"   // 0 B0
      "@%p1 bra L1;\n"                 // 1
      "@%p2 ret;\n"                    // 2 B1
      "add.s32 %r1, %r1, 1;\n"         // 3 B2
      "L1:\n"
      "st.global.u32 [%rd1], %r1;\n"   // 4 B3
      "ret;\n"));                      // 5
  const uint32_t x = a.cfg.exit();
  EXPECT_EQ(a.pd.ipdom, (std::vector<uint32_t>{x, x, 3, x, x}));
  // One side may return early, so the only common point is the function exit.
  EXPECT_EQ(a.pd.reconvergence[1], 6u);
  EXPECT_EQ(a.pd.reconvergence[1], a.cfg.num_instructions);
  EXPECT_EQ(a.pd.reconvergence[2], kNone);
}

TEST(PostDominators, GuardedExitInsideIfElse) {
  auto a = analyse(kernel(
      "@%p1 bra ELSE;\n"               // 0 B0
      "@%p2 exit;\n"                   // 1 B1
      "add.s32 %r1, %r1, 1;\n"         // 2 B2
      "bra JOIN;\n"                    // 3
      "ELSE:\n"
      "add.s32 %r1, %r1, 2;\n"         // 4 B3
      "JOIN:\n"
      "st.global.u32 [%rd1], %r1;\n"   // 5 B4
      "ret;\n"));                      // 6
  const uint32_t x = a.cfg.exit();
  EXPECT_EQ(a.pd.ipdom[1], x);
  EXPECT_EQ(a.pd.ipdom[2], 4u);
  EXPECT_EQ(a.pd.ipdom[0], x);
  EXPECT_EQ(a.pd.reconvergence[0], a.cfg.num_instructions);
  EXPECT_EQ(a.pd.reconvergence[3], 5u);
}

TEST(PostDominators, BrxSwitchReconvergesAfterTheCases) {
  auto a = analyse(kernel(
      "ts: .branchtargets C0, C1, C2;\n"
      "brx.idx %r1, ts;\n"             // 0 B0
      "C0:\n"
      "mov.u32 %r2, 10;\n"             // 1 B1
      "bra END;\n"                     // 2
      "C1:\n"
      "mov.u32 %r2, 20;\n"             // 3 B2
      "bra END;\n"                     // 4
      "C2:\n"
      "mov.u32 %r2, 30;\n"             // 5 B3 (falls into END)
      "END:\n"
      "st.global.u32 [%rd1], %r2;\n"   // 6 B4
      "ret;\n"));                      // 7
  EXPECT_EQ(a.pd.ipdom[0], 4u);
  EXPECT_EQ(a.pd.reconvergence[0], 6u);
  EXPECT_EQ(a.pd.reconvergence[2], 6u);
}

TEST(PostDominators, UnstructuredJumpIntoLoopMiddle) {
  auto a = analyse(kernel(
      "setp.eq.s32 %p1, %r1, 0;\n"     // 0 B0
      "@%p1 bra MID;\n"                // 1
      "HEAD:\n"
      "add.s32 %r1, %r1, 1;\n"         // 2 B1
      "MID:\n"
      "add.s32 %r2, %r2, 1;\n"         // 3 B2
      "setp.lt.s32 %p2, %r2, %r3;\n"   // 4
      "@%p2 bra HEAD;\n"               // 5
      "ret;\n"));                      // 6 B3
  const uint32_t x = a.cfg.exit();
  EXPECT_EQ(a.pd.ipdom, (std::vector<uint32_t>{2, 2, 3, x, x}));
  EXPECT_EQ(a.pd.reconvergence[1], 3u);  // entering at MID or at HEAD meets at MID
  EXPECT_EQ(a.pd.reconvergence[5], 6u);  // loop exit
}

TEST(PostDominators, EndlessLoopGetsExitAsIpdom) {
  auto a = analyse(kernel(
      "setp.eq.s32 %p1, %r1, 0;\n"     // 0 B0
      "@%p1 bra SPIN;\n"               // 1
      "st.global.u32 [%rd1], %r1;\n"   // 2 B1
      "ret;\n"                         // 3
      "SPIN:\n"
      "add.s32 %r1, %r1, 1;\n"         // 4 B2
      "setp.lt.s32 %p2, %r1, 7;\n"     // 5
      "@%p2 bra SPIN;\n"               // 6   divergent branch inside the endless loop
      "add.s32 %r2, %r2, 1;\n"         // 7 B3
      "bra SPIN;\n"));                 // 8
  ASSERT_EQ(a.cfg.blocks.size(), 4u);
  const uint32_t x = a.cfg.exit();
  EXPECT_TRUE(a.pd.reaches_exit[0]);
  EXPECT_TRUE(a.pd.reaches_exit[1]);
  EXPECT_FALSE(a.pd.reaches_exit[2]);
  EXPECT_FALSE(a.pd.reaches_exit[3]);
  EXPECT_TRUE(a.pd.reaches_exit[x]);
  EXPECT_EQ(a.pd.ipdom[2], x);
  EXPECT_EQ(a.pd.ipdom[3], x);
  EXPECT_EQ(a.pd.reconvergence[6], a.cfg.num_instructions);
  EXPECT_EQ(a.pd.reconvergence[8], a.cfg.num_instructions);
  // Every path from B0 that reaches the exit goes through B1: the edge into
  // the endless loop constrains nothing.
  EXPECT_EQ(a.pd.ipdom[0], 1u);
  EXPECT_EQ(a.pd.reconvergence[1], 2u);
}

TEST(PostDominators, WholeBodyIsAnEndlessLoop) {
  auto a = analyse(kernel("L:\nadd.s32 %r1, %r1, 1;\nbra L;\n"));
  ASSERT_EQ(a.cfg.blocks.size(), 1u);
  EXPECT_FALSE(a.pd.reaches_exit[0]);
  EXPECT_EQ(a.pd.ipdom[0], a.cfg.exit());
  EXPECT_EQ(a.pd.reconvergence[1], 2u);
  EXPECT_TRUE(a.cfg.predecessors(a.cfg.exit()).empty());
}

TEST(PostDominators, NestedIfInsideLoop) {
  auto a = analyse(kernel(
      "LOOP:\n"
      "@%p1 bra ODD;\n"                // 0 B0
      "add.s32 %r1, %r1, 2;\n"         // 1 B1
      "bra NEXT;\n"                    // 2
      "ODD:\n"
      "add.s32 %r1, %r1, 3;\n"         // 3 B2
      "NEXT:\n"
      "setp.lt.s32 %p2, %r1, 100;\n"   // 4 B3
      "@%p2 bra LOOP;\n"               // 5
      "ret;\n"));                      // 6 B4
  EXPECT_EQ(a.pd.reconvergence[0], 4u);
  EXPECT_EQ(a.pd.reconvergence[5], 6u);
  EXPECT_TRUE(a.pd.post_dominates(3, 0));
  EXPECT_TRUE(a.pd.post_dominates(4, 3));
  EXPECT_FALSE(a.pd.post_dominates(0, 3));
}

TEST(PostDominators, EmptyBody) {
  auto a = analyse(std::string(testing::kHeader) + ".visible .entry k()\n{\n}\n");
  EXPECT_EQ(a.pd.ipdom, std::vector<uint32_t>{0});
  EXPECT_TRUE(a.pd.reconvergence.empty());
  PostDominators none;  // default: the same as an empty function
  EXPECT_EQ(none.ipdom, a.pd.ipdom);
  EXPECT_EQ(none.reaches_exit, a.pd.reaches_exit);
  EXPECT_TRUE(none.post_dominates(0, 0));
}

// A long chain of diamonds: the iterative walk must not recurse per block.
TEST(PostDominators, ManyBlocks) {
  std::string body;
  const int n = 20000;
  for (int i = 0; i < n; ++i) {
    std::string s = std::to_string(i);
    body += "@%p1 bra E" + s + ";\nadd.s32 %r1, %r1, 1;\nbra J" + s + ";\nE" + s +
            ":\nadd.s32 %r1, %r1, 2;\nJ" + s + ":\n";
  }
  body += "ret;\n";
  auto a = analyse(kernel(body));
  ASSERT_EQ(a.cfg.blocks.size(), static_cast<size_t>(3 * n + 1));
  for (int i = 0; i < n; ++i) EXPECT_EQ(a.pd.reconvergence[4 * i], 4u * i + 4) << i;
}

// ---- the whole PTX corpus against a slow reference ------------------------------

// Post-dominator sets by the textbook data-flow equations (bit sets):
// pdom(exit) = {exit}; pdom(b) = {b} + intersection of pdom(s) over the
// successors s that reach the exit. The ipdom is the strict post-dominator
// with the largest set (the chain's nearest element).
std::vector<uint32_t> reference_ipdoms(const Cfg& cfg, const std::vector<uint8_t>& reaches) {
  const uint32_t n = cfg.num_nodes(), words = (n + 63) / 64, x = cfg.exit();
  std::vector<std::vector<uint64_t>> pdom(n, std::vector<uint64_t>(words, ~uint64_t{0}));
  pdom[x].assign(words, 0);
  pdom[x][x / 64] |= uint64_t{1} << (x % 64);
  for (bool changed = true; changed;) {
    changed = false;
    for (uint32_t b = 0; b < x; ++b) {
      if (!reaches[b]) continue;
      std::vector<uint64_t> set(words, ~uint64_t{0});
      for (uint32_t s : cfg.successors(b))
        if (reaches[s])
          for (uint32_t w = 0; w < words; ++w) set[w] &= pdom[s][w];
      set[b / 64] |= uint64_t{1} << (b % 64);
      if (set != pdom[b]) {
        pdom[b] = std::move(set);
        changed = true;
      }
    }
  }
  auto count = [&](uint32_t b) {
    uint32_t c = 0;
    for (uint32_t d = 0; d < n; ++d) c += (pdom[b][d / 64] >> (d % 64)) & 1;
    return c;
  };
  std::vector<uint32_t> ipdom(n, x);
  for (uint32_t b = 0; b < x; ++b) {
    if (!reaches[b]) continue;
    uint32_t best = x, best_count = 0;
    for (uint32_t d = 0; d < n; ++d) {
      if (d == b || !((pdom[b][d / 64] >> (d % 64)) & 1)) continue;
      uint32_t c = count(d);
      if (c > best_count) best = d, best_count = c;
    }
    ipdom[b] = best;
  }
  return ipdom;
}

// Nodes that can reach the exit, by a plain backward flood.
std::vector<uint8_t> reference_reaches(const Cfg& cfg) {
  std::vector<uint8_t> r(cfg.num_nodes(), 0);
  std::vector<uint32_t> work{cfg.exit()};
  r[cfg.exit()] = 1;
  while (!work.empty()) {
    uint32_t b = work.back();
    work.pop_back();
    for (uint32_t p : cfg.predecessors(b))
      if (!r[p]) r[p] = 1, work.push_back(p);
  }
  return r;
}

void check_function(const Module& m, const Function& f, const std::string& where) {
  Cfg cfg = build_cfg(m, f);
  const uint32_t n = cfg.num_instructions, x = cfg.exit();
  // Blocks tile the instructions; edges are symmetric; branches end blocks.
  uint32_t next = 0;
  for (uint32_t b = 0; b < cfg.blocks.size(); ++b) {
    ASSERT_EQ(cfg.blocks[b].first, next) << where;
    ASSERT_LT(cfg.blocks[b].first, cfg.blocks[b].end) << where;
    for (uint32_t i = cfg.blocks[b].first; i < cfg.blocks[b].end; ++i) ASSERT_EQ(cfg.block_of(i), b);
    next = cfg.blocks[b].end;
    for (uint32_t s : cfg.successors(b)) {
      auto preds = cfg.predecessors(s);
      EXPECT_NE(std::find(preds.begin(), preds.end(), b), preds.end()) << where;
    }
  }
  ASSERT_EQ(next, n) << where;
  PostDominators pd = compute_post_dominators(cfg);
  std::vector<uint8_t> reaches = reference_reaches(cfg);
  EXPECT_EQ(pd.reaches_exit, reaches) << where;
  if (cfg.num_nodes() <= 3000) {
    EXPECT_EQ(pd.ipdom, reference_ipdoms(cfg, reaches)) << where;
  }
  for (uint32_t i = 0; i < n; ++i) {
    Opcode op = f.instructions[i].opcode;
    if (op == Opcode::Bra || op == Opcode::Brx) {
      uint32_t b = cfg.block_of(i);
      EXPECT_EQ(cfg.blocks[b].last(), i) << where;
      uint32_t r = pd.reconvergence[i];
      EXPECT_EQ(r, pd.ipdom[b] == x ? n : cfg.blocks[pd.ipdom[b]].first) << where;
    } else {
      EXPECT_EQ(pd.reconvergence[i], kNone) << where;
    }
  }
}

TEST(PostDominators, CorpusMatchesReferenceAlgorithm) {
  size_t functions = 0, branches = 0;
  testing::for_each_corpus_function(
      {"gen", "handwritten", "examples"},
      [&](const std::string& file, const Module& module, const Function& f) {
    ++functions;
    for (const Instruction& inst : f.instructions)
      branches += inst.opcode == Opcode::Bra || inst.opcode == Opcode::Brx;
    check_function(module, f, file + ":" + std::string(f.name));
  });
  EXPECT_GT(functions, 0u);
  EXPECT_GT(branches, 0u);
}

}  // namespace
}  // namespace warpsim::ptx
