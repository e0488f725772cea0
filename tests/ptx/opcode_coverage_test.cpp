// Every opcode string that real programs use (tests/ptx/data/reference-opcodes.txt,
// from the common-kernel and cuBLAS reference lists) is recognised: the opcode
// and each of its modifiers are known, and the modifiers do not conflict.
// Operand shapes are covered by the corpus; here only the mnemonic matters.
#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include "common/diagnostics.h"
#include "ptx/parse.h"

namespace warpsim::ptx {
namespace {

std::vector<std::string> reference_opcodes() {
  std::vector<std::string> out;
  std::ifstream in(std::string(WARPSIM_SOURCE_DIR) + "/tests/ptx/data/reference-opcodes.txt");
  std::string line;
  while (std::getline(in, line))
    if (!line.empty() && line[0] != '#') out.push_back(line);
  return out;
}

TEST(OpcodeCoverage, ReferenceListIsPresent) { EXPECT_GT(reference_opcodes().size(), 300u); }

TEST(OpcodeCoverage, EveryReferenceMnemonicIsRecognised) {
  for (const std::string& mnemonic : reference_opcodes()) {
    // Operands are deliberately absent: an operand-count error is expected and
    // fine, an unknown-instruction or modifier error is not.
    std::string text = ".version 9.0\n.target sm_90\n.address_size 64\n.entry k()\n{\n" + mnemonic +
                       ";\n}\n";
    DiagnosticEngine diags;
    auto m = parse(text, "t.ptx", diags);
    for (const auto& d : diags.diagnostics()) {
      EXPECT_EQ(d.message.find("unknown"), std::string::npos) << mnemonic << ": " << d.message;
      EXPECT_EQ(d.message.find("conflicts"), std::string::npos) << mnemonic << ": " << d.message;
    }
    ASSERT_EQ(m->functions.size(), 1u);
    EXPECT_EQ(m->functions[0].instructions.size(), 1u) << mnemonic << "\n" << diags.format_all();
  }
}

}  // namespace
}  // namespace warpsim::ptx
