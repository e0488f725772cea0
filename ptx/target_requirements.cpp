#include "ptx/target_requirements.h"

#include <fmt/format.h>

namespace warpsim::ptx {

namespace {

std::optional<TargetArch> parse_arch(std::string_view name) {
  for (std::string_view prefix : {"sm_", "compute_"}) {
    if (!name.starts_with(prefix)) continue;
    name.remove_prefix(prefix.size());
    TargetArch a;
    if (!name.empty() && name.back() == 'a') a.arch_specific = true;
    if (!name.empty() && name.back() == 'f') a.family = true;
    if (a.arch_specific || a.family) name.remove_suffix(1);
    if (name.empty()) return std::nullopt;
    for (char c : name) {
      if (c < '0' || c > '9') return std::nullopt;
      a.sm = a.sm * 10 + static_cast<uint32_t>(c - '0');
    }
    return a;
  }
  return std::nullopt;
}

bool any_type(const Modifiers& m, std::initializer_list<ScalarType> types) {
  for (size_t i = 0; i < m.num_types; ++i)
    for (ScalarType t : types)
      if (m.types[i] == t) return true;
  return false;
}

// The oldest architecture an instruction form needs (0: any), and the name
// ptxas gives the feature. Measured against ptxas of CUDA 13 (tests/ptx).
struct Need {
  uint32_t sm = 0;
  std::string_view what;
};

Need needed_sm(const Instruction& inst) {
  const Modifiers& m = inst.mods;
  const std::string_view name = mnemonic(inst.opcode);
  switch (inst.opcode) {
    case Opcode::Dp4a: case Opcode::Dp2a: return {61, name};
    case Opcode::Alloca: case Opcode::Stacksave: case Opcode::Stackrestore: return {52, name};
    case Opcode::Match: case Opcode::Nanosleep: case Opcode::Bmsk: case Opcode::Szext:
    case Opcode::Wmma:
      return {70, name};
    case Opcode::Tanh: case Opcode::Ldmatrix: case Opcode::Movmatrix: return {75, name};
    case Opcode::Redux: case Opcode::Createpolicy: case Opcode::Applypriority:
    case Opcode::Discard:
      return {80, name};
    case Opcode::Cp:
      if (m.has(Flag::Bulk)) return {90, "cp.async.bulk"};
      return {m.has(Flag::Async) ? 80u : 0u, "cp.async"};
    case Opcode::Mbarrier:
      if (m.has(Flag::TryWait) || m.has(Flag::ExpectTx) || m.has(Flag::CompleteTx))
        return {90, m.has(Flag::TryWait) ? "mbarrier.try_wait" : "mbarrier transaction counts"};
      return {80, name};
    case Opcode::Stmatrix: case Opcode::Elect: case Opcode::Griddepcontrol: case Opcode::Mapa:
    case Opcode::Getctarank: case Opcode::Multimem: case Opcode::Tensormap:
      return {90, name};
    case Opcode::Barrier:
      return {m.scope == Scope::Cluster ? 90u : 0u, "barrier.cluster"};
    case Opcode::Fence:
      if (m.has(Flag::MbarrierInit)) return {90, "fence.mbarrier_init"};
      if (m.has(Flag::Proxy) && (m.has(Flag::Async) || m.has(Flag::AsyncGeneric) ||
                                 m.has(Flag::AsyncGlobal) || m.has(Flag::AsyncSharedCta) ||
                                 m.has(Flag::AsyncSharedCluster) ||
                                 m.has(Flag::TensormapGeneric)))
        return {90, "fence.proxy.async"};
      return {};
    case Opcode::Clusterlaunchcontrol: return {100, name};
    case Opcode::Atom: case Opcode::Red:
      if (m.op != Operation::Add) return {};
      if (any_type(m, {ScalarType::BF16, ScalarType::BF16x2})) return {90, "atom.add.bf16"};
      if (any_type(m, {ScalarType::F16, ScalarType::F16x2})) return {70, "atom.add.f16"};
      if (any_type(m, {ScalarType::F64})) return {60, "atom.add.f64"};
      return {};
    default: return {};
  }
}

}  // namespace

std::optional<TargetArch> module_arch(const Module& module) {
  for (std::string_view t : module.targets)
    if (auto a = parse_arch(t)) return a;
  return std::nullopt;
}

std::optional<std::string> target_problem(const Instruction& inst, TargetArch arch,
                                          uint32_t version) {
  const Modifiers& m = inst.mods;
  const std::string_view name = mnemonic(inst.opcode);
  // Warp-synchronous forms without .sync: undefined once warps may diverge
  // (independent thread scheduling), so refused from sm_70 with PTX ISA 6.4.
  if ((inst.opcode == Opcode::Shfl || inst.opcode == Opcode::Vote) && !m.has(Flag::Sync) &&
      arch.sm >= 70 && version >= 64)
    return fmt::format("'{}' without '.sync' is not supported on .target sm_70 and higher from "
                       "PTX ISA version 6.4",
                       name);
  // Arch-specific features: only on the `a` (or family `f`) targets that have them.
  const bool specific = arch.arch_specific || arch.family;
  if (inst.opcode == Opcode::Redux && any_type(m, {ScalarType::F32}) &&
      !(specific && arch.sm >= 100 && arch.sm < 110))
    return fmt::format("'redux.f32' is not supported on .target sm_{}; it needs sm_100a or sm_100f",
                       arch.sm);
  if (inst.opcode == Opcode::Wgmma && !(arch.arch_specific && arch.sm == 90))
    return std::string("'wgmma' needs .target sm_90a");
  if (inst.opcode == Opcode::Setmaxnreg && !(specific && arch.sm >= 90))
    return std::string("'setmaxnreg' needs an architecture-specific .target (sm_90a or later)");
  const bool wide = m.vec == VectorWidth::V8 &&
                    (inst.opcode == Opcode::Ld || inst.opcode == Opcode::St ||
                     inst.opcode == Opcode::Ldu);
  if (wide && arch.sm < 100) return std::string("'ld/st.v8' (256-bit) requires .target sm_100 or higher");
  if (wide && version < 88)
    return std::string("'ld/st.v8' (256-bit) requires PTX ISA .version 8.8 or later");
  const Need need = needed_sm(inst);
  if (need.sm > arch.sm)
    return fmt::format("'{}' requires .target sm_{} or higher", need.what, need.sm);
  return std::nullopt;
}

}  // namespace warpsim::ptx
