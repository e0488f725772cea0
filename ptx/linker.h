#pragma once
// Links the PTX modules of a relocatable-device-code program (`nvcc -rdc=true`)
// into one module before execution.
//
// The inputs' functions and globals are moved (not re-parsed) into the result;
// `.extern` declarations are resolved against definitions in other modules,
// `.weak` definitions yield to strong ones, `.common` globals merge (largest
// wins) and module-local symbols whose names collide are renamed. Every
// module-level SymbolRef (operands, initialisers, .calltargets, items) is
// rewritten to the merged indices, and `.loc` file indices are offset so that
// each module keeps its own `.file` table. Instructions move with their
// functions, annotations (ptx/annotation.h) included, unchanged: group ids are
// not renumbered, so inputs annotated separately may share ids (compile runs
// passes after linking, so its modules are annotated once, whole).
#include <memory>
#include <string_view>
#include <vector>

#include "common/diagnostics.h"
#include "ptx/ir.h"

namespace warpsim::ptx {

// Links `modules` (in order) into one module. Always returns a module; link
// errors (duplicate or unresolved symbols, conflicting declarations, address
// size mismatch) are reported to `diags` at the offending declaration in its
// input module. The inputs are retained by the result (through its
// `linked_sources`), so every name in it stays valid for its lifetime.
std::unique_ptr<Module> link_modules(std::vector<std::unique_ptr<Module>> modules,
                                     DiagnosticEngine& diags);

// True for functions the simulator supplies itself (vprintf, malloc, the device
// runtime API...), which may stay unresolved after linking.
bool is_runtime_function(std::string_view name);

}  // namespace warpsim::ptx
