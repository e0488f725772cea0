#include "ptx/ir.h"

#include <algorithm>

namespace warpsim::ptx {

uint64_t Variable::element_size() const {
  return static_cast<uint64_t>(type_bytes(type)) * vector_lanes(vec);
}

uint64_t Variable::alignment() const { return align ? align : std::max<uint64_t>(1, element_size()); }

uint64_t Variable::size_bytes() const {
  uint64_t n = element_size();
  for (uint64_t d : dims) {
    if (d == 0) return 0;
    if (n > (uint64_t{1} << 48) / d) return uint64_t{1} << 48;  // absurd sizes saturate
    n *= d;
  }
  return n;
}

std::string Function::register_name(uint32_t reg) const {
  if (reg >= registers.size()) return "<invalid register>";
  const Register& r = registers[reg];
  const RegisterDecl& d = reg_decls[r.decl];
  std::string name(d.name);
  if (d.count) name += std::to_string(r.index);
  return name;
}

std::string_view Module::intern(std::string_view text) {
  interned_.emplace_back(text);
  return interned_.back();
}

const Function* Module::find_function(std::string_view name) const {
  for (const auto& f : functions)
    if (f.name == name) return &f;
  return nullptr;
}

const Variable* Module::find_global(std::string_view name) const {
  for (const auto& g : globals)
    if (g.name == name) return &g;
  return nullptr;
}

std::string_view symbol_kind_name(SymbolKind k) {
  switch (k) {
    case SymbolKind::Unresolved: return "unresolved";
    case SymbolKind::Global: return "global variable";
    case SymbolKind::Local: return "variable";
    case SymbolKind::Param: return "parameter";
    case SymbolKind::ReturnParam: return "return parameter";
    case SymbolKind::Function: return "function";
    case SymbolKind::Label: return "label";
    case SymbolKind::Prototype: return "call prototype";
    case SymbolKind::TargetList: return "target list";
  }
  return "?";
}

}  // namespace warpsim::ptx
