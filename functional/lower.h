#pragma once
// Lowering a parsed, checked ptx::Module to an executable functional::Program.
// Module-scope .global/.const variables are allocated in `memory` and
// initialised from their PTX initialisers.
#include <memory>

#include "common/diagnostics.h"
#include "functional/device_memory.h"
#include "functional/program.h"
#include "ptx/ir.h"

namespace warpsim::functional {

// Returns null (with diagnostics) when the module cannot be loaded; an
// instruction that cannot be executed is not an error here: it faults with
// "unsupported instruction" if a kernel ever executes it.
std::unique_ptr<Program> lower_module(std::shared_ptr<const ptx::Module> module,
                                      DeviceMemory& memory, DiagnosticEngine& diags);

}  // namespace warpsim::functional
