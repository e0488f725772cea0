#pragma once
// Canonical PTX text from the IR.
//
// Contract: for a module the parser accepted, parse(print_module(m)) succeeds
// and is equivalent to m (ptx/equivalence.h), and printing that reparsed
// module gives the same text again (printing is a fixed point). Things the IR
// does not keep (comments, spacing, integer bases, .loc extras, the position
// of module-level .pragma/.file directives) come out in one fixed form.
// Instruction annotations (ptx/annotation.h) are not PTX and are not printed.
#include <cstdint>
#include <iosfwd>
#include <string>

#include "ptx/ir.h"

namespace warpsim::ptx {

// The whole module: header directives, then its items in source order.
std::string print_module(const Module& module);
void print_module(const Module& module, std::ostream& os);

// One instruction of `f`: guard, mnemonic with its modifiers, operands; no
// trailing ';'. Used by the module printer and handy in diagnostics and traces.
std::string print_instruction(const Function& f, const Instruction& inst);

// One operand of an instruction of `f`, as written in PTX.
std::string print_operand(const Function& f, const Operand& op);

// A floating-point literal in the syntax it was written in: 0f/0d with
// uppercase hex digits, or the shortest decimal that reads back to the same
// double (always with a '.' or an exponent, so it lexes as a float).
std::string print_float(FloatSyntax syntax, int64_t bits);

}  // namespace warpsim::ptx
