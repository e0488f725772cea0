// Corpus execution: tests/ptx/src/printf.cu (output read from Device::printed()).
#include <regex>

#include "tests/functional/corpus_exec_util.h"

namespace warpsim::functional::corpus {
namespace {

CORPUS_EXEC_SUITE(PrintfExec, "printf");

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream ss(text);
  for (std::string line; std::getline(ss, line);) out.push_back(line);
  return out;
}

// The order of lines printed by different threads is unspecified: compare
// the multiset, and check that `ordered` (one thread's lines) appear in
// program order.
void expect_lines(const std::string& text, std::vector<std::string> want,
                  const std::vector<std::string>& ordered) {
  EXPECT_EQ(text.empty() ? '\n' : text.back(), '\n') << "output must end with a newline";
  auto got = lines_of(text);
  size_t next = 0;
  for (const auto& line : got)
    if (next < ordered.size() && line == ordered[next]) ++next;
  EXPECT_EQ(next, ordered.size()) << "one thread's lines out of order:\n" << text;
  std::sort(got.begin(), got.end());
  std::sort(want.begin(), want.end());
  EXPECT_EQ(got, want) << text;
}

TEST_P(PrintfExec, PrintValues) {
  const int i = -7;
  const unsigned u = 42;
  const long long l = -1234567890123LL;
  const float f = 1.5f;
  const double d = 2.25;
  ASSERT_LAUNCH(launch("print_values", {2}, {3}, {i, u, l, f, d}));
  auto lines = lines_of(device().printed());
  // The pointer's text is implementation-defined: check its form, then drop it.
  auto ptr = std::find_if(lines.begin(), lines.end(),
                          [](const std::string& s) { return s.rfind("ptr=", 0) == 0; });
  ASSERT_NE(ptr, lines.end()) << device().printed();
  EXPECT_TRUE(std::regex_match(*ptr, std::regex("ptr=(0x)?[0-9a-fA-F]+"))) << *ptr;
  std::string rest;
  for (const auto& s : lines)
    if (s.rfind("ptr=", 0) != 0) rest += s + "\n";
  const std::vector<std::string> thread0 = {
      "int=-7 unsigned=42 long=-1234567890123", "float=1.500000 double=2.250000 sci=2.250000e+00",
      "str=hello char=Z hex=2a HEX=2A", "tid=0 block=0", "100%"};
  std::vector<std::string> want = thread0;
  for (const char* s : {"tid=1 block=0", "tid=0 block=1", "tid=1 block=1"}) want.emplace_back(s);
  expect_lines(rest, want, thread0);
}

TEST_P(PrintfExec, PrintLoop) {
  ASSERT_LAUNCH(launch("print_loop", {1}, {40}, {6}));
  EXPECT_EQ(device().printed(), "i=0\ni=1\ni=2\ni=3\ni=4\ni=5\n");
}

TEST_P(PrintfExec, PrintLoopBlocks) {
  ASSERT_LAUNCH(launch("print_loop", {3}, {33}, {4}));
  std::vector<std::string> want;
  for (int b = 0; b < 3; ++b)
    for (int k = 0; k < 4; ++k) want.push_back("i=" + std::to_string(k));
  expect_lines(device().printed(), want, {"i=0", "i=1", "i=2", "i=3"});
}

}  // namespace
}  // namespace warpsim::functional::corpus
