// libFuzzer target for the PTX front end: lexer, parser, checker (and every
// later pass that accepts a parsed module). Any crash, hang, leak or
// sanitizer report is a bug: hostile PTX must only ever produce diagnostics.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "common/diagnostics.h"
#include "ptx/parse.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  warpsim::DiagnosticEngine diags(20);
  auto module = warpsim::ptx::parse_and_check(text, "fuzz.ptx", diags);
  (void)diags.format_all();
  return 0;
}
