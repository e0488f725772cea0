#pragma once
// Helpers shared by the PTX front-end tests.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <initializer_list>
#include <memory>
#include <string>
#include <vector>

#include "common/diagnostics.h"
#include "ptx/parse.h"

namespace warpsim::ptx::testing {

// A minimal module header for hand-written test PTX.
inline constexpr const char* kHeader = ".version 8.5\n.target sm_80\n.address_size 64\n";

struct Parsed {
  std::unique_ptr<Module> module;
  DiagnosticEngine diags;
  std::string errors() const { return diags.format_all(); }
  bool ok() const { return !diags.has_errors(); }
};

// Parses and checks `text` as file "test.ptx".
inline std::unique_ptr<Parsed> parse_text(const std::string& text) {
  auto p = std::make_unique<Parsed>();
  p->module = parse_and_check(text, "test.ptx", p->diags);
  return p;
}

// Wraps instructions in a kernel with a few registers of each type declared.
inline std::string kernel(const std::string& body) {
  return std::string(kHeader) +
         ".visible .entry k(.param .u64 p0, .param .u32 p1)\n{\n"
         "  .reg .pred %p<4>;\n  .reg .b16 %h<4>;\n  .reg .b32 %r<8>;\n  .reg .f32 %f<8>;\n"
         "  .reg .b64 %rd<8>;\n  .reg .f64 %fd<4>;\n" +
         body + "\n}\n";
}

// Every .ptx file under tests/ptx/<sub> for each `sub`, sorted.
inline std::vector<std::filesystem::path> corpus_files(std::initializer_list<const char*> subs) {
  namespace fs = std::filesystem;
  const fs::path root = fs::path(WARPSIM_SOURCE_DIR) / "tests/ptx";
  std::vector<fs::path> files;
  for (const char* sub : subs) {
    if (!fs::exists(root / sub)) continue;
    for (const auto& e : fs::recursive_directory_iterator(root / sub))
      if (e.is_regular_file() && e.path().extension() == ".ptx") files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

// Calls visit(file name, module, function) for every function with a body of
// every corpus file under `subs` that checks clean (corpus_test reports the rest).
template <typename Visit>
void for_each_corpus_function(std::initializer_list<const char*> subs, Visit visit) {
  for (const auto& path : corpus_files(subs)) {
    std::string text;
    ASSERT_TRUE(read_file(path.string(), text)) << path;
    auto p = parse_text(text);
    if (!p->ok()) continue;
    for (const Function& f : p->module->functions)
      if (f.has_body) visit(path.filename().string(), *p->module, f);
  }
}

}  // namespace warpsim::ptx::testing
