#pragma once
// Running the Python program installed with warpsim (warpsim_py: plots,
// reports, study checks) under an interpreter that has matplotlib.
#include <string>
#include <vector>

namespace warpsim::tools {

// Runs `warpsim_py/main.py ARGS...` and waits; its exit status, or 2 (with
// a message on stderr) when there is no program or no suitable Python.
int run_python_program(const std::string& command, const std::vector<std::string>& args);

}  // namespace warpsim::tools
