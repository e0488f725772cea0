#include "tools/interrupts.h"

#include <signal.h>

#include <csignal>
#include <initializer_list>

namespace warpsim::tools {

namespace {
volatile std::sig_atomic_t g_signal = 0;
volatile std::sig_atomic_t g_count = 0;
extern "C" void on_interrupt(int sig) {
  if (g_signal == 0) g_signal = sig;
  g_count = g_count + 1;
}
}  // namespace

void catch_interrupts() {
  struct sigaction sa {};
  sa.sa_handler = on_interrupt;
  sigemptyset(&sa.sa_mask);
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) ::sigaction(sig, &sa, nullptr);
}

bool interrupted() { return g_signal != 0; }
int interrupt_signal() { return g_signal; }
int interrupt_count() { return g_count; }

}  // namespace warpsim::tools
