#include "common/source_file.h"

#include <fstream>
#include <sstream>

namespace warpsim {

SourceFile::SourceFile(std::string name, std::string text)
    : name_(std::move(name)), text_(std::move(text)) {}

void SourceFile::index_lines() const {
  if (!line_starts_.empty()) return;
  line_starts_.push_back(0);
  for (uint32_t i = 0; i < text_.size(); ++i)
    if (text_[i] == '\n') line_starts_.push_back(i + 1);
}

uint32_t SourceFile::line_count() const {
  index_lines();
  return static_cast<uint32_t>(line_starts_.size());
}

std::string_view SourceFile::line(uint32_t line) const {
  index_lines();
  if (line == 0 || line > line_starts_.size()) return {};
  size_t begin = line_starts_[line - 1];
  size_t end = line < line_starts_.size() ? line_starts_[line] - 1 : text_.size();
  if (end > begin && text_[end - 1] == '\r') --end;
  return std::string_view(text_).substr(begin, end - begin);
}

bool read_file(const std::string& path, std::string& out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) return false;
  out = std::move(ss).str();
  return true;
}

}  // namespace warpsim
