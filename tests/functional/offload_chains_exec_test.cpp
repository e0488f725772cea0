// The offload_chains pass changes the order of instructions, never what a
// kernel computes: every pattern and near-miss kernel gives the same memory
// with and without the pass. And what warps execute of the tagged chains is
// counted (functional::OffloadCounts), only for programs carrying the marks.
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "exec_test_util.h"
#include "ptx/compiler_config.h"
#include "ptx/passes/offload_tags.h"
#include "../ptx/offload_chain_kernels.h"

namespace warpsim::functional {
namespace {

using ptx::testing::ChainCase;

struct Outcome {
  std::vector<uint32_t> a, b, c;
  LaunchResult result;
  bool marked = false;
  std::vector<uint32_t> decoded_tags;  // the tag of each decoded instruction in a chain, in code order
};

// Runs the case's kernel on 96 threads (three warps, the last partly
// guarded off by nothing: all run) over arrays of 2 * 96 words, so 8-byte
// cases stay inside.
Outcome run_case(const ChainCase& c, const std::string& passes) {
  ptx::CompilerConfig config;
  config.passes = passes;
  config.check_after_each_pass = true;
  ptx::PassPipeline pipeline(config);
  testing::Loaded l;
  DiagnosticEngine diags;
  const std::string text = ptx::testing::chain_kernel(c.body);
  const ptx::PtxSource source{text, "chain.ptx"};
  l.program = l.device.load(std::span(&source, 1), pipeline.options(), diags);
  Outcome o;
  EXPECT_TRUE(l.program) << diags.format_all();
  if (!l.program) return o;
  o.marked = l.program->offload_marks;
  for (const ptx::Annotation& a : l.program->annotations)
    if (ptx::offload::tagged(a)) o.decoded_tags.push_back(ptx::offload::tag(a));
  constexpr uint32_t n = 96;
  std::mt19937 rng(7);
  std::vector<float> init(2 * n);
  std::vector<uint32_t> a(2 * n), b(2 * n), c0(2 * n, 0);
  for (uint32_t i = 0; i < 2 * n; ++i) {
    const float x = static_cast<float>(rng() % 1000) / 7.0f - 50.0f, y = static_cast<float>(rng() % 1000) / 3.0f;
    std::memcpy(&a[i], &x, 4);
    std::memcpy(&b[i], &y, 4);
  }
  const uint64_t da = testing::upload(l.device, a), db = testing::upload(l.device, b),
                 dc = testing::upload(l.device, c0);
  o.result = testing::run(l, "k", {1}, {n}, {param_bytes(da), param_bytes(db), param_bytes(dc), param_bytes(1.5f)});
  EXPECT_TRUE(o.result.ok()) << (o.result.fault ? o.result.fault->message : "") << c.name;
  o.a = testing::download(l.device, da, 2 * n);
  o.b = testing::download(l.device, db, 2 * n);
  o.c = testing::download(l.device, dc, 2 * n);
  return o;
}

class OffloadSemantics : public ::testing::TestWithParam<ChainCase> {};

TEST_P(OffloadSemantics, MovedCodeComputesTheSame) {
  const Outcome plain = run_case(GetParam(), "none");
  const Outcome moved = run_case(GetParam(), "offload_chains, dead_moves, instruction_mix");
  EXPECT_EQ(moved.a, plain.a);
  EXPECT_EQ(moved.b, plain.b);
  EXPECT_EQ(moved.c, plain.c);
  EXPECT_EQ(moved.result.thread_instructions, plain.result.thread_instructions);
  EXPECT_FALSE(plain.marked);
  EXPECT_TRUE(moved.marked);
}

std::vector<ChainCase> all_cases() {
  std::vector<ChainCase> v = ptx::testing::pattern_cases();
  for (const ChainCase& c : ptx::testing::near_miss_cases()) v.push_back(c);
  return v;
}

INSTANTIATE_TEST_SUITE_P(Table1, OffloadSemantics, ::testing::ValuesIn(all_cases()),
                         [](const auto& info) { return std::string(info.param.name); });

TEST(OffloadCounts, WarpsCountTheTaggedInstructionsTheyExecute) {
  const ChainCase vecadd = ptx::testing::pattern_cases()[0];  // pattern 1: ld, ld, add, st
  const Outcome o = run_case(vecadd, "offload_chains");
  const OffloadCounts& n = o.result.offload;
  EXPECT_EQ(n.chains, 3u);  // once per warp
  EXPECT_EQ(n.tagged_warp_instructions, 3u * 4);
  EXPECT_EQ(n.tagged_thread_instructions, 96u * 4);
  EXPECT_EQ(n.global_accesses, 3u * 3);
  EXPECT_EQ(n.tagged_global_accesses, 3u * 3);
  // The tags survive lowering: the decoded program holds the chain, in order.
  EXPECT_EQ(o.decoded_tags, (std::vector<uint32_t>{ptx::offload::kFirst, ptx::offload::kIntermediate,
                                                   ptx::offload::kIntermediate, ptx::offload::kLast}));
  const Outcome plain = run_case(vecadd, "none");
  EXPECT_TRUE(plain.decoded_tags.empty());
  EXPECT_EQ(plain.result.offload.global_accesses, 0u);  // no marks, nothing counted
  EXPECT_EQ(plain.result.offload.tagged_thread_instructions, 0u);
}

TEST(OffloadCounts, UntaggedAccessesCountInTheDenominatorOnly) {
  const ChainCase reused = ptx::testing::near_miss_cases()[0];  // one load, two stores, no chain
  const Outcome o = run_case(reused, "offload_chains");
  EXPECT_EQ(o.result.offload.global_accesses, 3u * 3);
  EXPECT_EQ(o.result.offload.tagged_global_accesses, 0u);
  EXPECT_EQ(o.result.offload.chains, 0u);
}

}  // namespace
}  // namespace warpsim::functional
