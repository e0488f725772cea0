// Parse + check speed of the PTX front end on a large module (>= 20 MB),
// built by concatenating every corpus file under tests/ptx with its
// module-level names renamed per copy. Prints bytes/s (Google Benchmark's
// bytes_per_second counter) and MB/s on stdout.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <string>
#include <unordered_set>
#include <vector>

#include "common/diagnostics.h"
#include "ptx/parse.h"

namespace {

namespace fs = std::filesystem;
using warpsim::DiagnosticEngine;

bool is_ident_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '$';
}

// The text of a module after its header, with every module-level name
// (functions and globals defined in it) given the suffix `suffix`.
std::string renamed_body(const std::string& text, const std::unordered_set<std::string>& names,
                         const std::string& suffix) {
  std::string out;
  out.reserve(text.size() + text.size() / 8);
  size_t i = 0;
  while (i < text.size()) {
    // Words may start with '%' (registers, and globals such as `%g`).
    bool starts = is_ident_char(text[i]) || text[i] == '%';
    if (!starts || (i > 0 && (is_ident_char(text[i - 1]) || text[i - 1] == '%'))) {
      out += text[i++];
      continue;
    }
    size_t j = i + 1;
    while (j < text.size() && is_ident_char(text[j])) ++j;
    std::string word = text.substr(i, j - i);
    out += word;
    // A word followed by '.' is an instruction mnemonic (a kernel may be named `sqrt`).
    if (names.count(word) && (j == text.size() || text[j] != '.')) out += suffix;
    i = j;
  }
  return out;
}

// Drops the lines that may appear only once per module.
std::string strip_header(const std::string& text) {
  std::string out;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    std::string_view line(text.data() + pos, end - pos);
    std::string_view t = line.substr(std::min(line.find_first_not_of(" \t"), line.size()));
    if (!t.starts_with(".version") && !t.starts_with(".target") &&
        !t.starts_with(".address_size") && !t.starts_with(".file")) {
      out.append(line);
      out += '\n';
    }
    pos = end + 1;
  }
  return out;
}

const std::string& big_module() {
  static const std::string text = [] {
    std::vector<std::string> bodies;
    std::vector<std::unordered_set<std::string>> names;
    std::vector<fs::path> files;
    for (auto& e : fs::recursive_directory_iterator(fs::path(WARPSIM_SOURCE_DIR) / "tests/ptx")) {
      std::string p = e.path().string();
      if (e.path().extension() == ".ptx" && p.find("/bad/") == std::string::npos &&
          p.find("fuzz-regressions") == std::string::npos)
        files.push_back(e.path());
    }
    std::sort(files.begin(), files.end());
    for (const auto& f : files) {
      std::string t;
      if (!warpsim::read_file(f.string(), t)) continue;
      DiagnosticEngine d;
      auto m = warpsim::ptx::parse_and_check(t, f.string(), d);
      if (d.has_errors()) continue;  // the corpus tests report these
      std::unordered_set<std::string> n;
      for (const auto& fn : m->functions)
        if (fn.has_body) n.emplace(fn.name);
      for (const auto& g : m->globals)
        if (!(g.linkage & warpsim::ptx::kExtern)) n.emplace(g.name);
      bodies.push_back(strip_header(t));
      names.push_back(std::move(n));
    }
    std::string out = ".version 9.0\n.target sm_90\n.address_size 64\n";
    for (int copy = 0; out.size() < (21u << 20) && !bodies.empty(); ++copy)
      for (size_t i = 0; i < bodies.size(); ++i)
        out += renamed_body(bodies[i], names[i],
                            "_c" + std::to_string(copy) + "_" + std::to_string(i));
    return out;
  }();
  return text;
}

void BM_ParseAndCheck(benchmark::State& state) {
  const std::string& text = big_module();
  size_t errors = 0;
  for (auto _ : state) {
    DiagnosticEngine d;
    auto m = warpsim::ptx::parse_and_check(text, "big.ptx", d);
    errors = d.error_count();
    benchmark::DoNotOptimize(m.get());
  }
  if (errors) {
    DiagnosticEngine d(5);
    warpsim::ptx::parse_and_check(text, "big.ptx", d);
    std::fputs(d.format_all().c_str(), stderr);
    state.SkipWithError("the generated module has errors");
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * text.size()));
  state.counters["module_MB"] = static_cast<double>(text.size()) / (1 << 20);
  state.counters["MB_per_s"] = benchmark::Counter(
      static_cast<double>(text.size()) / (1 << 20), benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_ParseAndCheck)->Unit(benchmark::kMillisecond)->MinTime(2.0);

}  // namespace

BENCHMARK_MAIN();
