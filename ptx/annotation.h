#pragma once
// What compile passes (ptx/compile.h) note about an instruction, for later
// stages to read: lowering copies it to every decoded instruction the PTX
// instruction becomes (functional::Program::annotations), so a timing model
// can see what a pass found without looking back at the PTX.
//
// An annotation is not PTX: the printer does not print it, and IR equivalence
// (ptx/equivalence.h) ignores it.
#include <cstdint>

namespace warpsim::ptx {

struct Annotation {
  uint32_t flags = 0;  // bits, each owned by the pass that sets it
  uint32_t group = 0;  // an id grouping instructions (such as a chain a pass found); 0: none
  friend bool operator==(const Annotation&, const Annotation&) = default;
};

}  // namespace warpsim::ptx
