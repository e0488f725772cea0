#include "common/invariant.h"

#include <cstdio>
#include <cstdlib>

namespace warpsim {

void invariant_failed(std::string_view condition, std::string_view message,
                      std::source_location where) {
  std::fprintf(stderr, "warpsim internal error: invariant `%.*s` violated: %.*s\n  at %s:%u (%s)\n",
               static_cast<int>(condition.size()), condition.data(),
               static_cast<int>(message.size()), message.data(), where.file_name(),
               static_cast<unsigned>(where.line()), where.function_name());
  std::abort();
}

}  // namespace warpsim
