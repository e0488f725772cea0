// Round trip of the PTX corpus through the printer: every well-formed .ptx
// file under tests/ptx (not bad/ or fuzz-regressions/) parses and checks
// clean, its printed form reparses to an equivalent module, and printing is a
// fixed point. Also unit tests of ptx::equivalent's difference reports.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "common/diagnostics.h"
#include "ptx/equivalence.h"
#include "ptx/parse.h"
#include "ptx/printer.h"
#include "ptx_test_util.h"

namespace warpsim::ptx {
namespace {

namespace fs = std::filesystem;

const fs::path kCorpusRoot = fs::path(WARPSIM_SOURCE_DIR) / "tests/ptx";

// Corpus files relative to tests/ptx, sorted so test names are stable.
// Listed when tests are registered, so gtest_discover_tests sees the corpus
// as it is at build time.
std::vector<std::string> corpus_files() {
  std::vector<std::string> out;
  if (!fs::exists(kCorpusRoot)) return out;
  for (const auto& e : fs::recursive_directory_iterator(kCorpusRoot)) {
    if (!e.is_regular_file() || e.path().extension() != ".ptx") continue;
    std::string rel = fs::relative(e.path(), kCorpusRoot).generic_string();
    if (rel.starts_with("bad/") || rel.starts_with("fuzz-regressions/")) continue;
    out.push_back(rel);
  }
  std::sort(out.begin(), out.end());
  return out;
}

// Test names: the path with every other character as '_'. Paths that
// sanitise alike ("a.b.ptx", "a_b.ptx") get a numeric suffix, since gtest
// rejects duplicate names.
std::string instance_name(const ::testing::TestParamInfo<std::string>& info) {
  static const std::map<std::string, std::string> names = [] {
    std::map<std::string, std::string> out;
    std::set<std::string> used;
    for (const std::string& path : corpus_files()) {
      std::string name = path;
      for (char& c : name)
        if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
      std::string unique = name;
      for (int n = 2; !used.insert(unique).second; ++n) unique = name + "_" + std::to_string(n);
      out.emplace(path, unique);
    }
    return out;
  }();
  auto it = names.find(info.param);
  return it != names.end() ? it->second : "file_" + std::to_string(info.index);
}

class RoundTrip : public ::testing::TestWithParam<std::string> {};

TEST_P(RoundTrip, PrintReparseEquivalentAndFixedPoint) {
  std::string text;
  ASSERT_TRUE(read_file((kCorpusRoot / GetParam()).string(), text)) << GetParam();

  DiagnosticEngine diags;
  auto first = parse_and_check(text, GetParam(), diags);
  ASSERT_FALSE(diags.has_errors()) << diags.format_all();

  std::string printed = print_module(*first);
  DiagnosticEngine diags2;
  auto second = parse_and_check(printed, GetParam() + " (printed)", diags2);
  ASSERT_FALSE(diags2.has_errors()) << diags2.format_all() << "\n--- printed ---\n" << printed;

  std::string difference;
  EXPECT_TRUE(equivalent(*first, *second, &difference)) << GetParam() << ": " << difference;
  EXPECT_EQ(print_module(*second), printed) << "printing is not a fixed point";
}

INSTANTIATE_TEST_SUITE_P(Corpus, RoundTrip, ::testing::ValuesIn(corpus_files()), instance_name);
// The corpus always holds examples/vecadd.ptx; this only keeps a checkout
// without tests/ptx from failing for the wrong reason.
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(RoundTrip);

// ---- ptx::equivalent ------------------------------------------------------------------

using testing::kernel;
using testing::parse_text;

// The difference report between two kernels that should differ, or "" when
// equivalent.
std::string difference(const std::string& a, const std::string& b) {
  auto pa = parse_text(a), pb = parse_text(b);
  EXPECT_TRUE(pa->ok()) << pa->errors();
  EXPECT_TRUE(pb->ok()) << pb->errors();
  std::string diff = "unset";
  bool same = equivalent(*pa->module, *pb->module, &diff);
  EXPECT_EQ(same, diff.empty()) << diff;
  return diff;
}

TEST(Equivalence, IgnoresSourceLayout) {
  EXPECT_EQ(difference(kernel("add.s32 %r1, %r2, 0x10;"),
                       kernel("\n\n   add.s32   %r1,%r2,16;   // same thing")),
            "");
}

TEST(Equivalence, ReportsFunctionInstructionAndOperand) {
  std::string d = difference(kernel("mov.u32 %r1, %r2;\nld.global.f32 %f1, [%rd1+16];"),
                             kernel("mov.u32 %r1, %r2;\nld.global.f32 %f1, [%rd1+8];"));
  EXPECT_EQ(d, "function 'k': instruction 1 (ld): operand 1: value: 16 vs 8");
}

TEST(Equivalence, ReportsRegisterNames) {
  std::string d = difference(kernel("mov.u32 %r1, %r2;"), kernel("mov.u32 %r1, %r3;"));
  EXPECT_NE(d.find("instruction 0 (mov): operand 1: reg:"), std::string::npos) << d;
  EXPECT_NE(d.find("(%r2) vs"), std::string::npos) << d;
  EXPECT_NE(d.find("(%r3)"), std::string::npos) << d;
}

TEST(Equivalence, ReportsModifiersAndTokens) {
  std::string d =
      difference(kernel("cvt.rn.f32.s32 %f1, %r1;"), kernel("cvt.rz.f32.s32 %f1, %r1;"));
  EXPECT_EQ(d, "function 'k': instruction 0 (cvt): modifiers: rounding: 1 vs 2");
}

TEST(Equivalence, ReportsNestedElements) {
  std::string d =
      difference(kernel("mov.b64 %rd1, {%r1, %r2};"), kernel("mov.b64 %rd1, {%r1, _};"));
  EXPECT_EQ(d, "function 'k': instruction 0 (mov): operand 1: element 1: kind: register vs sink");
}

TEST(Equivalence, ReportsDebugLocations) {
  std::string d = difference(kernel(".loc 1 2 3\nret;"), kernel(".loc 1 2 4\nret;"));
  EXPECT_EQ(d, "function 'k': instruction 0 (ret): .loc: 1 2 3 vs 1 2 4");
}

TEST(Equivalence, ReportsCountsAndGlobals) {
  std::string h = testing::kHeader;
  EXPECT_EQ(difference(kernel("ret;"), kernel("ret;\nret;")),
            "function 'k': number of instructions: 1 vs 2");
  EXPECT_EQ(difference(h + ".global .u32 g[2] = {1, 2};", h + ".global .u32 g[2] = {1, 3};"),
            "global 0 'g': initialiser value 1: value: 2 vs 3");
  EXPECT_EQ(difference(h + ".global .u32 g;", h + ".global .u32 h;"),
            "global 0 'g': name: 'g' vs 'h'");
}

TEST(Equivalence, ReportsScopesAndLabels) {
  std::string d = difference(kernel("{\n.reg .b32 %x;\n}\nL1:\nret;"),
                             kernel("{\n.reg .b32 %x;\nL1:\n}\nret;"));
  EXPECT_EQ(d, "function 'k': label 0 'L1': scope: 0 vs 1");
}

}  // namespace
}  // namespace warpsim::ptx
