// libFuzzer target for configuration loading, through the path behind
// `warpsim run --config FILE --set ...` (load_sim_config). The input is a
// TOML document, then optionally a NUL byte followed by `--set` assignments,
// one a line; the document is written to a file and loaded by name. Any
// crash, hang, leak or sanitizer report is a bug: hostile configuration must
// only ever produce diagnostics. A configuration that loads must print
// (`config show`) to TOML that loads back to the same configuration.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/diagnostics.h"
#include "timing/sim_config.h"

namespace {

// The repository's configs/, so `base = "h100"` finds the named configs.
const std::vector<std::string> kSearchPath = {WARPSIM_FUZZ_CONFIG_DIR};
// One file per fuzzing process (libFuzzer -jobs runs several).
const std::string kFile = "/tmp/warpsim-config-fuzz-" + std::to_string(getpid()) + ".toml";

std::vector<std::string> split_lines(std::string_view text) {
  std::vector<std::string> lines;
  while (!text.empty()) {
    const size_t nl = text.find('\n');
    lines.emplace_back(text.substr(0, nl));
    if (nl == std::string_view::npos) break;
    text.remove_prefix(nl + 1);
  }
  return lines;
}

std::optional<warpsim::SimConfig> load(std::string_view document, const std::vector<std::string>& overrides,
                                       warpsim::DiagnosticEngine& diags) {
  std::ofstream(kFile, std::ios::binary | std::ios::trunc).write(document.data(), std::streamsize(document.size()));
  return warpsim::load_sim_config(kFile, overrides, kSearchPath, diags);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const size_t nul = input.find('\0');
  const std::vector<std::string> overrides =
      nul == std::string_view::npos ? std::vector<std::string>{} : split_lines(input.substr(nul + 1));

  warpsim::DiagnosticEngine diags(20);
  auto config = load(input.substr(0, nul), overrides, diags);
  (void)diags.format_all();
  if (!config) return 0;

  const std::string shown = warpsim::sim_config_toml(*config);
  warpsim::DiagnosticEngine again;
  auto reloaded = load(shown, {}, again);
  if (!reloaded || warpsim::sim_config_toml(*reloaded) != shown) {
    std::fprintf(stderr, "config show does not load back:\n%s\n--- shown:\n%s\n", again.format_all().c_str(),
                 shown.c_str());
    std::abort();
  }
  return 0;
}
