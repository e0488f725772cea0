#pragma once
// What a module's `.target` (and `.version`) allows: the instruction forms
// that need a newer architecture or a newer ISA than the module declares, as
// ptxas refuses them. warpsim would run such code, but a program built for
// the module's target never contains it, so accepting it hides a broken
// module (or a broken compile pass) that a GPU toolchain would reject.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "ptx/ir.h"

namespace warpsim::ptx {

// An architecture named by `.target`: sm_90a -> {90, arch_specific}.
struct TargetArch {
  uint32_t sm = 0;
  bool arch_specific = false;  // the `a` suffix (sm_90a, sm_100a)
  bool family = false;         // the `f` suffix (sm_100f)
};

// The module's architecture: the first sm_/compute_ target, nullopt if none.
std::optional<TargetArch> module_arch(const Module& module);

// Why `inst` cannot be assembled for `arch` with PTX ISA `version` (major *
// 10 + minor), phrased like "'redux.sync' requires .target sm_80 or higher";
// nullopt when it can (as far as the table knows).
std::optional<std::string> target_problem(const Instruction& inst, TargetArch arch,
                                          uint32_t version);

}  // namespace warpsim::ptx
