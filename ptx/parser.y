// PTX grammar (Bison, C++ skeleton). Semantic work is done by ModuleBuilder
// (ptx/module_builder.h); the actions here only route values to it, so the
// grammar stays readable and the builder can be unit-tested on its own.
%skeleton "lalr1.cc"
%require "3.8"
%header
%define api.namespace {warpsim::ptx}
%define api.parser.class {Parser}
%define api.value.type variant
%define api.token.constructor
%define api.token.prefix {TOK_}
%define api.location.type {warpsim::SourceLocation}
%define parse.error custom
%locations

%code requires {
#include <cstdint>
#include <string_view>
#include "common/source_file.h"
#include "ptx/modifiers.h"
namespace warpsim::ptx { class ModuleBuilder; }
typedef void* yyscan_t;
// A rule's location is the location of its first symbol.
#define YYLLOC_DEFAULT(Cur, Rhs, N) \
  do { (Cur) = (N) ? YYRHSLOC(Rhs, 1) : YYRHSLOC(Rhs, 0); } while (0)
}

%param {yyscan_t scanner} {warpsim::ptx::ModuleBuilder& b}

%code {
#include "ptx/module_builder.h"
warpsim::ptx::Parser::symbol_type ptx_lex(yyscan_t scanner, warpsim::ptx::ModuleBuilder& b);
#define yylex ptx_lex
#define ABORT_IF_LIMIT do { if (b.should_abort()) YYABORT; } while (0)
}

%token END 0 "end of file"
%token <std::string_view> IDENT "identifier" DOTTED "instruction" REGISTER "register"
%token <std::string_view> DOTWORD "directive" STRING "string"
%token <std::string_view> FLOAT_F32 "0f float" FLOAT_F64 "0d float" FLOAT_DEC "float"
%token <uint64_t> INTEGER "integer"
%token <warpsim::ptx::ScalarType> TYPE "type"
%token <warpsim::ptx::VectorWidth> VEC "vector width"
%token <warpsim::ptx::StateSpace> SPACE "state space"
%token VERSION ".version" TARGET ".target" ADDRESS_SIZE ".address_size"
%token ENTRY ".entry" FUNC ".func" VISIBLE ".visible" EXTERN ".extern" WEAK ".weak" COMMON ".common"
%token NORETURN ".noreturn" MAXNTID ".maxntid" REQNTID ".reqntid" MINNCTAPERSM ".minnctapersm"
%token MAXNREG ".maxnreg" PRAGMA ".pragma" CALLPROTOTYPE ".callprototype" CALLTARGETS ".calltargets"
%token BRANCHTARGETS ".branchtargets" FILE ".file" LOC ".loc" ALIGN ".align" PTR ".ptr"
%token ATTRIBUTE ".attribute" EXPLICITCLUSTER ".explicitcluster" REQNCTAPERCLUSTER ".reqnctapercluster"
%token MAXCLUSTERRANK ".maxclusterrank" BLOCKSAREACLUSTERS ".blocksareclusters" ALIAS ".alias"
%token ABI_PRESERVE ".abi_preserve" ABI_PRESERVE_CONTROL ".abi_preserve_control"

%type <uint32_t> operands elems list_items addr_extras int_list
%type <int64_t> signed_int addr_offset

%%

module: module_stmts ;

module_stmts: %empty | module_stmts module_stmt { ABORT_IF_LIMIT; } ;

module_stmt
  : VERSION FLOAT_DEC                 { b.set_version($2, @2); }
  | VERSION INTEGER                   { b.set_version_int($2, @2); }
  | TARGET target_list
  | ADDRESS_SIZE INTEGER              { b.set_address_size($2, @2); }
  | FILE INTEGER STRING               { b.add_file($2, $3, false, 0, 0, @1); }
  | FILE INTEGER STRING ',' INTEGER ',' INTEGER { b.add_file($2, $3, true, $5, $7, @1); }
  | linkage_list var_decl ';'
  | linkage_list function
  | ALIAS IDENT ',' IDENT ';'         { b.add_alias($2, $4, @1); }
  | PRAGMA strings ';'
  | error ';'                         { yyerrok; b.reset_instruction(); }
  | error '}'                         { yyerrok; b.recover_function(); }
  ;

target_list: IDENT { b.add_target($1, @1); } | target_list ',' IDENT { b.add_target($3, @3); } ;

strings: STRING { b.pragma($1, @1); } | strings ',' STRING { b.pragma($3, @3); } ;

linkage_list: %empty | linkage_list linkage ;
linkage
  : VISIBLE { b.linkage(kVisible, @1); }
  | EXTERN  { b.linkage(kExtern, @1); }
  | WEAK    { b.linkage(kWeak, @1); }
  | COMMON  { b.linkage(kCommon, @1); }
  ;

/* ---- variable declarations: .global .align 4 .b8 a[4] = {...}, b; ---- */
var_decl: SPACE { b.decl_begin($1, @1); } decl_attrs declarators { b.decl_end(); } ;

decl_attrs: %empty | decl_attrs decl_attr ;
decl_attr
  : TYPE                    { b.decl_type($1, @1); }
  | VEC                     { b.decl_vec($1, @1); }
  | ALIGN INTEGER           { b.decl_align($2, @2); }
  | PTR                     { b.decl_ptr(@1); }
  | SPACE                   { b.decl_space($1, @1); }
  | ATTRIBUTE '(' attr_words ')'
  ;
attr_words: DOTWORD { b.decl_attribute($1, @1); } | attr_words ',' DOTWORD { b.decl_attribute($3, @3); } ;

declarators: declarator | declarators ',' declarator ;
declarator: decl_name dims init_opt { b.declarator_end(); } ;
decl_name
  : IDENT                   { b.declarator($1, @1); }
  | REGISTER                { b.declarator($1, @1); }
  | IDENT '<' INTEGER '>'   { b.declarator_range($1, $3, @1); }
  | REGISTER '<' INTEGER '>' { b.declarator_range($1, $3, @1); }
  ;
dims: %empty | dims '[' INTEGER ']' { b.declarator_dim($3, @3); } | dims '[' ']' { b.declarator_dim_unsized(@2); } ;
init_opt: %empty | '=' { b.init_begin(@1); } initializer ;
initializer: init_value | '{' { b.init_brace(); } init_list '}' ;
init_list: initializer | init_list ',' initializer ;
init_value
  : signed_int               { b.init_int($1, @1); }
  | FLOAT_F32                { b.init_float(FloatSyntax::F32Bits, $1, false, @1); }
  | FLOAT_F64                { b.init_float(FloatSyntax::F64Bits, $1, false, @1); }
  | FLOAT_DEC                { b.init_float(FloatSyntax::Decimal, $1, false, @1); }
  | '-' FLOAT_DEC            { b.init_float(FloatSyntax::Decimal, $2, true, @1); }
  | IDENT                    { b.init_symbol($1, 0, false, @1); }
  | IDENT '+' INTEGER        { b.init_symbol($1, b.offset($3, false, @3), false, @1); }
  | IDENT '-' INTEGER        { b.init_symbol($1, b.offset($3, true, @3), false, @1); }
  | IDENT '(' IDENT ')'      { b.init_generic($1, $3, 0, @1); }
  | IDENT '(' IDENT ')' '+' INTEGER { b.init_generic($1, $3, b.offset($6, false, @6), @1); }
  | IDENT '(' IDENT '+' INTEGER ')' { b.init_generic($1, $3, b.offset($5, false, @5), @1); }
  | INTEGER '(' IDENT ')'             { b.init_masked($1, {}, $3, @1); }
  | INTEGER '(' IDENT '(' IDENT ')' ')' { b.init_masked($1, $3, $5, @1); }
  ;
signed_int: INTEGER { $$ = b.integer($1, false, @1); } | '-' INTEGER { $$ = b.integer($2, true, @2); } ;

/* ---- functions ---- */
function
  : ENTRY IDENT { b.function_begin(true, $2, @2); } param_block_opt func_attrs function_rest
  | FUNC { b.function_begin_func(@1); } func_head func_attrs function_rest
  ;
func_head
  : IDENT { b.function_name($1, @1); } param_block_opt
  | '(' { b.params_begin(true); } params_opt ')' IDENT { b.function_name($5, @5); } param_block_opt
  ;
param_block_opt: %empty | param_block ;
param_block: '(' { b.params_begin(false); } params_opt ')' ;
params_opt: %empty | params ;
params: param | params ',' param ;
param: SPACE { b.decl_begin($1, @1); } decl_attrs decl_name dims { b.param_end(); } ;

func_attrs: %empty | func_attrs func_attr ;
func_attr
  : MAXNTID int_list         { b.perf_directive(token::TOK_MAXNTID, @1); }
  | REQNTID int_list         { b.perf_directive(token::TOK_REQNTID, @1); }
  | REQNCTAPERCLUSTER int_list { b.perf_directive(token::TOK_REQNCTAPERCLUSTER, @1); }
  | MINNCTAPERSM INTEGER     { b.perf_scalar(token::TOK_MINNCTAPERSM, $2, @1); }
  | MAXNREG INTEGER          { b.perf_scalar(token::TOK_MAXNREG, $2, @1); }
  | MAXCLUSTERRANK INTEGER   { b.perf_scalar(token::TOK_MAXCLUSTERRANK, $2, @1); }
  | ABI_PRESERVE INTEGER     { b.perf_scalar(token::TOK_ABI_PRESERVE, $2, @1); }
  | ABI_PRESERVE_CONTROL INTEGER { b.perf_scalar(token::TOK_ABI_PRESERVE_CONTROL, $2, @1); }
  | EXPLICITCLUSTER          { b.perf_scalar(token::TOK_EXPLICITCLUSTER, 1, @1); }
  | BLOCKSAREACLUSTERS       { b.perf_scalar(token::TOK_BLOCKSAREACLUSTERS, 1, @1); }
  | NORETURN                 { b.set_noreturn(); }
  | PRAGMA STRING ';'        { b.pragma($2, @2); }
  ;
int_list: INTEGER { b.int_list_item($1, true); $$ = 1; } | int_list ',' INTEGER { b.int_list_item($3, false); $$ = $1 + 1; } ;

function_rest
  : ';'                              { b.function_end_decl(@1); }
  | '{' { b.body_begin(@1); } body_stmts '}' { b.body_end(@4); }
  ;

/* ---- function bodies ---- */
body_stmts: %empty | body_stmts body_stmt { ABORT_IF_LIMIT; } ;
body_stmt
  : SPACE { b.decl_begin($1, @1); } decl_attrs declarators ';' { b.decl_end(); }
  | IDENT ':'                        { b.label($1, @1); }
  | instruction ';'
  | '{' { b.scope_begin(@1); } body_stmts '}' { b.scope_end(@4); }
  | LOC INTEGER INTEGER INTEGER loc_tail { b.debug_loc($2, $3, $4, @1); }
  | PRAGMA strings ';'
  | CALLPROTOTYPE { b.prototype_begin(@1); } proto_rets IDENT proto_params proto_attrs ';' { b.prototype_end($4, @4); }
  | CALLTARGETS { b.target_list_begin(false, @1); } target_names ';'
  | BRANCHTARGETS { b.target_list_begin(true, @1); } target_names ';'
  | error ';'                        { yyerrok; b.reset_instruction(); }
  ;
/* nvcc: `.loc 1 7 5, function_name $L__info_string0, inlined_at 1 12 3` */
loc_tail: %empty | loc_tail ',' IDENT IDENT | loc_tail ',' IDENT INTEGER INTEGER INTEGER ;

proto_rets: %empty | '(' { b.params_begin(true); } params_opt ')' ;
proto_params: %empty | '(' { b.params_begin(false); } params_opt ')' ;
proto_attrs: %empty | proto_attrs NORETURN { b.prototype_noreturn(); } ;
target_names: IDENT { b.target_name($1, @1); } | target_names ',' IDENT { b.target_name($3, @3); } ;

instruction
  : opcode operands_opt              { b.end_instruction(); }
  | guard opcode operands_opt        { b.end_instruction(); }
  ;
guard
  : '@' REGISTER                     { b.guard($2, false, @2); }
  | '@' '!' REGISTER                 { b.guard($3, true, @3); }
  | '@' IDENT                        { b.guard($2, false, @2); }
  | '@' '!' IDENT                    { b.guard($3, true, @3); }
  ;
opcode: DOTTED { b.begin_instruction($1, @1); } | IDENT { b.begin_instruction($1, @1); } ;
operands_opt: %empty { b.set_operand_count(0); } | operands { b.set_operand_count($1); } ;
operands: operand { $$ = 1; } | operands ',' operand { $$ = $1 + 1; } ;

operand
  : value
  | '!' value                        { b.negate_last(@1); }
  | value '|' value                  { b.make_pair(@1); }
  | '{' elems '}' '|' value          { b.make_vector_pair($2, @1); }
  | '[' address ']'
  | '{' elems '}'                    { b.make_vector($2, @1); }
  | '(' ')'                          { b.make_list(0, @1); }
  | '(' list_items ')'               { b.make_list($2, @1); }
  ;
value
  : REGISTER                         { b.push_register($1, @1); }
  | IDENT                            { b.push_name($1, 0, @1); }
  | IDENT '+' INTEGER                { b.push_name($1, b.offset($3, false, @3), @1); }
  | IDENT '-' INTEGER                { b.push_name($1, b.offset($3, true, @3), @1); }
  | signed_int                       { b.push_int($1, @1); }
  | FLOAT_F32                        { b.push_float(FloatSyntax::F32Bits, $1, false, @1); }
  | FLOAT_F64                        { b.push_float(FloatSyntax::F64Bits, $1, false, @1); }
  | FLOAT_DEC                        { b.push_float(FloatSyntax::Decimal, $1, false, @1); }
  | '-' FLOAT_DEC                    { b.push_float(FloatSyntax::Decimal, $2, true, @1); }
  ;
elems: elem { $$ = 1; } | elems ',' elem { $$ = $1 + 1; } ;
elem: value | '!' value { b.negate_last(@1); } ;
list_items: value { $$ = 1; } | list_items ',' value { $$ = $1 + 1; } ;

address
  : REGISTER addr_offset addr_extras { b.make_address(AddressBase::Register, $1, 0, $2, $3, @1); }
  | IDENT addr_offset addr_extras    { b.make_address(AddressBase::Symbol, $1, 0, $2, $3, @1); }
  | INTEGER addr_extras              { b.make_address(AddressBase::Immediate, {}, b.integer($1, false, @1), 0, $2, @1); }
  ;
addr_offset
  : %empty                           { $$ = 0; }
  | '+' INTEGER                      { $$ = b.offset($2, false, @2); }
  | '+' '-' INTEGER                  { $$ = b.offset($3, true, @3); }
  | '-' INTEGER                      { $$ = b.offset($2, true, @2); }
  ;
addr_extras
  : %empty                           { $$ = 0; }
  | addr_extras ',' REGISTER         { b.push_register($3, @3); $$ = $1 + 1; }
  | addr_extras ',' IDENT            { b.push_name($3, 0, @3); $$ = $1 + 1; }
  | addr_extras ',' '{' elems '}'    { b.make_vector($4, @3); $$ = $1 + 1; }
  ;

%%

void warpsim::ptx::Parser::error(const location_type& loc, const std::string& msg) {
  b.error(loc, msg);
}

void warpsim::ptx::Parser::report_syntax_error(const context& ctx) const {
  b.syntax_error(ctx);
}
