// The validators of numeric command-line options (tools/option_checks.h):
// what they accept, what they refuse, and that the message names the value
// and the range in a few digits.
#include "tools/option_checks.h"

#include <gtest/gtest.h>

namespace warpsim::tools {
namespace {

TEST(OptionChecks, WholeNumbersInRange) {
  EXPECT_EQ(check_whole_number("1", 1, 256), "");
  EXPECT_EQ(check_whole_number("256", 1, 256), "");
  EXPECT_EQ(check_whole_number("0", 0, 10), "");
  EXPECT_EQ(check_whole_number("18446744073709551615", 0, UINT64_MAX), "");
}

TEST(OptionChecks, WholeNumbersRefused) {
  // A negative count must not wrap around into an unsigned option.
  EXPECT_EQ(check_whole_number("-5", 1, 256), "-5 is not a whole number from 1 to 256");
  EXPECT_EQ(check_whole_number("0", 1, 256), "0 is not a whole number from 1 to 256");
  EXPECT_EQ(check_whole_number("257", 1, 256), "257 is not a whole number from 1 to 256");
  for (const char* bad : {"2.5", "abc", "4x", "+4", " 4", "1e3", "18446744073709551616"})
    EXPECT_NE(check_whole_number(bad, 0, UINT64_MAX), "") << bad;
  EXPECT_EQ(check_whole_number("", 1, 2), "'' is not a whole number from 1 to 2");
}

TEST(OptionChecks, SecondsInRange) {
  EXPECT_EQ(check_seconds("0", 0, kMaxSeconds), "");
  EXPECT_EQ(check_seconds("2.5", 0, kMaxSeconds), "");
  EXPECT_EQ(check_seconds("1e3", 0, kMaxSeconds), "");
  EXPECT_EQ(check_seconds("0.1", 0.1, 3600), "");
}

TEST(OptionChecks, SecondsRefusedWithAShortRange) {
  EXPECT_EQ(check_seconds("-5", 0, kMaxSeconds), "-5 is not a number of seconds from 0 to 31536000");
  EXPECT_EQ(check_seconds("0.05", 0.1, 3600), "0.05 is not a number of seconds from 0.1 to 3600");
  for (const char* bad : {"nan", "inf", "-inf", "1e400", "1e300", "5s", "", "abc"})
    EXPECT_NE(check_seconds(bad, 0, kMaxSeconds), "") << bad;
}

// Through CLI11, as the subcommands use them: the option's name, then the reason.
TEST(OptionChecks, RejectedByTheParserWithTheOptionsName) {
  CLI::App app;
  double timeout = 0;
  unsigned jobs = 1;
  app.add_option("--timeout", timeout)->check(seconds(0, kMaxSeconds));
  app.add_option("--jobs", jobs)->check(whole_number(1, 256));
  try {
    app.parse(std::vector<std::string>{"-5", "--timeout"});  // reversed: CLI11 parses from the back
    FAIL() << "accepted --timeout -5";
  } catch (const CLI::ValidationError& e) {
    EXPECT_EQ(std::string(e.what()), "--timeout: -5 is not a number of seconds from 0 to 31536000");
  }
  try {
    app.parse(std::vector<std::string>{"-5", "--jobs"});
    FAIL() << "accepted --jobs -5";
  } catch (const CLI::ValidationError& e) {
    EXPECT_EQ(std::string(e.what()), "--jobs: -5 is not a whole number from 1 to 256");
  }
  app.parse(std::vector<std::string>{"8", "--jobs", "2.5", "--timeout"});
  EXPECT_EQ(jobs, 8u);
  EXPECT_EQ(timeout, 2.5);
}

}  // namespace
}  // namespace warpsim::tools
