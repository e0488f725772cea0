// Parser unit tests: module structure, declarations, instructions and
// located diagnostics on hand-written PTX.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <bit>
#include <chrono>
#include <string>

#include "ptx/parse.h"
#include "ptx/printer.h"
#include "ptx_test_util.h"

namespace warpsim::ptx {
namespace {

using testing::kernel;
using testing::parse_text;

TEST(Parser, ModuleDirectives) {
  auto p = parse_text(".version 9.0\n.target sm_90a, texmode_independent\n.address_size 64\n");
  ASSERT_TRUE(p->ok()) << p->errors();
  EXPECT_EQ(p->module->version_major, 9u);
  EXPECT_EQ(p->module->version_minor, 0u);
  ASSERT_EQ(p->module->targets.size(), 2u);
  EXPECT_EQ(p->module->targets[0], "sm_90a");
  EXPECT_EQ(p->module->address_size, 64u);
}

TEST(Parser, MissingVersionAndTarget) {
  auto p = parse_text(".address_size 64\n");
  EXPECT_FALSE(p->ok());
  EXPECT_NE(p->errors().find("missing .version"), std::string::npos);
  EXPECT_NE(p->errors().find("missing .target"), std::string::npos);
}

TEST(Parser, InstructionModifiersAreTyped) {
  auto p = parse_text(kernel(
      "ld.global.nc.v4.f32 {%f0,%f1,_,%f3}, [%rd1+16];\n"
      "cvt.rn.f32.s32 %f4, %r1;\n"
      "setp.lt.and.s32 %p1, %r1, %r2, !%p2;\n"
      "atom.global.cas.b32 %r3, [%rd2], %r4, %r5;\n"));
  ASSERT_TRUE(p->ok()) << p->errors();
  const Function& f = p->module->functions.at(0);
  ASSERT_EQ(f.instructions.size(), 4u);
  const Instruction& ld = f.instructions[0];
  EXPECT_EQ(ld.opcode, Opcode::Ld);
  EXPECT_EQ(ld.mods.space(), StateSpace::Global);
  EXPECT_TRUE(ld.mods.has(Flag::Nc));
  EXPECT_EQ(ld.mods.vec, VectorWidth::V4);
  EXPECT_EQ(ld.mods.type(), ScalarType::F32);
  auto ops = f.operands_of(ld);
  ASSERT_EQ(ops.size(), 2u);
  EXPECT_EQ(ops[0].kind, OperandKind::Vector);
  EXPECT_EQ(f.elements(ops[0])[2].kind, OperandKind::Sink);
  EXPECT_EQ(ops[1].kind, OperandKind::Address);
  EXPECT_EQ(ops[1].value, 16);
  const Instruction& cvt = f.instructions[1];
  EXPECT_EQ(cvt.mods.rounding, Rounding::Rn);
  EXPECT_EQ(cvt.mods.type(0), ScalarType::F32);
  EXPECT_EQ(cvt.mods.type(1), ScalarType::S32);
  const Instruction& setp = f.instructions[2];
  EXPECT_EQ(setp.mods.cmp, CmpOp::Lt);
  EXPECT_EQ(setp.mods.op, Operation::And);
  EXPECT_TRUE(f.operands_of(setp)[3].negated);
  EXPECT_EQ(f.instructions[3].mods.op, Operation::Cas);
}

TEST(Parser, ImmediatesInEveryBase) {
  auto p = parse_text(kernel(
      "mov.u32 %r0, 0x1F;\nmov.u32 %r1, 017;\nmov.u32 %r2, 0b101;\nmov.u32 %r3, -42;\n"
      "mov.f32 %f0, 0f3F800000;\nmov.f64 %fd0, 0d3FF0000000000000;\nmov.f32 %f1, 1.5;\n"));
  ASSERT_TRUE(p->ok()) << p->errors();
  const Function& f = p->module->functions[0];
  auto imm = [&](size_t i) { return f.operands_of(f.instructions[i])[1].value; };
  EXPECT_EQ(imm(0), 31);
  EXPECT_EQ(imm(1), 15);
  EXPECT_EQ(imm(2), 5);
  EXPECT_EQ(imm(3), -42);
  EXPECT_EQ(imm(4), 0x3F800000);
  EXPECT_EQ(imm(5), 0x3FF0000000000000);
  EXPECT_EQ(std::bit_cast<double>(imm(6)), 1.5);
}

TEST(Parser, NestedScopesShadowRegisters) {
  auto p = parse_text(kernel(
      "{\n  .reg .b32 %r1;\n  mov.u32 %r1, 1;\n}\nmov.u32 %r1, 2;\n"));
  ASSERT_TRUE(p->ok()) << p->errors();
  const Function& f = p->module->functions[0];
  uint32_t inner = f.operands_of(f.instructions[0])[0].reg;
  uint32_t outer = f.operands_of(f.instructions[1])[0].reg;
  EXPECT_NE(inner, outer);
  EXPECT_EQ(f.register_name(inner), "%r1");
  EXPECT_EQ(f.register_name(outer), "%r1");
}

// nvcc 13 emits %reserved_smem_offset_1 for cooperative groups tiles larger
// than a warp; indexed special registers exist only with a number in range.
TEST(Parser, IndexedSpecialRegisters) {
  auto ok = parse_text(kernel(
      "mov.u32 %r1, %reserved_smem_offset_0;\nmov.u32 %r2, %reserved_smem_offset_1;\n"
      "mov.u32 %r3, %reserved_smem_offset_cap;\nmov.u32 %r4, %envreg31;\n"));
  ASSERT_TRUE(ok->ok()) << ok->errors();
  const Function& f = ok->module->functions[0];
  const Operand& first = f.operands_of(f.instructions[0])[1];
  const Operand& second = f.operands_of(f.instructions[1])[1];
  ASSERT_EQ(first.kind, OperandKind::Special);
  EXPECT_EQ(first.sreg, SpecialRegister::ReservedSmemOffset);
  EXPECT_EQ(first.sreg_index, 0);
  EXPECT_EQ(second.sreg, SpecialRegister::ReservedSmemOffset);
  EXPECT_EQ(second.sreg_index, 1);
  EXPECT_EQ(f.operands_of(f.instructions[2])[1].sreg, SpecialRegister::ReservedSmemOffsetCap);
  for (const char* bad : {"%reserved_smem_offset_2", "%reserved_smem_offset_", "%envreg", "%pm"}) {
    auto p = parse_text(kernel(std::string("mov.u32 %r1, ") + bad + ";\n"));
    EXPECT_FALSE(p->ok()) << bad;
    EXPECT_NE(p->errors().find(std::string("undeclared register '") + bad + "'"), std::string::npos)
        << p->errors();
  }
}

TEST(Parser, LocatedDiagnostics) {
  auto p = parse_text(kernel("mov.u32 %r99, 1;\nadd.s32 %r1, %r2;\nbra $L_nowhere;\nadd.s32.foo %r1, %r2, %r3;\n"));
  std::string e = p->errors();
  // kernel() puts 11 lines before the body.
  EXPECT_NE(e.find("test.ptx:12:9: error: undeclared register '%r99'"), std::string::npos) << e;
  EXPECT_NE(e.find("test.ptx:13:1: error: 'add' expects 3 operands, got 2"), std::string::npos) << e;
  EXPECT_NE(e.find("test.ptx:14:5: error: undeclared label '$L_nowhere'"), std::string::npos) << e;
  EXPECT_NE(e.find("test.ptx:15:8: error: unknown modifier '.foo' on 'add'"), std::string::npos) << e;
}

TEST(Parser, UnknownDirective) {
  auto p = parse_text(std::string(testing::kHeader) + ".frobnicate 3;\n");
  EXPECT_NE(p->errors().find("test.ptx:4:1: error: unknown directive '.frobnicate'"), std::string::npos)
      << p->errors();
}

// Regression: `.hi`/`.lo` were classified as comparisons on every opcode.
TEST(Parser, HiLoAreHalfSelectorsOutsideComparisons) {
  auto p = parse_text(kernel("mul.hi.s32 %r0, %r1, %r2;\nsetp.hi.u32 %p0, %r1, %r2;\nmad.lo.s32 %r3, %r1, %r2, %r0;\n"));
  ASSERT_TRUE(p->ok()) << p->errors();
  const Function& f = p->module->functions[0];
  EXPECT_TRUE(f.instructions[0].mods.has(Flag::Hi));
  EXPECT_EQ(f.instructions[0].mods.cmp, CmpOp::None);
  EXPECT_EQ(f.instructions[1].mods.cmp, CmpOp::Hi);
  EXPECT_TRUE(f.instructions[2].mods.has(Flag::Lo));
}

// Regression: a parameter without a type was silently given .b32.
TEST(Parser, UntypedParameterIsAnError) {
  auto p = parse_text(std::string(testing::kHeader) + ".func f(.param p)\n{\n ret;\n}\n");
  EXPECT_NE(p->errors().find("declaration of 'p' has no type"), std::string::npos) << p->errors();
}

// Regression: after a syntax error inside an instruction, the operands and
// guard parsed so far were handed to the next instruction (here: mov with
// four operands and a guard), even one in the next function, where they
// named registers that function does not have.
TEST(Parser, SyntaxErrorLeavesNothingForTheNextInstruction) {
  auto p = parse_text(kernel("@%p1 add.s32 %r1, %r2, ;\nmov.u32 %r3, %r4;\n") +
                      ".visible .entry k2()\n{\n.reg .b32 %q<2>;\n"
                      "add.s32 %q0, {%q1, ;\n}\n"
                      ".visible .entry k3()\n{\n.reg .b32 %s<2>;\nmov.u32 %s0, %s1;\n}\n");
  ASSERT_EQ(p->diags.error_count(), 2u) << p->errors();
  EXPECT_NE(p->errors().find("12:24: error: syntax error"), std::string::npos) << p->errors();
  const Function& f = p->module->functions[0];
  ASSERT_EQ(f.instructions.size(), 1u);
  EXPECT_FALSE(f.instructions[0].has_guard);
  EXPECT_EQ(f.operands_of(f.instructions[0]).size(), 2u);
  const Function* k3 = p->module->find_function("k3");
  ASSERT_NE(k3, nullptr);
  ASSERT_EQ(k3->instructions.size(), 1u);
  EXPECT_EQ(k3->operands_of(k3->instructions[0]).size(), 2u);
}

// Regression: `.callprototype ... .noreturn` was a syntax error.
TEST(Parser, NoreturnPrototype) {
  auto p = parse_text(kernel("proto: .callprototype _ (.param .b32 _) .noreturn;\n"));
  ASSERT_TRUE(p->ok()) << p->errors();
  ASSERT_EQ(p->module->functions[0].prototypes.size(), 1u);
  EXPECT_TRUE(p->module->functions[0].prototypes[0].noreturn);
}

TEST(Parser, WarpSizeConstantAndPercentNamedGlobals) {
  auto p = parse_text(std::string(testing::kHeader) +
                      ".global .u32 %gvar;\n.entry k()\n{\n .reg .b32 %r<2>;\n"
                      " mov.u32 %r0, WARP_SZ;\n ld.global.u32 %r1, [%gvar];\n}\n");
  ASSERT_TRUE(p->ok()) << p->errors();
  const Function& f = p->module->functions[0];
  EXPECT_EQ(f.operands_of(f.instructions[0])[1].value, 32);
  EXPECT_EQ(f.operands_of(f.instructions[1])[1].sym.kind, SymbolKind::Global);
}

// Found by hand-fuzzing: 2000 values for a 3-element array were accepted.
TEST(Parser, TooManyInitialiserValues) {
  auto p = parse_text(std::string(testing::kHeader) + ".global .u32 x[3] = {1, 2, 3, 4};\n"
                      ".global .v2 .f32 v[2] = {{1.0, 2.0}, {3.0, 4.0}};\n");
  EXPECT_NE(p->errors().find("initialiser of 'x' has 4 values but the variable holds only 3"),
            std::string::npos) << p->errors();
  EXPECT_EQ(p->errors().find("'v'"), std::string::npos) << p->errors();
}

// Found by the fuzzer: `x[][]` with an initialiser divided by a zero inner size.
TEST(Parser, UnsizedInnerDimensionIsDiagnosed) {
  auto p = parse_text(std::string(testing::kHeader) + ".global .u32 x[][] = {1, 2};\n");
  EXPECT_NE(p->errors().find("only the first array dimension may be unsized"), std::string::npos)
      << p->errors();
}

// `depth` nested blocks, one a line, each holding an add, inside a kernel.
std::string nested_blocks(uint32_t depth) {
  std::string body;
  for (uint32_t i = 0; i < depth; ++i) body += "{\n add.s32 %r1, %r1, 1;\n";
  for (uint32_t i = 0; i < depth; ++i) body += "}\n";
  return testing::kernel(body);
}

TEST(Parser, BlocksNestedTooDeeplyAreRefusedAtTheirBrace) {
  auto p = testing::parse_text(nested_blocks(kMaxBlockDepth + 1));
  EXPECT_FALSE(p->ok());
  // testing::kernel puts 11 lines before the body; block k opens on line
  // 10 + 2k.
  const uint32_t line = 10 + 2 * (kMaxBlockDepth + 1);
  EXPECT_NE(p->errors().find(fmt::format("test.ptx:{}:1: error: blocks nested deeper than {} levels", line,
                                         kMaxBlockDepth)),
            std::string::npos)
      << p->errors();
}

TEST(Parser, VeryDeepNestingIsRefusedInLinearTime) {
  // 10^5 levels: one diagnostic, quickly, and no deep recursion.
  const auto start = std::chrono::steady_clock::now();
  auto p = testing::parse_text(nested_blocks(100000));
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(p->diags.error_count(), 1u) << p->errors();
  // Quadratic work at this depth would take minutes; linear is well under a
  // second in a release build and about 8 s under ASan + UBSan (Debug).
  EXPECT_LT(seconds, 30.0);
}

TEST(Parser, NestingAtTheLimitParsesAndPrintsQuickly) {
  const auto start = std::chrono::steady_clock::now();
  auto p = testing::parse_text(nested_blocks(kMaxBlockDepth));
  ASSERT_TRUE(p->ok()) << p->errors();
  const std::string printed = print_module(*p->module);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_LT(seconds, 0.5);
  // Indentation is capped: the print grows linearly with the depth (twice
  // the depth, about twice the text; uncapped indentation would be 4x).
  auto half = testing::parse_text(nested_blocks(kMaxBlockDepth / 2));
  ASSERT_TRUE(half->ok()) << half->errors();
  EXPECT_LT(printed.size(), 2.5 * static_cast<double>(print_module(*half->module).size()));
  auto again = testing::parse_text(printed);
  EXPECT_TRUE(again->ok()) << again->errors();
}

}  // namespace
}  // namespace warpsim::ptx
