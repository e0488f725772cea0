// libFuzzer target for the PTX front end: lexer, parser, checker, analyses,
// printer and the print/reparse round trip. Any crash, hang, leak or
// sanitizer report is a bug: hostile PTX must only ever produce diagnostics,
// and a module that checks clean must print to PTX that parses back to an
// equivalent module.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "common/diagnostics.h"
#include "ptx/equivalence.h"
#include "ptx/module_analysis.h"
#include "ptx/parse.h"
#include "ptx/printer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  warpsim::DiagnosticEngine diags(20);
  auto module = warpsim::ptx::parse_and_check(text, "fuzz.ptx", diags);
  (void)diags.format_all();
  if (diags.has_errors()) return 0;
  warpsim::ptx::analyze_module(*module);
  std::string printed = warpsim::ptx::print_module(*module);
  warpsim::DiagnosticEngine again;
  auto reparsed = warpsim::ptx::parse_and_check(printed, "printed.ptx", again);
  std::string why;
  if (again.has_errors() || !warpsim::ptx::equivalent(*module, *reparsed, &why)) {
    std::fprintf(stderr, "round trip failed: %s\n%s\n--- printed:\n%s\n", why.c_str(),
                 again.format_all().c_str(), printed.c_str());
    std::abort();
  }
  return 0;
}
