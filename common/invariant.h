#pragma once
// Internal invariant checks. A violated invariant is a warpsim bug, never a
// user error: it aborts with a message naming the invariant and the place.
// User errors go through DiagnosticEngine or error codes instead.
// (__FILE__/__LINE__ rather than std::source_location: clang 14 with
// libstdc++ 12 lacks the latter.)
#include <string_view>

namespace warpsim {

[[noreturn]] void invariant_failed(std::string_view condition, std::string_view message,
                                   const char* file, int line);

}  // namespace warpsim

#define WARPSIM_INVARIANT(cond, msg)                                                       \
  do {                                                                                     \
    if (!(cond)) [[unlikely]] ::warpsim::invariant_failed(#cond, msg, __FILE__, __LINE__); \
  } while (0)
