// instruction_mix: counts every kernel's static instructions by class - the
// functional unit they need and, for memory instructions, the state space
// they touch - and changes nothing. `warpsim ptx opt --passes=instruction_mix
// --report` prints the table per kernel; statistics give the module totals.
#include <fmt/format.h>

#include <array>
#include <memory>

#include "ptx/passes/instruction_mix.h"
#include "ptx/passes/pass_registry.h"

namespace warpsim::ptx {

struct InstructionMixConfig {};

const config::Table<InstructionMixConfig>& instruction_mix_config_table() {
  static const config::Table<InstructionMixConfig> table("Compile pass instruction_mix (no keys)");
  return table;
}

namespace {

constexpr std::array<const char*, kInstructionClasses> kClassNames = {
    "integer", "fp32", "fp64", "fp16", "sfu", "global", "shared", "local", "const", "param",
    "generic", "texture", "atomic", "control", "sync", "tensor"};
constexpr std::array<const char*, kInstructionClasses> kClassDescriptions = {
    "integer and bit ALU instructions (also predicates and moves)",
    "32-bit floating-point ALU instructions",
    "64-bit floating-point ALU instructions",
    "16-bit and narrower floating-point ALU instructions",
    "special-function instructions (div, rem, sqrt, rcp, sin, ex2, ...)",
    "global-memory loads and stores",
    "shared-memory loads and stores",
    "local-memory loads and stores",
    "constant-memory loads",
    "parameter loads and stores",
    "generic-address loads and stores",
    "texture and surface instructions",
    "atomic and reduction instructions",
    "branches, calls, returns and exits",
    "barriers, fences and other synchronisation",
    "matrix (tensor-core) instructions"};

InstructionClass memory_class(StateSpace space) {
  switch (space) {
    case StateSpace::Global: return InstructionClass::Global;
    case StateSpace::Shared:
    case StateSpace::SharedCta:
    case StateSpace::SharedCluster: return InstructionClass::Shared;
    case StateSpace::Local: return InstructionClass::Local;
    case StateSpace::Const: return InstructionClass::Const;
    case StateSpace::Param:
    case StateSpace::ParamEntry:
    case StateSpace::ParamFunc: return InstructionClass::Param;
    default: return InstructionClass::Generic;
  }
}

class InstructionMix final : public ModulePass {
 public:
  std::string_view name() const override { return "instruction_mix"; }

  void run(Module& module, DiagnosticEngine&) override {
    for (const Function& f : module.functions) {
      if (!f.has_body || !f.is_entry) continue;
      KernelMix mix{std::string(f.name), {}};
      for (const Instruction& inst : f.instructions) ++mix.counts[static_cast<size_t>(classify(inst))];
      for (size_t c = 0; c < kInstructionClasses; ++c) stats_.counts[c] += mix.counts[c];
      ++stats_.kernels;
      kernels_.push_back(std::move(mix));
    }
  }

  void publish(StatsRegistry& stats, std::string_view prefix) override {
    instruction_mix_stats_table().publish(stats, stats_, {prefix});
    stats_ = {};
  }

  std::span<const KernelMix> kernels() const { return kernels_; }

 private:
  InstructionMixStats stats_;
  std::vector<KernelMix> kernels_;
};

}  // namespace

InstructionClass classify(const Instruction& inst) {
  const Opcode op = inst.opcode;
  switch (op) {
    case Opcode::Ld:
    case Opcode::Ldu:
    case Opcode::St:
      return memory_class(inst.mods.space());
    case Opcode::Atom:
    case Opcode::Red: return InstructionClass::Atomic;
    case Opcode::Tex:
    case Opcode::Tld4:
    case Opcode::Txq:
    case Opcode::Suld:
    case Opcode::Sust:
    case Opcode::Sured:
    case Opcode::Suq: return InstructionClass::Texture;
    default: break;
  }
  switch (opcode_info(op).unit) {
    case UnitClass::Sfu: return InstructionClass::Sfu;
    case UnitClass::Mem: return memory_class(inst.mods.space());
    case UnitClass::Branch: return InstructionClass::Control;
    case UnitClass::Sync: return InstructionClass::Sync;
    case UnitClass::Tensor: return InstructionClass::Tensor;
    case UnitClass::Alu: break;
  }
  const ScalarType t = inst.mods.type();
  if (t != ScalarType::None && is_float(t)) {
    const uint16_t bits = type_bits(t);
    return bits == 64 ? InstructionClass::Fp64 : bits == 32 ? InstructionClass::Fp32 : InstructionClass::Fp16;
  }
  return InstructionClass::Integer;
}

std::string_view class_name(InstructionClass c) { return kClassNames[static_cast<size_t>(c)]; }

const stats::StatTable<InstructionMixStats>& instruction_mix_stats_table() {
  static const stats::StatTable<InstructionMixStats> table = [] {
    using S = InstructionMixStats;
    stats::StatTable<S> t("Compile pass instruction_mix: static instructions of the modules' kernels");
    t.counter("kernels", &S::kernels, "kernels", "kernels counted");
    t.counters("instructions", &S::counts, kClassNames, kClassDescriptions, "instructions");
    return t;
  }();
  return table;
}

std::span<const KernelMix> instruction_mix_of(const ModulePass& pass) {
  const auto* mix = dynamic_cast<const InstructionMix*>(&pass);
  return mix != nullptr ? mix->kernels() : std::span<const KernelMix>{};
}

std::unique_ptr<ModulePass> make_instruction_mix(const PassContext&) {
  return std::make_unique<InstructionMix>();
}

}  // namespace warpsim::ptx
