#pragma once
// Entry points of the PTX front end.
#include <memory>
#include <string>
#include <string_view>

#include "common/diagnostics.h"
#include "ptx/ir.h"

namespace warpsim::ptx {

// Parses PTX text. Always returns a module (possibly partial); errors are
// reported to `diags` with file:line:col locations. Names in the module point
// into its own copy of the text.
std::unique_ptr<Module> parse(std::string_view text, std::string name, DiagnosticEngine& diags);

// Parses and then runs the checker (operand counts and kinds, register types).
std::unique_ptr<Module> parse_and_check(std::string_view text, std::string name,
                                        DiagnosticEngine& diags);

}  // namespace warpsim::ptx
