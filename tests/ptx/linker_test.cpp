// Linker tests: hand-written multi-module PTX programs as `nvcc -rdc=true`
// produces them, linked into one module.
#include "ptx/linker.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "ptx/checker.h"
#include "ptx/equivalence.h"
#include "ptx/printer.h"
#include "ptx_test_util.h"

namespace warpsim::ptx {
namespace {

using testing::kHeader;

struct Linked {
  std::unique_ptr<Module> module;
  std::vector<const SourceFile*> sources;  // the inputs' sources, in order
  DiagnosticEngine diags;
  std::string errors() const { return diags.format_all(); }
  bool ok() const { return !diags.has_errors(); }
};

// Parses and checks each (name, text) module, then links them in order.
std::unique_ptr<Linked> link(const std::vector<std::pair<std::string, std::string>>& inputs) {
  auto l = std::make_unique<Linked>();
  std::vector<std::unique_ptr<Module>> modules;
  for (const auto& [name, text] : inputs) {
    DiagnosticEngine diags;
    modules.push_back(parse_and_check(text, name, diags));
    EXPECT_FALSE(diags.has_errors()) << diags.format_all();
    l->sources.push_back(modules.back()->source.get());
  }
  l->module = link_modules(std::move(modules), l->diags);
  return l;
}

uint32_t function_index(const Module& m, std::string_view name) {
  for (uint32_t i = 0; i < m.functions.size(); ++i)
    if (m.functions[i].name == name) return i;
  ADD_FAILURE() << "no function " << name;
  return kNone;
}

uint32_t global_index(const Module& m, std::string_view name) {
  for (uint32_t i = 0; i < m.globals.size(); ++i)
    if (m.globals[i].name == name) return i;
  ADD_FAILURE() << "no global " << name;
  return kNone;
}

// The symbol (or symbol-based address) operand written as `name` in `f`.
SymbolRef symbol_use(const Function& f, std::string_view name) {
  for (const Operand& op : f.operands)
    if ((op.kind == OperandKind::Symbol || op.kind == OperandKind::Address) && op.name == name)
      return op.sym;
  ADD_FAILURE() << "no use of " << name << " in " << f.name;
  return {};
}

// First immediate operand of a function: tells same-named bodies apart.
int64_t first_immediate(const Function& f) {
  for (const Operand& op : f.operands)
    if (op.kind == OperandKind::Immediate) return op.value;
  return -1;
}

// The linked module passes the checker, and printing it gives PTX that parses
// back to the same module: references, renamed names and .loc files agree.
void check_ok(const Module& m) {
  DiagnosticEngine diags;
  EXPECT_TRUE(check(m, diags)) << diags.format_all();
  std::string text = print_module(m);
  DiagnosticEngine reparse_diags;
  auto reparsed = parse_and_check(text, "linked.ptx", reparse_diags);
  ASSERT_FALSE(reparse_diags.has_errors()) << reparse_diags.format_all() << text;
  std::string difference;
  EXPECT_TRUE(equivalent(m, *reparsed, &difference)) << difference << "\n" << text;
}

// A .func returning `value` from a b32 return parameter.
std::string returning_func(const std::string& linkage, const std::string& name, int value) {
  return linkage + " .func (.param .b32 r) " + name +
         "()\n{\n.reg .b32 %r<2>;\nmov.u32 %r1, " + std::to_string(value) +
         ";\nst.param.b32 [r], %r1;\nret;\n}\n";
}

// A kernel storing the result of `callee()` to its u64 pointer parameter.
std::string calling_kernel(const std::string& name, const std::string& callee) {
  return ".visible .entry " + name +
         "(.param .u64 out)\n{\n.reg .b32 %r<2>;\n.reg .b64 %rd<2>;\n"
         "ld.param.u64 %rd1, [out];\n{\n.param .b32 rv;\ncall.uni (rv), " + callee +
         ", ();\nld.param.b32 %r1, [rv];\n}\nst.global.u32 [%rd1], %r1;\nret;\n}\n";
}

const std::string kAdd1Decl =
    ".extern .func (.param .b32 r) add1(.param .b32 x);\n";
const std::string kAdd1Def =
    ".visible .func (.param .b32 r) add1(.param .b32 x)\n{\n.reg .b32 %r<3>;\n"
    "ld.param.b32 %r1, [x];\nadd.s32 %r2, %r1, 1;\nst.param.b32 [r], %r2;\nret;\n}\n";
const std::string kAdd1Kernel =
    ".visible .entry k(.param .u64 out)\n{\n.reg .b32 %r<3>;\n.reg .b64 %rd<2>;\n"
    "ld.param.u64 %rd1, [out];\nmov.u32 %r1, 41;\n"
    "{\n.param .b32 p0;\nst.param.b32 [p0], %r1;\n.param .b32 rv;\n"
    "call.uni (rv), add1, (p0);\nld.param.b32 %r2, [rv];\n}\n"
    "st.global.u32 [%rd1], %r2;\nret;\n}\n";

TEST(Linker, ExternFuncResolvesToDefinitionInAnotherModule) {
  auto l = link({{"a.ptx", kHeader + kAdd1Decl + kAdd1Kernel},
                 {"b.ptx", std::string(kHeader) + returning_func("", "other", 7) + kAdd1Def}});
  ASSERT_TRUE(l->ok()) << l->errors();
  const Module& m = *l->module;
  // a's declaration is dropped: k, then b's other and add1.
  ASSERT_EQ(m.functions.size(), 3u);
  EXPECT_EQ(m.functions[0].name, "k");
  EXPECT_EQ(m.functions[2].name, "add1");
  EXPECT_TRUE(m.functions[2].has_body);
  EXPECT_EQ(symbol_use(m.functions[0], "add1"), (SymbolRef{SymbolKind::Function, 2}));
  ASSERT_EQ(m.items.size(), 3u);
  EXPECT_EQ(m.items[0].kind, ModuleItemKind::FunctionDef);
  EXPECT_EQ(m.items[0].index, 0u);
  EXPECT_EQ(m.items[2].index, 2u);
  ASSERT_EQ(m.linked_sources.size(), 2u);
  EXPECT_EQ(m.linked_sources[0].get(), l->sources[0]);
  EXPECT_EQ(m.linked_sources[1].get(), l->sources[1]);
  EXPECT_EQ(m.source, nullptr);
  check_ok(m);
}

TEST(Linker, ExternGlobalInInitialiserAndOperand) {
  auto l = link({{"a.ptx", std::string(kHeader) +
                               ".extern .global .align 4 .u32 table[4];\n"
                               ".visible .global .u64 ptr = table;\n"
                               ".visible .entry k()\n{\n.reg .b64 %rd<2>;\n"
                               "mov.u64 %rd1, table;\nret;\n}\n"},
                 {"b.ptx", std::string(kHeader) + ".global .u32 pad;\n"
                                                  ".visible .global .align 4 .u32 table[4] = "
                                                  "{1, 2, 3, 4};\n"}});
  ASSERT_TRUE(l->ok()) << l->errors();
  const Module& m = *l->module;
  ASSERT_EQ(m.globals.size(), 3u);  // ptr, pad, table
  uint32_t table = global_index(m, "table");
  EXPECT_EQ(table, 2u);
  EXPECT_TRUE(m.globals[table].has_init);
  const Variable& ptr = m.globals[global_index(m, "ptr")];
  ASSERT_EQ(ptr.init.size(), 1u);
  EXPECT_EQ(ptr.init[0].sym, (SymbolRef{SymbolKind::Global, table}));
  EXPECT_EQ(symbol_use(m.functions[0], "table"), (SymbolRef{SymbolKind::Global, table}));
  check_ok(m);
}

TEST(Linker, UnresolvedExternIsAnError) {
  auto l = link({{"a.ptx", std::string(kHeader) +
                               ".extern .func (.param .b32 r) missing();\n" +
                               calling_kernel("k", "missing")}});
  EXPECT_FALSE(l->ok());
  ASSERT_EQ(l->diags.error_count(), 1u);
  EXPECT_NE(l->errors().find("unresolved symbol 'missing'"), std::string::npos) << l->errors();
  EXPECT_EQ(l->diags.diagnostics()[0].file, "a.ptx");
  EXPECT_EQ(l->diags.diagnostics()[0].location.line, 4u);
  // The declaration stays so the module remains well-formed.
  EXPECT_EQ(symbol_use(l->module->functions[function_index(*l->module, "k")], "missing").kind,
            SymbolKind::Function);
}

TEST(Linker, RuntimeFunctionsMayStayUnresolvedButLibdeviceMayNot) {
  const std::string vprintf_decl =
      ".extern .func (.param .b32 r) vprintf(.param .b64 fmt, .param .b64 args);\n";
  auto l = link({{"a.ptx", kHeader + vprintf_decl + ".extern .shared .align 4 .b8 smem[];\n"},
                 {"b.ptx", kHeader + vprintf_decl + ".extern .shared .align 16 .b8 smem[];\n"
                                                    ".extern .func (.param .f32 r) __nv_sinf("
                                                    ".param .f32 x);\n"}});
  EXPECT_EQ(l->diags.error_count(), 1u) << l->errors();
  EXPECT_NE(l->errors().find("unresolved symbol '__nv_sinf'"), std::string::npos);
  // One declaration of each is kept.
  EXPECT_EQ(l->module->functions.size(), 2u);
  ASSERT_EQ(l->module->globals.size(), 1u);
  EXPECT_EQ(l->module->globals[0].alignment(), 16u);
  EXPECT_TRUE(is_runtime_function("cudaLaunchDeviceV2"));
  EXPECT_FALSE(is_runtime_function("__nv_expf"));
}

TEST(Linker, DuplicateStrongDefinitions) {
  auto l = link({{"a.ptx", kHeader + kAdd1Def}, {"b.ptx", kHeader + kAdd1Def}});
  EXPECT_FALSE(l->ok());
  std::string e = l->errors();
  EXPECT_NE(e.find("duplicate symbol 'add1'"), std::string::npos) << e;
  EXPECT_NE(e.find("'a.ptx'"), std::string::npos) << e;
  EXPECT_NE(e.find("'b.ptx'"), std::string::npos) << e;
  EXPECT_EQ(l->diags.diagnostics()[0].file, "b.ptx");
}

TEST(Linker, WeakDefinitionYieldsToStrong) {
  auto l = link({{"a.ptx",
                  kHeader + returning_func(".weak", "pick", 1) + calling_kernel("k", "pick")},
                 {"b.ptx", kHeader + returning_func(".visible", "pick", 2)},
                 {"c.ptx", kHeader + returning_func(".weak", "pick", 3)}});
  ASSERT_TRUE(l->ok()) << l->errors();
  const Module& m = *l->module;
  ASSERT_EQ(m.functions.size(), 2u);  // k and b's pick
  uint32_t pick = function_index(m, "pick");
  EXPECT_EQ(first_immediate(m.functions[pick]), 2);
  EXPECT_EQ(symbol_use(m.functions[function_index(m, "k")], "pick"),
            (SymbolRef{SymbolKind::Function, pick}));
  EXPECT_EQ(m.items.size(), 2u);  // the weak definitions' items are gone
  check_ok(m);

  // Between weak definitions only, the first one wins.
  auto w = link({{"a.ptx", kHeader + returning_func(".weak", "pick", 1)},
                 {"b.ptx", kHeader + returning_func(".weak", "pick", 2)}});
  ASSERT_TRUE(w->ok()) << w->errors();
  ASSERT_EQ(w->module->functions.size(), 1u);
  EXPECT_EQ(first_immediate(w->module->functions[0]), 1);
}

TEST(Linker, CommonGlobalsMergeToLargest) {
  auto l = link({{"a.ptx", std::string(kHeader) + ".common .global .align 4 .b8 buf[16];\n"
                                                  ".visible .entry k()\n{\n.reg .b64 %rd<2>;\n"
                                                  "mov.u64 %rd1, buf;\nret;\n}\n"},
                 {"b.ptx", std::string(kHeader) + ".common .global .align 4 .b8 buf[64];\n"},
                 {"c.ptx", std::string(kHeader) + ".common .global .align 4 .b8 buf[32];\n"}});
  ASSERT_TRUE(l->ok()) << l->errors();
  const Module& m = *l->module;
  ASSERT_EQ(m.globals.size(), 1u);
  EXPECT_EQ(m.globals[0].size_bytes(), 64u);
  EXPECT_EQ(symbol_use(m.functions[0], "buf"), (SymbolRef{SymbolKind::Global, 0}));
  check_ok(m);

  // Only the largest definition may carry an initialiser.
  auto bad = link({{"a.ptx", std::string(kHeader) + ".common .global .u32 c = 5;\n"},
                   {"b.ptx", std::string(kHeader) + ".common .global .u32 c[2];\n"}});
  EXPECT_NE(bad->errors().find("initialised .common symbol 'c'"), std::string::npos)
      << bad->errors();
}

TEST(Linker, ModuleLocalSymbolsWithTheSameNameAreRenamed) {
  auto l = link(
      {{"a.ptx", kHeader + returning_func("", "helper", 1) + calling_kernel("ka", "helper")},
       {"b.ptx", kHeader + returning_func("", "helper", 2) + calling_kernel("kb", "helper")}});
  ASSERT_TRUE(l->ok()) << l->errors();
  const Module& m = *l->module;
  ASSERT_EQ(m.functions.size(), 4u);
  uint32_t ha = function_index(m, "helper"), hb = function_index(m, "helper$m1");
  EXPECT_EQ(first_immediate(m.functions[ha]), 1);
  EXPECT_EQ(first_immediate(m.functions[hb]), 2);
  EXPECT_EQ(symbol_use(m.functions[function_index(m, "ka")], "helper"),
            (SymbolRef{SymbolKind::Function, ha}));
  // The reference is renamed with its target, so the module prints consistently.
  EXPECT_EQ(symbol_use(m.functions[function_index(m, "kb")], "helper$m1"),
            (SymbolRef{SymbolKind::Function, hb}));
  check_ok(m);

  // A local name that a later module makes visible: the local one moves aside.
  auto v = link({{"a.ptx", std::string(kHeader) + ".global .u32 g;\n"},
                 {"b.ptx", std::string(kHeader) + ".visible .global .u32 g;\n"}});
  ASSERT_TRUE(v->ok()) << v->errors();
  ASSERT_EQ(v->module->globals.size(), 2u);
  EXPECT_EQ(v->module->globals[0].name, "g$m0");
  EXPECT_EQ(v->module->globals[1].name, "g");
}

TEST(Linker, LocFileIndicesAreRemapped) {
  // Both modules number their own files from 1; b's move past a's.
  auto l = link({{"a.ptx", std::string(kHeader) + ".file 1 \"a.cu\"\n.file 2 \"common.h\"\n" +
                               ".visible .entry ka()\n{\n.loc 2 5 0\nret;\n}\n"},
                 {"b.ptx", std::string(kHeader) + ".file 1 \"b.cu\"\n" +
                               ".visible .entry kb()\n{\n.loc 1 10 0\nret;\n}\n"}});
  ASSERT_TRUE(l->ok()) << l->errors();
  const Module& m = *l->module;
  ASSERT_EQ(m.files.size(), 3u);
  EXPECT_EQ(m.files[0].index, 1u);
  EXPECT_EQ(m.files[1].index, 2u);
  EXPECT_EQ(m.files[2].index, 3u);
  EXPECT_EQ(m.files[2].path, "b.cu");
  EXPECT_EQ(m.functions[0].instructions[0].debug, (DebugLoc{2, 5, 0}));
  EXPECT_EQ(m.functions[1].instructions[0].debug, (DebugLoc{3, 10, 0}));
  check_ok(m);
}

TEST(Linker, CalltargetsAndAliasesAreRewritten) {
  auto l = link({{"a.ptx", std::string(kHeader) + returning_func("", "local", 1) +
                               ".visible .entry k(.param .u64 fp)\n{\n.reg .b32 %r<2>;\n"
                               ".reg .b64 %rd<2>;\nld.param.u64 %rd1, [fp];\n"
                               "fns: .calltargets local;\n{\n.param .b32 rv;\n"
                               "call (rv), %rd1, (), fns;\nld.param.b32 %r1, [rv];\n}\nret;\n}\n"},
                 {"b.ptx", std::string(kHeader) + returning_func("", "local", 2) +
                               ".visible .func (.param .b32 r) other();\n"
                               ".alias other, local;\n"}});
  ASSERT_TRUE(l->ok()) << l->errors();
  const Module& m = *l->module;
  const TargetList& t = m.functions[function_index(m, "k")].target_lists.at(0);
  EXPECT_EQ(t.targets.at(0), (SymbolRef{SymbolKind::Function, function_index(m, "local")}));
  ASSERT_EQ(m.aliases.size(), 1u);
  EXPECT_EQ(m.aliases[0].alias, "other");
  EXPECT_EQ(m.aliases[0].target, "local$m1");
  EXPECT_EQ(m.items.back().kind, ModuleItemKind::Alias);
  EXPECT_EQ(m.items.back().index, 0u);
  check_ok(m);
}

TEST(Linker, MismatchedDeclarationsAreErrors) {
  auto sig = link({{"a.ptx", std::string(kHeader) + ".extern .func (.param .b32 r) add1();\n"},
                   {"b.ptx", kHeader + kAdd1Def}});
  EXPECT_NE(sig->errors().find("'add1' in 'a.ptx' does not match its definition in 'b.ptx'"),
            std::string::npos)
      << sig->errors();
  auto kind = link({{"a.ptx", std::string(kHeader) + ".extern .global .u32 add1;\n"},
                    {"b.ptx", kHeader + kAdd1Def}});
  EXPECT_NE(kind->errors().find("'add1' is declared as a variable"), std::string::npos)
      << kind->errors();
  auto size = link({{"a.ptx", std::string(kHeader)},
                    {"b.ptx", ".version 8.5\n.target sm_80\n.address_size 32\n"}});
  EXPECT_NE(size->errors().find(".address_size 32 of 'b.ptx'"), std::string::npos)
      << size->errors();
}

TEST(Linker, SingleModuleIsUnchanged) {
  const std::string text = std::string(kHeader) + ".file 1 \"x.cu\"\n" +
                           ".global .u32 counter;\n.visible .global .u64 p = counter;\n" +
                           kAdd1Def + returning_func("", "helper", 3) +
                           calling_kernel("k", "helper") +
                           ".extern .func (.param .b32 r) vprintf(.param .b64 a, .param .b64 b);\n";
  DiagnosticEngine diags;
  auto ref = parse_and_check(text, "x.ptx", diags);
  auto l = link({{"x.ptx", text}});
  ASSERT_TRUE(l->ok()) << l->errors();
  const Module& m = *l->module;
  EXPECT_EQ(m.version_major, ref->version_major);
  EXPECT_EQ(m.version_minor, ref->version_minor);
  EXPECT_EQ(m.targets, ref->targets);
  EXPECT_EQ(m.address_size, ref->address_size);
  std::string difference;
  EXPECT_TRUE(equivalent(*ref, m, &difference)) << difference;
  check_ok(m);
}

TEST(Linker, ResultKeepsInputStorageAlive) {
  DiagnosticEngine diags;
  std::vector<std::unique_ptr<Module>> modules;
  modules.push_back(parse(kHeader + kAdd1Def, "a.ptx", diags));
  // A name in the input's interned storage rather than its source text.
  modules[0]->functions[0].name = modules[0]->intern(std::string("renamed_") + "add1");
  auto m = link_modules(std::move(modules), diags);
  ASSERT_FALSE(diags.has_errors()) << diags.format_all();
  EXPECT_EQ(m->functions.at(0).name, "renamed_add1");
  EXPECT_EQ(m->functions[0].params.at(0).name, "x");
  EXPECT_EQ(m->targets.at(0), "sm_80");

  // Linking a linked module again keeps the original sources listed.
  std::vector<std::unique_ptr<Module>> again;
  again.push_back(std::move(m));
  auto m2 = link_modules(std::move(again), diags);
  ASSERT_EQ(m2->linked_sources.size(), 1u);
  EXPECT_EQ(m2->linked_sources[0]->name(), "a.ptx");
  EXPECT_EQ(m2->functions.at(0).name, "renamed_add1");

  // Names the first link interned (renamed locals) survive a second link,
  // alone (only the inner module owns them) and with another module.
  for (bool with_c : {false, true}) {
    std::vector<std::unique_ptr<Module>> parts;
    for (const char* name : {"a.ptx", "b.ptx"})
      parts.push_back(parse(kHeader + returning_func("", "helper", 1), name, diags));
    std::vector<std::unique_ptr<Module>> outer;
    outer.push_back(link_modules(std::move(parts), diags));
    if (with_c) outer.push_back(parse(kHeader + returning_func("", "helper", 3), "c.ptx", diags));
    auto m3 = link_modules(std::move(outer), diags);
    ASSERT_FALSE(diags.has_errors()) << diags.format_all();
    ASSERT_EQ(m3->functions.size(), with_c ? 3u : 2u);
    EXPECT_EQ(m3->functions[1].name, "helper$m1");
    if (with_c) {
      EXPECT_EQ(m3->functions[2].name, "helper$m1$2");
    }
    EXPECT_EQ(m3->linked_sources.size(), with_c ? 3u : 2u);
  }
}

}  // namespace
}  // namespace warpsim::ptx
