#pragma once
// SIGINT/SIGTERM/SIGHUP in the commands that run programs (`run`, `bench`,
// `sweep`): the handler only records the signal, so that the command can stop
// its programs, keep what finished and remove its temporary files before it
// exits with 128 + the signal.
namespace warpsim::tools {

void catch_interrupts();
bool interrupted();
int interrupt_signal();  // the first signal caught, 0: none
int interrupt_count();   // signals caught so far (a second one means "now")

}  // namespace warpsim::tools
