// The checker's target checks against tests/ptx/data/target-forms.txt, the table of
// instruction forms that tests/ptx/target_forms_ptxas.py keeps true to ptxas.
#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <string>

#include "ptx/target_requirements.h"
#include "ptx_test_util.h"

namespace warpsim::ptx {
namespace {

using testing::parse_text;

struct Form {
  int line;
  std::string target, version, decls, inst, expect;
};

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(' '), e = s.find_last_not_of(' ');
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

std::vector<Form> read_forms() {
  std::ifstream in(std::string(WARPSIM_SOURCE_DIR) + "/tests/ptx/data/target-forms.txt");
  // Five fields; the instruction may itself contain '|' (elect.sync %r|%p).
  static const std::regex row(R"(^([^|]*)\|([^|]*)\|([^|]*)\|(.*)\|([^|]*)$)");
  std::vector<Form> forms;
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    if (line.empty() || line[0] == '#') continue;
    std::smatch m;
    if (!std::regex_match(line, m, row)) {
      ADD_FAILURE() << "target-forms.txt:" << n << ": not a row of five fields";
      continue;
    }
    forms.push_back({n, trim(m[1]), trim(m[2]), trim(m[3]), trim(m[4]), trim(m[5])});
  }
  return forms;
}

TEST(TargetRequirements, FormsAsPtxasJudgesThem) {
  const auto forms = read_forms();
  ASSERT_GT(forms.size(), 40u);
  for (const Form& f : forms) {
    const std::string text = ".version " + f.version + "\n.target " + f.target +
                             "\n.address_size 64\n" + f.decls +
                             "\n.visible .entry k(.param .u64 p)\n{\n"
                             ".reg .b32 %r<8>; .reg .pred %p<4>; .reg .b64 %rd<4>; "
                             ".reg .f32 %f<4>; .reg .b16 %h<4>;\n"
                             "ld.param.u64 %rd1, [p];\n" +
                             f.inst + "\nret;\n}\n";
    auto p = parse_text(text);
    SCOPED_TRACE("target-forms.txt:" + std::to_string(f.line) + ": " + f.target + " " +
                 f.version + ": " + f.inst);
    if (f.expect == "ok") {
      EXPECT_TRUE(p->ok()) << p->errors();
      continue;
    }
    ASSERT_TRUE(f.expect.starts_with("error: ")) << f.expect;
    EXPECT_FALSE(p->ok());
    // The error is located at the instruction (line 9 of the module built above).
    EXPECT_NE(p->errors().find("test.ptx:9:"), std::string::npos) << p->errors();
    EXPECT_NE(p->errors().find(f.expect.substr(7)), std::string::npos) << p->errors();
  }
}

TEST(TargetRequirements, ModuleArch) {
  Module m;
  EXPECT_FALSE(module_arch(m));
  m.targets = {"texmode_independent", "sm_90a"};
  auto a = module_arch(m);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->sm, 90u);
  EXPECT_TRUE(a->arch_specific);
  EXPECT_FALSE(a->family);
  m.targets = {"compute_100f"};
  a = module_arch(m);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->sm, 100u);
  EXPECT_TRUE(a->family);
}

// A .v2/.v4 register stands for its elements.
TEST(TargetRequirements, VectorRegistersAsWholeOperands) {
  auto p = parse_text(testing::kernel(".reg .v4 .u32 %v;\nld.global.v4.u32 %v, [%rd1];\n"
                                      "st.global.v4.u32 [%rd1], %v;\n"));
  EXPECT_TRUE(p->ok()) << p->errors();
  auto bad = parse_text(testing::kernel(".reg .v2 .u32 %v;\nld.global.v4.u32 %v, [%rd1];\n"));
  EXPECT_NE(bad->errors().find("needs 4 data elements, got 2"), std::string::npos)
      << bad->errors();
}

}  // namespace
}  // namespace warpsim::ptx
