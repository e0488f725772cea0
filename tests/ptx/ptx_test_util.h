#pragma once
// Helpers shared by the PTX front-end tests.
#include <gtest/gtest.h>

#include <memory>
#include <string>

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

}  // namespace warpsim::ptx::testing
