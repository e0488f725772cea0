// ModuleBuilder: lexer support, diagnostics, module directives and declarations.
#include "ptx/module_builder.h"

#include <fmt/format.h>

#include <bit>
#include <charconv>
#include <cstring>

namespace warpsim::ptx {

ModuleBuilder::ModuleBuilder(Module& module, const SourceFile& source, DiagnosticEngine& diags,
                             const char* scan_begin)
    : module_(module),
      source_(source),
      diags_(diags),
      scan_begin_(scan_begin),
      source_text_(source.text().data()),
      line_start_(scan_begin) {}

// ---- lexer support ------------------------------------------------------------

uint64_t ModuleBuilder::parse_integer(std::string_view text, int base) {
  if (!text.empty() && text.back() == 'U') text.remove_suffix(1);
  if (base != 10 && text.size() >= 2) text.remove_prefix(base == 8 ? 1 : 2);
  uint64_t value = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value, base);
  if (ec != std::errc() || ptr != text.data() + text.size()) {
    error(token_loc, fmt::format("integer literal '{}' is out of range", text));
    return 0;
  }
  return value;
}

namespace {

enum class DotKind : uint8_t { Directive, Space, Type, Vec };
struct DotEntry {
  DotKind kind;
  int value;
};

const std::unordered_map<std::string_view, DotEntry>& dot_table() {
  using T = Parser::token;
  static const std::unordered_map<std::string_view, DotEntry> table = [] {
    std::unordered_map<std::string_view, DotEntry> m;
    auto dir = [&](std::string_view w, int tok) { m.emplace(w, DotEntry{DotKind::Directive, tok}); };
    dir(".version", T::TOK_VERSION);
    dir(".target", T::TOK_TARGET);
    dir(".address_size", T::TOK_ADDRESS_SIZE);
    dir(".entry", T::TOK_ENTRY);
    dir(".func", T::TOK_FUNC);
    dir(".visible", T::TOK_VISIBLE);
    dir(".extern", T::TOK_EXTERN);
    dir(".weak", T::TOK_WEAK);
    dir(".common", T::TOK_COMMON);
    dir(".noreturn", T::TOK_NORETURN);
    dir(".maxntid", T::TOK_MAXNTID);
    dir(".reqntid", T::TOK_REQNTID);
    dir(".minnctapersm", T::TOK_MINNCTAPERSM);
    dir(".maxnreg", T::TOK_MAXNREG);
    dir(".pragma", T::TOK_PRAGMA);
    dir(".callprototype", T::TOK_CALLPROTOTYPE);
    dir(".calltargets", T::TOK_CALLTARGETS);
    dir(".branchtargets", T::TOK_BRANCHTARGETS);
    dir(".file", T::TOK_FILE);
    dir(".loc", T::TOK_LOC);
    dir(".align", T::TOK_ALIGN);
    dir(".ptr", T::TOK_PTR);
    dir(".attribute", T::TOK_ATTRIBUTE);
    dir(".explicitcluster", T::TOK_EXPLICITCLUSTER);
    dir(".reqnctapercluster", T::TOK_REQNCTAPERCLUSTER);
    dir(".maxclusterrank", T::TOK_MAXCLUSTERRANK);
    dir(".blocksareclusters", T::TOK_BLOCKSAREACLUSTERS);
    dir(".alias", T::TOK_ALIAS);
    dir(".abi_preserve", T::TOK_ABI_PRESERVE);
    dir(".abi_preserve_control", T::TOK_ABI_PRESERVE_CONTROL);
    auto space = [&](std::string_view w, StateSpace s) {
      m.emplace(w, DotEntry{DotKind::Space, static_cast<int>(s)});
    };
    space(".reg", StateSpace::Reg);
    space(".sreg", StateSpace::Sreg);
    space(".global", StateSpace::Global);
    space(".shared", StateSpace::Shared);
    space(".local", StateSpace::Local);
    space(".const", StateSpace::Const);
    space(".param", StateSpace::Param);
    space(".tex", StateSpace::Tex);
#define PTX_TYPE(name, text, bits, kind) \
  m.emplace("." text, DotEntry{DotKind::Type, static_cast<int>(ScalarType::name)});
#include "ptx/modifiers.def"
#define PTX_VEC(name, text, lanes) \
  m.emplace("." text, DotEntry{DotKind::Vec, static_cast<int>(VectorWidth::name)});
#include "ptx/modifiers.def"
    return m;
  }();
  return table;
}

}  // namespace

Parser::symbol_type ModuleBuilder::dotword(std::string_view text, SourceLocation loc) {
  const auto& table = dot_table();
  auto it = table.find(text);
  if (it == table.end()) return Parser::make_DOTWORD(stable(text), loc);
  switch (it->second.kind) {
    case DotKind::Directive:
      return Parser::symbol_type(static_cast<Parser::token_kind_type>(it->second.value), loc);
    case DotKind::Space: return Parser::make_SPACE(static_cast<StateSpace>(it->second.value), loc);
    case DotKind::Type: return Parser::make_TYPE(static_cast<ScalarType>(it->second.value), loc);
    case DotKind::Vec: return Parser::make_VEC(static_cast<VectorWidth>(it->second.value), loc);
  }
  return Parser::make_DOTWORD(stable(text), loc);
}

void ModuleBuilder::bad_character(char c, SourceLocation loc) {
  unsigned char u = static_cast<unsigned char>(c);
  if (u >= 0x20 && u < 0x7f)
    error(loc, fmt::format("unexpected character '{}'", c));
  else
    error(loc, fmt::format("unexpected byte 0x{:02x}", u));
}

// ---- diagnostics ----------------------------------------------------------------

void ModuleBuilder::error(SourceLocation loc, std::string message) {
  diags_.error(&source_, loc, std::move(message));
}

void ModuleBuilder::syntax_error(const Parser::context& ctx) {
  const auto& la = ctx.lookahead();
  Parser::symbol_kind_type kind = ctx.token();
  if (kind == Parser::symbol_kind::S_DOTWORD) {
    error(ctx.location(), fmt::format("unknown directive '{}'", la.value.as<std::string_view>()));
    return;
  }
  std::string what;
  switch (kind) {
    case Parser::symbol_kind::S_IDENT:
    case Parser::symbol_kind::S_DOTTED:
    case Parser::symbol_kind::S_REGISTER:
    case Parser::symbol_kind::S_STRING:
    case Parser::symbol_kind::S_FLOAT_F32:
    case Parser::symbol_kind::S_FLOAT_F64:
    case Parser::symbol_kind::S_FLOAT_DEC:
      what = fmt::format("{} '{}'", Parser::symbol_name(kind), la.value.as<std::string_view>());
      break;
    case Parser::symbol_kind::S_INTEGER:
      what = fmt::format("integer {}", la.value.as<uint64_t>());
      break;
    default: what = Parser::symbol_name(kind); break;
  }
  std::string msg = "syntax error: unexpected " + what;
  Parser::symbol_kind_type expected[6];
  int n = ctx.expected_tokens(expected, 6);
  if (n > 0 && n < 6) {
    msg += ", expected ";
    for (int i = 0; i < n; ++i) {
      if (i) msg += i + 1 == n ? " or " : ", ";
      msg += Parser::symbol_name(expected[i]);
    }
  }
  error(ctx.location(), std::move(msg));
}

// ---- module directives ------------------------------------------------------------

void ModuleBuilder::set_version(std::string_view text, SourceLocation loc) {
  if (module_.has_version) error(loc, "duplicate .version directive");
  size_t dot = text.find('.');
  uint32_t major = 0, minor = 0;
  bool ok = dot != std::string_view::npos && dot > 0 && dot + 1 < text.size();
  if (ok) {
    auto r1 = std::from_chars(text.data(), text.data() + dot, major);
    auto r2 = std::from_chars(text.data() + dot + 1, text.data() + text.size(), minor);
    ok = r1.ec == std::errc() && r2.ec == std::errc() && r1.ptr == text.data() + dot &&
         r2.ptr == text.data() + text.size();
  }
  if (!ok) {
    error(loc, fmt::format("malformed PTX version '{}': expected MAJOR.MINOR", text));
    return;
  }
  module_.has_version = true;
  module_.version_major = major;
  module_.version_minor = minor;
}

void ModuleBuilder::set_version_int(uint64_t major, SourceLocation loc) {
  error(loc, fmt::format("malformed PTX version '{}': expected MAJOR.MINOR", major));
}

void ModuleBuilder::add_target(std::string_view name, SourceLocation loc) {
  auto arch_ok = [](std::string_view n, std::string_view prefix) {
    if (!n.starts_with(prefix)) return false;
    n.remove_prefix(prefix.size());
    if (!n.empty() && (n.back() == 'a' || n.back() == 'f')) n.remove_suffix(1);
    if (n.empty()) return false;
    for (char c : n)
      if (c < '0' || c > '9') return false;
    return true;
  };
  if (!arch_ok(name, "sm_") && !arch_ok(name, "compute_") && name != "texmode_unified" &&
      name != "texmode_independent" && name != "debug" && name != "map_f64_to_f32") {
    error(loc, fmt::format("unknown target '{}'", name));
    return;
  }
  module_.targets.push_back(name);
}

void ModuleBuilder::set_address_size(uint64_t bits, SourceLocation loc) {
  if (bits != 32 && bits != 64) {
    error(loc, fmt::format(".address_size must be 32 or 64, not {}", bits));
    return;
  }
  if (module_.has_address_size) error(loc, "duplicate .address_size directive");
  module_.has_address_size = true;
  module_.address_size = static_cast<uint32_t>(bits);
}

void ModuleBuilder::add_file(uint64_t index, std::string_view quoted_path, bool extra,
                             uint64_t timestamp, uint64_t size, SourceLocation loc) {
  FileEntry f;
  f.index = static_cast<uint32_t>(index);
  f.path = quoted_path.substr(1, quoted_path.size() - 2);
  f.has_extra = extra;
  f.timestamp = timestamp;
  f.size = size;
  for (const auto& existing : module_.files)
    if (existing.index == f.index) {
      error(loc, fmt::format("duplicate .file index {}", index));
      return;
    }
  module_.files.push_back(f);
}

void ModuleBuilder::add_alias(std::string_view alias, std::string_view target, SourceLocation loc) {
  module_.aliases.push_back({alias, target, loc});
  module_.items.push_back({ModuleItemKind::Alias, static_cast<uint32_t>(module_.aliases.size() - 1)});
}

void ModuleBuilder::pragma(std::string_view quoted, SourceLocation loc) {
  if (in_body_) {
    fn().pragmas.push_back(quoted);
    fn().body.push_back({BodyItemKind::Pragma, static_cast<uint32_t>(fn().pragmas.size() - 1)});
  } else if (in_function_) {
    fn().pragmas.push_back(quoted);
  } else {
    module_.pragmas.push_back(quoted);
  }
}

void ModuleBuilder::linkage(Linkage l, SourceLocation loc) {
  if (pending_linkage_ & l) error(loc, "duplicate linkage directive");
  pending_linkage_ |= l;
}

// ---- declarations -------------------------------------------------------------------

void ModuleBuilder::decl_begin(StateSpace space, SourceLocation loc) {
  decl_ = PendingDecl{};
  decl_.space = space;
  decl_.loc = loc;
  decl_.linkage = pending_linkage_;
  pending_linkage_ = kLinkageNone;
}

void ModuleBuilder::decl_type(ScalarType t, SourceLocation loc) {
  if (decl_.type != ScalarType::None)
    error(loc, "more than one type in declaration");
  else
    decl_.type = t;
}

void ModuleBuilder::decl_vec(VectorWidth v, SourceLocation loc) {
  if (decl_.vec != VectorWidth::None)
    error(loc, "more than one vector width in declaration");
  else
    decl_.vec = v;
}

void ModuleBuilder::decl_align(uint64_t align, SourceLocation loc) {
  if (align == 0 || !std::has_single_bit(align) || align > (1u << 20)) {
    error(loc, fmt::format("alignment {} is not a power of two", align));
    return;
  }
  if (decl_.is_ptr)
    decl_.ptr_align = static_cast<uint32_t>(align);
  else
    decl_.align = static_cast<uint32_t>(align);
}

void ModuleBuilder::decl_ptr(SourceLocation loc) {
  if (decl_.space != StateSpace::Param) error(loc, ".ptr is only allowed on .param parameters");
  decl_.is_ptr = true;
}

void ModuleBuilder::decl_space(StateSpace s, SourceLocation loc) {
  if (decl_.is_ptr && decl_.ptr_space == StateSpace::None &&
      (s == StateSpace::Global || s == StateSpace::Shared || s == StateSpace::Const ||
       s == StateSpace::Local)) {
    decl_.ptr_space = s;
    return;
  }
  error(loc, fmt::format("unexpected state space '.{}' in declaration", space_name(s)));
}

void ModuleBuilder::decl_attribute(std::string_view word, SourceLocation loc) {
  if (word == ".managed") {
    if (decl_.space != StateSpace::Global)
      error(loc, ".attribute(.managed) is only allowed on .global variables");
    decl_.managed = true;
  } else {
    error(loc, fmt::format("unknown variable attribute '{}'", word));
  }
}

void ModuleBuilder::declarator(std::string_view name, SourceLocation loc) {
  declarator_.name = name;
  declarator_.loc = loc;
  declarator_.is_range = false;
  declarator_.range = 0;
  declarator_.dims.clear();
  declarator_.has_init = false;
  declarator_.init_braced = false;
  declarator_.init.clear();
}

void ModuleBuilder::declarator_range(std::string_view name, uint64_t count, SourceLocation loc) {
  declarator(name, loc);
  if (decl_.space != StateSpace::Reg) {
    error(loc, "a parameterised name '<N>' is only allowed for .reg declarations");
    return;
  }
  if (count == 0 || count > register_limit_) {
    error(loc, fmt::format("register range <{}> must be between 1 and {}", count, register_limit_));
    return;
  }
  declarator_.is_range = true;
  declarator_.range = static_cast<uint32_t>(count);
}

void ModuleBuilder::declarator_dim(uint64_t n, SourceLocation loc) {
  if (n == 0) {
    error(loc, "array dimension must be positive");
    n = 1;
  }
  declarator_.dims.push_back(n);
}

void ModuleBuilder::declarator_dim_unsized(SourceLocation loc) {
  if (!declarator_.dims.empty()) error(loc, "only the first array dimension may be unsized");
  declarator_.dims.push_back(0);
}

void ModuleBuilder::init_begin(SourceLocation loc) {
  declarator_.has_init = true;
  if (decl_.space == StateSpace::Reg || decl_.space == StateSpace::Param ||
      decl_.space == StateSpace::Local || decl_.space == StateSpace::Shared)
    error(loc, fmt::format("variables in .{} cannot have initialisers", space_name(decl_.space)));
}

void ModuleBuilder::init_brace() { declarator_.init_braced = true; }

void ModuleBuilder::init_int(int64_t v, SourceLocation loc) {
  InitValue iv;
  iv.kind = InitValue::Kind::Integer;
  iv.value = v;
  iv.loc = loc;
  declarator_.init.push_back(iv);
}

void ModuleBuilder::init_float(FloatSyntax syntax, std::string_view text, bool negative,
                               SourceLocation loc) {
  InitValue iv;
  iv.kind = InitValue::Kind::Float;
  iv.fsyntax = syntax;
  iv.value = float_bits(syntax, text, negative, loc);
  iv.loc = loc;
  declarator_.init.push_back(iv);
}

void ModuleBuilder::init_symbol(std::string_view name, int64_t off, bool generic,
                                SourceLocation loc) {
  InitValue iv;
  iv.kind = generic ? InitValue::Kind::GenericAddress : InitValue::Kind::Address;
  iv.name = name;
  iv.value = off;
  iv.loc = loc;
  declarator_.init.push_back(iv);
}

void ModuleBuilder::init_generic(std::string_view fn, std::string_view name, int64_t off,
                                 SourceLocation loc) {
  if (fn != "generic") error(loc, fmt::format("unknown initialiser function '{}'", fn));
  init_symbol(name, off, true, loc);
}

// `0xFF00(generic(sym))`: selected bytes of a symbol's address (PTX 7.1+).
void ModuleBuilder::init_masked(uint64_t mask, std::string_view fn, std::string_view name,
                                SourceLocation loc) {
  bool generic = !fn.empty();
  if (generic && fn != "generic") error(loc, fmt::format("unknown initialiser function '{}'", fn));
  if (mask == 0) error(loc, "an address mask must select at least one byte");
  init_symbol(name, 0, generic, loc);
  declarator_.init.back().mask = mask;
}

int64_t ModuleBuilder::integer(uint64_t magnitude, bool negative, SourceLocation loc) {
  if (!negative) return static_cast<int64_t>(magnitude);
  if (magnitude > (uint64_t{1} << 63)) {
    error(loc, "negative integer literal is out of range");
    return 0;
  }
  return static_cast<int64_t>(0 - magnitude);
}

double ModuleBuilder::parse_decimal(std::string_view text, SourceLocation loc) {
  double v = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || ptr != text.data() + text.size()) {
    error(loc, fmt::format("malformed floating-point literal '{}'", text));
    return 0;
  }
  return v;
}

int64_t ModuleBuilder::float_bits(FloatSyntax syntax, std::string_view text, bool negative,
                                  SourceLocation loc) {
  if (syntax == FloatSyntax::Decimal) {
    double v = parse_decimal(text, loc);
    if (negative) v = -v;
    return std::bit_cast<int64_t>(v);
  }
  uint64_t bits = 0;
  std::from_chars(text.data() + 2, text.data() + text.size(), bits, 16);
  return static_cast<int64_t>(bits);
}

Variable ModuleBuilder::make_variable(const PendingDeclarator& d) const {
  Variable v;
  v.name = d.name;
  v.space = decl_.space;
  v.linkage = decl_.linkage;
  v.type = decl_.type;
  v.vec = decl_.vec;
  v.align = decl_.align;
  v.dims = d.dims;
  v.managed = decl_.managed;
  v.is_ptr = decl_.is_ptr;
  v.ptr_space = decl_.ptr_space;
  v.ptr_align = decl_.ptr_align;
  v.has_init = d.has_init;
  v.init_braced = d.init_braced;
  v.init = d.init;
  v.loc = d.loc;
  // `x[] = {1, 2, 3}` takes its size from the initialiser.
  if (!v.dims.empty() && v.dims[0] == 0 && v.has_init) {
    uint64_t inner = 1;
    for (size_t i = 1; i < v.dims.size(); ++i) inner *= v.dims[i];
    if (inner == 0) return v;  // `x[][]`: already diagnosed, nothing to infer
    uint64_t values = v.init.size() / vector_lanes(v.vec);  // one value per lane
    v.dims[0] = std::max<uint64_t>(1, (values + inner - 1) / inner);
  }
  return v;
}

// An initialiser may not hold more values than the variable has elements.
static void check_initialiser_size(const Variable& v, ModuleBuilder& b) {
  uint64_t capacity = vector_lanes(v.vec);
  for (uint64_t d : v.dims) capacity = d && capacity <= (uint64_t{1} << 40) / d ? capacity * d : capacity;
  if (v.init.size() > capacity)
    b.error(v.loc, fmt::format("initialiser of '{}' has {} values but the variable holds only {}",
                               v.name, v.init.size(), capacity));
}

void ModuleBuilder::declarator_end() {
  if (decl_.type == ScalarType::None) {
    error(declarator_.loc, fmt::format("declaration of '{}' has no type", declarator_.name));
    decl_.type = ScalarType::B32;  // keep going with a plausible type
  }
  if (in_function_ && !in_body_) return;  // parameters are finished by param_end()
  if (decl_.space == StateSpace::Reg) {
    add_register_decl(declarator_);
    return;
  }
  if (declarator_.is_range) return;  // already diagnosed
  if (decl_.space == StateSpace::Sreg) {
    error(declarator_.loc, "special registers cannot be declared");
    return;
  }
  Variable v = make_variable(declarator_);
  if (v.has_init) check_initialiser_size(v, *this);
  add_variable(std::move(v));
}

void ModuleBuilder::decl_end() { decl_ = PendingDecl{}; }

void ModuleBuilder::add_register_decl(const PendingDeclarator& d) {
  if (!in_body_ && !(in_function_ && !in_body_)) {
    error(d.loc, "register declarations are only allowed inside functions");
    return;
  }
  if (!d.dims.empty() || d.has_init) {
    error(d.loc, "registers cannot be arrays or have initialisers");
    return;
  }
  Function& f = fn();
  uint32_t count = d.is_range ? d.range : 1;
  if (f.registers.size() + count > register_limit_) {
    error(d.loc, fmt::format("too many registers in function (limit {})", register_limit_));
    return;
  }
  uint32_t scope = in_body_ ? current_scope() : 0;
  ScopeNames& names = scope_names(scope);
  auto& table = d.is_range ? names.ranges : names.regs;
  uint32_t decl_index = static_cast<uint32_t>(f.reg_decls.size());
  if (!table.emplace(d.name, d.is_range ? decl_index : static_cast<uint32_t>(f.registers.size()))
           .second) {
    error(d.loc, fmt::format("duplicate declaration of register '{}'", d.name));
    return;
  }
  RegisterDecl rd;
  rd.name = d.name;
  rd.type = decl_.type;
  rd.vec = decl_.vec;
  rd.count = d.is_range ? d.range : 0;
  rd.first_reg = static_cast<uint32_t>(f.registers.size());
  rd.scope = scope;
  rd.loc = d.loc;
  f.reg_decls.push_back(rd);
  for (uint32_t i = 0; i < count; ++i) f.registers.push_back({decl_index, i, rd.type, rd.vec});
  if (in_body_) f.body.push_back({BodyItemKind::RegisterDecl, decl_index});
}

void ModuleBuilder::add_variable(Variable v) {
  if (!in_body_) {
    // Module scope.
    if (v.space == StateSpace::Param) {
      error(v.loc, ".param variables are only allowed inside functions");
      return;
    }
    auto it = module_symbols_.find(v.name);
    if (it != module_symbols_.end()) {
      if (it->second.kind == SymbolKind::Global) {
        Variable& old = module_.globals[it->second.index];
        bool old_extern = old.linkage & kExtern, new_extern = v.linkage & kExtern;
        if (old_extern && !new_extern) {  // definition after an extern declaration
          old = std::move(v);
          return;
        }
        if (new_extern) return;  // redundant declaration
      }
      error(v.loc, fmt::format("duplicate definition of '{}'", v.name));
      return;
    }
    uint32_t index = static_cast<uint32_t>(module_.globals.size());
    module_symbols_.emplace(v.name, SymbolRef{SymbolKind::Global, index});
    module_.globals.push_back(std::move(v));
    module_.items.push_back({ModuleItemKind::Global, index});
    return;
  }
  Function& f = fn();
  v.scope = current_scope();
  uint32_t index = static_cast<uint32_t>(f.variables.size());
  if (!declare_symbol(v.scope, v.name, {SymbolKind::Local, index}, v.loc)) return;
  if (!v.init.empty())
    for (const auto& iv : v.init)
      if (iv.kind == InitValue::Kind::Address || iv.kind == InitValue::Kind::GenericAddress)
        error(iv.loc, "symbol addresses in function-scope initialisers are not supported");
  f.variables.push_back(std::move(v));
  f.body.push_back({BodyItemKind::Variable, index});
}

bool ModuleBuilder::declare_symbol(uint32_t scope, std::string_view name, SymbolRef ref,
                                   SourceLocation loc) {
  auto [it, inserted] = scope_names(scope).symbols.emplace(name, ref);
  if (!inserted) {
    error(loc, fmt::format("duplicate definition of '{}' in this scope (previous: {})", name,
                           symbol_kind_name(it->second.kind)));
    return false;
  }
  return true;
}

ModuleBuilder::ScopeNames& ModuleBuilder::scope_names(uint32_t scope) {
  if (scope >= scope_names_.size()) scope_names_.resize(scope + 1);
  return scope_names_[scope];
}

}  // namespace warpsim::ptx
