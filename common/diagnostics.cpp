#include "common/diagnostics.h"

#include <fmt/format.h>

#include <algorithm>

namespace warpsim {

namespace {
const char* severity_name(Severity s) {
  switch (s) {
    case Severity::Error: return "error";
    case Severity::Warning: return "warning";
    case Severity::Note: return "note";
  }
  return "error";
}
}  // namespace

std::string format_diagnostic(const Diagnostic& d) {
  std::string out;
  if (!d.file.empty()) out += d.file + ":";
  if (d.location.line) {
    out += fmt::format("{}:", d.location.line);
    if (d.location.column) out += fmt::format("{}:", d.location.column);
  }
  if (!out.empty()) out += " ";
  out += fmt::format("{}: {}\n", severity_name(d.severity), d.message);
  if (!d.source_line.empty()) {
    out += "  " + d.source_line + "\n";
    if (d.location.column) {
      std::string caret = "  ";
      // Keep tabs so the caret lines up under the offending token.
      for (uint32_t i = 0; i + 1 < d.location.column && i < d.source_line.size(); ++i)
        caret += d.source_line[i] == '\t' ? '\t' : ' ';
      out += caret + "^\n";
    }
  }
  return out;
}

void DiagnosticEngine::report(Severity severity, const SourceFile* file, SourceLocation loc,
                              std::string message) {
  if (severity == Severity::Error) {
    ++error_count_;
    if (error_count_ > error_limit_) return;
  }
  Diagnostic d;
  d.severity = severity;
  d.location = loc;
  d.message = std::move(message);
  if (file) {
    d.file = file->name();
    std::string_view line = file->line(loc.line);
    // Very long lines (minified input, fuzzers) are clipped for readability.
    if (line.size() > 400) line = line.substr(0, 400);
    // Echo the line safely: control bytes and non-ASCII bytes (binary input)
    // become '?', one for one, so the caret still lines up.
    d.source_line.reserve(line.size());
    for (char c : line) {
      unsigned char u = static_cast<unsigned char>(c);
      d.source_line += (u == '\t' || (u >= 0x20 && u < 0x7f)) ? c : '?';
    }
  }
  diagnostics_.push_back(std::move(d));
}

std::string DiagnosticEngine::format_all() const {
  // Report in source order, whichever pass found the problem first.
  std::vector<const Diagnostic*> sorted;
  for (const auto& d : diagnostics_) sorted.push_back(&d);
  std::stable_sort(sorted.begin(), sorted.end(), [](const Diagnostic* a, const Diagnostic* b) {
    if (a->file != b->file) return false;
    if (a->location.line != b->location.line) return a->location.line < b->location.line;
    return a->location.column < b->location.column;
  });
  std::string out;
  for (const auto* d : sorted) out += format_diagnostic(*d);
  if (error_count_ > error_limit_)
    out += fmt::format("error: too many errors ({} in total); only the first {} are shown\n",
                       error_count_, error_limit_);
  return out;
}

void DiagnosticEngine::clear() {
  diagnostics_.clear();
  error_count_ = 0;
}

}  // namespace warpsim
