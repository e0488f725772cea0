// Device::load: the compile pipeline (ptx/compile.h) then lowering. Passes
// run on the linked module, and the annotations they set arrive at exactly
// the pcs of Program::annotations whose code they belong to.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "functional/device.h"
#include "tests/functional/exec_test_util.h"

namespace warpsim::functional {
namespace {

using testing::download;
using testing::kPtxHeader;
using testing::upload;

// Marks every ld.global with kGlobalLoad and groups each function's loads
// (group = function index + 1).
constexpr uint32_t kGlobalLoad = 1u << 5;
class AnnotateGlobalLoads : public ptx::ModulePass {
 public:
  std::string_view name() const override { return "annotate-global-loads"; }
  void run(ptx::Module& module, DiagnosticEngine&) override {
    for (uint32_t fi = 0; fi < module.functions.size(); ++fi)
      for (ptx::Instruction& inst : module.functions[fi].instructions)
        if (inst.opcode == ptx::Opcode::Ld && inst.mods.space(0) == ptx::StateSpace::Global)
          inst.annotation = ptx::Annotation{kGlobalLoad, fi + 1};
  }
};

// Gives every instruction its own group (1, 2, ... in module order).
class AnnotateEveryInstruction : public ptx::ModulePass {
 public:
  std::string_view name() const override { return "annotate-every-instruction"; }
  void run(ptx::Module& module, DiagnosticEngine&) override {
    uint32_t group = 0;
    for (ptx::Function& f : module.functions)
      for (ptx::Instruction& inst : f.instructions) inst.annotation = ptx::Annotation{1, ++group};
  }
};

// Reports an error instead of transforming anything.
class FailingPass : public ptx::ModulePass {
 public:
  std::string_view name() const override { return "failing"; }
  void run(ptx::Module& module, DiagnosticEngine& diags) override {
    diags.error(module.source.get(), {}, "failing: cannot transform this module");
  }
};

// A kernel summing in[1], in[2] and twice(in[0]); twice, defined first,
// loads in[0] itself.
const std::string kOneSource = std::string(kPtxHeader) +
                               ".func (.param .b32 r) twice(.param .b64 p)\n{\n"
                               ".reg .b32 %r<3>;\n.reg .b64 %rd<2>;\n"
                               "ld.param.u64 %rd1, [p];\n"       // 0
                               "ld.global.u32 %r1, [%rd1];\n"    // 1
                               "add.s32 %r2, %r1, %r1;\n"        // 2
                               "st.param.b32 [r], %r2;\n"        // 3
                               "ret;\n}\n"                       // 4, end slot 5
                               ".visible .entry k(.param .u64 in, .param .u64 out)\n{\n"
                               ".reg .b32 %r<6>;\n.reg .b64 %rd<3>;\n"
                               "ld.param.u64 %rd1, [in];\n"      // 0
                               "ld.param.u64 %rd2, [out];\n"     // 1
                               "ld.global.u32 %r1, [%rd1+4];\n"  // 2
                               "ld.global.u32 %r2, [%rd1+8];\n"  // 3
                               "{\n.param .b64 p0;\nst.param.b64 [p0], %rd1;\n"  // 4
                               ".param .b32 rv;\ncall.uni (rv), twice, (p0);\n"  // 5
                               "ld.param.b32 %r3, [rv];\n}\n"    // 6
                               "add.s32 %r4, %r1, %r2;\n"        // 7
                               "add.s32 %r5, %r4, %r3;\n"        // 8
                               "st.global.u32 [%rd2], %r5;\n"    // 9
                               "ret;\n}\n";                      // 10, end slot 11

// The same program in two sources that need linking.
const std::string kMain = std::string(kPtxHeader) +
                          ".extern .func (.param .b32 r) twice(.param .b64 p);\n" +
                          kOneSource.substr(kOneSource.find(".visible .entry"));
const std::string kLib = std::string(kPtxHeader) + ".visible " +
                         kOneSource.substr(kOneSource.find(".func"),
                                           kOneSource.find(".visible .entry") -
                                               kOneSource.find(".func"));

// The pcs whose annotation is not the default one.
std::vector<uint32_t> annotated_pcs(const Program& p) {
  std::vector<uint32_t> pcs;
  for (uint32_t pc = 0; pc < p.annotations.size(); ++pc)
    if (p.annotations[pc] != ptx::Annotation{}) pcs.push_back(pc);
  return pcs;
}

const FunctionInfo& function_named(const Program& p, std::string_view name) {
  auto it = std::find_if(p.functions.begin(), p.functions.end(),
                         [&](const FunctionInfo& f) { return f.name == name; });
  EXPECT_NE(it, p.functions.end()) << name;
  return it != p.functions.end() ? *it : p.functions.front();
}

// Runs k on in = {5, 7, 11}: 7 + 11 + 2 * 5.
void expect_kernel_runs(Device& device, const Program& program) {
  uint64_t in = upload(device, std::vector<uint32_t>{5, 7, 11});
  uint64_t out = upload(device, std::vector<uint32_t>{0});
  const KernelInfo* k = program.find_kernel("k");
  ASSERT_NE(k, nullptr);
  auto params = device.layout_params(*k, std::vector{param_bytes(in), param_bytes(out)});
  ASSERT_TRUE(params);
  LaunchConfig cfg;
  LaunchResult r = device.launch(program, *k, cfg, *params);
  ASSERT_TRUE(r.ok()) << (r.fault ? r.fault->message : "");
  EXPECT_EQ(download(device, out, 1), (std::vector<uint32_t>{28}));
}

TEST(Load, AnnotationsArriveAtExactlyTheirPcs) {
  Device device;
  AnnotateGlobalLoads annotate;
  ptx::CompileOptions options;
  options.passes = {&annotate};
  options.check_after_each_pass = true;
  const ptx::PtxSource source{kOneSource, "one.ptx"};
  DiagnosticEngine diags;
  auto program = device.load(std::span(&source, 1), options, diags);
  ASSERT_NE(program, nullptr) << diags.format_all();
  ASSERT_EQ(program->annotations.size(), program->code.size());
  // twice: pcs 0-5 (its end slot), k: pcs 6-17.
  EXPECT_EQ(function_named(*program, "twice").begin, 0u);
  EXPECT_EQ(function_named(*program, "k").begin, 6u);
  EXPECT_EQ(annotated_pcs(*program), (std::vector<uint32_t>{1, 8, 9}));
  EXPECT_EQ(program->annotations[1], (ptx::Annotation{kGlobalLoad, 1}));
  EXPECT_EQ(program->annotations[8], (ptx::Annotation{kGlobalLoad, 2}));
  EXPECT_EQ(program->annotations[9], (ptx::Annotation{kGlobalLoad, 2}));
  for (uint32_t pc : annotated_pcs(*program)) EXPECT_EQ(program->code[pc].opcode, ptx::Opcode::Ld);
  expect_kernel_runs(device, *program);
}

TEST(Load, TwoSourcesAreLinkedThenAnnotated) {
  Device device;
  AnnotateGlobalLoads annotate;
  ptx::CompileOptions options;
  options.passes = {&annotate};
  options.check_after_each_pass = true;
  const std::vector<ptx::PtxSource> sources{{kMain, "main.ptx"}, {kLib, "lib.ptx"}};
  DiagnosticEngine diags;
  auto program = device.load(sources, options, diags);
  ASSERT_NE(program, nullptr) << diags.format_all();
  ASSERT_EQ(program->annotations.size(), program->code.size());
  // The linked module holds k, then twice: k at pcs 0-11, twice at 12-17.
  const FunctionInfo& k = function_named(*program, "k");
  const FunctionInfo& twice = function_named(*program, "twice");
  EXPECT_EQ(k.begin, 0u);
  EXPECT_EQ(twice.begin, 12u);
  EXPECT_EQ(annotated_pcs(*program), (std::vector<uint32_t>{2, 3, 13}));
  EXPECT_EQ(program->annotations[2], (ptx::Annotation{kGlobalLoad, k.ptx_function + 1}));
  EXPECT_EQ(program->annotations[13], (ptx::Annotation{kGlobalLoad, twice.ptx_function + 1}));
  expect_kernel_runs(device, *program);
}

TEST(Load, LoadPtxIsOneSourceWithoutPasses) {
  Device device;
  DiagnosticEngine diags;
  auto program = device.load_ptx(kOneSource, "one.ptx", diags);
  ASSERT_NE(program, nullptr) << diags.format_all();
  EXPECT_EQ(program->module->source->name(), "one.ptx");
  ASSERT_EQ(program->annotations.size(), program->code.size());
  EXPECT_TRUE(annotated_pcs(*program).empty());
}

TEST(Load, ErrorsFromTheCompilerGiveNoProgram) {
  Device device;
  FailingPass failing;
  ptx::CompileOptions options;
  options.passes = {&failing};
  const ptx::PtxSource source{kOneSource, "one.ptx"};
  DiagnosticEngine diags;
  EXPECT_EQ(device.load(std::span(&source, 1), options, diags), nullptr);
  EXPECT_NE(diags.format_all().find("failing: cannot transform this module"), std::string::npos);

  DiagnosticEngine unlinked;  // twice is declared and defined nowhere
  const std::vector<ptx::PtxSource> sources{{kMain, "main.ptx"}, {kPtxHeader, "empty.ptx"}};
  EXPECT_EQ(device.load(sources, {}, unlinked), nullptr);
  EXPECT_NE(unlinked.format_all().find("unresolved symbol 'twice'"), std::string::npos)
      << unlinked.format_all();
}

// ---- the PTX corpus --------------------------------------------------------------------

std::vector<std::string> corpus_files() {
  namespace fs = std::filesystem;
  const fs::path root = fs::path(WARPSIM_SOURCE_DIR) / "tests/ptx";
  std::vector<std::string> files;
  for (const auto& e : fs::recursive_directory_iterator(root)) {
    const std::string rel = fs::relative(e.path(), root).string();
    if (e.is_regular_file() && e.path().extension() == ".ptx" && !rel.starts_with("bad/") &&
        !rel.starts_with("fuzz-regressions/"))
      files.push_back(rel);
  }
  std::sort(files.begin(), files.end());
  return files;
}

std::string test_name(const ::testing::TestParamInfo<std::string>& info) {
  std::string n = info.param;
  for (char& c : n)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return n;
}

class CorpusAnnotations : public ::testing::TestWithParam<std::string> {};

// Every decoded instruction carries its own PTX instruction's annotation;
// the function-end slots carry none.
TEST_P(CorpusAnnotations, FollowTheCode) {
  std::string text;
  ASSERT_TRUE(read_file(std::string(WARPSIM_SOURCE_DIR) + "/tests/ptx/" + GetParam(), text));
  Device device;
  AnnotateEveryInstruction annotate;
  ptx::CompileOptions options;
  options.passes = {&annotate};
  const ptx::PtxSource source{text, GetParam()};
  DiagnosticEngine diags;
  auto program = device.load(std::span(&source, 1), options, diags);
  ASSERT_NE(program, nullptr) << diags.format_all();
  ASSERT_EQ(program->annotations.size(), program->code.size());
  const ptx::Module& m = *program->module;
  std::set<uint32_t> groups;
  size_t instructions = 0;
  for (const FunctionInfo& fi : program->functions) {
    const ptx::Function& f = m.functions[fi.ptx_function];
    instructions += f.instructions.size();
    for (uint32_t pc = fi.begin; pc < fi.end; ++pc) {
      const DecodedInst& d = program->code[pc];
      ASSERT_LT(d.ptx_index, f.instructions.size());
      EXPECT_EQ(program->annotations[pc], f.instructions[d.ptx_index].annotation) << "pc " << pc;
      groups.insert(program->annotations[pc].group);
    }
    EXPECT_EQ(program->annotations[fi.end], ptx::Annotation{}) << fi.name;
  }
  // Each PTX instruction of a lowered function shows up exactly once.
  EXPECT_EQ(groups.size(), instructions);
  EXPECT_EQ(groups.count(0), 0u);
}

INSTANTIATE_TEST_SUITE_P(Corpus, CorpusAnnotations, ::testing::ValuesIn(corpus_files()),
                         test_name);

}  // namespace
}  // namespace warpsim::functional
