#pragma once
// Where the pieces warpsim needs at run time are: the shims, the workload
// suite, the Python plotting program and the studies. Each is looked up in
// the install tree (<prefix>/bin/warpsim -> <prefix>/lib/warpsim,
// <prefix>/share/warpsim) and then in the build tree it was built in.
#include <filesystem>
#include <string>
#include <vector>

namespace warpsim::tools {

// The running executable (/proc/self/exe) and its folder; empty if unknown.
std::string self_path();
std::filesystem::path executable_dir();

// The libcudart shim for CUDA major `major`: WARPSIM_SHIM_DIR, the install
// tree, the build tree. Empty when there is none.
std::string find_shim(int major);

// libwarpsim_profile.so, which `warpsim profile` preloads: the install
// tree, the build tree. Empty when there is none.
std::string find_profiler();

// suites.toml: `given` when not empty, else next to the build tree's
// programs (<build>/benchmarks/), else the installed copy. Empty: none.
std::string find_suites_file(const std::string& given);

// The Python program behind `warpsim plot|report|study`
// (warpsim_py/main.py): WARPSIM_PYTHON_DIR, the install tree, the source
// tree. Empty when there is none.
std::string find_python_program();

// A Python 3 interpreter that has matplotlib: WARPSIM_PYTHON, else the
// first of /usr/bin/python3 and python3 on PATH that imports it. Empty
// (with `why`) when none does.
std::string find_python_interpreter(std::string& why);

// The folder of study `name` (studies/NAME/study.toml): `name` itself
// when it is a folder holding study.toml, else WARPSIM_STUDIES_DIR, the
// install tree, the source tree. Empty when there is none.
std::string find_study_dir(const std::string& name);
// The folders searched for studies, in order (for messages and `list`).
std::vector<std::string> study_search_path();

}  // namespace warpsim::tools
