// `warpsim ptx check|print|info`: the PTX front end on the command line.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cstdio>
#include <iostream>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "common/diagnostics.h"
#include "common/input_file.h"
#include "functional/device_memory.h"
#include "functional/lower.h"
#include "ptx/compile.h"
#include "ptx/module_analysis.h"
#include "ptx/parse.h"
#include "ptx/printer.h"
#include "tools/commands.h"
#include "tools/option_checks.h"

namespace warpsim::tools {

namespace {

int g_exit_code = 0;

struct PtxOptions {
  std::vector<std::string> files;
  std::string file;
  size_t error_limit = 50;
};

// Loads one file and compiles it on its own (ptx::compile: parse and check);
// diagnostics go to stderr. Returns null when the file cannot be read or has
// errors.
std::unique_ptr<ptx::Module> load(const std::string& path, size_t error_limit) {
  std::string text;
  if (const std::string why = read_input_file(path, text); !why.empty()) {
    fmt::print(stderr, "{}: error: {}\n", path, why);
    return nullptr;
  }
  DiagnosticEngine diags(error_limit);
  const ptx::PtxSource source{text, path};
  auto module = ptx::compile(std::span(&source, 1), {}, diags);
  std::string out = diags.format_all();
  if (!out.empty()) std::fputs(out.c_str(), stderr);
  return module;
}

int run_check(const PtxOptions& opt) {
  size_t failures = 0;
  for (const auto& path : opt.files) {
    auto module = load(path, opt.error_limit);
    if (!module) {
      ++failures;
      continue;
    }
    ptx::analyze_module(*module);  // a module is clean only if it also analyses
  }
  if (opt.files.size() > 1)
    fmt::print(stderr, "{} of {} files checked clean\n", opt.files.size() - failures,
               opt.files.size());
  return failures ? 1 : 0;
}

int run_print(const PtxOptions& opt) {
  auto module = load(opt.file, opt.error_limit);
  if (!module) return 1;
  std::cout << ptx::print_module(*module);
  return 0;
}

std::string param_type(const ptx::Variable& v) {
  std::string t;
  if (v.align) t += fmt::format(".align {} ", v.align);
  if (v.vec != ptx::VectorWidth::None) t += fmt::format(".v{} ", ptx::vector_lanes(v.vec));
  t += fmt::format(".{}", ptx::type_info(v.type).name);
  for (uint64_t d : v.dims) t += d ? fmt::format("[{}]", d) : "[]";
  if (v.is_ptr) t += fmt::format(" .ptr .{}", ptx::space_name(v.ptr_space));
  return t;
}

// `cta_interaction`: what lets the kernel's CTAs act on one another (empty:
// nothing); null when the module could not be lowered for execution.
void print_kernel_info(const ptx::Module& m, const ptx::Function& f,
                       const ptx::KernelResources& r, const ptx::FunctionAnalysis& a,
                       const std::string* cta_interaction) {
  fmt::print("kernel {}\n", f.name);
  fmt::print("  parameters: {} ({} bytes, align {})\n", f.params.size(), r.param_bytes,
             r.param_align);
  for (size_t i = 0; i < f.params.size(); ++i)
    fmt::print("    [{:>4}] size {:>4} align {:>2}  {} {}\n", r.params[i].offset, r.params[i].size,
               r.params[i].align, param_type(f.params[i]), f.params[i].name);
  std::string regs;
  for (size_t t = 1; t < r.regs_by_type.size(); ++t)
    if (r.regs_by_type[t])
      regs += fmt::format(" .{}:{}", ptx::type_info(static_cast<ptx::ScalarType>(t)).name,
                          r.regs_by_type[t]);
  fmt::print("  registers:{}  (~{} 32-bit, ~{} with callees)\n", regs.empty() ? " none" : regs,
             r.reg32, r.reg32_with_callees);
  fmt::print("  shared: {} bytes static{}\n", r.shared_bytes,
             r.uses_dynamic_shared
                 ? fmt::format(" + dynamic (aligned to {})", r.dynamic_shared_align)
                 : "");
  fmt::print("  local: {} bytes per thread ({} own frame){}\n", r.local_bytes, r.local_frame_bytes,
             r.has_recursion ? ", recursive: depth unbounded" : "");
  fmt::print("  const: {} bytes\n", r.const_bytes);
  fmt::print("  instructions: {}, basic blocks: {}\n", f.instructions.size(), a.cfg.blocks.size());
  if (!r.callees.empty()) {
    std::string names;
    for (uint32_t c : r.callees) names += fmt::format(" {}", m.functions[c].name);
    fmt::print("  calls:{}{}\n", names, r.has_indirect_calls ? " (and indirect calls)" : "");
  }
  if (cta_interaction == nullptr) return;
  if (cta_interaction->empty())
    fmt::print("  CTAs: independent (functional mode runs them on every core by default)\n");
  else
    fmt::print("  CTAs: interact through {} (functional mode runs them in order by default)\n",
               *cta_interaction);
}

int run_info(const PtxOptions& opt) {
  auto module = load(opt.file, opt.error_limit);
  if (!module) return 1;
  const ptx::Module& m = *module;
  fmt::print("{}: PTX {}.{}, target {}, {}-bit addresses\n", opt.file, m.version_major,
             m.version_minor, fmt::join(m.targets, ","), m.address_size);
  ptx::ModuleAnalysis a = ptx::analyze_module(m);
  // Lowered as the simulator would load it, for what only the executable form
  // tells (whether CTAs interact); a module that cannot be lowered (an
  // initialiser naming an unknown symbol...) still gets the rest.
  std::shared_ptr<const ptx::Module> shared = std::move(module);
  functional::DeviceMemory memory;
  DiagnosticEngine lower_diags;
  std::unique_ptr<functional::Program> program = functional::lower_module(shared, memory, lower_diags);
  for (size_t i = 0; i < m.functions.size(); ++i) {
    const ptx::Function& f = m.functions[i];
    if (!f.has_body || !f.is_entry) continue;
    const functional::KernelInfo* k = program ? program->find_kernel(f.name) : nullptr;
    print_kernel_info(m, f, a.kernels[i], a.functions[i], k ? &k->cta_interaction : nullptr);
  }
  for (size_t i = 0; i < m.functions.size(); ++i) {
    const ptx::Function& f = m.functions[i];
    if (f.is_entry) continue;
    if (f.has_body)
      fmt::print("function {}: {} parameters, {} instructions, {} basic blocks\n", f.name,
                 f.params.size(), f.instructions.size(), a.functions[i].cfg.blocks.size());
    else
      fmt::print("extern function {}\n", f.name);
  }
  for (const auto& g : m.globals)
    fmt::print("global .{} {} ({} bytes){}\n", ptx::space_name(g.space), g.name, g.size_bytes(),
               g.has_init ? ", initialised" : "");
  return 0;
}

}  // namespace

void set_exit_code(int code) { g_exit_code = code; }
int exit_code() { return g_exit_code; }

void register_ptx_command(CLI::App& app) {
  auto opt = std::make_shared<PtxOptions>();
  CLI::App* ptx = app.add_subcommand("ptx", "Work with PTX: check, print, info, extract, opt, offload-chains");
  ptx->require_subcommand(1);
  ptx->footer(fmt::format("Input limits: a PTX file is at most {} MiB; `{{ }}` blocks nest at most {} deep "
                          "(docs/ptx-frontend.md).",
                          kMaxInputBytes >> 20, ptx::kMaxBlockDepth));

  CLI::App* check =
      ptx->add_subcommand("check", "Parse, check and analyse PTX files; exit 1 on any error");
  check->add_option("files", opt->files, "PTX files")->required();
  check->add_option("--error-limit", opt->error_limit, "Errors reported per file before giving up")
      ->check(whole_number(1, 1000000));
  check->callback([opt] { set_exit_code(run_check(*opt)); });

  CLI::App* print = ptx->add_subcommand("print", "Print canonical PTX for a file");
  print->add_option("file", opt->file, "PTX file")->required();
  print->callback([opt] { set_exit_code(run_print(*opt)); });

  CLI::App* info = ptx->add_subcommand(
      "info", "Kernels, parameter layout, registers, shared/local/const bytes, basic blocks");
  info->add_option("file", opt->file, "PTX file")->required();
  info->callback([opt] { set_exit_code(run_info(*opt)); });

  register_ptx_extract_command(*ptx);
  register_ptx_pass_commands(*ptx);
}

}  // namespace warpsim::tools
