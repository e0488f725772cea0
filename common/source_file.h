#pragma once
// A named text buffer with on-demand line lookup, for diagnostics.
// The text is owned here; string_views handed out stay valid while the
// SourceFile lives (it is never resized after construction).
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace warpsim {

// 1-based line and column; 0 means "unknown".
struct SourceLocation {
  uint32_t line = 0;
  uint32_t column = 0;
  friend bool operator==(const SourceLocation&, const SourceLocation&) = default;
};

class SourceFile {
 public:
  SourceFile(std::string name, std::string text);

  const std::string& name() const { return name_; }
  std::string_view text() const { return text_; }
  // Text of line `line` (1-based) without its newline; empty if out of range.
  std::string_view line(uint32_t line) const;
  uint32_t line_count() const;

 private:
  void index_lines() const;

  std::string name_;
  std::string text_;
  mutable std::vector<uint32_t> line_starts_;  // built lazily: only diagnostics need it
};

// Reads a whole file; returns false (and leaves `out` untouched) on I/O error.
bool read_file(const std::string& path, std::string& out);

}  // namespace warpsim
