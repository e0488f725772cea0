#pragma once
// Internal invariant checks. A violated invariant is a warpsim bug, never a
// user error: it aborts with a message naming the invariant and the place.
// User errors go through DiagnosticEngine or error codes instead.
#include <source_location>
#include <string_view>

namespace warpsim {

[[noreturn]] void invariant_failed(std::string_view condition, std::string_view message,
                                   std::source_location where = std::source_location::current());

}  // namespace warpsim

#define WARPSIM_INVARIANT(cond, msg)                                   \
  do {                                                                 \
    if (!(cond)) [[unlikely]] ::warpsim::invariant_failed(#cond, msg); \
  } while (0)
