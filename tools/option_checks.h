#pragma once
// Validators for the numeric options of every `warpsim` subcommand.
//
// CLI11's own (Range, NonNegativeNumber) print their bounds in full - a
// double's maximum is 310 digits - and let NaN through. These parse the text
// themselves, so a negative count never wraps into an unsigned option and
// the message says what the option takes:
//   --jobs: -5 is not a whole number from 1 to 256
//   --timeout: -5 is not a number of seconds from 0 to 31536000
#include <CLI/CLI.hpp>

#include <cstdint>
#include <string>

namespace warpsim::tools {

// An integer in [min, max], written in decimal without a sign or fraction.
CLI::Validator whole_number(uint64_t min, uint64_t max);

// A finite number of seconds in [min, max] (decimal or exponent notation).
CLI::Validator seconds(double min, double max);

// The longest time a seconds() option accepts unless it says otherwise: a
// year, far beyond any run and far inside what a clock duration holds.
inline constexpr double kMaxSeconds = 365.0 * 24 * 3600;

// The checks themselves, for tests and for values that do not come from an
// option: "" when `text` is valid, else the reason.
std::string check_whole_number(const std::string& text, uint64_t min, uint64_t max);
std::string check_seconds(const std::string& text, double min, double max);

}  // namespace warpsim::tools
