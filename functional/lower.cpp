// Lowering ptx::Module -> functional::Program: pass 1 (memory layout) lives
// in lowering.h; pass 2 (instruction decoding) in lower_decode.cpp.
#include "functional/lower.h"

#include "functional/lowering.h"

namespace warpsim::functional {

std::unique_ptr<Program> lower_module(std::shared_ptr<const ptx::Module> module,
                                      DeviceMemory& memory, DiagnosticEngine& diags) {
  detail::Lowering l(std::move(module), memory, diags);
  return l.run();
}

const KernelInfo* Program::find_kernel(std::string_view name) const {
  for (const auto& k : kernels)
    if (k.name == name) return &k;
  return nullptr;
}

}  // namespace warpsim::functional
