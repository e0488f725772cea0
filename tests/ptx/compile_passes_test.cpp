// The compile-pass framework and its passes: the registry, the passes run
// through ptx::compile with the checker after each, what they change and
// report, and the offload_chains pass on every pattern of Pattnaik et al.
// (ISCA 2019, Table 1), its near-misses, and nvcc 13's code for the
// microbenchmarks of that paper and small kernels of the other patterns
// (tests/ptx/offload/: benchmarks/micro and patterns.cu, built with
// nvcc -ptx -lineinfo).
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "common/stats.h"
#include "ptx/compile.h"
#include "ptx/compiler_config.h"
#include "ptx/passes/instruction_mix.h"
#include "ptx/passes/offload_chains.h"
#include "ptx/passes/offload_tags.h"
#include "ptx/passes/pass_registry.h"
#include "ptx/printer.h"
#include "offload_chain_kernels.h"
#include "ptx_test_util.h"

namespace warpsim::ptx {
namespace {

using testing::chain_kernel;
using testing::ChainCase;

struct Compiled {
  std::unique_ptr<Module> module;
  std::string errors;
};

// Compiles `text` with `passes`, the checker after each.
Compiled compile_with(const std::string& text, std::vector<ModulePass*> passes) {
  DiagnosticEngine diags;
  const PtxSource source{text, "test.ptx"};
  CompileOptions options;
  options.passes = std::move(passes);
  options.check_after_each_pass = true;
  Compiled c{compile(std::span(&source, 1), options, diags), diags.format_all()};
  return c;
}

// The printed module parses and checks again.
void expect_reparses(const Module& m) {
  const std::string printed = print_module(m);
  DiagnosticEngine diags;
  EXPECT_NE(parse_and_check(printed, "printed.ptx", diags), nullptr) << diags.format_all() << printed;
}

std::string read_fixture(const std::string& name) {
  std::ifstream in(std::string(WARPSIM_SOURCE_DIR) + "/tests/ptx/offload/" + name);
  std::stringstream s;
  s << in.rdbuf();
  EXPECT_FALSE(s.str().empty()) << name;
  return s.str();
}

// One statistic of what `pass` did (publishing starts its counts afresh).
uint64_t stat(ModulePass& pass, const std::string& name) {
  StatsRegistry stats;
  pass.publish(stats, "p");
  return stats.counter("p." + name);
}

const Function& kernel_k(const Module& m) { return *m.find_function("k"); }

// ---- the framework ------------------------------------------------------------------

TEST(CompilePasses, RegistryListsTheShippedPasses) {
  EXPECT_EQ(compile_passes().joined(), "dead_moves, instruction_mix, offload_chains");
  EXPECT_EQ(compile_passes().check_list("dead_moves, offload_chains"), "");
  EXPECT_EQ(compile_passes().check_list("none"), "");
  EXPECT_NE(compile_passes().check_list("offload").find("unknown compile pass 'offload'"), std::string::npos);
  EXPECT_NE(compile_passes().check_list("dead_moves,dead_moves").find("listed twice"), std::string::npos);
  EXPECT_EQ(pass_prefix("dead_moves"), "compiler.dead_moves");
}

TEST(CompilePasses, EveryRegisteredPassKeepsTheModuleValid) {
  // The contract test: each registered pass, alone and on real nvcc output,
  // leaves a module the checker accepts and the printer round-trips.
  CompilerConfig config;
  for (const auto& entry : compile_passes().entries()) {
    const PassContext context{&config.sections};
    auto pass = entry.make(context);
    EXPECT_EQ(pass->name(), entry.name);
    for (const char* fixture : {"micro-vecadd-aligned.ptx", "micro-density.ptx", "micro-compare.ptx"}) {
      Compiled c = compile_with(read_fixture(fixture), {pass.get()});
      ASSERT_TRUE(c.module) << entry.name << " on " << fixture << ": " << c.errors;
      expect_reparses(*c.module);
    }
  }
}

TEST(CompilePasses, PipelineRunsPassesInOrderAndPublishesEach) {
  CompilerConfig config;
  config.passes = "offload_chains, instruction_mix";
  PassPipeline pipeline(config);
  DiagnosticEngine diags;
  const std::string text = read_fixture("micro-vecadd-aligned.ptx");
  const PtxSource source{text, "v.ptx"};
  ASSERT_TRUE(compile(std::span(&source, 1), pipeline.options(), diags)) << diags.format_all();
  ASSERT_TRUE(compile(std::span(&source, 1), pipeline.options(), diags)) << diags.format_all();
  StatsRegistry stats;
  pipeline.publish(stats);
  EXPECT_EQ(stats.counter("compiler.offload_chains.chains"), 2u);  // one per module compiled
  EXPECT_EQ(stats.counter("compiler.instruction_mix.kernels"), 2u);
  EXPECT_EQ(stats.counter("compiler.instruction_mix.instructions.global"), 6u);
  StatsRegistry again;
  pipeline.publish(again);  // published once: counting starts afresh
  EXPECT_EQ(again.counter("compiler.offload_chains.chains"), 0u);
}

// ---- dead_moves ----------------------------------------------------------------------

TEST(DeadMoves, RemovesUnreadMovesTransitivelyAndKeepsLabels) {
  const std::string body =
      "mov.u32 %r1, 7;\n"      // read by the store: kept
      "mov.u32 %r2, %r1;\n"    // read only by the dead %r3 move: removed in the second round
      "mov.u32 %r3, %r2;\n"    // never read: removed
      "L1:\n"
      "mov.u32 %r4, 5;\n"      // labelled and dead: removed, the label moves on
      "ld.param.u64 %rd1, [p0];\n"
      "st.global.u32 [%rd1], %r1;\n"
      "@%p1 bra L1;\n"
      "ret;";
  auto pass = compile_passes().make("dead_moves", PassContext{});
  Compiled c = compile_with(testing::kernel(body), {pass.get()});
  ASSERT_TRUE(c.module) << c.errors;
  const Function& f = *c.module->find_function("k");
  ASSERT_EQ(f.instructions.size(), 5u);
  EXPECT_EQ(print_instruction(f, f.instructions[0]), "mov.u32 %r1, 7");
  EXPECT_EQ(print_instruction(f, f.instructions[1]), "ld.param.u64 %rd1, [p0]");
  EXPECT_EQ(f.labels[0].instruction, 1u);  // L1 now stands before the ld.param
  EXPECT_EQ(stat(*pass, "moves_removed"), 3u);
  expect_reparses(*c.module);
}

// ---- instruction_mix -------------------------------------------------------------------

TEST(InstructionMix, CountsEachKernelByClassAndChangesNothing) {
  auto pass = compile_passes().make("instruction_mix", PassContext{});
  const std::string text = read_fixture("micro-density.ptx");
  Compiled plain = compile_with(text, {});
  Compiled c = compile_with(text, {pass.get()});
  ASSERT_TRUE(c.module && plain.module);
  EXPECT_EQ(print_module(*c.module), print_module(*plain.module));
  const auto kernels = instruction_mix_of(*pass);
  ASSERT_EQ(kernels.size(), 1u);
  const auto& n = kernels[0].counts;
  EXPECT_EQ(n[static_cast<size_t>(InstructionClass::Global)], 1u);  // the load
  EXPECT_EQ(n[static_cast<size_t>(InstructionClass::Atomic)], 1u);
  EXPECT_EQ(n[static_cast<size_t>(InstructionClass::Sync)], 1u);  // bar.red
  EXPECT_EQ(n[static_cast<size_t>(InstructionClass::Fp32)], 1u);  // setp.eq.f32
  uint64_t total = 0;
  for (uint64_t v : n) total += v;
  EXPECT_EQ(total, plain.module->find_function(kernels[0].kernel)->instructions.size());
}

// ---- offload_chains: the patterns -----------------------------------------------------

struct Found {
  std::vector<OffloadChain> chains;
  std::unique_ptr<Module> module;
  std::unique_ptr<ModulePass> pass;
};

Found find_chains(const std::string& text, OffloadChainsConfig config = {}) {
  Found f;
  f.pass = make_offload_chains_pass(config);
  Compiled c = compile_with(text, {f.pass.get()});
  EXPECT_TRUE(c.module) << c.errors;
  if (!c.module) return f;
  f.module = std::move(c.module);
  for (const OffloadChain& ch : offload_chains_of(*f.pass)) f.chains.push_back(ch);
  expect_reparses(*f.module);
  return f;
}

class OffloadPattern : public ::testing::TestWithParam<ChainCase> {};

TEST_P(OffloadPattern, IsFoundTaggedAndContiguous) {
  const ChainCase& c = GetParam();
  Found f = find_chains(chain_kernel(c.body));
  ASSERT_EQ(f.chains.size(), 1u);
  const OffloadChain& ch = f.chains[0];
  EXPECT_EQ(ch.pattern, static_cast<uint32_t>(c.pattern));
  ASSERT_EQ(ch.instructions.size(), static_cast<size_t>(c.tagged));
  const Function& k = kernel_k(*f.module);
  for (size_t i = 0; i < ch.instructions.size(); ++i) {
    const Instruction& inst = k.instructions[ch.instructions[i]];
    if (i > 0) {
      EXPECT_EQ(ch.instructions[i], ch.instructions[i - 1] + 1) << "contiguous";
    }
    const uint32_t want = i == 0 ? offload::kFirst : i + 1 == ch.instructions.size() ? offload::kLast
                                                                                      : offload::kIntermediate;
    EXPECT_EQ(offload::tag(inst.annotation), want) << print_instruction(k, inst);
    EXPECT_EQ(offload::pattern(inst.annotation), static_cast<uint32_t>(c.pattern));
    EXPECT_EQ(inst.annotation.group, ch.id);
  }
  // Every chain starts with a load, its loads come first, and nothing else is tagged.
  EXPECT_EQ(k.instructions[ch.instructions[0]].opcode, Opcode::Ld);
  size_t tagged = 0;
  for (const Instruction& inst : k.instructions) tagged += offload::tagged(inst.annotation);
  EXPECT_EQ(tagged, ch.instructions.size());
}

INSTANTIATE_TEST_SUITE_P(Table1, OffloadPattern, ::testing::ValuesIn(testing::pattern_cases()),
                         [](const auto& info) { return std::string(info.param.name); });

class OffloadNearMiss : public ::testing::TestWithParam<ChainCase> {};

TEST_P(OffloadNearMiss, IsNotTagged) {
  Found f = find_chains(chain_kernel(GetParam().body));
  EXPECT_TRUE(f.chains.empty());
  for (const Instruction& inst : kernel_k(*f.module).instructions)
    EXPECT_FALSE(offload::tagged(inst.annotation)) << print_instruction(kernel_k(*f.module), inst);
}

INSTANTIATE_TEST_SUITE_P(Table1, OffloadNearMiss, ::testing::ValuesIn(testing::near_miss_cases()),
                         [](const auto& info) { return std::string(info.param.name); });

TEST(OffloadChains, NearMissesAreCountedByReason) {
  auto count = [](const std::string& body, const std::string& reason) {
    Found f = find_chains(chain_kernel(body));
    return stat(*f.pass, "rejected." + reason);
  };
  for (const ChainCase& c : testing::near_miss_cases()) {
    const std::string name = c.name;
    std::string reason;
    if (name == "aliasing_store_between" || name == "barrier_between" || name == "atomic_between" ||
        name == "volatile_load")
      reason = "alias";
    if (name == "three_loads") reason = "shape";
    if (name == "wide_operands" || name == "wide_immediate") reason = "width";
    if (!reason.empty()) {
      EXPECT_GE(count(c.body, reason), 1u) << name;
    }
  }
}

TEST(OffloadChains, AReusedLoadStaysAtTheCoreAndTheRestIsOffloaded) {
  // b[i] is stored twice: its load is reused, so c = a + b keeps b at the
  // core as pattern 4 (ld a; alu c,a,x; st c).
  Found f = find_chains(chain_kernel(
      "ld.global.f32 %f1, [%rd5];\nld.global.f32 %f2, [%rd6];\nadd.f32 %f3, %f1, %f2;\n"
      "st.global.f32 [%rd7], %f3;\nst.global.f32 [%rd5], %f2;"));
  ASSERT_EQ(f.chains.size(), 1u);
  EXPECT_EQ(f.chains[0].pattern, 4u);
  EXPECT_EQ(stat(*f.pass, "loads_kept_for_reuse"), 1u);
  const Function& k = kernel_k(*f.module);
  for (const Instruction& inst : k.instructions)
    if (inst.opcode == Opcode::Ld && inst.mods.space() == StateSpace::Global) {
      EXPECT_EQ(offload::tagged(inst.annotation), print_instruction(k, inst) == "ld.global.f32 %f1, [%rd5]");
    }
}

TEST(OffloadChains, AddressArithmeticIsHoistedAboveTheChain) {
  Found f = find_chains(chain_kernel(testing::pattern_cases().back().body));
  ASSERT_EQ(f.chains.size(), 1u);
  EXPECT_EQ(f.chains[0].hoisted, 3u);  // the second load's address and the store's two
  const Function& k = kernel_k(*f.module);
  const uint32_t first = f.chains[0].instructions[0];
  EXPECT_EQ(print_instruction(k, k.instructions[first - 1]), "add.s64 %rd10, %rd9, %rd4");
  EXPECT_EQ(print_instruction(k, k.instructions[first - 3]), "add.s64 %rd8, %rd2, %rd4");
}

TEST(OffloadChains, WorkCaughtInsideMovesAboveOrBelow) {
  // The mul depends on no member: it moves above. The add.s64 overwrites
  // the first load's address register, so it must stay after that load: it
  // moves below the chain, which nothing in the chain reads it for.
  Found g = find_chains(chain_kernel(
      "ld.global.f32 %f1, [%rd5];\nmul.f32 %f8, %f10, %f10;\nadd.s64 %rd5, %rd5, 4;\n"
      "ld.global.f32 %f2, [%rd6];\nadd.f32 %f3, %f1, %f2;\nst.global.f32 [%rd7], %f3;\n"
      "st.global.f32 [%rd5], %f8;"));
  ASSERT_EQ(g.chains.size(), 1u);
  EXPECT_EQ(g.chains[0].pattern, 1u);
  StatsRegistry stats;
  g.pass->publish(stats, "p");
  EXPECT_EQ(stats.counter("p.hoisted"), 1u);
  EXPECT_EQ(stats.counter("p.sunk"), 1u);
  const Function& k = kernel_k(*g.module);
  const auto& members = g.chains[0].instructions;
  EXPECT_EQ(print_instruction(k, k.instructions[members.front() - 1]), "mul.f32 %f8, %f10, %f10");
  EXPECT_EQ(print_instruction(k, k.instructions[members.back() + 1]), "add.s64 %rd5, %rd5, 4");
}

TEST(OffloadChains, AnOverwrittenLoadValueIsNotChained) {
  // The mov rewrites %f1 between the load and the add: the add reads the
  // mov's value, so the first load is not an operand of the chain.
  Found f = find_chains(chain_kernel(
      "ld.global.f32 %f1, [%rd5];\ncvt.rn.f32.u32 %f5, %r1;\nmov.f32 %f1, %f5;\n"
      "ld.global.f32 %f2, [%rd6];\nadd.f32 %f3, %f1, %f2;\nst.global.f32 [%rd7], %f3;"));
  ASSERT_EQ(f.chains.size(), 1u);
  EXPECT_EQ(f.chains[0].pattern, 4u);  // ld b; add c, b, x; st c
  const Function& k = kernel_k(*f.module);
  for (const Instruction& inst : k.instructions)
    if (print_instruction(k, inst) == "ld.global.f32 %f1, [%rd5]") {
      EXPECT_FALSE(offload::tagged(inst.annotation));
    }
}

TEST(OffloadChains, ChainsLongerThanTheSpanLimitAreLeftAlone) {
  std::string body = "ld.global.f32 %f1, [%rd5];\n";
  for (int i = 0; i < 10; ++i) body += "mul.f32 %f8, %f10, %f10;\n";
  body += "ld.global.f32 %f2, [%rd6];\nadd.f32 %f3, %f1, %f2;\nst.global.f32 [%rd7], %f3;";
  OffloadChainsConfig tight;
  tight.max_span = 8;
  EXPECT_TRUE(find_chains(chain_kernel(body), tight).chains.empty());
  EXPECT_EQ(find_chains(chain_kernel(body)).chains.size(), 1u);
}

TEST(OffloadChains, SharedMemoryGuardMarksChainsForLlcNodesOnly) {
  const std::string text =
      ".version 8.5\n.target sm_80\n.address_size 64\n"
      ".visible .entry k(.param .u64 pa, .param .u64 pc)\n{\n"
      "  .shared .align 4 .b8 buf[32768];\n  .reg .f32 %f<4>;\n  .reg .b64 %rd<4>;\n"
      "  ld.param.u64 %rd1, [pa];\n  ld.param.u64 %rd2, [pc];\n"
      "  ld.global.f32 %f1, [%rd1];\n  st.global.f32 [%rd2], %f1;\n  ret;\n}\n";
  Found big = find_chains(text);
  ASSERT_EQ(big.chains.size(), 1u);
  EXPECT_FALSE(big.chains[0].core_compute);
  EXPECT_EQ(stat(*big.pass, "kernels_without_core_compute"), 1u);
  for (uint32_t i : big.chains[0].instructions)
    EXPECT_TRUE(kernel_k(*big.module).instructions[i].annotation.flags & offload::kNoCoreCompute);
  OffloadChainsConfig roomy;
  roomy.core_compute_shared_limit = 48 * 1024;
  Found fits = find_chains(text, roomy);
  ASSERT_EQ(fits.chains.size(), 1u);
  EXPECT_TRUE(fits.chains[0].core_compute);
}

TEST(OffloadChains, GlobalAccessesAreMarkedTaggedOrNot) {
  Found f = find_chains(chain_kernel(testing::near_miss_cases()[0].body));  // the reused load
  size_t marked = 0;
  for (const Instruction& inst : kernel_k(*f.module).instructions) marked += offload::global_access(inst.annotation);
  EXPECT_EQ(marked, 3u);  // one load, two stores
  EXPECT_EQ(stat(*f.pass, "global_accesses"), 3u);
}

// ---- offload_chains on nvcc 13's code for the paper's microbenchmarks ------------------

struct NvccCase {
  const char* fixture;
  uint32_t pattern;
  size_t tagged;
  uint32_t hoisted;
};

class OffloadNvcc : public ::testing::TestWithParam<NvccCase> {};

TEST_P(OffloadNvcc, FindsThePaperPattern) {
  const NvccCase& c = GetParam();
  Found f = find_chains(read_fixture(c.fixture));
  ASSERT_EQ(f.chains.size(), 1u) << c.fixture;
  EXPECT_EQ(f.chains[0].pattern, c.pattern);
  EXPECT_EQ(f.chains[0].instructions.size(), c.tagged);
  EXPECT_EQ(f.chains[0].hoisted, c.hoisted);
  // The chain's source line survives (.loc travels with each instruction).
  const Function& k = f.module->functions[f.chains[0].function];
  EXPECT_NE(k.instructions[f.chains[0].instructions.back()].debug.line, 0u);
}

INSTANTIATE_TEST_SUITE_P(
    Micro, OffloadNvcc,
    ::testing::Values(NvccCase{"micro-compare.ptx", 5, 3, 0}, NvccCase{"micro-copy-aligned.ptx", 3, 2, 2},
                      NvccCase{"micro-copy-strided.ptx", 3, 2, 2}, NvccCase{"micro-density.ptx", 6, 2, 0},
                      NvccCase{"micro-norm.ptx", 7, 3, 2}, NvccCase{"micro-vecadd-aligned.ptx", 1, 4, 2},
                      NvccCase{"micro-vecadd-strided.ptx", 1, 4, 2}),
    [](const auto& info) {
      std::string n = info.param.fixture;
      n = n.substr(6, n.size() - 10);
      for (char& ch : n)
        if (ch == '-') ch = '_';
      return n;
    });

// Patterns 2, 4, 8 and 9 as nvcc 13 compiles small CUDA kernels
// (tests/ptx/offload/patterns.cu), one chain per kernel.
TEST(OffloadNvcc, PatternsOfTheFourKernelsInPatternsCu) {
  Found f = find_chains(read_fixture("patterns.ptx"));
  std::map<std::string, std::vector<uint32_t>> by_kernel;
  for (const OffloadChain& c : f.chains)
    by_kernel[std::string(f.module->functions[c.function].name)].push_back(c.pattern);
  EXPECT_EQ(by_kernel["_Z6p2_dotPKfS0_Pfi"], std::vector<uint32_t>{2});
  EXPECT_EQ(by_kernel["_Z9p4_offsetPKfPf"], std::vector<uint32_t>{4});
  EXPECT_EQ(by_kernel["_Z12p8_scale_addPKfS0_Pff"], std::vector<uint32_t>{8});
  EXPECT_EQ(by_kernel["_Z8p9_triadPKfS0_Pff"], std::vector<uint32_t>{9});
}

}  // namespace
}  // namespace warpsim::ptx
