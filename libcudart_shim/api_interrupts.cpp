// SIGINT, SIGTERM and SIGHUP under `warpsim run`: the run stops soon and
// still leaves its statistics behind, marked partial.
//
// At load time (only in the process `warpsim run` started, and only where the
// program has not already chosen what these signals do) a handler is
// installed that raises the launch monitor's stop request - the running
// launch ends at its next look, within a fraction of a second - and wakes a
// watcher thread. Whichever comes first - the thread whose launch stopped, or
// the watcher once it holds the runtime's lock (at once in host code) -
// writes the statistics gathered so far and ends the process by the same
// signal with its default action, so that the exit status says what
// happened and the program never runs on past a launch it did not finish. A program that installs its own handler later keeps it:
// what it does with the signal is its business.
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <mutex>
#include <thread>

#include "libcudart_shim/api.h"

namespace warpsim::cudart::api {

namespace {

constexpr int kStopSignals[] = {SIGINT, SIGTERM, SIGHUP};
int g_wake[2] = {-1, -1};  // the handler's byte for the watcher
pid_t g_root = 0;          // the process warpsim run started

extern "C" void on_stop_signal(int sig) {
  const int saved = errno;
  if (::getpid() != g_root) {
    // A forked child of the program: behave as if nobody had caught it.
    ::signal(sig, SIG_DFL);
    ::raise(sig);
    errno = saved;
    return;
  }
  if (Runtime* r = created_runtime())
    if (RunProgressPage* page = r->progress_page()) {
      int32_t none = 0;
      page->monitor.stop.compare_exchange_strong(none, sig);  // lock-free: safe in a handler
    }
  const char byte = static_cast<char>(sig);
  (void)!::write(g_wake[1], &byte, 1);
  errno = saved;
}

[[noreturn]] void watch() {
  char byte = 0;
  while (::read(g_wake[0], &byte, 1) != 1) {
  }
  const int sig = static_cast<unsigned char>(byte);
  if (Runtime* r = created_runtime()) {
    // Waits for a running launch, which stops at once and ends the process
    // itself (after its statistics); in host code, the lock is free.
    r->mutex().lock();
    r->end_by_signal(sig);
  }
  end_process_by_signal(sig);
}

__attribute__((constructor)) void catch_stop_signals() {
  const char* fd = std::getenv("WARPSIM_PROGRESS_FD");
  const char* root = std::getenv("WARPSIM_ROOT_PID");
  if (fd == nullptr || root == nullptr || std::atoi(root) != ::getpid()) return;
  g_root = ::getpid();
  if (::pipe2(g_wake, O_CLOEXEC) != 0) return;
  // The watcher blocks every signal, so that handlers run on the program's
  // own threads and never on it.
  sigset_t all, old;
  sigfillset(&all);
  ::pthread_sigmask(SIG_BLOCK, &all, &old);
  try {
    std::thread(watch).detach();
  } catch (...) {
    ::pthread_sigmask(SIG_SETMASK, &old, nullptr);
    return;
  }
  ::pthread_sigmask(SIG_SETMASK, &old, nullptr);
  for (int sig : kStopSignals) {
    struct sigaction current {};
    if (::sigaction(sig, nullptr, &current) != 0 || current.sa_handler != SIG_DFL) continue;
    struct sigaction sa {};
    sa.sa_handler = on_stop_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    ::sigaction(sig, &sa, nullptr);
  }
}

}  // namespace

}  // namespace warpsim::cudart::api
