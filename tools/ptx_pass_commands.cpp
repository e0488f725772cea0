// `warpsim ptx opt` (run compile passes on a PTX file and print the result)
// and `warpsim ptx offload-chains` (list the chains the offload_chains pass
// tags in a PTX file or a CUDA program). docs/compiler.md.
#include <fmt/format.h>

#include <cstdio>
#include <iostream>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "common/diagnostics.h"
#include "common/input_file.h"
#include "common/source_file.h"
#include "libcudart_shim/fatbin.h"
#include "ptx/compile.h"
#include "ptx/compiler_config.h"
#include "ptx/parse.h"
#include "ptx/passes/instruction_mix.h"
#include "ptx/passes/offload_chains.h"
#include "ptx/passes/offload_tags.h"
#include "ptx/passes/pass_registry.h"
#include "ptx/printer.h"
#include "timing/sim_config.h"
#include "tools/commands.h"
#include "tools/device_code.h"

namespace warpsim::tools {

namespace {

struct PassOptions {
  std::string file;
  std::string passes;  // opt: overrides [compiler] passes when given
  std::string config;
  std::vector<std::string> overrides;
  std::string kernel;  // offload-chains: only this kernel
  bool report = false;
};

// The [compiler] section of the chosen configuration; null (diagnostics
// printed) when it does not load.
std::unique_ptr<ptx::CompilerConfig> compiler_config(const PassOptions& opt) {
  DiagnosticEngine diags;
  std::optional<SimConfig> config = load_sim_config(opt.config, opt.overrides, diags);
  const std::string out = diags.format_all();
  if (!out.empty()) std::fputs(out.c_str(), stderr);
  if (!config) return nullptr;
  return std::make_unique<ptx::CompilerConfig>(config->compiler);
}

// One PTX text to compile, and the name diagnostics give it.
struct PtxText {
  std::string text;
  std::string name;
};

// The PTX of `path`: the file itself when it is PTX text, else the PTX the
// CUDA runtime would pick from each fatbin of a program, library or .fatbin
// for a GPU of compute capability `cc`. Empty (reported) on failure.
std::vector<PtxText> read_ptx(const std::string& path, uint32_t cc) {
  std::string text;
  if (const std::string why = read_input_file(path, text); !why.empty()) {
    fmt::print(stderr, "{}: error: {}\n", path, why);
    return {};
  }
  // PTX is text; a program or fatbin starts with a binary magic.
  const bool binary = text.size() >= 4 && (text.compare(0, 4, "\x7f" "ELF") == 0 ||
                                          text.find('\0') != std::string::npos);
  if (!binary) return {{std::move(text), path}};
  std::string error;
  const std::unique_ptr<DeviceCode> code = read_device_code(path, error);
  if (!code) {
    fmt::print(stderr, "{}: error: {}\n", path, error);
    return {};
  }
  std::vector<PtxText> out;
  for (const DeviceCode::Fatbin& src : code->fatbins) {
    auto fb = fatbin::parse_fatbin(src.bytes);
    if (!fb) {
      fmt::print(stderr, "{}: error: {}: {}\n", path, src.what, fb.error().message);
      return {};
    }
    auto sel = fatbin::select_ptx(fb.value(), cc);
    if (!sel) continue;  // SASS only, or only newer PTX: nothing the simulator would run
    std::string name = fmt::format("{}.{}.compute_{}.ptx", path, out.size(), sel->arch);
    out.push_back(PtxText{std::move(sel->text), std::move(name)});
  }
  if (out.empty())
    fmt::print(stderr, "{}: error: no PTX for compute capability {}.{} in the device code\n", path, cc / 10,
               cc % 10);
  return out;
}

std::unique_ptr<ptx::Module> compile_one(const PtxText& src, const ptx::CompileOptions& options) {
  DiagnosticEngine diags;
  const ptx::PtxSource source{src.text, src.name};
  auto module = ptx::compile(std::span(&source, 1), options, diags);
  const std::string out = diags.format_all();
  if (!out.empty()) std::fputs(out.c_str(), stderr);
  return module;
}

void print_statistics(ptx::PassPipeline& pipeline) {
  StatsRegistry stats;
  pipeline.publish(stats);
  std::fputs(stats.to_text().c_str(), stderr);
}

void print_instruction_mix(std::span<const ptx::KernelMix> kernels) {
  for (const ptx::KernelMix& k : kernels) {
    std::string line;
    for (size_t c = 0; c < ptx::kInstructionClasses; ++c)
      if (k.counts[c] != 0)
        line += fmt::format(" {}={}", ptx::class_name(static_cast<ptx::InstructionClass>(c)), k.counts[c]);
    fmt::print(stderr, "instruction_mix: kernel {}:{}\n", k.kernel, line.empty() ? " (empty)" : line);
  }
}

int run_opt(const PassOptions& opt) {
  std::unique_ptr<ptx::CompilerConfig> config = compiler_config(opt);
  if (!config) return 2;
  if (!opt.passes.empty()) {
    if (const std::string err = ptx::compile_passes().check_list(opt.passes); !err.empty()) {
      fmt::print(stderr, "warpsim ptx opt: --passes: {}\n", err);
      return 2;
    }
    config->passes = opt.passes;
  }
  config->check_after_each_pass = true;  // a pass that breaks the module is named
  std::string text;
  if (const std::string why = read_input_file(opt.file, text); !why.empty()) {
    fmt::print(stderr, "{}: error: {}\n", opt.file, why);
    return 1;
  }
  ptx::PassPipeline pipeline(*config);
  auto module = compile_one({text, opt.file}, pipeline.options());
  if (!module) return 1;
  const std::string printed = ptx::print_module(*module);
  // What a pass leaves must read back as PTX: check the text itself.
  DiagnosticEngine again;
  if (!ptx::parse_and_check(printed, opt.file + " (after the passes)", again)) {
    fmt::print(stderr, "warpsim ptx opt: the transformed PTX does not parse again (a warpsim bug):\n{}",
               again.format_all());
    return 1;
  }
  std::cout << printed;
  if (opt.report) {
    for (const auto& pass : pipeline.passes()) print_instruction_mix(ptx::instruction_mix_of(*pass));
    print_statistics(pipeline);
  }
  return 0;
}

std::string source_line(const ptx::Module& m, const ptx::Instruction& inst) {
  if (inst.debug.file == 0) return "";
  for (const ptx::FileEntry& f : m.files)
    if (f.index == inst.debug.file) {
      std::string_view path = f.path;
      if (const size_t slash = path.rfind('/'); slash != std::string_view::npos) path.remove_prefix(slash + 1);
      return fmt::format("{}:{}", path, inst.debug.line);
    }
  return fmt::format("file {}:{}", inst.debug.file, inst.debug.line);
}

std::string percent(uint64_t n, uint64_t d) {
  return d != 0 ? fmt::format("{:.1f}%", 100.0 * static_cast<double>(n) / static_cast<double>(d)) : "-";
}

bool global_access(const ptx::Instruction& inst) { return ptx::offload::global_access(inst.annotation); }

struct Totals {
  uint64_t kernels = 0, chains = 0, instructions = 0, tagged = 0, accesses = 0, tagged_accesses = 0;
  std::map<uint32_t, uint64_t> by_pattern;
};

// Lists one module's chains, kernel by kernel (device functions too).
void list_chains(const ptx::Module& m, std::span<const ptx::OffloadChain> chains, const PassOptions& opt,
                 Totals& totals) {
  static constexpr const char* kTagNames[] = {"", "01 first", "10", "11 last"};
  for (uint32_t fi = 0; fi < m.functions.size(); ++fi) {
    const ptx::Function& f = m.functions[fi];
    if (!f.has_body || (!opt.kernel.empty() && f.name != opt.kernel)) continue;
    uint64_t accesses = 0, tagged_accesses = 0, tagged = 0, count = 0;
    for (const ptx::Instruction& inst : f.instructions) {
      accesses += global_access(inst);
      tagged_accesses += global_access(inst) && ptx::offload::tagged(inst.annotation);
      tagged += ptx::offload::tagged(inst.annotation);
    }
    for (const ptx::OffloadChain& c : chains) count += c.function == fi;
    fmt::print("{} {}: {} instructions, {} global accesses; {} chain{}, {} instructions tagged ({}), {} "
               "accesses tagged ({})\n",
               f.is_entry ? "kernel" : "function", f.name, f.instructions.size(), accesses, count,
               count == 1 ? "" : "s", tagged, percent(tagged, f.instructions.size()), tagged_accesses,
               percent(tagged_accesses, accesses));
    for (const ptx::OffloadChain& c : chains) {
      if (c.function != fi) continue;
      const std::string where = source_line(m, f.instructions[c.instructions.back()]);
      fmt::print("  chain {}: pattern {}{}{}{}\n", c.id, c.pattern, where.empty() ? "" : ", " + where,
                 c.hoisted != 0 ? fmt::format(", {} instruction{} hoisted", c.hoisted, c.hoisted == 1 ? "" : "s")
                                : "",
                 c.core_compute ? "" : ", LLC nodes only (shared memory)");
      for (uint32_t i : c.instructions) {
        const ptx::Instruction& inst = f.instructions[i];
        const std::string text = ptx::print_instruction(f, inst) + ";";
        const std::string line = source_line(m, inst);
        fmt::print("    {:<44} // {}{}\n", text, kTagNames[ptx::offload::tag(inst.annotation)],
                   line.empty() ? "" : "  " + line);
      }
      ++totals.by_pattern[c.pattern];
    }
    totals.kernels += f.is_entry;
    totals.chains += count;
    totals.instructions += f.instructions.size();
    totals.tagged += tagged;
    totals.accesses += accesses;
    totals.tagged_accesses += tagged_accesses;
  }
}

int run_offload_chains(const PassOptions& opt) {
  DiagnosticEngine diags;
  std::optional<SimConfig> sim = load_sim_config(opt.config, opt.overrides, diags);
  if (const std::string out = diags.format_all(); !out.empty()) std::fputs(out.c_str(), stderr);
  if (!sim) return 2;
  const std::vector<PtxText> sources = read_ptx(opt.file, sim->gpu.cc());
  if (sources.empty()) return 1;
  Totals totals;
  bool kernel_found = opt.kernel.empty();
  for (const PtxText& src : sources) {
    auto pass = ptx::make_offload_chains_pass(sim->compiler.sections.get<ptx::OffloadChainsConfig>("offload_chains"));
    ptx::CompileOptions options;
    options.passes = {pass.get()};
    options.check_after_each_pass = true;
    auto module = compile_one(src, options);
    if (!module) return 1;
    if (sources.size() > 1) fmt::print("{}:\n", src.name);
    kernel_found = kernel_found || module->find_function(opt.kernel) != nullptr;
    list_chains(*module, ptx::offload_chains_of(*pass), opt, totals);
  }
  if (!kernel_found) {
    fmt::print(stderr, "{}: error: no kernel or function '{}'\n", opt.file, opt.kernel);
    return 1;
  }
  std::string patterns;
  for (const auto& [p, n] : totals.by_pattern) patterns += fmt::format("{}{}: {}", patterns.empty() ? "" : ", ", p, n);
  fmt::print("total: {} kernel{}, {} chain{}{}; {} of {} instructions tagged ({}), {} of {} global accesses ({})\n",
             totals.kernels, totals.kernels == 1 ? "" : "s", totals.chains, totals.chains == 1 ? "" : "s",
             patterns.empty() ? "" : " (pattern " + patterns + ")", totals.tagged, totals.instructions,
             percent(totals.tagged, totals.instructions), totals.tagged_accesses, totals.accesses,
             percent(totals.tagged_accesses, totals.accesses));
  return 0;
}

void add_config_options(CLI::App* cmd, PassOptions& opt) {
  cmd->add_option("--config", opt.config, "Configuration whose [compiler] sections apply (name or TOML file)");
  cmd->add_option("--set", opt.overrides, "Override a configuration value: section.key=value")->take_all();
}

}  // namespace

void register_ptx_pass_commands(CLI::App& ptx) {
  auto opt = std::make_shared<PassOptions>();
  CLI::App* o = ptx.add_subcommand("opt", "Run compile passes on a PTX file and print the transformed PTX");
  o->add_option("file", opt->file, "PTX file")->required();
  o->add_option("--passes", opt->passes,
                "Passes to run, comma-separated, in order (default: [compiler] passes of the configuration): " +
                    ptx::compile_passes().joined());
  add_config_options(o, *opt);
  o->add_flag("--report", opt->report, "Print what the passes did (their statistics) to stderr");
  o->callback([opt] { set_exit_code(run_opt(*opt)); });

  CLI::App* chains = ptx.add_subcommand(
      "offload-chains", "List the load-compute-store chains the offload_chains pass tags in a PTX file or program");
  chains->add_option("file", opt->file, "PTX file, CUDA program, shared library or .fatbin")->required();
  chains->add_option("--kernel", opt->kernel, "Only this kernel (or device function), by its PTX name");
  add_config_options(chains, *opt);
  chains->callback([opt] { set_exit_code(run_offload_chains(*opt)); });
}

}  // namespace warpsim::tools
