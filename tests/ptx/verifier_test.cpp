// The IR verifier (ptx/verifier.h): what a pass can break by editing a module
// is reported, located, and the checker does not read past it. (That every
// corpus module verifies clean is checked by corpus_test through check().)
#include "ptx/verifier.h"

#include <gtest/gtest.h>

#include <functional>
#include <string>

#include "ptx/checker.h"
#include "ptx_test_util.h"

namespace warpsim::ptx {
namespace {

using testing::kernel;
using testing::parse_text;

// Parses a small kernel, applies `edit` to it, and returns what verify()
// reports ("" when it reports nothing); check() must fail exactly when it does.
std::string verify_after(const std::function<void(Function&)>& edit) {
  auto p = parse_text(kernel("ld.param.u64 %rd1, [p0];\n"
                             "@%p1 bra DONE;\n"
                             "ld.global.v2.u32 {%r1, %r2}, [%rd1+4];\n"
                             "DONE:\n"
                             "ret;"));
  EXPECT_TRUE(p->ok()) << p->errors();
  Function& f = p->module->functions[0];
  edit(f);
  DiagnosticEngine diags, check_diags;
  const bool ok = verify(*p->module, diags);
  EXPECT_EQ(ok, !diags.has_errors());
  EXPECT_EQ(check(*p->module, check_diags), ok);
  return diags.format_all();
}

TEST(Verifier, ParsedModuleIsConsistent) {
  EXPECT_EQ(verify_after([](Function&) {}), "");
}

TEST(Verifier, RegistersWhoseDeclarationIsGone) {
  // .reg .f64 %fd<4>, registers #32 to #35, is the last declaration.
  std::string out = verify_after([](Function& f) { f.reg_decls.pop_back(); });
  EXPECT_NE(out.find("in function 'k': register #32 has no declaration"), std::string::npos) << out;
  EXPECT_NE(out.find("register #35 has no declaration"), std::string::npos) << out;
  EXPECT_EQ(out.find("register #31 "), std::string::npos) << out;
}

TEST(Verifier, RegistersPointingAtTheWrongDeclaration) {
  // Removing the first declaration shifts every other one down.
  std::string out = verify_after([](Function& f) { f.reg_decls.erase(f.reg_decls.begin()); });
  EXPECT_NE(out.find("register #0 has no declaration"), std::string::npos) << out;
  EXPECT_NE(out.find("body item"), std::string::npos) << out;
}

TEST(Verifier, OperandsOutsideTheirPools) {
  std::string out = verify_after([](Function& f) {
    f.instructions[0].num_operands = 60000;
    f.operands[f.instructions[2].first_operand].count = 1000;  // the vector destination
    f.operands[f.instructions[2].first_operand + 1].reg = 4000;  // the address base
  });
  EXPECT_NE(
      out.find("instruction 0 ('ld') has operands past the end of the function's operand pool"),
      std::string::npos)
      << out;
  EXPECT_NE(out.find("an operand's elements are past the end"), std::string::npos) << out;
  EXPECT_NE(out.find("an operand uses register #4000, which does not exist"), std::string::npos)
      << out;
}

TEST(Verifier, SymbolsAndLabelsThatDoNotExist) {
  std::string out = verify_after([](Function& f) {
    f.labels[0].instruction = 99;
    for (Operand& op : f.operands)
      if (op.kind == OperandKind::Symbol) op.sym.index = 7;  // the branch target
  });
  EXPECT_NE(out.find("label 'DONE' is past the end of the function"), std::string::npos) << out;
  EXPECT_NE(out.find("'DONE' refers to label #7, which does not exist"), std::string::npos) << out;
}

TEST(Verifier, GuardAndScopeThatDoNotExist) {
  std::string out = verify_after([](Function& f) {
    f.instructions[1].guard_reg = 500;
    f.instructions[2].scope = 3;
  });
  EXPECT_NE(out.find("instruction 1 ('bra') is guarded by register #500"), std::string::npos)
      << out;
  EXPECT_NE(out.find("scope 3 does not exist"), std::string::npos) << out;
}

}  // namespace
}  // namespace warpsim::ptx
