#include "functional/cta_interaction.h"

#include <fmt/format.h>

#include <vector>

namespace warpsim::functional {
namespace {

using ptx::MemorySemantics;
using ptx::Opcode;
using ptx::Scope;

// Global memory, or an address that may be global.
bool may_be_global(Window w) { return w == Window::Global || w == Window::Generic; }

// Beyond the CTA (or its cluster, which runs as one unit): gpu, system, or
// unstated (volatile has no scope and behaves as system scope).
bool wide_scope(Scope s) { return s != Scope::Cta && s != Scope::Cluster; }

bool strong(MemorySemantics s) {
  return s != MemorySemantics::None && s != MemorySemantics::Weak;
}

// What in this instruction lets CTAs act on one another; empty if nothing.
std::string interaction(const Program& program, const DecodedInst& inst) {
  const ptx::Modifiers* m = inst.mods;
  const std::string_view op = ptx::mnemonic(inst.opcode);
  switch (inst.opcode) {
    case Opcode::Atom:
    case Opcode::Red:
      if (may_be_global(inst.addr.window)) return fmt::format("{} on global memory", op);
      return {};
    case Opcode::Sured:
    case Opcode::Multimem:
    case Opcode::Clusterlaunchcontrol:
      return std::string(op);
    case Opcode::Cp:  // cp.reduce.async.bulk into global memory
      if (m && m->op != ptx::Operation::None &&
          (m->space(0) == ptx::StateSpace::Global || m->space(0) == ptx::StateSpace::None))
        return "cp.reduce into global memory";
      return {};
    case Opcode::Ld:
    case Opcode::St:
      if (m && strong(m->sem) && wide_scope(m->scope) && may_be_global(inst.addr.window))
        return fmt::format("a {} {} of global memory", m->sem == MemorySemantics::Volatile ? "volatile" : "strong",
                           inst.opcode == Opcode::Ld ? "load" : "store");
      return {};
    case Opcode::Fence:
    case Opcode::Membar:
      if (m && m->scope != Scope::None && wide_scope(m->scope)) return fmt::format("a gpu- or system-scope {}", op);
      return {};
    case Opcode::Call: {
      if (inst.target >= program.call_sites.size()) return {};  // undecodable: it faults
      const CallSite& site = program.call_sites[inst.target];
      if (site.builtin == Builtin::Malloc || site.builtin == Builtin::Free) return "device malloc/free";
      if (site.builtin == Builtin::DeviceRuntime) return "a device-runtime call (dynamic parallelism)";
      return {};
    }
    default:
      return {};
  }
}

}  // namespace

std::string find_cta_interaction(const Program& program, uint32_t function) {
  std::vector<bool> seen(program.functions.size(), false);
  std::vector<uint32_t> todo{function};
  seen[function] = true;
  auto reach = [&](uint32_t f) {
    if (f < seen.size() && !seen[f]) {
      seen[f] = true;
      todo.push_back(f);
    }
  };
  while (!todo.empty()) {
    const uint32_t f = todo.back();
    todo.pop_back();
    const FunctionInfo& fn = program.functions[f];
    for (uint32_t pc = fn.begin; pc < fn.end && pc < program.code.size(); ++pc) {
      const DecodedInst& inst = program.code[pc];
      if (std::string why = interaction(program, inst); !why.empty())
        return fmt::format("{} in function `{}`", why, fn.name);
      if (inst.opcode != Opcode::Call || inst.target >= program.call_sites.size()) continue;
      const CallSite& site = program.call_sites[inst.target];
      if (site.callee != kNoSlot) {
        reach(site.callee);
      } else if (site.builtin == Builtin::None) {  // indirect: any function may be the callee
        for (uint32_t g = 0; g < program.functions.size(); ++g) reach(g);
      }
    }
  }
  return {};
}

}  // namespace warpsim::functional
