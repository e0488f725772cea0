// Corpus tests: every PTX file nvcc/clang emitted for our sources (and the
// hand-written syntax samples) checks clean; every malformed sample in
// tests/ptx/bad/ fails with the located errors its `// expect:` lines name;
// every saved fuzzer input completes without crashing.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "common/diagnostics.h"
#include "ptx/parse.h"

namespace warpsim::ptx {
namespace {

namespace fs = std::filesystem;

const fs::path kCorpus = fs::path(WARPSIM_SOURCE_DIR) / "tests/ptx";

std::vector<std::string> files_under(const std::string& sub, bool exclude_special) {
  std::vector<std::string> out;
  fs::path dir = kCorpus / sub;
  if (!fs::exists(dir)) return out;
  for (auto& e : fs::recursive_directory_iterator(dir)) {
    if (!e.is_regular_file()) continue;
    std::string rel = fs::relative(e.path(), kCorpus).string();
    if (exclude_special && (rel.starts_with("bad/") || rel.starts_with("fuzz-regressions/") ||
                            e.path().extension() != ".ptx"))
      continue;
    out.push_back(rel);
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string test_name(const ::testing::TestParamInfo<std::string>& info) {
  std::string n = info.param;
  for (char& c : n)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return n;
}

std::string read(const std::string& rel) {
  std::string text;
  EXPECT_TRUE(read_file((kCorpus / rel).string(), text)) << rel;
  return text;
}

// ---- well-formed corpus ----------------------------------------------------------

class GoodPtx : public ::testing::TestWithParam<std::string> {};

TEST_P(GoodPtx, ChecksClean) {
  std::string text = read(GetParam());
  DiagnosticEngine diags;
  auto m = parse_and_check(text, GetParam(), diags);
  EXPECT_FALSE(diags.has_errors()) << diags.format_all();
  EXPECT_FALSE(m->functions.empty() && m->globals.empty()) << "empty module";
}

INSTANTIATE_TEST_SUITE_P(Corpus, GoodPtx, ::testing::ValuesIn(files_under("", true)), test_name);

// ---- malformed samples -------------------------------------------------------------

struct Expectation {
  std::string location;  // "line:col"
  std::string message;   // substring of the message
};

// `// expect: 12:5: error: undeclared register` lines anywhere in the file.
std::vector<Expectation> expectations(const std::string& text) {
  std::vector<Expectation> out;
  size_t pos = 0;
  const std::string tag = "// expect: ";
  while ((pos = text.find(tag, pos)) != std::string::npos) {
    size_t end = text.find('\n', pos);
    std::string line = text.substr(pos + tag.size(), end - pos - tag.size());
    size_t err = line.find(": error: ");
    if (err != std::string::npos)
      out.push_back({line.substr(0, err), line.substr(err + 9)});
    pos = end;
  }
  return out;
}

class BadPtx : public ::testing::TestWithParam<std::string> {};

TEST_P(BadPtx, ReportsLocatedErrors) {
  std::string text = read(GetParam());
  DiagnosticEngine diags;
  parse_and_check(text, GetParam(), diags);
  EXPECT_TRUE(diags.has_errors()) << "malformed PTX was accepted";
  auto expected = expectations(text);
  ASSERT_FALSE(expected.empty()) << "no // expect: lines in " << GetParam();
  std::string all = diags.format_all();
  for (const auto& e : expected) {
    bool found = false;
    for (const auto& d : diags.diagnostics()) {
      std::string loc = std::to_string(d.location.line) + ":" + std::to_string(d.location.column);
      if (loc == e.location && d.message.find(e.message) != std::string::npos) found = true;
    }
    EXPECT_TRUE(found) << "missing " << e.location << ": error: " << e.message << "\ngot:\n" << all;
  }
}

INSTANTIATE_TEST_SUITE_P(Corpus, BadPtx, ::testing::ValuesIn(files_under("bad", false)), test_name);

// ---- fuzzer regressions -------------------------------------------------------------

class FuzzRegression : public ::testing::TestWithParam<std::string> {};

TEST_P(FuzzRegression, CompletesWithoutCrashing) {
  std::string text = read(GetParam());
  DiagnosticEngine diags(20);
  auto m = parse_and_check(text, GetParam(), diags);
  EXPECT_NE(m, nullptr);
  (void)diags.format_all();
}

INSTANTIATE_TEST_SUITE_P(Corpus, FuzzRegression,
                         ::testing::ValuesIn(files_under("fuzz-regressions", false)), test_name);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(FuzzRegression);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(BadPtx);

}  // namespace
}  // namespace warpsim::ptx
