// Instruction annotations (ptx/annotation.h) are not PTX: the printer leaves
// them out, IR equivalence ignores them, and the linker carries them with
// their instructions.
#include "ptx/annotation.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "ptx/equivalence.h"
#include "ptx/linker.h"
#include "ptx/printer.h"
#include "ptx_test_util.h"

namespace warpsim::ptx {
namespace {

using testing::kernel;
using testing::kHeader;
using testing::parse_text;

const std::string kBody = "ld.param.u64 %rd1, [p0];\nld.global.u32 %r1, [%rd1];\nret;";

void annotate_all(Module& m) {
  uint32_t group = 1;
  for (Function& f : m.functions)
    for (Instruction& inst : f.instructions) inst.annotation = Annotation{0x5u, group++};
}

TEST(Annotation, DefaultIsNone) {
  EXPECT_EQ(Instruction{}.annotation, (Annotation{0, 0}));
  EXPECT_NE((Annotation{1, 0}), (Annotation{0, 1}));
}

TEST(Annotation, IsNotPrinted) {
  auto p = parse_text(kernel(kBody));
  ASSERT_TRUE(p->ok()) << p->errors();
  const std::string plain = print_module(*p->module);
  annotate_all(*p->module);
  EXPECT_EQ(print_module(*p->module), plain);
}

TEST(Annotation, IsIgnoredByEquivalence) {
  auto a = parse_text(kernel(kBody)), b = parse_text(kernel(kBody));
  ASSERT_TRUE(a->ok() && b->ok());
  annotate_all(*a->module);
  std::string difference;
  EXPECT_TRUE(equivalent(*a->module, *b->module, &difference)) << difference;
}

TEST(Annotation, IsCarriedByTheLinker) {
  DiagnosticEngine diags;
  std::vector<std::unique_ptr<Module>> modules;
  modules.push_back(parse_and_check(kernel(kBody), "a.ptx", diags));
  modules.push_back(parse_and_check(std::string(kHeader) +
                                        ".visible .func f()\n{\n.reg .b32 %r<2>;\n"
                                        "mov.u32 %r1, 1;\nret;\n}\n",
                                    "b.ptx", diags));
  ASSERT_FALSE(diags.has_errors()) << diags.format_all();
  modules[1]->functions[0].instructions[1].annotation = Annotation{0x80u, 9};
  auto linked = link_modules(std::move(modules), diags);
  ASSERT_FALSE(diags.has_errors()) << diags.format_all();
  const Function* f = linked->find_function("f");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->instructions[0].annotation, Annotation{});
  EXPECT_EQ(f->instructions[1].annotation, (Annotation{0x80u, 9}));
  for (const Instruction& inst : linked->find_function("k")->instructions)
    EXPECT_EQ(inst.annotation, Annotation{});
}

}  // namespace
}  // namespace warpsim::ptx
