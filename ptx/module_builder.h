#pragma once
// ModuleBuilder: the semantic side of the PTX parser. The Bison grammar
// (parser.y) calls one method per construct; the builder fills a ptx::Module,
// resolves names (registers as they are used, labels and variables at the end
// of each body, globals and functions at the end of the module) and reports
// located diagnostics. Structural checks that need the whole instruction
// (operand counts and kinds) live in checker.cpp.
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "common/diagnostics.h"
#include "ptx/ir.h"
#include "ptx/parser.hpp"

namespace warpsim::ptx {

class ModuleBuilder {
 public:
  ModuleBuilder(Module& module, const SourceFile& source, DiagnosticEngine& diags,
                const char* scan_begin);

  // ---- lexer support -------------------------------------------------------
  SourceLocation token_loc;
  SourceLocation comment_start;
  int section_depth = 0;
  void newline(const char* next_line) {
    ++line_;
    line_start_ = next_line;
  }
  SourceLocation location_of(const char* p) const {
    return {line_, static_cast<uint32_t>(p - line_start_ + 1)};
  }
  // Re-bases a view into the scan buffer onto the module's source text.
  std::string_view stable(std::string_view scanned) const {
    return std::string_view(source_text_ + (scanned.data() - scan_begin_), scanned.size());
  }
  uint64_t parse_integer(std::string_view text, int base);
  Parser::symbol_type dotword(std::string_view text, SourceLocation loc);
  void bad_character(char c, SourceLocation loc);

  // ---- diagnostics -----------------------------------------------------------
  void error(SourceLocation loc, std::string message);
  void syntax_error(const Parser::context& ctx);
  bool should_abort() const { return diags_.limit_reached(); }

  // ---- module directives -----------------------------------------------------
  void set_version(std::string_view text, SourceLocation loc);
  void set_version_int(uint64_t major, SourceLocation loc);
  void add_target(std::string_view name, SourceLocation loc);
  void set_address_size(uint64_t bits, SourceLocation loc);
  void add_file(uint64_t index, std::string_view quoted_path, bool extra, uint64_t timestamp,
                uint64_t size, SourceLocation loc);
  void add_alias(std::string_view alias, std::string_view target, SourceLocation loc);
  void pragma(std::string_view quoted, SourceLocation loc);
  void linkage(Linkage l, SourceLocation loc);

  // ---- declarations (variables, registers, parameters) -----------------------
  void decl_begin(StateSpace space, SourceLocation loc);
  void decl_type(ScalarType t, SourceLocation loc);
  void decl_vec(VectorWidth v, SourceLocation loc);
  void decl_align(uint64_t align, SourceLocation loc);
  void decl_ptr(SourceLocation loc);
  void decl_space(StateSpace s, SourceLocation loc);
  void decl_attribute(std::string_view word, SourceLocation loc);
  void declarator(std::string_view name, SourceLocation loc);
  void declarator_range(std::string_view name, uint64_t count, SourceLocation loc);
  void declarator_dim(uint64_t n, SourceLocation loc);
  void declarator_dim_unsized(SourceLocation loc);
  void declarator_end();
  void decl_end();
  void init_begin(SourceLocation loc);
  void init_brace();
  void init_int(int64_t v, SourceLocation loc);
  void init_float(FloatSyntax syntax, std::string_view text, bool negative, SourceLocation loc);
  void init_symbol(std::string_view name, int64_t offset, bool generic, SourceLocation loc);
  void init_generic(std::string_view fn, std::string_view name, int64_t offset, SourceLocation loc);
  void init_masked(uint64_t mask, std::string_view fn, std::string_view name, SourceLocation loc);
  int64_t integer(uint64_t magnitude, bool negative, SourceLocation loc);
  int64_t offset(uint64_t magnitude, bool negative, SourceLocation loc) {
    return integer(magnitude, negative, loc);
  }

  // ---- functions ---------------------------------------------------------------
  void function_begin(bool is_entry, std::string_view name, SourceLocation loc);
  void function_begin_func(SourceLocation loc);
  void function_name(std::string_view name, SourceLocation loc);
  void params_begin(bool returns);
  void param_end();
  void int_list_item(uint64_t v, bool first);
  void perf_directive(int token, SourceLocation loc);
  void perf_scalar(int token, uint64_t value, SourceLocation loc);
  void set_noreturn();
  void function_end_decl(SourceLocation loc);
  void body_begin(SourceLocation loc);
  void body_end(SourceLocation loc);
  void recover_function();

  // ---- body statements -----------------------------------------------------------
  void scope_begin(SourceLocation loc);
  void scope_end(SourceLocation loc);
  void label(std::string_view name, SourceLocation loc);
  void debug_loc(uint64_t file, uint64_t line, uint64_t column, SourceLocation loc);
  void prototype_begin(SourceLocation loc);
  void prototype_end(std::string_view placeholder, SourceLocation loc);
  void prototype_noreturn() { prototype_.noreturn = true; }
  void target_list_begin(bool is_branch, SourceLocation loc);
  void target_name(std::string_view name, SourceLocation loc);

  // ---- instructions ------------------------------------------------------------
  void guard(std::string_view reg, bool negated, SourceLocation loc);
  void begin_instruction(std::string_view mnemonic, SourceLocation loc);
  void push_register(std::string_view text, SourceLocation loc);
  void push_name(std::string_view name, int64_t offset, SourceLocation loc);
  void push_int(int64_t value, SourceLocation loc);
  void push_float(FloatSyntax syntax, std::string_view text, bool negative, SourceLocation loc);
  void negate_last(SourceLocation loc);
  void make_pair(SourceLocation loc);
  void make_vector_pair(uint32_t count, SourceLocation loc);
  void make_vector(uint32_t count, SourceLocation loc);
  void make_list(uint32_t count, SourceLocation loc);
  void make_address(AddressBase base, std::string_view name, int64_t imm, int64_t offset,
                    uint32_t extras, SourceLocation loc);
  void set_operand_count(uint32_t n) { operand_count_ = n; }
  void end_instruction();
  // Drops the instruction being built (its guard and operands so far): after
  // a syntax error they must not reach the next instruction.
  void reset_instruction();

  // Called once after a successful or failed parse: resolves module-level
  // names and checks required directives.
  void finish();

 private:
  struct PendingDecl {
    StateSpace space = StateSpace::None;
    SourceLocation loc;
    uint8_t linkage = kLinkageNone;
    ScalarType type = ScalarType::None;
    VectorWidth vec = VectorWidth::None;
    uint32_t align = 0;
    bool is_ptr = false;
    StateSpace ptr_space = StateSpace::None;
    uint32_t ptr_align = 0;
    bool managed = false;
  };
  struct PendingDeclarator {
    std::string_view name;
    SourceLocation loc;
    bool is_range = false;
    uint32_t range = 0;
    std::vector<uint64_t> dims;
    bool has_init = false;
    bool init_braced = false;
    std::vector<InitValue> init;
  };
  // Per-scope name tables, valid while a body is being parsed.
  struct ScopeNames {
    std::unordered_map<std::string_view, uint32_t> regs;    // exact register names
    std::unordered_map<std::string_view, uint32_t> ranges;  // range prefixes -> reg_decls index
    std::unordered_map<std::string_view, SymbolRef> symbols;
  };
  // A name used in a body that is resolved at the end of the body / module.
  struct PendingUse {
    uint32_t operand;  // index in Function::operands
    uint32_t scope;
    Opcode opcode;     // of the instruction using it (for the diagnostic)
  };
  struct ModuleUse {
    uint32_t function;
    uint32_t operand;
  };
  enum class ParamTarget { Function, FunctionReturns, Prototype, PrototypeReturns };

  Variable make_variable(const PendingDeclarator& d) const;
  void add_register_decl(const PendingDeclarator& d);
  void add_variable(Variable v);
  bool declare_symbol(uint32_t scope, std::string_view name, SymbolRef ref, SourceLocation loc);
  const uint32_t* find_register(std::string_view name) const;
  Function& fn() { return current_; }
  uint32_t current_scope() const { return scope_stack_.back(); }
  ScopeNames& scope_names(uint32_t scope);
  bool take_pending_label(std::string_view& name, SourceLocation& loc);
  void record_pending_uses(uint32_t first, uint32_t end);
  void resolve_body_names();
  bool resolve_in_scopes(std::string_view name, uint32_t scope, SymbolRef& out) const;
  void merge_function(bool has_body);
  double parse_decimal(std::string_view text, SourceLocation loc);
  int64_t float_bits(FloatSyntax syntax, std::string_view text, bool negative, SourceLocation loc);

  Module& module_;
  const SourceFile& source_;
  DiagnosticEngine& diags_;
  const char* scan_begin_;
  const char* source_text_;
  uint32_t line_ = 1;
  const char* line_start_;

  uint8_t pending_linkage_ = kLinkageNone;
  PendingDecl decl_;
  PendingDeclarator declarator_;
  bool in_function_ = false;
  bool in_body_ = false;
  bool in_prototype_ = false;
  ParamTarget param_target_ = ParamTarget::Function;
  std::vector<uint32_t> int_list_;
  Function current_;
  CallPrototype prototype_;
  std::vector<uint32_t> scope_stack_;
  uint32_t excess_depth_ = 0;  // blocks open beyond kMaxBlockDepth (refused, not scopes)
  std::vector<ScopeNames> scope_names_;
  std::vector<PendingUse> pending_uses_;
  std::vector<ModuleUse> module_uses_;
  std::vector<std::pair<uint32_t, uint32_t>> calltarget_uses_;  // (function, target list)
  std::unordered_map<std::string_view, SymbolRef> module_symbols_;
  bool has_pending_label_ = false;
  DebugLoc debug_;

  // instruction under construction
  bool inst_valid_ = false;
  Instruction inst_;
  std::vector<Operand> scratch_;
  std::vector<Operand> elems_;
  uint32_t operand_count_ = 0;
  bool has_guard_ = false;
  bool guard_negated_ = false;
  uint32_t guard_reg_ = kNone;
  size_t register_limit_ = 1u << 22;
  mutable uint32_t range_hit_ = 0;  // find_register() result for range names
};

// Runs the scanner and parser over `buffer`, which holds the text followed by
// two NUL bytes. Defined in lexer.l.
bool run_parser(char* buffer, size_t size_with_padding, ModuleBuilder& builder);

}  // namespace warpsim::ptx
