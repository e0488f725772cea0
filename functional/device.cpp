#include "functional/device.h"

#include <fmt/format.h>

#include "functional/grid.h"
#include "functional/lower.h"
#include "ptx/printer.h"

namespace warpsim::functional {

std::string_view to_string(LaunchError e) {
  switch (e) {
    case LaunchError::None: return "success";
    case LaunchError::IllegalAddress: return "cudaErrorIllegalAddress";
    case LaunchError::MisalignedAddress: return "cudaErrorMisalignedAddress";
    case LaunchError::LaunchFailure: return "cudaErrorLaunchFailure";
    case LaunchError::IllegalInstruction: return "cudaErrorIllegalInstruction";
    case LaunchError::Assert: return "cudaErrorAssert";
    case LaunchError::InvalidConfiguration: return "cudaErrorInvalidConfiguration";
    case LaunchError::InvalidValue: return "cudaErrorInvalidValue";
    case LaunchError::LaunchTimeout: return "cudaErrorLaunchTimeout";
  }
  return "?";
}

namespace {

// What a real GPU reports for each kind of fault.
LaunchError error_for(FaultKind k) {
  switch (k) {
    case FaultKind::OutOfBounds:
    case FaultKind::UseAfterFree:
    case FaultKind::ReadOnly: return LaunchError::IllegalAddress;
    case FaultKind::Misaligned: return LaunchError::MisalignedAddress;
    case FaultKind::IllegalInstruction: return LaunchError::IllegalInstruction;
    case FaultKind::Timeout:
    case FaultKind::Interrupted: return LaunchError::LaunchTimeout;  // the launch was stopped
    case FaultKind::AssertFailed: return LaunchError::Assert;
    default: return LaunchError::LaunchFailure;
  }
}

FaultReport make_report(const Program& prog, const KernelInfo& kernel, const LaunchConfig& config,
                        Dim3 cta, uint32_t warp_in_cta, const ExecFault& ef) {
  FaultReport r;
  r.error = error_for(ef.fault.kind);
  r.kernel = kernel.name;
  r.cta = cta;
  uint32_t t = warp_in_cta * kWarpSize + ef.lane;
  const Dim3& b = config.block;
  r.thread = Dim3{t % b.x, (t / b.x) % b.y, t / (b.x * b.y)};
  r.fault = ef.fault;
  const ptx::Module& m = *prog.module;
  const DecodedInst& inst = prog.code[ef.pc];
  const FunctionInfo& fi = prog.functions[inst.function];
  const ptx::Function& f = m.functions[fi.ptx_function];
  std::string src_name = m.source ? m.source->name() : std::string("<ptx>");
  if (inst.ptx_index < f.instructions.size()) {
    const ptx::Instruction& pi = f.instructions[inst.ptx_index];
    r.instruction = ptx::print_instruction(f, pi);
    r.location = fmt::format("{}:{}", src_name, pi.loc.line);
    if (pi.debug.file) {
      for (const auto& file : m.files)
        if (file.index == pi.debug.file)
          r.location += fmt::format(" ({}:{})", file.path, pi.debug.line);
    }
  } else {
    r.instruction = "<end of function " + fi.name + ">";
    r.location = src_name;
  }
  std::string what = describe(ef.fault);
  if (what.empty()) what = ef.message;
  r.message = fmt::format(
      "warpsim: kernel '{}' stopped: {}\n"
      "  block ({}, {}, {}), thread ({}, {}, {}), in function '{}'\n"
      "  at {}: {}\n"
      "  the launch fails with {}\n",
      r.kernel, what, cta.x, cta.y, cta.z, r.thread.x, r.thread.y, r.thread.z, fi.name,
      r.location, r.instruction, to_string(r.error));
  return r;
}

}  // namespace

Device::Device(DeviceMemoryConfig memory_config)
    : memory_(std::make_unique<DeviceMemory>(memory_config)) {}

std::shared_ptr<const Program> Device::load(std::span<const ptx::PtxSource> sources,
                                            const ptx::CompileOptions& options,
                                            DiagnosticEngine& diags) {
  std::shared_ptr<const ptx::Module> module = ptx::compile(sources, options, diags);
  if (!module) return nullptr;
  return lower_module(std::move(module), *memory_, diags);
}

std::shared_ptr<const Program> Device::load_ptx(std::string_view text, std::string name,
                                                DiagnosticEngine& diags) {
  const ptx::PtxSource source{text, std::move(name)};
  return load(std::span(&source, 1), {}, diags);
}

std::optional<std::vector<uint8_t>> Device::layout_params(
    const KernelInfo& kernel, std::span<const std::vector<uint8_t>> values, std::string* why) const {
  const auto& slots = kernel.resources.params;
  if (values.size() != slots.size()) {
    if (why) *why = fmt::format("kernel '{}' takes {} parameters, {} given", kernel.name,
                                slots.size(), values.size());
    return std::nullopt;
  }
  std::vector<uint8_t> buf(kernel.resources.param_bytes, 0);
  for (size_t i = 0; i < values.size(); ++i) {
    if (values[i].size() != slots[i].size) {
      if (why) *why = fmt::format("parameter {} of '{}' is {} bytes, {} given", i, kernel.name,
                                  slots[i].size, values[i].size());
      return std::nullopt;
    }
    if (!values[i].empty())
      std::memcpy(buf.data() + slots[i].offset, values[i].data(), values[i].size());
  }
  return buf;
}

LaunchResult Device::launch(const Program& program, const KernelInfo& kernel,
                            const LaunchConfig& config, std::vector<uint8_t> params) {
  LaunchResult result;
  // Local memory is reserved lazily (calloc'd pages), but the reservation
  // itself must be possible: at most 16 GiB of stack per CTA.
  const bool stack_fits = uint64_t{config.local_bytes_per_thread} * config.block.count() <= (16ull << 30);
  if (config.grid.count() == 0 || config.block.count() == 0 || config.block.count() > 1024 || !stack_fits) {
    result.error = LaunchError::InvalidConfiguration;
    return result;
  }
  // Cluster shape: the launch's, else the kernel's; the grid must tile by it.
  Dim3 cluster = config.cluster;
  if (cluster.count() == 1)
    cluster = Dim3{kernel.cluster_dims[0], kernel.cluster_dims[1], kernel.cluster_dims[2]};
  if (cluster.count() == 0 || cluster.count() > 16 || config.grid.x % cluster.x ||
      config.grid.y % cluster.y || config.grid.z % cluster.z) {
    result.error = LaunchError::InvalidConfiguration;
    return result;
  }
  LaunchContext ctx;
  ctx.program = &program;
  ctx.kernel = &kernel;
  ctx.memory = memory_.get();
  ctx.config = config;
  ctx.config.grid_id = next_grid_id_++;
  ctx.params = std::move(params);
  ctx.clock = clock_base_;
  ctx.heap = &heap_;
  ctx.textures = &textures_;
  ctx.num_sms = sm_count_;
  // The heap is made before the first kernel that needs it runs (device-side
  // allocation must not happen while executor threads translate addresses);
  // its size, and the printf FIFO's, are fixed from then on, as in CUDA.
  for (const CallSite& site : program.call_sites) {
    if ((site.builtin == Builtin::Malloc || site.builtin == Builtin::Free ||
         uses_device_heap(site)) && !heap_.created())
      (void)heap_.create(*memory_);  // on failure malloc returns NULL, as CUDA's does
    if (site.builtin == Builtin::Vprintf) printf_fifo_.fix_capacity();
  }
  ctx.print = [this](std::string_view s, uint64_t record_bytes) {
    if (keep_printed_) printed_ += s;
    printf_fifo_.push(s, record_bytes);
  };
  // Dynamic parallelism: the grid's device-runtime calls are recorded, and
  // the work they launched is handed to the caller (device_launch.h).
  std::unique_ptr<GridDeviceRuntime> device_runtime;
  if (uses_device_runtime(program)) {
    (void)device_runtime_.prepare(*memory_);  // without slots every launch reports the limit
    device_runtime = std::make_unique<GridDeviceRuntime>(device_runtime_, program, ctx.config);
    ctx.device_runtime = device_runtime.get();
  }
  GridOutcome out = grid_runner_ ? grid_runner_(ctx, options_, cluster) : run_grid(ctx, options_, cluster);
  if (device_runtime) result.device_work = device_runtime->finish();
  result.invalid_frees = heap_.take_invalid_frees(&result.first_invalid_free);
  clock_base_ += out.cycles != 0 ? out.cycles : out.warp_instructions;
  result.ctas = out.ctas;
  result.warp_instructions = out.warp_instructions;
  result.thread_instructions = out.thread_instructions;
  result.offload = out.offload;
  result.cycles = out.cycles;
  if (out.fault) {
    result.fault = make_report(program, kernel, ctx.config, out.fault_cta, out.fault_warp, *out.fault);
    result.error = result.fault->error;
  }
  return result;
}

}  // namespace warpsim::functional
