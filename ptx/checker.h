#pragma once
// Structural checks on a parsed module: operand counts and kinds per opcode,
// register types against instruction types, branch and call targets. Name
// resolution errors are reported by the parser itself. The IR's internal
// consistency (ptx/verifier.h) is verified first.
#include "common/diagnostics.h"
#include "ptx/ir.h"

namespace warpsim::ptx {

// Reports every problem found to `diags`; returns true when none was found.
bool check(const Module& module, DiagnosticEngine& diags);

}  // namespace warpsim::ptx
