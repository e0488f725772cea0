// Lowering ptx::Module -> functional::Program: pass 1 (memory layout) lives
// in lowering.h; pass 2 (instruction decoding) in lower_decode.cpp.
#include "functional/lower.h"

#include <atomic>

#include "functional/cta_interaction.h"
#include "functional/lowering.h"
#include "ptx/target_requirements.h"

namespace warpsim::functional {

std::unique_ptr<Program> lower_module(std::shared_ptr<const ptx::Module> module,
                                      DeviceMemory& memory, DiagnosticEngine& diags) {
  // A process-wide counter, only ever incremented: an identity, not state
  // that a simulation reads (two simulators in one process still get
  // distinct serials, which is all a serial promises).
  static std::atomic<uint64_t> next_serial{1};
  detail::Lowering l(std::move(module), memory, diags);
  std::unique_ptr<Program> program = l.run();
  if (program) {
    program->serial = next_serial.fetch_add(1, std::memory_order_relaxed);
    const auto arch = ptx::module_arch(*program->module);
    program->independent_threads = !arch || arch->sm >= 70;
    for (KernelInfo& k : program->kernels) k.cta_interaction = find_cta_interaction(*program, k.function);
  }
  return program;
}

const KernelInfo* Program::find_kernel(std::string_view name) const {
  for (const auto& k : kernels)
    if (k.name == name) return &k;
  return nullptr;
}

}  // namespace warpsim::functional
