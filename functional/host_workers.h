#pragma once
// Host threads kept from launch to launch for the parallel grid executor.
//
// Starting a thread costs tens of microseconds, as much as a small grid's
// whole work: programs of many small launches (polybench/gramschmidt's 256
// two-CTA grids) ran slower on two threads than on one before the threads were
// kept. One set of workers serves the process; a second launch that wants
// them while they are busy (another host thread of the program, or a grid
// launched from inside a running one) gets threads of its own, so nothing
// waits for the workers. A forked child starts its own set.
#include <cstdint>
#include <functional>

namespace warpsim::functional {

// Runs `work` on `threads` host threads at once, the calling thread being one
// of them, and returns when every call has returned. `work` must not throw.
void run_on_host_threads(uint32_t threads, const std::function<void()>& work);

}  // namespace warpsim::functional
