// Kernel launches: the <<<>>> call configuration, launch validation with
// the errors the real runtime returns, parameter layout from the PTX
// parameter list, execution, faults, and the per-kernel queries
// (cudaFuncGetAttributes, cudaFuncSetAttribute, occupancy).
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <vector>

#include "libcudart_shim/runtime.h"

namespace warpsim::cudart {

using functional::Dim3;

namespace {

// <<<>>> pushes a configuration that the host stub pops (per host thread;
// a stack because a stub may be reached while another push is pending).
struct CallConfiguration {
  Dim3 grid, block;
  uint64_t shared = 0;
  const void* stream = nullptr;
};
thread_local std::vector<CallConfiguration> t_call_stack;

Error error_for(functional::LaunchError e) {
  using functional::LaunchError;
  switch (e) {
    case LaunchError::None: return Error::Success;
    case LaunchError::IllegalAddress: return Error::IllegalAddress;
    case LaunchError::MisalignedAddress: return Error::MisalignedAddress;
    case LaunchError::LaunchFailure: return Error::LaunchFailure;
    case LaunchError::IllegalInstruction: return Error::IllegalInstruction;
    case LaunchError::Assert: return Error::Assert;
    case LaunchError::InvalidConfiguration: return Error::InvalidConfiguration;
    case LaunchError::InvalidValue: return Error::InvalidValue;
    case LaunchError::LaunchTimeout: return Error::LaunchTimeout;
  }
  return Error::Unknown;
}

uint32_t product(const std::vector<uint32_t>& dims) {
  uint64_t p = 1;
  for (uint32_t d : dims) p *= d;
  return static_cast<uint32_t>(std::min<uint64_t>(p, UINT32_MAX));
}

// The kernel's own limit on threads per CTA (.maxntid / .reqntid), 0 = none.
uint32_t declared_max_threads(const KernelEntry& k) {
  if (k.info == nullptr || !k.binary->program) return 0;
  const functional::Program& p = *k.binary->program;
  const ptx::Function& f = p.module->functions[p.functions[k.info->function].ptx_function];
  if (!f.perf.maxntid.empty()) return product(f.perf.maxntid);
  if (!f.perf.reqntid.empty()) return product(f.perf.reqntid);
  return 0;
}

}  // namespace

unsigned Runtime::push_call_configuration(Dim3 grid, Dim3 block, uint64_t shared,
                                          const void* stream) {
  t_call_stack.push_back({grid, block, shared, stream});
  return 0;
}

Error Runtime::pop_call_configuration(Dim3* grid, Dim3* block, uint64_t* shared,
                                      const void** stream) {
  if (t_call_stack.empty()) return Error::MissingConfiguration;
  const CallConfiguration c = t_call_stack.back();
  t_call_stack.pop_back();
  if (grid) *grid = c.grid;
  if (block) *block = c.block;
  if (shared) *shared = c.shared;
  if (stream) *stream = c.stream;
  return Error::Success;
}

Error Runtime::check_launch(const KernelEntry& k, const LaunchRequest& r, uint64_t* dynamic) {
  const GpuConfig& g = config_.gpu;
  const Dim3& grid = r.grid;
  const Dim3& block = r.block;
  // CUDA 13's runtime reports a grid or block the device cannot run, and a
  // block beyond the kernel's own limit, as cudaErrorInvalidValue (measured
  // on an H100: docs/runtime-shim.md, "Behaviour measured on a GPU"); CUDA
  // 11 and 12 as cudaErrorInvalidConfiguration and cudaErrorLaunchOutOfResources.
  const bool cuda13 = abi_major_ >= 13;
  const Error bad_shape = cuda13 ? Error::InvalidValue : Error::InvalidConfiguration;
  const Error beyond_kernel = cuda13 ? Error::InvalidValue : Error::LaunchOutOfResources;
  if (grid.x == 0 || grid.y == 0 || grid.z == 0 || block.x == 0 || block.y == 0 || block.z == 0)
    return bad_shape;
  if (grid.x > g.max_grid_dim[0] || grid.y > g.max_grid_dim[1] || grid.z > g.max_grid_dim[2])
    return bad_shape;
  if (block.x > g.max_block_dim[0] || block.y > g.max_block_dim[1] ||
      block.z > g.max_block_dim[2] || block.count() > g.max_threads_per_block)
    return bad_shape;
  // Beyond the kernel's own limit (__launch_bounds__, or registers) the
  // driver refuses the launch for lack of resources.
  const uint32_t threads = static_cast<uint32_t>(block.count());
  if (uint32_t bound = declared_max_threads(k); bound != 0 && threads > bound)
    return beyond_kernel;
  if (k.registers_from_cubin) {
    const auto occ = functional::compute_occupancy(sm_resources(), {threads, k.registers, 0});
    if (occ.by_registers == 0) return beyond_kernel;
  }
  // Shared memory: dynamic beyond the kernel's allowance (48 KiB minus its
  // static shared memory unless cudaFuncAttributeMaxDynamicSharedMemorySize
  // raised it) is an invalid argument.
  const uint64_t static_shared = k.static_shared;
  const uint64_t allowance =
      k.max_dynamic_shared ? *k.max_dynamic_shared
                           : g.shared_mem_per_block - std::min(static_shared, g.shared_mem_per_block);
  if (r.shared_bytes > allowance || static_shared + r.shared_bytes > g.shared_mem_per_block_optin)
    return Error::InvalidValue;
  // A cooperative grid must fit on the GPU at once.
  if (r.cooperative) {
    const auto occ = functional::compute_occupancy(
        sm_resources(k.carveout), {threads, k.registers, static_shared + r.shared_bytes});
    if (r.grid.count() > uint64_t{occ.ctas_per_sm} * g.num_sms)
      return Error::CooperativeLaunchTooLarge;
  }
  *dynamic = r.shared_bytes;
  return Error::Success;
}

Error Runtime::launch(const LaunchRequest& r) {
  KernelEntry* k = nullptr;
  if (Error e = load_kernel(r.function, &k); e != Error::Success) return e;
  Stream* stream = streams_.resolve(r.stream, r.per_thread_stream);
  if (stream == nullptr) return Error::InvalidResourceHandle;
  uint64_t dynamic = 0;
  if (Error e = check_launch(*k, r, &dynamic); e != Error::Success) return e;
  bool record = false;
  if (Error e = capture_gate(*stream, false, &record); e != Error::Success) return e;
  if (record) {
    // Captured: the launch becomes a kernel node (arguments copied now).
    KernelParams p;
    if (Error e = kernel_node_params(r.function, r.grid, r.block, r.shared_bytes, r.args, nullptr,
                                     &p);
        e != Error::Success)
      return e;
    capture_node(*stream, NodeType::Kernel)->kernel = std::move(p);
    return Error::Success;
  }

  const functional::KernelInfo& info = *k->info;
  std::vector<uint8_t> params;
  if (Error e = pack_arguments(info, r.args, &params); e != Error::Success) return e;

  functional::LaunchConfig cfg;
  cfg.grid = r.grid;
  cfg.block = r.block;
  cfg.dynamic_shared_bytes = static_cast<uint32_t>(dynamic);
  cfg.cluster = r.cluster;
  if (r.cooperative) {
    // The grid barrier's workspace, zeroed for each launch.
    if (coop_workspace_ == 0) {
      coop_workspace_ = device_->memory().allocate(64, functional::AllocationKind::Device,
                                                   "grid sync workspace");
      if (coop_workspace_ == 0) return Error::MemoryAllocation;
    }
    (void)device_->memory().memset(coop_workspace_, 0, 64);
    cfg.cooperative = true;
    cfg.envreg[1] = static_cast<uint32_t>(coop_workspace_ >> 32);
    cfg.envreg[2] = static_cast<uint32_t>(coop_workspace_);
  }

  flush_printf();  // earlier kernels' output first
  double seconds = 0;
  functional::LaunchResult res =
      run_grid(*k->binary, info, k, cfg, std::move(params), &seconds);
  if (res.error == functional::LaunchError::InvalidConfiguration ||
      res.error == functional::LaunchError::InvalidValue)
    return error_for(res.error);
  account_grid(*k, info, cfg, res, seconds);
  // Dynamic parallelism: what the grid launched runs after it, in its place
  // on the timeline (runtime_device_launch.cpp).
  double duration = kernel_duration_ns(res);
  if (!res.device_work.empty()) duration += run_device_work(*k->binary, res);
  (void)place(*stream, duration);
  if (res.fault) {
    // The kernel stopped: the context is unusable from now on, as on a GPU;
    // the launch call itself succeeded (the failure is asynchronous). A
    // launch the user interrupted is no fault of the kernel's: `warpsim run`
    // reports the interruption.
    flush_printf();
    sticky_ = error_for(res.error);
    if (res.fault->fault.kind != functional::FaultKind::Interrupted) {
      std::fputs(res.fault->message.c_str(), stderr);
      stats_.add("runtime.kernel_faults");
    }
  }
  return Error::Success;
}

Error Runtime::pack_arguments(const functional::KernelInfo& info, void** args,
                              std::vector<uint8_t>* block) {
  const auto& slots = info.resources.params;
  if (!slots.empty() && args == nullptr) return Error::InvalidValue;
  block->assign(info.resources.param_bytes, 0);
  for (size_t i = 0; i < slots.size(); ++i) {
    if (args[i] == nullptr) return Error::InvalidValue;
    std::memcpy(block->data() + slots[i].offset, args[i], slots[i].size);
  }
  return Error::Success;
}

functional::LaunchResult Runtime::run_grid(const Binary& binary,
                                           const functional::KernelInfo& info,
                                           const KernelEntry* k, functional::LaunchConfig cfg,
                                           std::vector<uint8_t> params, double* seconds) {
  // The executor's frames are PTX frames, not the (smaller) SASS ones: never
  // give a thread less than 16 KiB (untouched stack costs nothing).
  cfg.local_bytes_per_thread = static_cast<uint32_t>(std::min<uint64_t>(
      std::max({limits_.stack, info.resources.local_bytes, uint64_t{16} << 10}), 1u << 24));
  if (timing_) {
    const uint32_t regs = k != nullptr && k->registers != 0 ? k->registers
                                                            : info.resources.reg32_with_callees;
    cfg.resources = functional::LaunchResources{sm_resources(k != nullptr ? k->carveout : -1), regs};
  }
  configure_device_runtime();  // limits of the grid's device-side launches
  const auto t0 = std::chrono::steady_clock::now();
  if (progress_) {
    progress_->set_kernel(info.name);
    progress_->launches.fetch_add(1, std::memory_order_relaxed);
    progress_->in_launch.store(1, std::memory_order_release);
  }
  functional::LaunchResult res = device_->launch(*binary.program, info, cfg, std::move(params));
  if (progress_) end_progress_line();
  *seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return res;
}

void Runtime::account_grid(KernelEntry& k, const functional::KernelInfo& info,
                           const functional::LaunchConfig& cfg, const functional::LaunchResult& r,
                           double seconds) {
  if (launch_records_.size() < kMaxLaunchRecords) {
    launch_records_.push_back({info.name, cfg.grid, cfg.block, r.thread_instructions, r.cycles,
                               kernel_duration_ns(r), seconds, cfg.depth > 0,
                               launched_ ? launched_->sampling : timing::Sampling::None});
  } else {
    launches_unrecorded_++;
  }
  k.stats.launches++;
  k.stats.ctas += r.ctas;
  k.stats.warp_instructions += r.warp_instructions;
  k.stats.thread_instructions += r.thread_instructions;
  k.stats.offload += r.offload;
  k.stats.cycles += r.cycles;
  k.stats.wall_seconds += seconds;
  publish_launch(k, r, seconds);
  // A launch the user stopped: the program does not go on (it would see a
  // failed launch no GPU gives); it ends as the signal would have ended it.
  if (r.fault && r.fault->fault.kind == functional::FaultKind::Interrupted && progress_ != nullptr)
    end_by_signal(progress_->monitor.stop.load());
  if (r.invalid_frees != 0) {
    // Undefined behaviour that a GPU ignores: so does warpsim, but it says so
    // (once per context; the statistics count every one).
    stats_.add("runtime.device_invalid_frees", r.invalid_frees);
    if (!invalid_free_reported_) {
      invalid_free_reported_ = true;
      flush_printf();
      std::fprintf(stderr,
                   "warpsim: warning: kernel '%s' called device free() %llu time%s on a pointer "
                   "device malloc() did not return or that was freed already; ignored, as a GPU "
                   "ignores it (undefined behaviour). The first: %s\n",
                   k.info ? k.info->name.c_str() : "?",
                   static_cast<unsigned long long>(r.invalid_frees),
                   r.invalid_frees == 1 ? "" : "s", r.first_invalid_free.c_str());
    }
  }
}

Error Runtime::kernel_attributes(const void* function, KernelAttributes* out) {
  KernelEntry* k = nullptr;
  if (Error e = load_kernel(function, &k); e != Error::Success) {
    // CUDA 12+ takes a function it does not know for a cudaKernel_t handle;
    // CUDA 13 then reports an invalid handle (measured on an H100).
    if (e == Error::InvalidDeviceFunction && abi_major_ >= 13 &&
        registry_.kernel(function) == nullptr)
      return Error::InvalidResourceHandle;
    return e;
  }
  const functional::KernelInfo& info = *k->info;
  const GpuConfig& g = config_.gpu;
  KernelAttributes a;
  a.shared_bytes = k->static_shared;
  a.const_bytes = info.resources.const_bytes;
  a.local_bytes = k->local_bytes;
  a.registers = k->registers;
  // The largest CTA that can launch: the kernel's bound, the device limit,
  // and what its registers allow (rounded down to whole warps).
  uint32_t max_threads = static_cast<uint32_t>(g.max_threads_per_block);
  if (uint32_t bound = declared_max_threads(*k); bound != 0) max_threads = std::min(max_threads, bound);
  if (k->registers > 0) {
    // Whole warps, in multiples of the register file's 4 sub-partitions
    // (functional/occupancy.h).
    const uint64_t per_warp = (uint64_t{k->registers} * g.warp_size + g.reg_alloc_unit - 1) /
                              g.reg_alloc_unit * g.reg_alloc_unit;
    const uint64_t warps = g.regs_per_block / per_warp / 4 * 4;
    max_threads = static_cast<uint32_t>(std::min<uint64_t>(max_threads, warps * g.warp_size));
  }
  a.max_threads_per_block = max_threads;
  a.ptx_version = k->binary->ptx_arch;
  a.binary_version = k->binary->binary_arch;
  a.max_dynamic_shared = k->max_dynamic_shared
                             ? *k->max_dynamic_shared
                             : g.shared_mem_per_block - std::min(a.shared_bytes, g.shared_mem_per_block);
  a.carveout = k->carveout;
  a.cluster_dims_set = info.cluster_dims[0] * info.cluster_dims[1] * info.cluster_dims[2] > 1;
  for (int i = 0; i < 3; ++i) a.cluster_dims[i] = a.cluster_dims_set ? info.cluster_dims[i] : 0;
  a.non_portable_cluster_size = k->non_portable_cluster_size;
  *out = a;
  return Error::Success;
}

Error Runtime::set_kernel_attribute(const void* function, int attribute, int value) {
  KernelEntry* k = nullptr;
  if (Error e = load_kernel(function, &k); e != Error::Success) return e;
  const GpuConfig& g = config_.gpu;
  switch (attribute) {
    case 8: {  // cudaFuncAttributeMaxDynamicSharedMemorySize
      if (value < 0 ||
          k->static_shared + static_cast<uint64_t>(value) > g.shared_mem_per_block_optin)
        return Error::InvalidValue;
      k->max_dynamic_shared = static_cast<uint64_t>(value);
      return Error::Success;
    }
    case 9:  // cudaFuncAttributePreferredSharedMemoryCarveout: -1 (default) or 0..100
      if (value < -1 || value > 100) return Error::InvalidValue;
      k->carveout = value;
      return Error::Success;
    case 10: case 11: case 12: case 13:  // cluster dimensions: fixed by the PTX here
      return Error::NotSupported;
    case 14:  // cudaFuncAttributeNonPortableClusterSizeAllowed
      if (value != 0 && value != 1) return Error::InvalidValue;
      k->non_portable_cluster_size = value == 1;
      return Error::Success;
    case 15:  // cudaFuncAttributeClusterSchedulingPolicyPreference
      if (value < 0 || value > 2) return Error::InvalidValue;
      return Error::Success;
    default:
      return Error::InvalidValue;
  }
}

Error Runtime::set_kernel_cache_config(const void* function, int config) {
  if (config < 0 || config > 3) return Error::InvalidValue;
  KernelEntry* k = nullptr;
  if (Error e = load_kernel(function, &k); e != Error::Success) return e;
  k->cache_config = config;
  return Error::Success;
}

Error Runtime::occupancy(int* ctas, const void* function, int block_size, uint64_t dynamic_shared,
                         unsigned flags) {
  if (ctas == nullptr || (flags & ~1u) != 0) return Error::InvalidValue;
  KernelEntry* k = nullptr;
  if (Error e = load_kernel(function, &k); e != Error::Success) return e;
  if (block_size <= 0) return Error::InvalidValue;
  const uint32_t bound = declared_max_threads(*k);
  if (bound != 0 && static_cast<uint32_t>(block_size) > bound) {
    *ctas = 0;
    return Error::Success;
  }
  const auto occ = functional::compute_occupancy(
      sm_resources(k->carveout), {static_cast<uint32_t>(block_size), k->registers,
                                  k->static_shared + dynamic_shared});
  *ctas = static_cast<int>(occ.ctas_per_sm);
  return Error::Success;
}

Error Runtime::available_dynamic_shared(uint64_t* bytes, const void* function, int ctas,
                                        int block_size) {
  if (bytes == nullptr || ctas <= 0 || block_size <= 0) return Error::InvalidValue;
  KernelEntry* k = nullptr;
  if (Error e = load_kernel(function, &k); e != Error::Success) return e;
  const functional::SmResources sm = sm_resources(k->carveout);
  const auto occ = functional::compute_occupancy(
      sm, {static_cast<uint32_t>(block_size), k->registers, k->static_shared});
  if (occ.ctas_per_sm < static_cast<uint32_t>(ctas)) {
    *bytes = 0;
    return Error::Success;
  }
  // Shared memory each CTA may have, in allocation units, minus what it
  // already uses; never more than a CTA may have at all.
  uint64_t per_cta = sm.shared_per_sm / static_cast<uint64_t>(ctas);
  per_cta = per_cta / sm.shared_alloc_unit * sm.shared_alloc_unit;
  const uint64_t used = k->static_shared + sm.reserved_shared_per_block;
  uint64_t avail = per_cta > used ? per_cta - used : 0;
  avail = std::min(avail, sm.shared_per_block_max - std::min(sm.shared_per_block_max,
                                                              k->static_shared));
  *bytes = avail;
  return Error::Success;
}

}  // namespace warpsim::cudart
