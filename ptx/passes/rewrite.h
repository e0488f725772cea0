#pragma once
// Edits of a function's instruction array that keep the rest of the IR
// consistent: labels keep naming the instruction they stood before, the
// body (the printer's statement order) keeps its declarations and scopes.
// Passes use these instead of touching Function::instructions directly.
#include <cstdint>
#include <span>
#include <vector>

#include "ptx/ir.h"

namespace warpsim::ptx {

// Removes the instructions i with remove[i] (remove.size() == instructions).
// A label on a removed instruction moves to the next one kept.
void erase_instructions(Function& f, const std::vector<bool>& remove);

// Whether the body lists instructions [first, end) one after another, with no
// label, declaration or scope between them: only then may they be reordered
// without moving a name's scope.
bool body_contiguous(const Function& f, uint32_t first, uint32_t end);

// Puts instruction order[k] at position first + k: `order` is a permutation
// of [first, first + order.size()), a range body_contiguous() accepts and no
// label points inside (a basic block, or part of one).
void reorder_instructions(Function& f, uint32_t first, std::span<const uint32_t> order);

}  // namespace warpsim::ptx
