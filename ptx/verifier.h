#pragma once
// Internal consistency of a module's IR: every index names an element that
// exists (registers, operands and their elements, modifier tokens, symbols,
// labels, scopes, body and module items) and every register has the
// declaration it points to.
//
// The parser builds consistent modules; code that edits a module (the linker,
// compile passes, ptx/compile.h) may not. The checker runs this first and
// skips its own checks on a module that fails, so a broken module is reported
// rather than read out of bounds by the checker, the analyses or lowering.
#include "common/diagnostics.h"
#include "ptx/ir.h"

namespace warpsim::ptx {

// Reports every inconsistency found to `diags`; returns true when none was found.
bool verify(const Module& module, DiagnosticEngine& diags);

}  // namespace warpsim::ptx
