#include "libcudart_shim/runtime.h"

#include <fmt/format.h>
#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>

#include "libcudart_shim/device_attributes.h"
#include "common/signal_name.h"
#include "timing/power_machine.h"

namespace warpsim::cudart {

namespace {

// Where the simulated device memory lives in the 64-bit address space, and
// where host-visible (managed, pinned) allocations are mapped: both away
// from the program's own mappings and from the sanitizers' fixed regions
// (ASan's allocator sits at 0x6000'0000'0000). The device window is also
// reserved PROT_NONE, so that no host mapping can ever appear at an address
// the runtime takes for device memory.
constexpr uint64_t kDeviceBase = 0x3000'0000'0000ull;
constexpr uint64_t kDeviceWindow = uint64_t{1} << 44;  // 16 TiB of device addresses
constexpr uint64_t kHostVisibleBase = 0x4000'0000'0000ull;
constexpr uint64_t kHostVisibleWindow = uint64_t{1} << 44;

void reserve_device_window() {
  static bool reserved = false;
  if (reserved) return;
  reserved = true;
  void* want = reinterpret_cast<void*>(kDeviceBase);
  void* p = mmap(want, kDeviceWindow, PROT_NONE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE, -1, 0);
  if (p != MAP_FAILED && p != want) munmap(p, kDeviceWindow);
}

std::string getenv_string(const char* name) {
  const char* v = std::getenv(name);
  return v ? std::string(v) : std::string();
}

// A kernel's counts of the tagged offload chains it executed, with the two
// fractions Pattnaik et al. (ISCA 2019) report in their Table 3.
nlohmann::json offload_json(const functional::OffloadCounts& c, uint64_t thread_instructions) {
  auto fraction = [](uint64_t n, uint64_t d) { return d != 0 ? static_cast<double>(n) / static_cast<double>(d) : 0.0; };
  return {{"chains", c.chains},
          {"tagged_thread_instructions", c.tagged_thread_instructions},
          {"tagged_warp_instructions", c.tagged_warp_instructions},
          {"global_accesses", c.global_accesses},
          {"tagged_global_accesses", c.tagged_global_accesses},
          {"tagged_instruction_fraction", fraction(c.tagged_thread_instructions, thread_instructions)},
          {"tagged_access_fraction", fraction(c.tagged_global_accesses, c.global_accesses)}};
}

}  // namespace

RuntimeOptions RuntimeOptions::from_environment() {
  RuntimeOptions o;
  o.config = getenv_string("WARPSIM_CONFIG");
  const std::string set = getenv_string("WARPSIM_SET");
  size_t start = 0;
  while (start < set.size()) {
    size_t end = set.find('\n', start);
    if (end == std::string::npos) end = set.size();
    if (end > start) o.overrides.push_back(set.substr(start, end - start));
    start = end + 1;
  }
  if (std::string m = getenv_string("WARPSIM_MODE"); !m.empty()) o.mode = m;
  o.stats_file = getenv_string("WARPSIM_STATS_FILE");
  o.program = getenv_string("WARPSIM_PROGRAM");
  o.root_pid = std::atoi(getenv_string("WARPSIM_ROOT_PID").c_str());
  o.verbose = getenv_string("WARPSIM_VERBOSE") == "1";
  o.power_trace = getenv_string("WARPSIM_POWER_TRACE");
  if (const std::string fd = getenv_string("WARPSIM_PROGRESS_FD"); !fd.empty()) o.progress_fd = std::atoi(fd.c_str());
  return o;
}

Runtime::Runtime(int abi_major, SimConfig config, RuntimeOptions options)
    : abi_major_(abi_major),
      config_(std::move(config)),
      passes_(config_.compiler),
      options_(std::move(options)),
      started_(std::chrono::steady_clock::now()) {
  make_device();
}

std::unique_ptr<Runtime> Runtime::from_environment(int abi_major) {
  RuntimeOptions options = RuntimeOptions::from_environment();
  DiagnosticEngine diags;
  std::optional<SimConfig> config = load_sim_config(options.config, options.overrides, diags);
  Error init = Error::Success;
  if (!config) {
    std::fprintf(stderr, "warpsim: the GPU configuration cannot be loaded:\n%s",
                 diags.format_all().c_str());
    config = SimConfig{};
    init = Error::InitializationError;
  }
  if (options.mode != "functional" && options.mode != "timing") {
    std::fprintf(stderr, "warpsim: unknown mode '%s' (WARPSIM_MODE: timing or functional)\n",
                 options.mode.c_str());
    init = Error::InitializationError;
  }
  reserve_device_window();
  auto rt = std::make_unique<Runtime>(abi_major, std::move(*config), std::move(options));
  rt->init_error_ = init;
  return rt;
}

int Runtime::runtime_version() const {
  switch (abi_major_) {
    case 11: return 11080;
    case 12: return 12090;
    default: return 13000;
  }
}

Error& Runtime::last_error() {
  thread_local Error e = Error::Success;
  return e;
}

Error Runtime::record(Error e) {
  if (e != Error::Success) last_error() = e;
  return e;
}

void Runtime::make_device() {
  functional::DeviceMemoryConfig mem;
  mem.capacity = config_.gpu.memory_size;
  mem.base = kDeviceBase;
  mem.address_space = kDeviceWindow;
  mem.host_visible_base = kHostVisibleBase;
  mem.host_visible_size = kHostVisibleWindow;
  mem.check = config_.functional.memcheck;
  device_ = std::make_unique<functional::Device>(mem);
  device_->set_sm_count(static_cast<uint32_t>(config_.gpu.num_sms));
  map_progress_page();
  functional::ExecutorOptions executor = config_.functional;
  if (progress_) executor.monitor = &progress_->monitor;
  device_->set_executor_options(executor);
  if (options_.mode == "timing") {
    timing_ = std::make_unique<timing::Gpu>(config_);
    power_machine_ = timing::power_machine(config_);
    power::publish_parameters(power_parameters_, config_.power);
    if (!options_.power_trace.empty() && config_.power.enabled) start_power_trace();
    // One call into the timing model per grid: it returns the grid's
    // activity, which publish_launch turns into statistics.
    device_->set_grid_runner([this](functional::LaunchContext& ctx, const functional::ExecutorOptions& o,
                                    functional::Dim3 cluster) {
      if (power_trace_) power_trace_->begin_launch(ctx.kernel->name, timing_->total_cycles());
      timing::LaunchRun run = timing_->launch(ctx, o, cluster);
      if (power_trace_) power_trace_->end_launch(power_activity(run.activity));
      launched_ = std::move(run.activity);
      return std::move(run.outcome);
    });
  }
  // A GPU's view of memory (--memcheck=gpu): before the program's first
  // allocation the CUDA runtime has mapped memory of its own (the context's),
  // so a kernel reading a little below the first buffer (Rodinia's srad_v2
  // reads 1 KiB below it) finds mapped memory and runs on, as on a GPU. One
  // reserved byte maps that granule; the rest of it is slack (reads of it
  // return zeros, writes to it are dropped).
  own_bytes_ = 0;
  if (mem.check == functional::MemoryCheck::Gpu &&
      device_->memory().allocate(1, functional::AllocationKind::Device, "the CUDA runtime's own memory") != 0)
    own_bytes_ = 1;
  device_->set_keep_printed(false);
  (void)device_->heap().set_capacity(limits_.heap);
  // Device printf output waits in the device's FIFO (functional::PrintfFifo)
  // until the next flush point (flush_printf).
  (void)device_->printf_fifo().set_capacity(limits_.printf_fifo);
}

functional::SmResources Runtime::sm_resources(int carveout_percent) const {
  const GpuConfig& g = config_.gpu;
  functional::SmResources r = timing::sm_resources(g);
  if (carveout_percent >= 0 && carveout_percent <= 100)
    r.shared_per_sm = std::max<uint64_t>(g.shared_mem_per_sm * carveout_percent / 100,
                                         g.reserved_shared_mem_per_block);
  return r;
}

int Runtime::current_device() const { return 0; }

Error Runtime::set_device(int device) {
  return device == 0 ? Error::Success : Error::InvalidDevice;
}

Error Runtime::set_device_flags(unsigned flags) {
  // cudaDeviceScheduleMask bits: at most one schedule, and known flags only.
  const unsigned schedule = flags & 0x07u;
  if ((flags & ~0xFFu) != 0 || (schedule != 0 && (schedule & (schedule - 1)) != 0))
    return Error::InvalidValue;
  device_flags_ = flags;
  return Error::Success;
}

Error Runtime::device_attribute(int attribute, int* value) const {
  if (value == nullptr) return Error::InvalidValue;
  auto v = cudart::device_attribute(config_.gpu, attribute, abi_major_);
  if (!v) return Error::InvalidValue;
  *value = *v;
  return Error::Success;
}

Error Runtime::set_limit(int limit, uint64_t value) {
  switch (limit) {
    case 0:  // cudaLimitStackSize: per-thread stack, rounded up to 16 bytes
      limits_.stack = (value + 15) & ~uint64_t{15};
      return Error::Success;
    case 1:  // cudaLimitPrintfFifoSize: fixed once a kernel that calls printf was launched
      // An H100 reads back at least 512 KiB (4 KiB and 64 KiB requests).
      value = std::max(value, functional::kMinPrintfFifoBytes);
      if (!device_->printf_fifo().set_capacity(value)) return Error::InvalidValue;
      limits_.printf_fifo = value;
      return Error::Success;
    case 2:  // cudaLimitMallocHeapSize: fixed once a kernel that calls malloc/free was launched
      // An H100 reads back at least 4 MiB (1 and 3 MiB requests; 5 MiB stays 5 MiB).
      value = std::max(value, functional::DeviceHeap::kMinCapacity);
      if (!device_->heap().set_capacity(value)) return Error::InvalidValue;
      limits_.heap = value;
      return Error::Success;
    case 3:  // cudaLimitDevRuntimeSyncDepth: a CDP1 limit
      if (!sync_depth_limit_supported()) return Error::UnsupportedLimit;
      limits_.sync_depth = value;
      return Error::Success;
    case 4:  // cudaLimitDevRuntimePendingLaunchCount
      limits_.pending_launches = std::max(value, kMinPendingLaunches);
      return Error::Success;
    case 5:  // cudaLimitMaxL2FetchGranularity: 0..128, a power of two
      if (value > 128 || (value & (value - 1)) != 0) return Error::InvalidValue;
      limits_.l2_fetch_granularity = value;
      return Error::Success;
    case 6:  // cudaLimitPersistingL2CacheSize
      limits_.persisting_l2 = std::min<uint64_t>(value, config_.gpu.l2_size * 3 / 4);
      return Error::Success;
    default:
      return Error::UnsupportedLimit;
  }
}

Error Runtime::get_limit(int limit, uint64_t* value) const {
  if (value == nullptr) return Error::InvalidValue;
  switch (limit) {
    case 0: *value = limits_.stack; return Error::Success;
    case 1: *value = limits_.printf_fifo; return Error::Success;
    case 2: *value = limits_.heap; return Error::Success;
    case 3:
      if (!sync_depth_limit_supported()) return Error::UnsupportedLimit;
      *value = limits_.sync_depth;
      return Error::Success;
    case 4: *value = limits_.pending_launches; return Error::Success;
    case 5: *value = limits_.l2_fetch_granularity; return Error::Success;
    case 6: *value = limits_.persisting_l2; return Error::Success;
    default: return Error::UnsupportedLimit;
  }
}

bool Runtime::sync_depth_limit_supported() const {
  // Device-side synchronisation (CDP1) does not exist on compute capability
  // 9.0 and later, which only CUDA 12+ (CDP2) targets: an H100 with CUDA 13
  // answers cudaErrorUnsupportedLimit.
  return abi_major_ < 12 || config_.gpu.cc() < 90;
}

Error Runtime::synchronize() {
  if (Error e = capture_forbids_unsafe_call(); e != Error::Success) return e;
  flush_printf();
  streams_.host_waits_for(streams_.all_done_ns());
  release_pool_memory();
  return sticky_;
}

Error Runtime::reset() {
  // Everything the context held goes: memory, modules' device state,
  // streams, events, limits, the sticky error. Registrations stay: the next
  // use loads the binaries again, with their initial global values.
  flush_printf();
  streams_.host_waits_for(streams_.all_done_ns());
  captures_.reset();
  graphs_.reset();
  graph_mem_mapped_ = graph_mem_used_high_ = graph_mem_reserved_high_ = 0;
  streams_.reset();
  registry_.new_generation();
  sticky_ = Error::Success;
  limits_ = Limits{};
  device_flags_ = 0;
  cache_config = 0;
  shared_mem_config = 0;
  printf_overflow_reported_ = false;
  invalid_free_reported_ = false;
  host_flags_.clear();
  advice_.clear();
  object_descriptors.clear();
  coop_workspace_ = 0;
  pools_.clear();  // their chunks go with the device memory
  make_device();
  stats_.add("runtime.device_resets");
  return Error::Success;
}

Error Runtime::load(Binary& binary) {
  LoadContext ctx;
  ctx.device = device_.get();
  ctx.compute_capability = config_.gpu.cc();
  ctx.max_regs_per_thread = static_cast<uint32_t>(config_.gpu.max_regs_per_thread);
  ctx.estimate_cap = static_cast<uint32_t>(
      std::max<uint64_t>(1, config_.gpu.regs_per_block / std::max<uint64_t>(1, config_.gpu.max_threads_per_block)));
  ctx.compile = passes_.options();
  const bool fresh = binary.generation != registry_.generation() || !binary.attempted;
  Error e = registry_.load(binary, ctx);
  if (fresh && !passes_.empty()) passes_.publish(stats_);  // what the passes did to this module
  if (fresh && e == Error::Success) {
    stats_.add("runtime.binaries_loaded");
    if (options_.verbose)
      std::fprintf(stderr, "warpsim: loaded fatbin #%llu: PTX compute_%u (contains %s)\n",
                   static_cast<unsigned long long>(binary.id), binary.ptx_arch,
                   binary.contents.c_str());
  }
  return e;
}

Error Runtime::load_kernel(const void* function, KernelEntry** out) {
  KernelEntry* k = registry_.kernel(function);
  if (k == nullptr) return Error::InvalidDeviceFunction;
  if (Error e = load(*k->binary); e != Error::Success) return e;
  if (k->info == nullptr) return Error::InvalidDeviceFunction;
  *out = k;
  return Error::Success;
}

Error Runtime::load_var(const void* symbol, VarEntry** out) {
  VarEntry* v = registry_.var(symbol);
  // Host code names a __managed__ variable by its storage (the expression
  // `var` dereferences the pointer the runtime set), not by a shadow.
  if (v == nullptr) v = registry_.managed_var_at(reinterpret_cast<uint64_t>(symbol));
  if (v == nullptr) return Error::InvalidSymbol;
  if (Error e = load(*v->binary); e != Error::Success) return e;
  if (v->address == 0) return Error::InvalidSymbol;
  *out = v;
  return Error::Success;
}

Error Runtime::enqueue(const void* stream, bool per_thread, double duration_ns, bool synchronous) {
  Stream* s = streams_.resolve(stream, per_thread);
  if (s == nullptr) return Error::InvalidResourceHandle;
  const double end = place(*s, duration_ns);
  if (synchronous) {
    flush_printf();
    streams_.host_waits_for(end);
  }
  return Error::Success;
}

Error Runtime::stream_synchronize(const void* handle, bool per_thread) {
  Stream* s = streams_.resolve(handle, per_thread);
  if (s == nullptr) return Error::InvalidResourceHandle;
  if (s->capture != nullptr) {  // it would wait for work that does not run
    s->capture->invalidated = true;
    return Error::StreamCaptureUnsupported;
  }
  if (Error e = capture_forbids_unsafe_call(); e != Error::Success) return e;
  flush_printf();
  double t = s->ready_ns;
  // Waiting for the legacy stream also waits for the blocking streams it
  // waits for, and vice versa.
  if (s->legacy) t = std::max(t, streams_.all_done_ns());
  streams_.host_waits_for(t);
  release_pool_memory();
  return sticky_;
}

Error Runtime::event_synchronize(const void* handle) {
  Event* e = streams_.event(handle);
  if (e == nullptr) return Error::InvalidResourceHandle;
  if (Error err = host_waits_for_event(*e); err != Error::Success) return err;
  flush_printf();
  if (e->recorded) streams_.host_waits_for(e->time_ns);
  release_pool_memory();
  return sticky_;
}

Error Runtime::event_elapsed(float* ms, const void* start, const void* end) {
  if (ms == nullptr) return Error::InvalidValue;
  Event* a = streams_.event(start);
  Event* b = streams_.event(end);
  if (a == nullptr || b == nullptr) return Error::InvalidResourceHandle;
  if (!a->timing() || !b->timing()) return Error::InvalidResourceHandle;
  if (!a->recorded || !b->recorded) return Error::InvalidResourceHandle;
  *ms = static_cast<float>((b->time_ns - a->time_ns) / 1e6);
  return Error::Success;
}

Error Runtime::host_function(const void* stream, bool per_thread, void (*fn)(void*), void* user) {
  if (fn == nullptr) return Error::InvalidValue;
  Stream* s = streams_.resolve(stream, per_thread);
  if (s == nullptr) return Error::InvalidResourceHandle;
  bool record = false;
  if (Error e = capture_gate(*s, false, &record); e != Error::Success) return e;
  if (record) {
    capture_node(*s, NodeType::Host)->host = HostParams{fn, user};
    return Error::Success;
  }
  // The stream's earlier work is done (it ran when submitted), so the
  // callback runs now, in the submitting thread: CUDA forbids callbacks to
  // call the runtime, so which thread runs them is not observable.
  place(*s, 0);
  flush_printf();
  fn(user);
  stats_.add("runtime.host_functions");
  return Error::Success;
}

double Runtime::kernel_duration_ns(const functional::LaunchResult& r) const {
  if (r.cycles != 0) return cost_.launch_ns + r.cycles * 1000.0 / config_.gpu.core_clock;
  const uint64_t warp_instructions = r.warp_instructions;
  const double issue_per_ns = config_.gpu.num_sms * cost_.issue_per_sm_per_cycle *
                              config_.gpu.core_clock / 1000.0;  // MHz -> per ns
  return cost_.launch_ns + (issue_per_ns > 0 ? warp_instructions / issue_per_ns : 0);
}

double Runtime::copy_duration_ns(uint64_t bytes, bool crosses_pcie) const {
  if (crosses_pcie) return cost_.copy_latency_ns + bytes / cost_.pcie_bytes_per_ns;
  // Device to device: read and write at the DRAM bandwidth (bus width x
  // double data rate x memory clock).
  const double dram_bytes_per_ns =
      config_.gpu.memory_bus_width / 8.0 * 2.0 * config_.gpu.memory_clock / 1000.0;
  return 1000.0 + (dram_bytes_per_ns > 0 ? 2.0 * bytes / dram_bytes_per_ns : 0);
}

void Runtime::flush_printf() {
  // The host reads the FIFO: its records are printed, the space is free again.
  uint64_t overwritten = 0;
  const std::string text = device_->printf_fifo().take(&overwritten);
  if (!text.empty()) std::fwrite(text.data(), 1, text.size(), stdout);
  if (overwritten == 0) return;
  stats_.add("runtime.printf_overwritten", overwritten);
  if (printf_overflow_reported_) return;  // once per context: a program may overflow at every flush
  printf_overflow_reported_ = true;
  std::fflush(stdout);
  std::fprintf(stderr,
               "warpsim: %llu earlier device printf record%s overwritten: more output than the "
               "printf FIFO (cudaLimitPrintfFifoSize, %llu bytes) holds came before the next "
               "synchronisation; as on a GPU, the FIFO is circular and keeps the newest\n",
               static_cast<unsigned long long>(overwritten), overwritten == 1 ? " was" : "s were",
               static_cast<unsigned long long>(limits_.printf_fifo));
}

void Runtime::report_unsupported(const char* function) {
  stats_.add(fmt::format("runtime.unsupported_calls.{}", function));
  for (const std::string& f : unsupported_reported_)
    if (f == function) return;
  unsupported_reported_.emplace_back(function);
  std::fprintf(stderr, "warpsim: %s is not supported (returns cudaErrorNotSupported)\n", function);
}

void Runtime::publish_launch(KernelEntry& k, const functional::LaunchResult& r, double seconds) {
  stats_.add("runtime.kernels_launched");
  stats_.add("gpu_tot_sim_insn", r.thread_instructions);
  stats_.add("gpu_tot_sim_warp_insn", r.warp_instructions);
  stats_.add("gpu_tot_ctas", r.ctas);
  if (k.binary != nullptr && k.binary->program && k.binary->program->offload_marks)
    functional::offload_counts_table().publish(stats_, r.offload, {functional::kOffloadCountsPrefix});
  if (launched_ && config_.power.enabled) {
    // The kernel's share of the energy model's counters: what this launch
    // added to the run's.
    const power::Activity before = power::Activity::from_registry(stats_, power::input_names());
    timing::publish(stats_, *launched_);
    k.stats.power_inputs.add(power::Activity::from_registry(stats_, power::input_names()).minus(before));
  } else if (launched_) {
    timing::publish(stats_, *launched_);
  }
  launched_.reset();
  launch_seconds_ += seconds;
}

void Runtime::map_progress_page() {
  // Only the process `warpsim run` started reports (not its children).
  if (progress_ != nullptr || options_.progress_fd < 0) return;
  if (options_.root_pid != 0 && options_.root_pid != getpid()) return;
  void* p = mmap(nullptr, sizeof(RunProgressPage), PROT_READ | PROT_WRITE, MAP_SHARED, options_.progress_fd, 0);
  if (p == MAP_FAILED) return;
  auto* page = static_cast<RunProgressPage*>(p);
  if (page->magic != RunProgressPage::kMagic) {
    munmap(p, sizeof(RunProgressPage));
    return;
  }
  progress_ = page;
}

void Runtime::end_progress_line() {
  progress_->in_launch.store(0, std::memory_order_release);
  // warpsim run's progress line shares the terminal with the program's
  // output, which may follow at once: clear it first.
  if (progress_->line_shown.exchange(0) != 0) {
    static const char clear[] = "\r\033[K";
    (void)!::write(2, clear, sizeof clear - 1);
  }
}

void Runtime::interrupt(int sig) {
  if (interrupted_by_ == 0) interrupted_by_ = sig;
}

void end_process_by_signal(int sig) {
  ::signal(sig, SIG_DFL);
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, sig);
  ::pthread_sigmask(SIG_UNBLOCK, &set, nullptr);
  ::raise(sig);
  ::_exit(128 + sig);  // not reached: the default action of these signals ends the process
}

void Runtime::end_by_signal(int sig) {
  interrupt(sig);
  write_statistics();
  std::fflush(stdout);
  end_process_by_signal(sig);
}

void Runtime::write_statistics() {
  flush_printf();
  if (options_.stats_file.empty()) return;
  if (options_.root_pid != 0 && options_.root_pid != getpid()) return;
  const double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
  nlohmann::json j = stats_.to_json();
  j["warpsim"] = {
      {"mode", options_.mode},
      {"program", options_.program},
      {"cuda_runtime_major", abi_major_},
      {"gpu", config_.gpu.name},
      {"compute_capability", fmt::format("{}.{}", config_.gpu.cc_major(), config_.gpu.cc_minor())},
      {"num_sms", config_.gpu.num_sms},
      {"core_clock_mhz", config_.gpu.core_clock},
      {"wall_seconds", wall},
      {"simulation_seconds", launch_seconds_},
      {"simulated_gpu_ns", streams_.all_done_ns()},
      // An interrupted run's statistics cover what ran before the signal.
      {"partial", interrupted_by_ != 0},
  };
  if (interrupted_by_ != 0) j["warpsim"]["interrupted_by"] = sigabbrev(interrupted_by_);
  nlohmann::json kernels = nlohmann::json::array();
  for (const KernelEntry& k : registry_.kernels()) {
    if (k.stats.launches == 0) continue;
    kernels.push_back({{"name", k.name},
                       {"launches", k.stats.launches},
                       {"ctas", k.stats.ctas},
                       {"warp_instructions", k.stats.warp_instructions},
                       {"thread_instructions", k.stats.thread_instructions},
                       {"cycles", k.stats.cycles},
                       {"wall_seconds", k.stats.wall_seconds}});
    if (k.binary != nullptr && k.binary->program && k.binary->program->offload_marks)
      kernels.back()["offload_chains"] = offload_json(k.stats.offload, k.stats.thread_instructions);
  }
  j["kernels"] = std::move(kernels);
  nlohmann::json launches = nlohmann::json::array();
  for (size_t i = 0; i < launch_records_.size(); ++i) {
    const LaunchRecord& l = launch_records_[i];
    launches.push_back({{"index", i},
                        {"kernel", l.kernel},
                        {"grid", {l.grid.x, l.grid.y, l.grid.z}},
                        {"block", {l.block.x, l.block.y, l.block.z}},
                        {"thread_instructions", l.thread_instructions},
                        {"cycles", l.cycles},
                        {"duration_ns", l.duration_ns},
                        {"wall_seconds", l.wall_seconds},
                        {"device_side", l.device_side}});
    // Sampled simulation: how this launch's cycles were found.
    if (l.sampling != timing::Sampling::None) launches.back()["sampled"] = timing::to_string(l.sampling);
  }
  j["launches"] = std::move(launches);
  // Whether any statistic of the run comes from sampled simulation.
  j["warpsim"]["sampled"] = stats_.counter("timing.sampled_launches") != 0;
  if (launches_unrecorded_ != 0) j["warpsim"]["launches_unrecorded"] = launches_unrecorded_;
  publish_power(j);  // after "kernels": adds each kernel's energy
  std::ofstream out(options_.stats_file);
  if (!out) {
    std::fprintf(stderr, "warpsim: cannot write statistics to %s\n", options_.stats_file.c_str());
    return;
  }
  out << j.dump(2) << '\n';
}

}  // namespace warpsim::cudart
