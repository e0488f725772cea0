#pragma once
// The grid executor of functional-only mode: runs every CTA of a launch.
//
// Three schedules, all deterministic:
//  - in order: one CTA after another on the calling thread;
//  - parallel: CTAs claimed in index order by `threads` host threads. Memory,
//    printf output (emitted in CTA order), statistics and the reported fault
//    (the lowest-numbered faulting CTA) are the same as in order, for every
//    kernel whose CTAs do not race with each other. CTAs that do (float
//    atomics accumulating into one address, atomics whose returned values
//    decide what is written where) get the same set of results a GPU could
//    give, not necessarily the in-order one. By default (threads = 0) a
//    kernel whose CTAs cannot act on one another (KernelInfo::cta_interaction
//    is empty) runs this way on every core, the others in order;
//  - co-resident (cooperative launches): every CTA exists at once and they take
//    turns of `cta_quantum` warp instructions, so CTAs can wait for each other
//    (grid-wide sync).
// CTAs of a thread-block cluster (sm_90) are always co-resident with each
// other; the unit the schedules above order and distribute is the cluster.
// A watchdog bounds the warp instructions one CTA may execute, turning a hung
// kernel (a spin loop that never ends) into a LaunchTimeout fault.
#include <cstdint>
#include <optional>
#include <vector>

#include "functional/launch.h"
#include "functional/launch_monitor.h"
#include "functional/warp.h"

namespace warpsim::functional {

struct ExecutorOptions {
  // Host threads running CTAs; 1 runs them in order; 0 (the default): all
  // cores (auto_threads()) for kernels whose CTAs cannot act on one another,
  // in order for the rest.
  uint32_t threads = 0;
  uint32_t warp_quantum = 4096;  // instructions a warp runs before the next warp's turn
  uint32_t cta_quantum = 16384;  // co-resident CTAs: warp instructions per turn
  uint64_t watchdog = uint64_t{1} << 30;  // max warp instructions per CTA; 0: unlimited
  // Where kernel accesses to device memory fault; read by whoever creates the
  // DeviceMemory (the CUDA runtime), not by the executor.
  MemoryCheck memcheck = MemoryCheck::Gpu;
  // Progress counters and the stop request of whoever watches the run
  // (`warpsim run`); null: nobody. Not a configuration value.
  LaunchMonitor* monitor = nullptr;
};

struct GridOutcome {
  uint64_t ctas = 0;  // CTAs that ran (to completion or to the fault)
  uint64_t warp_instructions = 0;
  uint64_t thread_instructions = 0;
  uint64_t max_cta_warp_instructions = 0;  // the most warp instructions one CTA ran
  uint64_t cycles = 0;  // timing mode: core cycles from launch to the last CTA's end
  OffloadCounts offload;
  std::optional<ExecFault> fault;  // the first fault in CTA order
  Dim3 fault_cta;
  uint32_t fault_warp = 0;
};

// The host threads `threads = 0` gives a kernel whose CTAs cannot act on one
// another: this machine's hardware threads, at most 16.
uint32_t auto_threads();
// The host threads that run the CTAs of `kernel` under `options`.
uint32_t grid_threads(const ExecutorOptions& options, const KernelInfo* kernel);

class Cta;
// The CTA with linear index `i` (x fastest) of `grid`.
Dim3 cta_at(const Dim3& grid, uint64_t i);
// The fault of a CTA stopped by the watchdog after `limit` warp
// instructions: blamed on the first warp still running, at the instruction
// it was about to execute (`warp` receives that warp's index).
ExecFault timeout_fault(const Cta& cta, uint64_t limit, uint32_t& warp);
// The fault of a CTA stopped because the user interrupted the run (signal
// `sig`), blamed like the watchdog's.
ExecFault interrupted_fault(const Cta& cta, int sig, uint32_t& warp);

// Runs the grid of `ctx` in clusters of `cluster` CTAs (the grid is a
// multiple of it; 1x1x1 without clusters). Device printf output goes to
// ctx.print, in CTA order.
GridOutcome run_grid(LaunchContext& ctx, const ExecutorOptions& options, Dim3 cluster = {});

// Sampled timing simulation's functional part (timing/gpu.h):
// Runs only the CTAs of the grid of `ctx` with these linear indices, in this
// order (or in parallel, as run_grid would); a launch without clusters.
GridOutcome run_ctas(LaunchContext& ctx, const ExecutorOptions& options, const std::vector<uint64_t>& ctas);
// Runs CTAs another model began to their end, taking turns of cta_quantum
// warp instructions in the order given (they may wait for each other). The
// outcome counts what ran in this call; `ctas` counts them all.
GridOutcome finish_ctas(const ExecutorOptions& options, const std::vector<Cta*>& ctas);

}  // namespace warpsim::functional
