#include "common/input_file.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <memory>

namespace warpsim {

std::string read_input_file(const std::string& path, std::string& out, uint64_t max_bytes) {
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> f(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (!f) return "cannot read file";
  std::string text;
  char buffer[1 << 16];
  // Stops one byte past the limit: enough to know the input is too large.
  while (text.size() <= max_bytes) {
    const size_t want =
        static_cast<size_t>(std::min<uint64_t>(sizeof buffer, max_bytes + 1 - text.size()));
    const size_t got = std::fread(buffer, 1, want, f.get());
    text.append(buffer, got);
    if (got < want) break;
  }
  if (std::ferror(f.get())) return "cannot read file";
  if (text.size() > max_bytes)
    return max_bytes % (1 << 20) == 0
               ? fmt::format("file is larger than {} MiB (the input size limit)", max_bytes >> 20)
               : fmt::format("file is larger than {} B (the input size limit)", max_bytes);
  out = std::move(text);
  return {};
}

}  // namespace warpsim
