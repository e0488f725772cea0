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
  lim.pending_launches = limits_.pending_launches;
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

// Depth-first over the tree of grids, with an explicit stack: a program may
// nest as deep as the pending-launch limit allows (2048 by default, any
// number the program sets), which must not depend on the host's stack.
double Runtime::run_device_work(Binary& binary, functional::LaunchResult& top) {
  // A grid whose work is being run: its result (the top grid's lives with
  // the caller), the work it launched, where the walk through that work is,
  // and the launch slot it holds until it completes with its descendants.
  struct Frame {
    functional::LaunchResult own;
    functional::LaunchResult* result = nullptr;
    std::vector<DeviceWork> work;
    bool tail_pass = false;  // ordinary and fire-and-forget work first, then tail launches
    size_t next = 0;
    double ns = 0;           // the grid's own duration plus its work's so far
    uint64_t slot = 0;
    Frame(functional::LaunchResult* r, double duration, uint64_t held)
        : result(r), work(std::move(r->device_work)), ns(duration), slot(held) {
      r->device_work.clear();
    }
    Frame(functional::LaunchResult&& r, double duration, uint64_t held)
        : own(std::move(r)), result(&own), work(std::move(own.device_work)), ns(duration),
          slot(held) {
      own.device_work.clear();
    }
  };
  functional::DeviceRuntime& runtime = device_->device_runtime();
  std::vector<std::unique_ptr<Frame>> stack;
  stack.push_back(std::make_unique<Frame>(&top, 0.0, uint64_t{0}));
  for (;;) {
    Frame& f = *stack.back();
    functional::LaunchResult& parent = *f.result;
    Frame* child = nullptr;
    while (child == nullptr) {
      if (f.next == f.work.size()) {
        if (f.tail_pass) break;
        f.tail_pass = true;
        f.next = 0;
        continue;
      }
      DeviceWork& w = f.work[f.next++];
      if ((w.stream == DeviceWork::Stream::TailLaunch) != f.tail_pass) continue;
      if (parent.fault) {  // the context failed: nothing else runs
        if (w.slot != 0) (void)runtime.release_slot(w.slot);
        continue;
      }
      if (w.kind != DeviceWork::Kind::Launch) {
        functional::DeviceMemory& memory = device_->memory();
        const functional::Fault fault = w.kind == DeviceWork::Kind::Copy
                                            ? memory.copy_device(w.dst, w.src, w.bytes)
                                            : memory.memset(w.dst, w.value, w.bytes);
        if (fault) {
          parent.fault = copy_fault(w, fault);
          parent.error = parent.fault->error;
        }
        f.ns += copy_duration_ns(w.bytes, false);
        continue;
      }
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
        std::fprintf(stderr,
                     "warpsim: device-side launch of '%s' refused (%s): the grid does not run\n",
                     info.name.c_str(), std::string(functional::to_string(res.error)).c_str());
        (void)runtime.release_slot(w.slot);
        continue;
      }
      stats_.add("runtime.device_launches");
      max_device_depth_ = std::max(max_device_depth_, w.depth);
      stats_.set("runtime.device_launch_max_depth", uint64_t{max_device_depth_});
      KernelEntry unregistered;  // a kernel the program never registered: no per-kernel record
      account_grid(k != nullptr ? *k : unregistered, info, cfg, res, seconds);
      const double ns = kernel_duration_ns(res);
      stack.push_back(std::make_unique<Frame>(std::move(res), ns, w.slot));
      child = stack.back().get();
    }
    if (child != nullptr) continue;
    // The grid and all it launched are done: its slot is free again, its
    // time and any fault go to its parent.
    std::unique_ptr<Frame> done = std::move(stack.back());
    stack.pop_back();
    if (done->slot != 0) (void)runtime.release_slot(done->slot);
    if (stack.empty()) return done->ns;
    Frame& up = *stack.back();
    up.ns += done->ns;
    if (done->result->fault) {
      up.result->fault = std::move(done->result->fault);
      up.result->error = done->result->error;
    }
  }
}

}  // namespace warpsim::cudart
