#pragma once
// Deep structural comparison of two PTX modules.
//
// Every IR field takes part except source positions (SourceLocation fields,
// TargetList::locs, Module::source and linked_sources) and instructions'
// annotations, which compile passes set and which are not PTX: printing drops
// them, so an annotated module stays equivalent to its printed and reparsed
// self (ptx/annotation.h). Names are compared as
// text, resolved symbols as (kind, index), and an instruction's operands and
// modifier tokens through its spans (operands recursively through their
// elements), so where they sit in the function's pools does not matter. Used
// to check that printing and reparsing a module loses nothing
// (tests/ptx/roundtrip_test.cpp) and by the linker tests.
#include <string>

#include "ptx/ir.h"

namespace warpsim::ptx {

// True when `a` and `b` are structurally identical. Otherwise, when
// `difference` is non-null, it receives a description of the first mismatch
// found: where (function, instruction index and mnemonic, operand, ...), which
// field, and both values, e.g.
//   function 'k': instruction 3 (ld): operand 1: value: 16 vs 8
bool equivalent(const Module& a, const Module& b, std::string* difference = nullptr);

}  // namespace warpsim::ptx
