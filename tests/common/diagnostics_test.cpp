// DiagnosticEngine: formatting with source line and caret, sorting, limits.
#include <gtest/gtest.h>

#include "common/diagnostics.h"

namespace warpsim {
namespace {

TEST(Diagnostics, FormatsLocationSourceLineAndCaret) {
  SourceFile f("a.ptx", "line one\n\tadd.s32 %r1;\n");
  DiagnosticEngine d;
  d.error(&f, {2, 10}, "boom");
  EXPECT_EQ(d.format_all(), "a.ptx:2:10: error: boom\n  \tadd.s32 %r1;\n  \t        ^\n");
}

// Binary input must not spray raw bytes on the terminal.
TEST(Diagnostics, EchoesUnprintableBytesAsQuestionMarks) {
  SourceFile f("a.ptx", std::string("ab\x01\xff\tc\n", 7));
  DiagnosticEngine d;
  d.error(&f, {1, 6}, "bad");
  EXPECT_EQ(d.format_all(), "a.ptx:1:6: error: bad\n  ab??\tc\n      \t^\n");
}

TEST(Diagnostics, SortsBySourcePosition) {
  SourceFile f("a.ptx", "x\ny\nz\n");
  DiagnosticEngine d;
  d.error(&f, {3, 1}, "third");
  d.error(&f, {1, 1}, "first");
  d.warning(&f, {2, 1}, "second");
  std::string out = d.format_all();
  EXPECT_LT(out.find("first"), out.find("second"));
  EXPECT_LT(out.find("second"), out.find("third"));
  EXPECT_NE(out.find("2:1: warning: second"), std::string::npos);
  EXPECT_EQ(d.error_count(), 2u);
}

TEST(Diagnostics, StopsStoringAtTheLimitButCounts) {
  SourceFile f("a.ptx", "x\n");
  DiagnosticEngine d(3);
  for (int i = 0; i < 10; ++i) d.error(&f, {1, 1}, "e");
  EXPECT_TRUE(d.limit_reached());
  EXPECT_EQ(d.error_count(), 10u);
  EXPECT_EQ(d.diagnostics().size(), 3u);
  EXPECT_NE(d.format_all().find("too many errors (10 in total)"), std::string::npos);
}

TEST(SourceFile, LinesWithoutNewlines) {
  SourceFile f("a", "one\r\ntwo\nthree");
  EXPECT_EQ(f.line(1), "one");
  EXPECT_EQ(f.line(2), "two");
  EXPECT_EQ(f.line(3), "three");
  EXPECT_EQ(f.line(4), "");
  EXPECT_EQ(f.line(0), "");
}

}  // namespace
}  // namespace warpsim
