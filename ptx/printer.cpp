// PTX printer: module directives, declarations, function headers and bodies,
// instructions and operands. Output is built in one std::string; every
// construct is printed in a single fixed form so that print(parse(print(m)))
// equals print(m).
#include "ptx/printer.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <iterator>
#include <ostream>
#include <string_view>
#include <utility>
#include <vector>

namespace warpsim::ptx {

namespace {

using Out = std::string;

template <typename... Args>
void put(Out& out, fmt::format_string<Args...> f, Args&&... args) {
  fmt::format_to(std::back_inserter(out), f, std::forward<Args>(args)...);
}

std::string_view type_text(ScalarType t) { return type_info(t).name; }

std::string vec_text(VectorWidth v) {
  return modifier_text(ModToken{ModCategory::Vector, static_cast<uint8_t>(v)}, {});
}

void put_linkage(Out& out, uint8_t linkage) {
  if (linkage & kVisible) out += ".visible ";
  if (linkage & kExtern) out += ".extern ";
  if (linkage & kWeak) out += ".weak ";
  if (linkage & kCommon) out += ".common ";
}

// `+N` / `-N` after a symbol or address base; nothing for 0. The magnitude is
// printed unsigned so that INT64_MIN survives.
void put_offset(Out& out, int64_t offset) {
  if (offset > 0) put(out, "+{}", offset);
  if (offset < 0) put(out, "-{}", 0 - static_cast<uint64_t>(offset));
}

std::string_view component_text(Component c) {
  switch (c) {
    case Component::None: return "";
    case Component::X: return ".x";
    case Component::Y: return ".y";
    case Component::Z: return ".z";
    case Component::W: return ".w";
    case Component::B0: return ".b0";
    case Component::B1: return ".b1";
    case Component::B2: return ".b2";
    case Component::B3: return ".b3";
    case Component::H0: return ".h0";
    case Component::H1: return ".h1";
  }
  return "";
}

void put_special(Out& out, const Operand& op) {
  // Indexed registers keep their number in sreg_index: %envreg3, %pm2, %pm2_64.
  switch (op.sreg) {
    case SpecialRegister::Envreg: put(out, "%envreg{}", op.sreg_index); break;
    case SpecialRegister::Pm: put(out, "%pm{}", op.sreg_index); break;
    case SpecialRegister::Pm64: put(out, "%pm{}_64", op.sreg_index); break;
    case SpecialRegister::ReservedSmemOffset:
      put(out, "%reserved_smem_offset_{}", op.sreg_index);
      break;
    default: put(out, "%{}", special_register_info(op.sreg).name); break;
  }
  out += component_text(op.component);
}

void put_operand(Out& out, const Function& f, const Operand& op);

void put_elements(Out& out, const Function& f, const Operand& op, std::string_view sep) {
  auto elems = f.elements(op);
  for (size_t i = 0; i < elems.size(); ++i) {
    if (i) out += sep;
    put_operand(out, f, elems[i]);
  }
}

void put_address(Out& out, const Function& f, const Operand& op) {
  out += '[';
  switch (op.base) {
    case AddressBase::Register:
      out += f.register_name(op.reg);
      put_offset(out, op.value);
      break;
    case AddressBase::Symbol:
      out += op.name;
      put_offset(out, op.value);
      break;
    case AddressBase::Immediate:
      // An absolute address is written without sign; it may exceed INT64_MAX.
      put(out, "{}", static_cast<uint64_t>(op.value));
      break;
  }
  if (op.count) {
    out += ", ";
    put_elements(out, f, op, ", ");
  }
  out += ']';
}

void put_operand(Out& out, const Function& f, const Operand& op) {
  if (op.negated) out += '!';
  switch (op.kind) {
    case OperandKind::Register:
      out += f.register_name(op.reg);
      out += component_text(op.component);
      break;
    case OperandKind::Special: put_special(out, op); break;
    case OperandKind::Immediate: put(out, "{}", op.value); break;
    case OperandKind::Float: out += print_float(op.fsyntax, op.value); break;
    case OperandKind::Symbol:
      out += op.name;
      put_offset(out, op.value);
      break;
    case OperandKind::Address: put_address(out, f, op); break;
    case OperandKind::Vector:
      out += '{';
      put_elements(out, f, op, ", ");
      out += '}';
      break;
    case OperandKind::Pair: put_elements(out, f, op, "|"); break;
    case OperandKind::List:
      out += '(';
      put_elements(out, f, op, ", ");
      out += ')';
      break;
    case OperandKind::Sink: out += '_'; break;
  }
}

void put_instruction(Out& out, const Function& f, const Instruction& inst) {
  if (inst.has_guard)
    put(out, "@{}{} ", inst.guard_negated ? "!" : "", f.register_name(inst.guard_reg));
  out += mnemonic(inst.opcode);
  for (ModToken tok : f.mods_of(inst)) {
    out += '.';
    out += modifier_text(tok, inst.mods.shape);
  }
  auto ops = f.operands_of(inst);
  for (size_t i = 0; i < ops.size(); ++i) {
    out += i ? ", " : " ";
    put_operand(out, f, ops[i]);
  }
}

// ---- declarations ------------------------------------------------------------------

void put_init_value(Out& out, const InitValue& iv) {
  bool address = iv.kind == InitValue::Kind::Address || iv.kind == InitValue::Kind::GenericAddress;
  if (address && iv.mask) {
    // `0xFF00(sym)` / `0xFF00(generic(sym))`: bytes of an address; PTX gives
    // masked addresses no offset.
    if (iv.kind == InitValue::Kind::Address)
      put(out, "0x{:X}({})", iv.mask, iv.name);
    else
      put(out, "0x{:X}(generic({}))", iv.mask, iv.name);
    return;
  }
  switch (iv.kind) {
    case InitValue::Kind::Integer: put(out, "{}", iv.value); break;
    case InitValue::Kind::Float: out += print_float(iv.fsyntax, iv.value); break;
    case InitValue::Kind::Address:
      out += iv.name;
      put_offset(out, iv.value);
      break;
    case InitValue::Kind::GenericAddress:
      put(out, "generic({})", iv.name);
      put_offset(out, iv.value);
      break;
  }
}

// Prints init[first..] as nested braces following shape[level..]; returns the
// next unprinted index.
size_t put_init_level(Out& out, const std::vector<InitValue>& init,
                      const std::vector<uint64_t>& shape, size_t level, size_t first) {
  out += '{';
  for (uint64_t i = 0; i < shape[level]; ++i) {
    if (i) out += ", ";
    if (level + 1 == shape.size())
      put_init_value(out, init[first++]);
    else
      first = put_init_level(out, init, shape, level + 1, first);
  }
  out += '}';
  return first;
}

void put_initializer(Out& out, const Variable& v) {
  out += " = ";
  if (!v.init_braced) {
    // The grammar allows one unbraced value; print whatever is there.
    for (size_t i = 0; i < v.init.size(); ++i) {
      if (i) out += ", ";
      put_init_value(out, v.init[i]);
    }
    return;
  }
  // The parser keeps the values flat; re-nest one brace level per array
  // dimension and one for vector lanes, when the values fill them exactly.
  std::vector<uint64_t> shape = v.dims;
  if (v.vec != VectorWidth::None) shape.push_back(vector_lanes(v.vec));
  uint64_t total = 1;
  for (uint64_t d : shape) {
    if (d == 0 || total > v.init.size() / d) {
      total = 0;
      break;
    }
    total *= d;
  }
  if (shape.empty() || total != v.init.size()) shape.assign(1, v.init.size());
  put_init_level(out, v.init, shape, 0, 0);
}

// A variable or parameter declaration without the trailing ';'.
void put_variable(Out& out, const Variable& v) {
  put_linkage(out, v.linkage);
  put(out, ".{}", space_name(v.space));
  if (v.managed) out += " .attribute(.managed)";
  if (v.align) put(out, " .align {}", v.align);
  if (v.vec != VectorWidth::None) put(out, " .{}", vec_text(v.vec));
  if (v.type != ScalarType::None) put(out, " .{}", type_text(v.type));
  if (v.is_ptr) {
    // `.align` after `.ptr` is the pointee alignment, so order matters here.
    out += " .ptr";
    if (v.ptr_space != StateSpace::None) put(out, " .{}", space_name(v.ptr_space));
    if (v.ptr_align) put(out, " .align {}", v.ptr_align);
  }
  put(out, " {}", v.name);
  for (uint64_t d : v.dims) {
    if (d == 0)
      out += "[]";
    else
      put(out, "[{}]", d);
  }
  if (v.has_init) put_initializer(out, v);
}

void put_param_list(Out& out, const std::vector<Variable>& params, bool one_per_line) {
  out += '(';
  for (size_t i = 0; i < params.size(); ++i) {
    if (i) out += ',';
    if (one_per_line)
      out += "\n  ";
    else if (i)
      out += ' ';
    put_variable(out, params[i]);
  }
  if (one_per_line && !params.empty()) out += '\n';
  out += ')';
}

void put_int_list(Out& out, std::string_view directive, const std::vector<uint32_t>& values) {
  if (values.empty()) return;
  put(out, "\n{} {}", directive, fmt::join(values, ", "));
}

void put_performance(Out& out, const PerformanceDirectives& p) {
  put_int_list(out, ".maxntid", p.maxntid);
  put_int_list(out, ".reqntid", p.reqntid);
  if (p.minnctapersm) put(out, "\n.minnctapersm {}", p.minnctapersm);
  if (p.maxnreg) put(out, "\n.maxnreg {}", p.maxnreg);
  put_int_list(out, ".reqnctapercluster", p.reqnctapercluster);
  if (p.maxclusterrank) put(out, "\n.maxclusterrank {}", p.maxclusterrank);
  if (p.explicitcluster) out += "\n.explicitcluster";
  if (p.blocksareclusters) out += "\n.blocksareclusters";
  if (p.abi_preserve >= 0) put(out, "\n.abi_preserve {}", p.abi_preserve);
  if (p.abi_preserve_control >= 0) put(out, "\n.abi_preserve_control {}", p.abi_preserve_control);
}

// Pragmas given between a function's header and its body: those no Pragma
// body item refers to.
std::vector<bool> header_pragmas(const Function& f) {
  std::vector<bool> in_header(f.pragmas.size(), true);
  for (const BodyItem& item : f.body)
    if (item.kind == BodyItemKind::Pragma && item.index < in_header.size())
      in_header[item.index] = false;
  return in_header;
}

// Everything before the body or the closing ';' of a declaration; each
// directive after the parameter list goes on its own line.
void put_function_header(Out& out, const Function& f, bool with_pragmas) {
  put_linkage(out, f.linkage);
  out += f.is_entry ? ".entry " : ".func ";
  if (!f.returns.empty()) {
    put_param_list(out, f.returns, false);
    out += ' ';
  }
  out += f.name;
  put_param_list(out, f.params, true);
  if (f.noreturn) out += "\n.noreturn";
  put_performance(out, f.perf);
  if (!with_pragmas) return;
  std::vector<bool> in_header = header_pragmas(f);
  for (size_t i = 0; i < f.pragmas.size(); ++i)
    if (in_header[i]) put(out, "\n.pragma {};", f.pragmas[i]);
}

// ---- bodies --------------------------------------------------------------------------

class BodyPrinter {
 public:
  BodyPrinter(Out& out, const Function& f) : out_(out), f_(f) {}

  void run() {
    out_ += "{\n";
    for (const BodyItem& item : f_.body) print_item(item);
    out_ += "}\n";
  }

 private:
  // Clamped so that a module with unbalanced scopes (from error recovery)
  // still prints, and capped so that the output of deeply nested blocks
  // stays linear in their number.
  static constexpr int kMaxIndent = 32;
  void indent(int extra = 0) {
    out_.append(static_cast<size_t>(2 * std::clamp(depth_ + extra, 0, kMaxIndent)), ' ');
  }

  void print_item(const BodyItem& item) {
    switch (item.kind) {
      case BodyItemKind::Instruction: instruction(f_.instructions[item.index]); break;
      case BodyItemKind::Label:
        indent(-1);  // labels stand out to the left of the code they name
        put(out_, "{}:\n", f_.labels[item.index].name);
        break;
      case BodyItemKind::ScopeBegin:
        indent();
        out_ += "{\n";
        ++depth_;
        break;
      case BodyItemKind::ScopeEnd:
        --depth_;
        indent();
        out_ += "}\n";
        break;
      case BodyItemKind::RegisterDecl: register_decl(f_.reg_decls[item.index]); break;
      case BodyItemKind::Variable:
        indent();
        put_variable(out_, f_.variables[item.index]);
        out_ += ";\n";
        break;
      case BodyItemKind::Pragma:
        indent();
        put(out_, ".pragma {};\n", f_.pragmas[item.index]);
        break;
      case BodyItemKind::Prototype: prototype(f_.prototypes[item.index]); break;
      case BodyItemKind::TargetList: target_list(f_.target_lists[item.index]); break;
    }
  }

  void register_decl(const RegisterDecl& d) {
    indent();
    out_ += ".reg";
    if (d.vec != VectorWidth::None) put(out_, " .{}", vec_text(d.vec));
    put(out_, " .{} {}", type_text(d.type), d.name);
    if (d.count) put(out_, "<{}>", d.count);
    out_ += ";\n";
  }

  void instruction(const Instruction& inst) {
    // The builder gives each instruction the last .loc seen, so one .loc
    // line per change reproduces every instruction's DebugLoc.
    if (inst.debug != last_loc_) {
      indent();
      put(out_, ".loc {} {} {}\n", inst.debug.file, inst.debug.line, inst.debug.column);
      last_loc_ = inst.debug;
    }
    indent();
    put_instruction(out_, f_, inst);
    out_ += ";\n";
  }

  void prototype(const CallPrototype& p) {
    indent();
    put(out_, "{}: .callprototype ", p.name);
    put_param_list(out_, p.returns, false);
    out_ += " _ ";
    put_param_list(out_, p.params, false);
    if (p.noreturn) out_ += " .noreturn";
    out_ += ";\n";
  }

  void target_list(const TargetList& t) {
    indent();
    put(out_, "{}: {} {};\n", t.name, t.is_branch ? ".branchtargets" : ".calltargets",
        fmt::join(t.names, ", "));
  }

  Out& out_;
  const Function& f_;
  int depth_ = 1;
  DebugLoc last_loc_;
};

void put_function(Out& out, const Function& f, bool definition) {
  // A declaration of a function defined later prints the definition's
  // header; its pragmas belong to the definition only.
  put_function_header(out, f, definition || !f.has_body);
  if (definition) {
    out += '\n';
    BodyPrinter(out, f).run();
  } else {
    out += ";\n";
  }
}

void put_module(Out& out, const Module& m) {
  if (m.has_version) put(out, ".version {}.{}\n", m.version_major, m.version_minor);
  if (!m.targets.empty()) put(out, ".target {}\n", fmt::join(m.targets, ", "));
  if (m.has_address_size) put(out, ".address_size {}\n", m.address_size);
  for (std::string_view p : m.pragmas) put(out, ".pragma {};\n", p);
  for (const FileEntry& file : m.files) {
    put(out, ".file {} \"{}\"", file.index, file.path);
    if (file.has_extra) put(out, ", {}, {}", file.timestamp, file.size);
    out += '\n';
  }
  for (const ModuleItem& item : m.items) {
    out += '\n';
    switch (item.kind) {
      case ModuleItemKind::Global:
        put_variable(out, m.globals[item.index]);
        out += ";\n";
        break;
      case ModuleItemKind::FunctionDecl: put_function(out, m.functions[item.index], false); break;
      case ModuleItemKind::FunctionDef: put_function(out, m.functions[item.index], true); break;
      case ModuleItemKind::Alias: {
        const Alias& a = m.aliases[item.index];
        put(out, ".alias {}, {};\n", a.alias, a.target);
        break;
      }
    }
  }
}

}  // namespace

std::string print_float(FloatSyntax syntax, int64_t bits) {
  switch (syntax) {
    case FloatSyntax::F32Bits: return fmt::format("0f{:08X}", static_cast<uint32_t>(bits));
    case FloatSyntax::F64Bits: break;
    case FloatSyntax::Decimal: {
      double v = std::bit_cast<double>(bits);
      if (!std::isfinite(v)) break;  // no decimal spelling: fall back to raw bits
      char buf[64];
      auto res = std::to_chars(buf, buf + sizeof buf, v);  // shortest round-trip form
      std::string text(buf, res.ptr);
      if (text.find_first_of(".e") == std::string::npos)
        text += ".0";  // "1" would lex as an integer
      return text;
    }
  }
  return fmt::format("0d{:016X}", static_cast<uint64_t>(bits));
}

std::string print_operand(const Function& f, const Operand& op) {
  std::string out;
  put_operand(out, f, op);
  return out;
}

std::string print_instruction(const Function& f, const Instruction& inst) {
  std::string out;
  put_instruction(out, f, inst);
  return out;
}

std::string print_module(const Module& module) {
  std::string out;
  put_module(out, module);
  return out;
}

void print_module(const Module& module, std::ostream& os) { os << print_module(module); }

}  // namespace warpsim::ptx
