// Dynamic parallelism, runtime side: runs the work a grid launched on the
// device (functional/device_launch.h) once the grid is done.
//
// The schedule: the grid's ordinary and fire-and-forget work in issue order
// (CTA by CTA, each CTA's in the order its threads issued it), then its
// tail launches in issue order; each piece runs to completion, including
// everything it launches in turn, before the next starts. CUDA guarantees no
// concurrency between a parent and its children or between siblings, so
// this is one of the schedules a GPU may use, and it keeps every ordering
// rule: work of one stream in launch order, event waits, a tail launch after
// its grid and all the grid's other work, a parent complete only when its
// descendants are.
//
// Timing: each child grid runs on the timing model like a host launch and
// its duration (launch cost plus cycles) adds to its top-level launch's
// place on the stream timeline - children after their parent, one after
// another, never overlapping (an upper bound on what a GPU, which may
// overlap siblings, would take).
#include <fmt/format.h>

#include <algorithm>
#include <cstdio>

#include "libcudart_shim/runtime.h"

namespace warpsim::cudart {

using functional::DeviceWork;

namespace {

// The registered kernel a device launch names, if the program registered it
// (nvcc registers every __global__ function of a translation unit).
KernelEntry* entry_for(Binary& binary, const functional::KernelInfo* kernel) {
  for (KernelEntry* k : binary.kernels)
    if (k->info == kernel) return k;
  return nullptr;
}

// A failed device-side copy or set stops the launch like a faulting access.
functional::FaultReport copy_fault(const DeviceWork& w, const functional::Fault& f) {
  functional::FaultReport r;
  r.error = functional::LaunchError::IllegalAddress;
  r.kernel = w.kind == DeviceWork::Kind::Copy ? "cudaMemcpyAsync" : "cudaMemsetAsync";
  r.fault = f;
  r.message = fmt::format(
      "warpsim: device-side {} of {} bytes (dst 0x{:x}) failed: {}\n"
      "  the launch fails with cudaErrorIllegalAddress\n",
      r.kernel, w.bytes, w.dst, functional::describe(f));
  return r;
}

}  // namespace

void Runtime::configure_device_runtime() {
  functional::DeviceRuntime& dr = device_->device_runtime();
  functional::DeviceRuntimeLimits lim;
  const GpuConfig& g = config_.gpu;
  lim.max_grid = g.max_grid_dim;
  lim.max_block = g.max_block_dim;
  lim.max_threads_per_block = g.max_threads_per_block;
  lim.shared_per_block_optin = g.shared_mem_per_block_optin;
  lim.pending_launches = pending_launch_limit_;
  lim.runtime_version = runtime_version();
  dr.set_limits(lim);
  if (!dr.attribute)
    dr.attribute = [this](int attribute, int* value) {
      return static_cast<int32_t>(device_attribute(attribute, value));
    };
  if (!dr.limit)
    dr.limit = [this](int limit, uint64_t* value) {
      return static_cast<int32_t>(get_limit(limit, value));
    };
}

double Runtime::run_device_work(Binary& binary, functional::LaunchResult& parent) {
  std::vector<DeviceWork> work = std::move(parent.device_work);
  parent.device_work.clear();
  double ns = 0;
  for (const bool tail : {false, true}) {
    for (DeviceWork& w : work) {
      if ((w.stream == DeviceWork::Stream::TailLaunch) != tail) continue;
      if (parent.fault) {  // the context failed: nothing else runs
        if (w.slot != 0) (void)device_->device_runtime().release_slot(w.slot);
        continue;
      }
      ns += run_device_item(binary, w, parent);
    }
  }
  return ns;
}

double Runtime::run_device_item(Binary& binary, DeviceWork& w, functional::LaunchResult& parent) {
  functional::DeviceMemory& memory = device_->memory();
  if (w.kind != DeviceWork::Kind::Launch) {
    const functional::Fault f = w.kind == DeviceWork::Kind::Copy
                                    ? memory.copy_device(w.dst, w.src, w.bytes)
                                    : memory.memset(w.dst, w.value, w.bytes);
    if (f) {
      parent.fault = copy_fault(w, f);
      parent.error = parent.fault->error;
    }
    return copy_duration_ns(w.bytes, false);
  }
  // The child starts: its launch slot is free again.
  (void)device_->device_runtime().release_slot(w.slot);
  const functional::KernelInfo& info = *w.kernel;
  KernelEntry* k = entry_for(binary, w.kernel);
  functional::LaunchConfig cfg;
  cfg.grid = w.grid;
  cfg.block = w.block;
  cfg.dynamic_shared_bytes = w.shared_bytes;
  cfg.depth = w.depth;
  double seconds = 0;
  functional::LaunchResult res = run_grid(binary, info, k, cfg, std::move(w.params), &seconds);
  if (res.error == functional::LaunchError::InvalidConfiguration ||
      res.error == functional::LaunchError::InvalidValue) {
    // Checked at the device-side launch already; only a cluster shape the
    // grid does not tile gets here. The child does not run.
    std::fprintf(stderr, "warpsim: device-side launch of '%s' refused (%s): the grid does not run\n",
                 info.name.c_str(), std::string(functional::to_string(res.error)).c_str());
    return 0;
  }
  stats_.add("runtime.device_launches");
  max_device_depth_ = std::max(max_device_depth_, w.depth);
  stats_.set("runtime.device_launch_max_depth", uint64_t{max_device_depth_});
  KernelEntry unregistered;  // a kernel the program never registered: no per-kernel record
  account_grid(k != nullptr ? *k : unregistered, res, seconds);
  double ns = kernel_duration_ns(res);
  // Its own children (run_device_work gives back their slots if it faulted).
  ns += run_device_work(binary, res);
  if (res.fault) {
    parent.fault = std::move(res.fault);
    parent.error = res.error;
  }
  return ns;
}

}  // namespace warpsim::cudart
