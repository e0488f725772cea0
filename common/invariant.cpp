#include "common/invariant.h"

#include <cstdio>
#include <cstdlib>

namespace warpsim {

void invariant_failed(std::string_view condition, std::string_view message, const char* file,
                      int line) {
  std::fprintf(stderr, "warpsim internal error: invariant `%.*s` violated: %.*s\n  at %s:%d\n",
               static_cast<int>(condition.size()), condition.data(),
               static_cast<int>(message.size()), message.data(), file, line);
  std::abort();
}

}  // namespace warpsim
