// The compile pipeline (ptx/compile.h): parse and check each source, link
// several, run passes in order after linking; errors stop it, and with
// check_after_each_pass a pass that leaves the module invalid is named.
#include "ptx/compile.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "ptx/checker.h"
#include "ptx_test_util.h"

namespace warpsim::ptx {
namespace {

using testing::kHeader;

// A kernel that loads twice from global memory and calls load_first, which
// lib.ptx defines.
const std::string kMain = std::string(kHeader) +
                          ".extern .func (.param .b32 r) load_first(.param .b64 p);\n"
                          ".visible .entry k(.param .u64 in, .param .u64 out)\n{\n"
                          ".reg .b32 %r<5>;\n.reg .b64 %rd<3>;\n"
                          "ld.param.u64 %rd1, [in];\n"            // 0
                          "ld.param.u64 %rd2, [out];\n"           // 1
                          "ld.global.u32 %r1, [%rd1+4];\n"        // 2
                          "{\n.param .b64 p0;\nst.param.b64 [p0], %rd1;\n"  // 3
                          ".param .b32 rv;\ncall.uni (rv), load_first, (p0);\n"  // 4
                          "ld.param.b32 %r2, [rv];\n}\n"           // 5
                          "ld.global.u32 %r3, [%rd1+8];\n"        // 6
                          "add.s32 %r4, %r1, %r2;\n"              // 7
                          "add.s32 %r4, %r4, %r3;\n"              // 8
                          "st.global.u32 [%rd2], %r4;\n"          // 9
                          "ret;\n}\n";                            // 10
const std::string kLib = std::string(kHeader) +
                         ".visible .func (.param .b32 r) load_first(.param .b64 p)\n{\n"
                         ".reg .b32 %r<2>;\n.reg .b64 %rd<2>;\n"
                         "ld.param.u64 %rd1, [p];\n"      // 0
                         "ld.global.u32 %r1, [%rd1];\n"   // 1
                         "st.param.b32 [r], %r1;\n"       // 2
                         "ret;\n}\n";                     // 3
const std::string kLone = std::string(kHeader) +
                          ".visible .entry lone(.param .u64 out)\n{\n"
                          ".reg .b32 %r<2>;\n.reg .b64 %rd<2>;\n"
                          "ld.param.u64 %rd1, [out];\n"
                          "ld.global.u32 %r1, [%rd1];\n"
                          "st.global.u32 [%rd1], %r1;\n"
                          "ret;\n}\n";

size_t functions_with_bodies(const Module& m) {
  return static_cast<size_t>(std::count_if(m.functions.begin(), m.functions.end(),
                                           [](const Function& f) { return f.has_body; }));
}

// Logs "<name>: <functions with bodies>" when it runs: the order passes ran
// in, and whether the module they saw was already linked.
class RecordingPass : public ModulePass {
 public:
  RecordingPass(std::string name, std::vector<std::string>& log)
      : name_(std::move(name)), log_(log) {}
  std::string_view name() const override { return name_; }
  void run(Module& module, DiagnosticEngine&) override {
    log_.push_back(name_ + ": " + std::to_string(functions_with_bodies(module)));
  }

 private:
  std::string name_;
  std::vector<std::string>& log_;
};

// Marks every ld.global with kGlobalLoad and groups each function's loads
// (group = function index + 1).
constexpr uint32_t kGlobalLoad = 1u << 3;
class AnnotateGlobalLoads : public ModulePass {
 public:
  std::string_view name() const override { return "annotate-global-loads"; }
  void run(Module& module, DiagnosticEngine&) override {
    for (uint32_t fi = 0; fi < module.functions.size(); ++fi)
      for (Instruction& inst : module.functions[fi].instructions)
        if (inst.opcode == Opcode::Ld && inst.mods.space(0) == StateSpace::Global)
          inst.annotation = Annotation{kGlobalLoad, fi + 1};
  }
};

// Drops the last register declaration of the first function with a body
// (its registers stay in use): the module no longer checks.
class DropRegisterDeclaration : public ModulePass {
 public:
  std::string_view name() const override { return "drop-register-declaration"; }
  void run(Module& module, DiagnosticEngine&) override {
    for (Function& f : module.functions) {
      if (!f.has_body || f.reg_decls.empty()) continue;
      const auto dropped = static_cast<uint32_t>(f.reg_decls.size() - 1);
      f.reg_decls.pop_back();
      std::erase_if(f.body, [&](const BodyItem& b) {
        return b.kind == BodyItemKind::RegisterDecl && b.index == dropped;
      });
      return;
    }
  }
};

// Reports an error instead of transforming anything.
class FailingPass : public ModulePass {
 public:
  std::string_view name() const override { return "failing"; }
  void run(Module& module, DiagnosticEngine& diags) override {
    diags.error(module.source.get(), {}, "failing: cannot transform this module");
  }
};

struct Compiled {
  std::unique_ptr<Module> module;
  DiagnosticEngine diags;
  std::string errors() const { return diags.format_all(); }
};

// Compiles (name, text) sources in order.
std::unique_ptr<Compiled> compile_texts(
    const std::vector<std::pair<std::string, std::string>>& texts,
    const CompileOptions& options = {}) {
  std::vector<PtxSource> sources;
  for (const auto& [name, text] : texts) sources.push_back({text, name});
  auto c = std::make_unique<Compiled>();
  c->module = compile(sources, options, c->diags);
  return c;
}

const Function& function_named(const Module& m, std::string_view name) {
  const Function* f = m.find_function(name);
  EXPECT_NE(f, nullptr) << name;
  return f ? *f : m.functions.front();
}

TEST(Compile, OneSourceIsParsedAndChecked) {
  auto c = compile_texts({{"lone.ptx", kLone}});
  ASSERT_NE(c->module, nullptr) << c->errors();
  EXPECT_TRUE(c->diags.diagnostics().empty()) << c->errors();
  ASSERT_NE(c->module->source, nullptr);
  EXPECT_EQ(c->module->source->name(), "lone.ptx");
  EXPECT_EQ(function_named(*c->module, "lone").instructions.size(), 4u);
}

TEST(Compile, CheckerErrorsAreReportedUnderTheSourceName) {
  auto c = compile_texts({{"bad.ptx", std::string(kHeader) +
                                          ".visible .entry k()\n{\n.reg .b32 %r<2>;\n"
                                          "add.s32 %r1, %r1;\nret;\n}\n"}});
  EXPECT_EQ(c->module, nullptr);
  ASSERT_EQ(c->diags.error_count(), 1u) << c->errors();
  EXPECT_EQ(c->diags.diagnostics()[0].file, "bad.ptx");
  EXPECT_NE(c->errors().find("'add' expects 3 operands, got 2"), std::string::npos) << c->errors();
}

TEST(Compile, TwoSourcesAreLinked) {
  auto c = compile_texts({{"main.ptx", kMain}, {"lib.ptx", kLib}});
  ASSERT_NE(c->module, nullptr) << c->errors();
  const Module& m = *c->module;
  EXPECT_EQ(functions_with_bodies(m), 2u);
  EXPECT_TRUE(function_named(m, "load_first").has_body);
  ASSERT_EQ(m.linked_sources.size(), 2u);
  EXPECT_EQ(m.linked_sources[0]->name(), "main.ptx");
  EXPECT_EQ(m.linked_sources[1]->name(), "lib.ptx");
}

TEST(Compile, NoSourcesIsAnError) {
  DiagnosticEngine diags;
  EXPECT_EQ(compile({}, {}, diags), nullptr);
  EXPECT_NE(diags.format_all().find("no PTX to compile"), std::string::npos);
}

TEST(Compile, ErrorsReportedBeforeTheCallAreNotItsOwn) {
  DiagnosticEngine diags;
  diags.error(nullptr, {}, "an earlier error");
  const PtxSource source{kLone, "lone.ptx"};
  EXPECT_NE(compile(std::span(&source, 1), {}, diags), nullptr) << diags.format_all();
  EXPECT_EQ(diags.error_count(), 1u);
}

TEST(Compile, PassesRunInOrderAfterLinking) {
  std::vector<std::string> log;
  RecordingPass first("first", log), second("second", log);
  CompileOptions options;
  options.passes = {&first, &second, &first};
  auto c = compile_texts({{"main.ptx", kMain}, {"lib.ptx", kLib}}, options);
  ASSERT_NE(c->module, nullptr) << c->errors();
  // main.ptx alone has one body; every pass saw both.
  EXPECT_EQ(log, (std::vector<std::string>{"first: 2", "second: 2", "first: 2"}));
}

TEST(Compile, PassAnnotatesExactlyTheGlobalLoads) {
  AnnotateGlobalLoads annotate;
  CompileOptions options;
  options.passes = {&annotate};
  options.check_after_each_pass = true;
  auto c = compile_texts({{"main.ptx", kMain}, {"lib.ptx", kLib}}, options);
  ASSERT_NE(c->module, nullptr) << c->errors();
  const Module& m = *c->module;
  for (uint32_t fi = 0; fi < m.functions.size(); ++fi) {
    const Function& f = m.functions[fi];
    std::vector<uint32_t> annotated;
    for (uint32_t i = 0; i < f.instructions.size(); ++i) {
      if (f.instructions[i].annotation == Annotation{}) continue;
      annotated.push_back(i);
      EXPECT_EQ(f.instructions[i].annotation, (Annotation{kGlobalLoad, fi + 1}));
    }
    if (f.name == "k") EXPECT_EQ(annotated, (std::vector<uint32_t>{2, 6}));
    else if (f.name == "load_first") EXPECT_EQ(annotated, (std::vector<uint32_t>{1}));
    else EXPECT_TRUE(annotated.empty()) << f.name;
  }
}

TEST(Compile, ErrorsInASourceStopBeforeThePasses) {
  std::vector<std::string> log;
  RecordingPass pass("pass", log);
  CompileOptions options;
  options.passes = {&pass};
  auto c = compile_texts(
      {{"main.ptx", kMain}, {"broken.ptx", std::string(kHeader) + ".entry x( {"}}, options);
  EXPECT_EQ(c->module, nullptr);
  EXPECT_TRUE(c->diags.has_errors());
  EXPECT_EQ(c->diags.diagnostics()[0].file, "broken.ptx") << c->errors();
  EXPECT_TRUE(log.empty());
}

TEST(Compile, LinkErrorsStopBeforeThePasses) {
  std::vector<std::string> log;
  RecordingPass pass("pass", log);
  CompileOptions options;
  options.passes = {&pass};
  // load_first is declared but defined nowhere.
  auto c = compile_texts({{"main.ptx", kMain}, {"lone.ptx", kLone}}, options);
  EXPECT_EQ(c->module, nullptr);
  EXPECT_NE(c->errors().find("unresolved symbol 'load_first'"), std::string::npos) << c->errors();
  EXPECT_TRUE(log.empty());
}

TEST(Compile, AnErrorFromAPassStopsThePipeline) {
  std::vector<std::string> log;
  FailingPass failing;
  RecordingPass after("after", log);
  CompileOptions options;
  options.passes = {&failing, &after};
  auto c = compile_texts({{"lone.ptx", kLone}}, options);
  EXPECT_EQ(c->module, nullptr);
  EXPECT_NE(c->errors().find("failing: cannot transform this module"), std::string::npos);
  EXPECT_TRUE(log.empty());
}

TEST(Compile, ModuleLeftInvalidByAPassIsReportedNamingThePass) {
  std::vector<std::string> log;
  DropRegisterDeclaration drop;
  RecordingPass after("after", log);
  CompileOptions options;
  options.passes = {&drop, &after};
  options.check_after_each_pass = true;
  auto c = compile_texts({{"lone.ptx", kLone}}, options);
  EXPECT_EQ(c->module, nullptr);
  ASSERT_TRUE(c->diags.has_errors());
  for (const Diagnostic& d : c->diags.diagnostics()) {
    EXPECT_EQ(d.file, "lone.ptx");
    EXPECT_TRUE(d.message.starts_with("pass 'drop-register-declaration' left an invalid module: "))
        << d.message;
  }
  // %rd<2> declared two registers; both lost their declaration.
  EXPECT_EQ(c->diags.error_count(), 2u) << c->errors();
  EXPECT_NE(c->errors().find("in function 'lone': register #2 has no declaration"),
            std::string::npos)
      << c->errors();
  EXPECT_TRUE(log.empty());
}

TEST(Compile, WithoutCheckingAfterEachPassTheBrokenModuleIsReturned) {
  DropRegisterDeclaration drop;
  CompileOptions options;
  options.passes = {&drop};
  auto c = compile_texts({{"lone.ptx", kLone}}, options);
  ASSERT_NE(c->module, nullptr);
  EXPECT_FALSE(c->diags.has_errors());
  DiagnosticEngine diags;
  EXPECT_FALSE(check(*c->module, diags)) << "the pass did not break the module";
}

}  // namespace
}  // namespace warpsim::ptx
