#pragma once
// A CUDA program warpsim is asked to run (`warpsim run`, `warpsim profile`):
// finding it as execvp would, and which libcudart it loads.
#include <string>
#include <vector>

namespace warpsim::tools {

// PROGRAM as execvp would find it; empty with `why` when there is none.
std::string resolve_program(const std::string& program, std::string& why);

// The shared libraries the dynamic loader would load for `program`,
// transitively (`ld.so --list`, which does not run the program).
std::vector<std::string> loaded_libraries(const std::string& program);

// How to relink a program with the shared CUDA runtime.
std::string rebuild_advice();

// The CUDA runtime major `program` loads (13, 12 or 11); 0 with `why` (a
// sentence naming the program and the fix) when it loads none, needs one
// warpsim does not provide, or carries the static runtime.
int detect_cudart(const std::string& program, std::string& why);

}  // namespace warpsim::tools
