#pragma once
// "SIGTERM" for 15: signal names in messages and statistics.
#include <string.h>

#include <string>

namespace warpsim {

inline std::string sigabbrev(int sig) {
  const char* abbrev = ::sigabbrev_np(sig);
  return abbrev ? std::string("SIG") + abbrev : "signal " + std::to_string(sig);
}

}  // namespace warpsim
