#pragma once
// All per-function analyses of a module in one place: what `warpsim ptx
// check` runs (a module is clean only if it also analyses), what `ptx info`
// reports, and what lowering to the functional simulator consumes.
#include <vector>

#include "ptx/analysis.h"
#include "ptx/ir.h"

namespace warpsim::ptx {

struct FunctionAnalysis {
  Cfg cfg;
  PostDominators post_dominators;
  DefUse def_use;
};

struct ModuleAnalysis {
  // Indexed like Module::functions; empty analyses for declarations.
  std::vector<FunctionAnalysis> functions;
  // Indexed like Module::functions; filled for kernels (.entry with a body).
  std::vector<KernelResources> kernels;
};

ModuleAnalysis analyze_module(const Module& module);

}  // namespace warpsim::ptx
