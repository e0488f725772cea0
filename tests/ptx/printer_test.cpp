// Printer unit tests: the exact text printed for each construct, and for
// every input that parse(print(parse(x))) is equivalent to parse(x) and that
// printing it again gives the same text.
#include "ptx/printer.h"

#include <gtest/gtest.h>

#include <bit>
#include <sstream>
#include <string>

#include "ptx/equivalence.h"
#include "ptx_test_util.h"

namespace warpsim::ptx {
namespace {

using testing::kernel;
using testing::kHeader;
using testing::parse_text;

// Parses `text`, prints it, reparses the print and checks equivalence and the
// fixed point; returns the printed text.
std::string round_trip(const std::string& text) {
  auto first = parse_text(text);
  EXPECT_TRUE(first->ok()) << first->errors();
  std::string printed = print_module(*first->module);
  auto second = parse_text(printed);
  EXPECT_TRUE(second->ok()) << second->errors() << "--- printed ---\n" << printed;
  std::string difference;
  EXPECT_TRUE(equivalent(*first->module, *second->module, &difference))
      << difference << "\n--- printed ---\n"
      << printed;
  EXPECT_EQ(print_module(*second->module), printed) << "printing is not a fixed point";
  return printed;
}

// Inserts module-level declarations after the header of a testing::kernel().
std::string with_globals(const std::string& globals, const std::string& module) {
  std::string header = kHeader;
  return header + globals + module.substr(header.size());
}

#define EXPECT_CONTAINS(text, part) \
  EXPECT_NE((text).find(part), std::string::npos) << "missing: " << (part) << "\nin:\n" << (text)

size_t count(const std::string& text, const std::string& part) {
  size_t n = 0;
  for (size_t pos = text.find(part); pos != std::string::npos; pos = text.find(part, pos + 1)) ++n;
  return n;
}

TEST(Printer, ModuleHeader) {
  std::string out = round_trip(
      ".version 9.0\n.target sm_90a, texmode_independent\n.address_size 32\n"
      ".pragma \"nounroll\";\n.file 1 \"a.cu\"\n.file 2 \"dir/b.cu\", 1700000000, 4096\n"
      ".global .u32 g;\n");
  EXPECT_EQ(out,
            ".version 9.0\n.target sm_90a, texmode_independent\n.address_size 32\n"
            ".pragma \"nounroll\";\n.file 1 \"a.cu\"\n.file 2 \"dir/b.cu\", 1700000000, 4096\n"
            "\n.global .u32 g;\n");
}

TEST(Printer, GlobalDeclarations) {
  std::string out = round_trip(std::string(kHeader) +
                               ".visible .global .attribute(.managed) .align 8 .u64 m;\n"
                               ".extern .global .u32 ext;\n"
                               ".weak .global .u32 w;\n"
                               ".common .global .u32 c;\n"
                               ".extern .shared .align 16 .b8 smem[];\n"
                               ".const .v4 .f32 v;\n"
                               ".global .texref tref;\n");
  EXPECT_CONTAINS(out, "\n.visible .global .attribute(.managed) .align 8 .u64 m;\n");
  EXPECT_CONTAINS(out, "\n.extern .global .u32 ext;\n");
  EXPECT_CONTAINS(out, "\n.weak .global .u32 w;\n");
  EXPECT_CONTAINS(out, "\n.common .global .u32 c;\n");
  EXPECT_CONTAINS(out, "\n.extern .shared .align 16 .b8 smem[];\n");
  EXPECT_CONTAINS(out, "\n.const .v4 .f32 v;\n");
  EXPECT_CONTAINS(out, "\n.global .texref tref;\n");
}

TEST(Printer, InitialisersNestAlongDimensions) {
  std::string out = round_trip(std::string(kHeader) +
                               ".global .align 4 .b8 bytes[4] = {1, 2, 3, 4};\n"
                               ".const .u32 grid[2][3] = {{1, 2, 3}, {4, 5, 6}};\n"
                               ".const .u32 flat[2][3] = {1, 2, 3, 4, 5, 6};\n"
                               ".global .u32 partial[2][3] = {{1, 2}, {3}};\n"
                               ".global .u32 unsized[] = {7, 8, 9};\n"
                               ".global .v2 .f32 vecs[2] = {{1.0, 2.0}, {3.0, 4.0}};\n"
                               ".global .s64 negs[2] = {-1, -9223372036854775808};\n"
                               ".global .u32 one = {5};\n"
                               ".global .u32 scalar = 5;\n");
  EXPECT_CONTAINS(out, ".global .align 4 .b8 bytes[4] = {1, 2, 3, 4};");
  EXPECT_CONTAINS(out, ".const .u32 grid[2][3] = {{1, 2, 3}, {4, 5, 6}};");
  // A flat list that fills the dimensions comes out nested.
  EXPECT_CONTAINS(out, ".const .u32 flat[2][3] = {{1, 2, 3}, {4, 5, 6}};");
  // Values that do not fill the dimensions stay one flat list.
  EXPECT_CONTAINS(out, ".global .u32 partial[2][3] = {1, 2, 3};");
  // An unsized array takes its size from the initialiser.
  EXPECT_CONTAINS(out, ".global .u32 unsized[3] = {7, 8, 9};");
  EXPECT_CONTAINS(out, ".global .v2 .f32 vecs[2] = {{1.0, 2.0}, {3.0, 4.0}};");
  EXPECT_CONTAINS(out, ".global .s64 negs[2] = {-1, -9223372036854775808};");
  EXPECT_CONTAINS(out, ".global .u32 one = {5};");
  EXPECT_CONTAINS(out, ".global .u32 scalar = 5;");
}

TEST(Printer, InitialiserFloatsAndAddresses) {
  std::string out =
      round_trip(std::string(kHeader) +
                 ".global .u32 target[4];\n"
                 ".global .f32 ff[3] = {0f3F800000, 0.1, -2.5};\n"
                 ".global .f64 fd[2] = {0d3FF0000000000000, 1e-30};\n"
                 ".global .u64 ptrs[4] = {target, target+8, target-4, generic(target)};\n"
                 ".global .u64 gp[2] = {generic(target)+4, generic(target+12)};\n"
                 ".global .u8 masked[2] = {0xff(generic(target)), 65280(target)};\n");
  EXPECT_CONTAINS(out, ".global .f32 ff[3] = {0f3F800000, 0.1, -2.5};");
  EXPECT_CONTAINS(out, ".global .f64 fd[2] = {0d3FF0000000000000, 1e-30};");
  EXPECT_CONTAINS(out, ".global .u64 ptrs[4] = {target, target+8, target-4, generic(target)};");
  EXPECT_CONTAINS(out, ".global .u64 gp[2] = {generic(target)+4, generic(target)+12};");
  EXPECT_CONTAINS(out, ".global .u8 masked[2] = {0xFF(generic(target)), 0xFF00(target)};");
}

TEST(Printer, FunctionHeadersAndParameters) {
  std::string out = round_trip(
      std::string(kHeader) +
      ".extern .func (.param .b32 r) ext(.param .b32 a, .param .align 8 .b8 buf[16]);\n"
      ".visible .func (.reg .b32 %rv) regs(.reg .b32 %ra)\n{\nmov.b32 %rv, %ra;\nret;\n}\n"
      ".func nothing() .noreturn\n{\nexit;\n}\n"
      ".visible .entry k(.param .u64 .ptr .global .align 16 p, .param .align 4 .u32 n,\n"
      "  .param .u64 .ptr q)\n{\nret;\n}\n");
  EXPECT_CONTAINS(out,
                  "\n.extern .func (.param .b32 r) ext(\n  .param .b32 a,\n"
                  "  .param .align 8 .b8 buf[16]\n);\n");
  EXPECT_CONTAINS(out, "\n.visible .func (.reg .b32 %rv) regs(\n  .reg .b32 %ra\n)\n{\n");
  EXPECT_CONTAINS(out, "\n.func nothing()\n.noreturn\n{\n  exit;\n}\n");
  EXPECT_CONTAINS(out,
                  "\n.visible .entry k(\n  .param .u64 .ptr .global .align 16 p,\n"
                  "  .param .align 4 .u32 n,\n  .param .u64 .ptr q\n)\n{\n");
}

TEST(Printer, DeclarationThenDefinition) {
  std::string out = round_trip(std::string(kHeader) +
                               ".func f(.param .b32 a);\n"
                               ".entry k()\n{\n.param .b32 x;\ncall f, (x);\nret;\n}\n"
                               ".func f(.param .b32 a)\n{\nret;\n}\n"
                               ".func g()\n{\nret;\n}\n"
                               ".func h();\n"
                               ".alias h, g;\n"
                               ".func only_declared() .pragma \"nounroll\"; ;\n");
  EXPECT_CONTAINS(out, "\n.func f(\n  .param .b32 a\n);\n");
  EXPECT_CONTAINS(out, "\n.func f(\n  .param .b32 a\n)\n{\n  ret;\n}\n");
  EXPECT_CONTAINS(out, "call f, (x);");
  EXPECT_CONTAINS(out, "\n.alias h, g;\n");
  // A declaration keeps its header pragmas when there is no definition.
  EXPECT_CONTAINS(out, "\n.func only_declared()\n.pragma \"nounroll\";;\n");
}

TEST(Printer, PerformanceDirectives) {
  std::string out = round_trip(std::string(kHeader) +
                               ".entry k() .maxntid 128, 2, 1 .reqntid 64 .minnctapersm 2 "
                               ".maxnreg 32 .reqnctapercluster 2, 1, 1 .maxclusterrank 8 "
                               ".explicitcluster .blocksareclusters .abi_preserve 4 "
                               ".abi_preserve_control 0 .pragma \"nounroll\";\n{\nret;\n}\n");
  EXPECT_CONTAINS(out,
                  ".entry k()\n.maxntid 128, 2, 1\n.reqntid 64\n.minnctapersm 2\n.maxnreg 32\n"
                  ".reqnctapercluster 2, 1, 1\n.maxclusterrank 8\n.explicitcluster\n"
                  ".blocksareclusters\n.abi_preserve 4\n.abi_preserve_control 0\n"
                  ".pragma \"nounroll\";\n{\n");
}

TEST(Printer, NestedScopesWithShadowedRegisters) {
  std::string out = round_trip(kernel(
      "{\n.reg .b32 %r1;\nadd.s32 %r1, %r1, 1;\n{\n.reg .f32 %r1;\nmov.f32 %r1, 0f00000000;\n"
      "}\nInner:\nmov.b32 %r2, %r1;\n}\nmov.b32 %r1, %r2;\n"));
  EXPECT_CONTAINS(out,
                  "  {\n    .reg .b32 %r1;\n    add.s32 %r1, %r1, 1;\n    {\n"
                  "      .reg .f32 %r1;\n      mov.f32 %r1, 0f00000000;\n    }\n"
                  "  Inner:\n    mov.b32 %r2, %r1;\n  }\n  mov.b32 %r1, %r2;\n");
  // The shadowing registers resolve to their own declarations after reparsing.
  auto p = parse_text(out);
  const Function& f = p->module->functions.at(0);
  auto reg_decl = [&](size_t inst) {
    return f.registers[f.operands_of(f.instructions[inst])[0].reg].decl;
  };
  EXPECT_NE(reg_decl(0), reg_decl(1));
  EXPECT_NE(reg_decl(0), reg_decl(3));
  EXPECT_NE(reg_decl(1), reg_decl(3));
}

TEST(Printer, BodyDeclarationsLabelsAndPragmas) {
  std::string out = round_trip(
      kernel(".local .align 8 .b8 depot[40];\n.shared .f32 tile[128];\n.reg .v2 .f32 %vv;\n"
             ".reg .pred %q;\n.pragma \"nounroll\";\n$L__BB0_1:\nbra.uni $L__BB0_1;\nEnd:\n"));
  EXPECT_CONTAINS(out, "  .local .align 8 .b8 depot[40];\n  .shared .f32 tile[128];\n");
  EXPECT_CONTAINS(out, "  .reg .v2 .f32 %vv;\n  .reg .pred %q;\n");
  EXPECT_CONTAINS(out, "  .reg .pred %p<4>;\n");
  EXPECT_CONTAINS(out, "  .pragma \"nounroll\";\n$L__BB0_1:\n  bra.uni $L__BB0_1;\nEnd:\n}\n");
}

TEST(Printer, Operands) {
  std::string out =
      round_trip(with_globals(".global .u32 gsym[4];\n.global .texref tref;\n",
                              kernel("ld.global.nc.v4.f32 {%f0, %f1, _, %f3}, [%rd1+16];\n"
                                     "st.global.u32 [%rd1-8], %r1;\n"
                                     "ld.global.u32 %r1, [gsym+4];\n"
                                     "ld.global.u32 %r2, [1024];\n"
                                     "ld.global.u32 %r2, [gsym];\n"
                                     "mov.u64 %rd2, gsym+8;\n"
                                     "mov.u64 %rd2, gsym-8;\n"
                                     "setp.lt.and.s32 %p1|%p2, %r1, %r2, !%p3;\n"
                                     "@!%p1 mov.u32 %r3, -42;\n"
                                     "@%p2 mov.s64 %rd3, -9223372036854775808;\n"
                                     "mov.u64 %rd4, 0xFFFFFFFFFFFFFFFF;\n"
                                     "tex.2d.v4.f32.f32 {%f0, %f1, %f2, %f3}, [tref, {%f4, %f5}];\n"
                                     "mov.b64 %rd5, {%r4, %r5};\n")));
  EXPECT_CONTAINS(out, "  ld.global.nc.v4.f32 {%f0, %f1, _, %f3}, [%rd1+16];\n");
  EXPECT_CONTAINS(out, "  st.global.u32 [%rd1-8], %r1;\n");
  EXPECT_CONTAINS(out, "  ld.global.u32 %r1, [gsym+4];\n");
  EXPECT_CONTAINS(out, "  ld.global.u32 %r2, [1024];\n");
  EXPECT_CONTAINS(out, "  ld.global.u32 %r2, [gsym];\n");
  EXPECT_CONTAINS(out, "  mov.u64 %rd2, gsym+8;\n");
  EXPECT_CONTAINS(out, "  mov.u64 %rd2, gsym-8;\n");
  EXPECT_CONTAINS(out, "  setp.lt.and.s32 %p1|%p2, %r1, %r2, !%p3;\n");
  EXPECT_CONTAINS(out, "  @!%p1 mov.u32 %r3, -42;\n");
  EXPECT_CONTAINS(out, "  @%p2 mov.s64 %rd3, -9223372036854775808;\n");
  EXPECT_CONTAINS(out, "  mov.u64 %rd4, -1;\n");
  EXPECT_CONTAINS(out, "  tex.2d.v4.f32.f32 {%f0, %f1, %f2, %f3}, [tref, {%f4, %f5}];\n");
  EXPECT_CONTAINS(out, "  mov.b64 %rd5, {%r4, %r5};\n");
}

TEST(Printer, SpecialRegistersAndComponents) {
  std::string out =
      round_trip(kernel(".reg .v4 .f32 %v;\n"
                        "mov.u32 %r1, %tid.x;\nmov.u32 %r1, %ctaid.z;\nmov.u32 %r1, %laneid;\n"
                        "mov.u32 %r1, %envreg3;\nmov.u32 %r1, %pm2;\nmov.u64 %rd1, %pm5_64;\n"
                        "mov.u64 %rd1, %clock64;\nmov.f32 %f1, %v.y;\nmov.f32 %f1, %v.a;\n"
                        "mov.u32 %r1, %reserved_smem_offset_1;\n"
                        "vadd.u32.u32.u32 %r1, %r2.b1, %r3.h0, %r4;\n"));
  EXPECT_CONTAINS(out, "mov.u32 %r1, %tid.x;\n");
  EXPECT_CONTAINS(out, "mov.u32 %r1, %ctaid.z;\n");
  EXPECT_CONTAINS(out, "mov.u32 %r1, %laneid;\n");
  EXPECT_CONTAINS(out, "mov.u32 %r1, %envreg3;\n");
  EXPECT_CONTAINS(out, "mov.u32 %r1, %pm2;\n");
  EXPECT_CONTAINS(out, "mov.u64 %rd1, %pm5_64;\n");
  EXPECT_CONTAINS(out, "mov.u64 %rd1, %clock64;\n");
  EXPECT_CONTAINS(out, "mov.u32 %r1, %reserved_smem_offset_1;\n");
  EXPECT_CONTAINS(out, "mov.f32 %f1, %v.y;\n");
  EXPECT_CONTAINS(out, "mov.f32 %f1, %v.w;\n");  // .r/.g/.b/.a print as .x/.y/.z/.w
  EXPECT_CONTAINS(out, "vadd.u32.u32.u32 %r1, %r2.b1, %r3.h0, %r4;\n");
}

TEST(Printer, FloatSyntaxes) {
  std::string out = round_trip(kernel(
      "mov.f32 %f1, 0f3F800000;\nmov.f64 %fd1, 0d3FF0000000000000;\nmov.f32 %f1, 0f7fC00000;\n"
      "mov.f64 %fd1, 0.1;\nmov.f64 %fd1, 1e-30;\nmov.f64 %fd1, 1.0;\nmov.f64 %fd1, -2.50;\n"
      "mov.f64 %fd1, 100.;\nmov.f64 %fd1, 1.5E300;\nmov.f64 %fd1, 4.9e-324;\n"
      "mov.f64 %fd1, -0.0;\nmov.f64 %fd1, 12345678e0;\n"));
  EXPECT_CONTAINS(out, "mov.f32 %f1, 0f3F800000;\n");
  EXPECT_CONTAINS(out, "mov.f64 %fd1, 0d3FF0000000000000;\n");
  EXPECT_CONTAINS(out, "mov.f32 %f1, 0f7FC00000;\n");
  EXPECT_CONTAINS(out, "mov.f64 %fd1, 0.1;\n");
  EXPECT_CONTAINS(out, "mov.f64 %fd1, 1e-30;\n");
  EXPECT_CONTAINS(out, "mov.f64 %fd1, 1.0;\n");
  EXPECT_CONTAINS(out, "mov.f64 %fd1, -2.5;\n");
  EXPECT_CONTAINS(out, "mov.f64 %fd1, 100.0;\n");
  EXPECT_CONTAINS(out, "mov.f64 %fd1, 1.5e+300;\n");
  EXPECT_CONTAINS(out, "mov.f64 %fd1, 5e-324;\n");
  EXPECT_CONTAINS(out, "mov.f64 %fd1, -0.0;\n");
  EXPECT_CONTAINS(out, "mov.f64 %fd1, 12345678.0;\n");
}

TEST(Printer, PrintFloatDirectly) {
  auto dec = [](double v) { return print_float(FloatSyntax::Decimal, std::bit_cast<int64_t>(v)); };
  EXPECT_EQ(dec(0.1), "0.1");
  EXPECT_EQ(dec(1e-30), "1e-30");
  EXPECT_EQ(dec(2.0), "2.0");
  EXPECT_EQ(dec(0.30000000000000004), "0.30000000000000004");
  EXPECT_EQ(print_float(FloatSyntax::F32Bits, 0x3F800000), "0f3F800000");
  EXPECT_EQ(print_float(FloatSyntax::F64Bits, 0x400921FB54442D18), "0d400921FB54442D18");
  EXPECT_EQ(print_float(FloatSyntax::F64Bits, -1), "0dFFFFFFFFFFFFFFFF");
}

TEST(Printer, CallsPrototypesAndTargetLists) {
  std::string out = round_trip(
      std::string(kHeader) +
      ".func (.param .b32 r) callee(.param .b32 a)\n{\nret;\n}\n"
      ".func noargs()\n{\nret;\n}\n"
      ".entry k()\n{\n.reg .b32 %r<4>;\n.reg .b64 %rd<2>;\n"
      "proto: .callprototype (.param .b32 _) _ (.param .b32 _);\n"
      "noret: .callprototype ()_ (.param .b64 _, .param .align 8 .b8 _[16]);\n"
      "fns: .calltargets callee;\n"
      "{\n.param .b32 pa;\n.param .b32 pr;\nst.param.b32 [pa], %r1;\n"
      "call.uni (pr), callee, (pa);\ncall (pr), %rd1, (pa), fns;\ncall (pr), %rd1, (pa), proto;\n"
      "ld.param.b32 %r2, [pr];\n}\ncall.uni noargs, ();\ncall.uni noargs;\n"
      "ts: .branchtargets L1, L2;\nbrx.idx %r1, ts;\nL1:\nret;\nL2:\nret;\n}\n");
  EXPECT_CONTAINS(out, "  proto: .callprototype (.param .b32 _) _ (.param .b32 _);\n");
  EXPECT_CONTAINS(out,
                  "  noret: .callprototype () _ (.param .b64 _, .param .align 8 .b8 _[16]);\n");
  EXPECT_CONTAINS(out, "  fns: .calltargets callee;\n");
  EXPECT_CONTAINS(out, "    call.uni (pr), callee, (pa);\n");
  EXPECT_CONTAINS(out, "    call (pr), %rd1, (pa), fns;\n");
  EXPECT_CONTAINS(out, "    call (pr), %rd1, (pa), proto;\n");
  EXPECT_CONTAINS(out, "  call.uni noargs, ();\n  call.uni noargs;\n");
  EXPECT_CONTAINS(out, "  ts: .branchtargets L1, L2;\n  brx.idx %r1, ts;\nL1:\n");
}

TEST(Printer, DebugLocations) {
  std::string out = round_trip(std::string(kHeader) + ".file 1 \"k.cu\"\n" +
                               ".entry k()\n{\n.reg .b32 %r<2>;\nmov.b32 %r0, 1;\n"
                               ".loc 1 5 3\nadd.s32 %r1, %r0, 1;\nadd.s32 %r1, %r1, 1;\n"
                               ".loc 1 5 3\nadd.s32 %r1, %r1, 1;\n"
                               ".loc 1 7 5, function_name $L__info_string0, inlined_at 1 12 3\n"
                               "L:\nret;\n}\n");
  EXPECT_CONTAINS(out,
                  "  mov.b32 %r0, 1;\n  .loc 1 5 3\n  add.s32 %r1, %r0, 1;\n"
                  "  add.s32 %r1, %r1, 1;\n  add.s32 %r1, %r1, 1;\nL:\n  .loc 1 7 5\n  ret;\n");
  EXPECT_EQ(count(out, ".loc"), 2u);
}

TEST(Printer, ModifierTokensKeepSourceOrder) {
  std::string out = round_trip(
      kernel("cvt.rn.f32.s32 %f1, %r1;\nmma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
             "{%f0, %f1, %f2, %f3}, {%r0, %r1, %r2, %r3}, {%r4, %r5}, {%f4, %f5, %f6, %f7};\n"
             "atom.global.cas.b32 %r3, [%rd2], %r4, %r5;\nld.shared::cta.u32 %r1, [%r2];\n"));
  EXPECT_CONTAINS(out, "  cvt.rn.f32.s32 %f1, %r1;\n");
  EXPECT_CONTAINS(out,
                  "  mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f0, %f1, %f2, %f3}, "
                  "{%r0, %r1, %r2, %r3}, {%r4, %r5}, {%f4, %f5, %f6, %f7};\n");
  EXPECT_CONTAINS(out, "  atom.global.cas.b32 %r3, [%rd2], %r4, %r5;\n");
  EXPECT_CONTAINS(out, "  ld.shared::cta.u32 %r1, [%r2];\n");
}

TEST(Printer, InstructionAndStreamEntryPoints) {
  auto p = parse_text(kernel("@!%p1 add.s32 %r1, %r2, -3;"));
  ASSERT_TRUE(p->ok()) << p->errors();
  const Function& f = p->module->functions.at(0);
  EXPECT_EQ(print_instruction(f, f.instructions.at(0)), "@!%p1 add.s32 %r1, %r2, -3");
  EXPECT_EQ(print_operand(f, f.operands_of(f.instructions[0])[2]), "-3");
  std::ostringstream os;
  print_module(*p->module, os);
  EXPECT_EQ(os.str(), print_module(*p->module));
}

}  // namespace
}  // namespace warpsim::ptx
