#pragma once
// Located diagnostics for user input (PTX, configs): collected, limited in
// number, and printed as `file:line:col: error: message` followed by the
// source line and a caret. User errors never abort; they are reported here.
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "common/source_file.h"

namespace warpsim {

enum class Severity { Error, Warning, Note };

struct Diagnostic {
  Severity severity = Severity::Error;
  std::string file;
  SourceLocation location;
  std::string message;
  std::string source_line;  // the offending line's text, when known
};

// Formats one diagnostic: header line, then the source line and a caret
// under the column when the source line is known.
std::string format_diagnostic(const Diagnostic& d);

class DiagnosticEngine {
 public:
  explicit DiagnosticEngine(size_t error_limit = 50) : error_limit_(error_limit) {}

  // Records a diagnostic. Once `error_limit` errors are recorded, further
  // errors are counted but not stored (limit_reached() becomes true).
  void report(Severity severity, const SourceFile* file, SourceLocation loc, std::string message);
  void error(const SourceFile* file, SourceLocation loc, std::string message) {
    report(Severity::Error, file, loc, std::move(message));
  }
  void warning(const SourceFile* file, SourceLocation loc, std::string message) {
    report(Severity::Warning, file, loc, std::move(message));
  }

  bool has_errors() const { return error_count_ > 0; }
  size_t error_count() const { return error_count_; }
  bool limit_reached() const { return error_count_ >= error_limit_; }
  const std::vector<Diagnostic>& diagnostics() const { return diagnostics_; }

  // All stored diagnostics, formatted, plus a "too many errors" line when some
  // were dropped.
  std::string format_all() const;
  void clear();

 private:
  size_t error_limit_;
  size_t error_count_ = 0;
  std::vector<Diagnostic> diagnostics_;
};

}  // namespace warpsim
