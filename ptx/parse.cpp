#include "ptx/parse.h"

#include <cstring>

#include "ptx/checker.h"
#include "ptx/module_builder.h"

namespace warpsim::ptx {

std::unique_ptr<Module> parse(std::string_view text, std::string name, DiagnosticEngine& diags) {
  auto module = std::make_unique<Module>();
  auto source = std::make_shared<SourceFile>(std::move(name), std::string(text));
  module->source = source;

  // Flex scans in place and needs two NUL bytes at the end; it temporarily
  // writes into the buffer, so it scans a copy and the builder re-bases every
  // name onto the module's own (unmodified) copy of the text.
  std::unique_ptr<char[]> buffer(new char[text.size() + 2]);
  std::memcpy(buffer.get(), text.data(), text.size());
  buffer[text.size()] = buffer[text.size() + 1] = '\0';

  ModuleBuilder builder(*module, *source, diags, buffer.get());
  if (!run_parser(buffer.get(), text.size() + 2, builder) && !diags.has_errors())
    diags.error(source.get(), {}, "internal error: the PTX scanner could not be started");
  builder.finish();
  return module;
}

std::unique_ptr<Module> parse_and_check(std::string_view text, std::string name,
                                        DiagnosticEngine& diags) {
  auto module = parse(text, std::move(name), diags);
  if (!diags.limit_reached()) check(*module, diags);
  return module;
}

}  // namespace warpsim::ptx
