#pragma once
// Entry points of the PTX front end.
#include <memory>
#include <string>
#include <string_view>

#include "common/diagnostics.h"
#include "ptx/ir.h"

namespace warpsim::ptx {

// The deepest nesting of `{ }` blocks inside a function body that the front
// end accepts; a deeper block is an error at its `{`. Name lookup walks the
// open blocks, so the bound keeps parsing linear in the input size.
inline constexpr uint32_t kMaxBlockDepth = 256;

// Parses PTX text. Always returns a module (possibly partial); errors are
// reported to `diags` with file:line:col locations. Names in the module point
// into its own copy of the text.
std::unique_ptr<Module> parse(std::string_view text, std::string name, DiagnosticEngine& diags);

// Parses and then runs the checker (operand counts and kinds, register types).
std::unique_ptr<Module> parse_and_check(std::string_view text, std::string name,
                                        DiagnosticEngine& diags);

}  // namespace warpsim::ptx
