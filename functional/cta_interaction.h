#pragma once
// Whether the CTAs of a kernel can act on one another, decided once per kernel
// from its code (and the code of every function it can call).
//
// CTAs of one grid communicate only through global memory, and CUDA's memory
// model gives a plain load that races with another CTA's plain store no
// defined value. So a kernel whose CTAs use nothing but plain global accesses,
// CTA-scope synchronisation and shared memory gives the same memory, output
// and statistics whatever order its CTAs run in, or on how many host threads:
// such kernels run on all cores by default in functional mode. The rest do
// something whose result depends on another CTA's progress:
//  - an atomic or reduction on global memory (atom, red, sured,
//    cp.reduce.async.bulk, multimem): the values it returns, or the rounding
//    of a float sum, follow the order of the CTAs;
//  - a strong load or store (volatile, relaxed, acquire, release) at gpu or
//    system scope, or a gpu/system fence: how a CTA waits for a flag;
//  - device malloc/free (the addresses follow the order of the calls) and
//    device-side launches and streams (dynamic parallelism);
//  - clusterlaunchcontrol (a CTA cancels others' launch).
// An indirect call may reach any function of the program, so every function
// is then examined.
#include <string>

#include "functional/program.h"

namespace warpsim::functional {

// Empty when the CTAs of the kernel whose entry is `function` (a
// Program::functions index) cannot act on one another; otherwise what lets
// them, e.g. "atom.global in function `histogram`".
std::string find_cta_interaction(const Program& program, uint32_t function);

}  // namespace warpsim::functional
