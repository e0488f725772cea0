// The compile pipeline; see ptx/compile.h.
#include "ptx/compile.h"

#include <fmt/format.h>

#include "common/invariant.h"
#include "ptx/checker.h"
#include "ptx/linker.h"
#include "ptx/parse.h"

namespace warpsim::ptx {

namespace {

// Checks the module `pass` left; each problem found becomes an error that
// names the pass. The checker reports into its own engine so that only what
// the pass broke is re-reported, at the same place in the same source.
bool check_after(const ModulePass& pass, const Module& module, DiagnosticEngine& diags) {
  DiagnosticEngine found;
  if (check(module, found)) return true;
  for (const Diagnostic& d : found.diagnostics())
    diags.report(d.severity, module.source.get(), d.location,
                 fmt::format("pass '{}' left an invalid module: {}", pass.name(), d.message));
  return false;
}

}  // namespace

std::unique_ptr<Module> compile(std::span<const PtxSource> sources, const CompileOptions& options,
                                DiagnosticEngine& diags) {
  // Errors reported before this call (a caller's engine may hold some) are
  // not this compile's.
  const size_t errors_before = diags.error_count();
  auto failed = [&] { return diags.error_count() > errors_before; };
  if (sources.empty()) {
    diags.error(nullptr, {}, "no PTX to compile");
    return nullptr;
  }
  // Every source is parsed even after one fails, so all their errors are reported.
  std::vector<std::unique_ptr<Module>> modules;
  modules.reserve(sources.size());
  for (const PtxSource& source : sources)
    modules.push_back(parse_and_check(source.text, source.name, diags));
  if (failed()) return nullptr;
  std::unique_ptr<Module> module =
      modules.size() == 1 ? std::move(modules.front()) : link_modules(std::move(modules), diags);
  if (failed()) return nullptr;
  for (ModulePass* pass : options.passes) {
    WARPSIM_INVARIANT(pass != nullptr, "CompileOptions::passes holds a null pass");
    pass->run(*module, diags);
    if (failed()) return nullptr;
    if (options.check_after_each_pass && !check_after(*pass, *module, diags)) return nullptr;
  }
  return module;
}

}  // namespace warpsim::ptx
