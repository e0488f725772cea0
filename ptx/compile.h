#pragma once
// The compile pipeline: PTX sources in, one checked module out.
//
//   parse + check each source -> link (when there are several) -> passes
//
// This is the only place the sequence is written: the CUDA runtime shim,
// functional::Device::load and `warpsim ptx` all come through compile().
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/diagnostics.h"
#include "common/stats.h"
#include "ptx/ir.h"

namespace warpsim::ptx {

// One PTX text and the file name diagnostics give it.
struct PtxSource {
  std::string_view text;
  std::string name;
};

// A transformation of the linked module, PTX IR to PTX IR.
//
// Contract: a pass leaves a module that checks clean (ptx/checker.h) - it may
// rewrite instructions, add registers or drop dead code, but every index must
// stay consistent and every instruction well formed. It may set instructions'
// annotations (ptx/annotation.h), its own bits of `flags` and `group` ids,
// which lowering carries to functional::Program::annotations. What it cannot
// do it reports to `diags`; an error stops the pipeline after that pass.
class ModulePass {
 public:
  virtual ~ModulePass() = default;
  // Names the pass in diagnostics.
  virtual std::string_view name() const = 0;
  virtual void run(Module& module, DiagnosticEngine& diags) = 0;
  // Publishes what the pass did since it last published (its statistics
  // table's counters, added at `prefix`.<row>) and starts counting afresh,
  // so that a pass run on several modules is published once per module.
  virtual void publish(StatsRegistry& stats, std::string_view prefix) {
    (void)stats;
    (void)prefix;
  }
};

struct CompileOptions {
  // Run in order on the linked module; not owned.
  std::vector<ModulePass*> passes;
  // Run the checker again after every pass and report what a pass broke as
  // errors naming it (tests turn it on; a correct pass never needs it).
  bool check_after_each_pass = false;
};

// Parses and checks each source, links them when there are several, then
// runs the passes. Returns null when any error was reported (errors in a
// source stop before linking, link errors before the passes); diagnostics
// name each source by its PtxSource::name.
std::unique_ptr<Module> compile(std::span<const PtxSource> sources, const CompileOptions& options,
                                DiagnosticEngine& diags);

}  // namespace warpsim::ptx
