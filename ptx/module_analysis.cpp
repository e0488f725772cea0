#include "ptx/module_analysis.h"

namespace warpsim::ptx {

ModuleAnalysis analyze_module(const Module& module) {
  ModuleAnalysis a;
  a.functions.resize(module.functions.size());
  a.kernels.resize(module.functions.size());
  for (size_t i = 0; i < module.functions.size(); ++i) {
    const Function& f = module.functions[i];
    if (!f.has_body) continue;
    FunctionAnalysis& fa = a.functions[i];
    fa.cfg = build_cfg(module, f);
    fa.post_dominators = compute_post_dominators(fa.cfg);
    fa.def_use = compute_def_use(f);
    if (f.is_entry) a.kernels[i] = compute_resources(module, f);
  }
  return a;
}

}  // namespace warpsim::ptx
