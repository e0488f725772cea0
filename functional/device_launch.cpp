// Dynamic parallelism, functional side: the device runtime's launch slots,
// the per-grid record of device-side launches, streams, events and errors
// (see device_launch.h for the model), and the handlers that execute a
// warp's calls of the device runtime.
#include "functional/device_launch.h"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cstring>
#include <string>

#include "functional/cta.h"
#include "functional/device_heap.h"
#include "functional/exec.h"

namespace warpsim::functional {

namespace {

struct NamedCall {
  std::string_view name;  // without the __cudaCDP2 prefix of CUDA 12/13
  DeviceCall call;
};
constexpr NamedCall kCalls[] = {
    {"GetParameterBuffer", DeviceCall::GetParameterBuffer},
    {"GetParameterBufferV2", DeviceCall::GetParameterBufferV2},
    {"LaunchDevice", DeviceCall::LaunchDevice},
    {"LaunchDeviceV2", DeviceCall::LaunchDeviceV2},
    {"GetLastError", DeviceCall::GetLastError},
    {"PeekAtLastError", DeviceCall::PeekAtLastError},
    {"GetDevice", DeviceCall::GetDevice},
    {"GetDeviceCount", DeviceCall::GetDeviceCount},
    {"DeviceGetAttribute", DeviceCall::DeviceGetAttribute},
    {"DeviceGetLimit", DeviceCall::DeviceGetLimit},
    {"RuntimeGetVersion", DeviceCall::RuntimeGetVersion},
    {"StreamCreateWithFlags", DeviceCall::StreamCreateWithFlags},
    {"StreamDestroy", DeviceCall::StreamDestroy},
    {"EventCreateWithFlags", DeviceCall::EventCreateWithFlags},
    {"EventRecord", DeviceCall::EventRecord},
    {"EventRecordWithFlags", DeviceCall::EventRecordWithFlags},
    {"StreamWaitEvent", DeviceCall::StreamWaitEvent},
    {"EventDestroy", DeviceCall::EventDestroy},
    {"Malloc", DeviceCall::Malloc},
    {"Free", DeviceCall::Free},
    {"MemcpyAsync", DeviceCall::MemcpyAsync},
    {"MemsetAsync", DeviceCall::MemsetAsync},
    {"DeviceSynchronize", DeviceCall::DeviceSynchronize},
};

// Kernel addresses are the fake code addresses of `mov.u64 %rd, kernel`
// (program.h function_address); the function index, or kNoSlot.
uint32_t function_at(const Program& program, uint64_t addr) {
  if (addr <= kCodeWindow || (addr - kCodeWindow) % 16 != 0) return kNoSlot;
  const uint64_t index = (addr - kCodeWindow) / 16 - 1;
  return index < program.functions.size() ? static_cast<uint32_t>(index) : kNoSlot;
}

// The kernel's own limit on threads per CTA (.maxntid / .reqntid), 0 = none.
uint64_t declared_max_threads(const Program& program, const KernelInfo& kernel) {
  const ptx::Function& f = program.module->functions[program.functions[kernel.function].ptx_function];
  const std::vector<uint32_t>& dims = !f.perf.maxntid.empty() ? f.perf.maxntid : f.perf.reqntid;
  if (dims.empty()) return 0;
  uint64_t n = 1;
  for (uint32_t d : dims) n *= d;
  return n;
}

}  // namespace

DeviceCall device_call_named(std::string_view name) {
  std::string_view bare;
  if (name.starts_with("__cudaCDP2")) bare = name.substr(10);       // CUDA 12/13
  else if (name.starts_with("cuda")) bare = name.substr(4);         // CUDA 11 (CDP1)
  else return DeviceCall::None;
  for (const NamedCall& c : kCalls)
    if (c.name == bare) return c.call;
  return DeviceCall::None;
}

bool defines_device_runtime(std::string_view ptx) {
  // A definition is a `.visible .func (...) name(` line; programs only
  // declare these functions `.extern`.
  for (std::string_view name : {"__cudaCDP2LaunchDeviceV2", "cudaLaunchDeviceV2"}) {
    for (size_t at = ptx.find(name); at != std::string_view::npos; at = ptx.find(name, at + 1)) {
      const size_t line = ptx.rfind('\n', at);
      const std::string_view head = ptx.substr(line == std::string_view::npos ? 0 : line + 1);
      const bool is_name = at + name.size() < ptx.size() &&
                           (ptx[at + name.size()] == '(' || ptx[at + name.size()] == '\n' ||
                            ptx[at + name.size()] == ' ');
      if (is_name && (head.starts_with(".visible .func") || head.starts_with(".weak .func")))
        return true;
    }
  }
  return false;
}

bool uses_device_runtime(const Program& program) {
  return std::any_of(program.call_sites.begin(), program.call_sites.end(),
                     [](const CallSite& s) { return s.builtin == Builtin::DeviceRuntime; });
}

bool uses_legacy_device_runtime(const Program& program) {
  return std::any_of(program.call_sites.begin(), program.call_sites.end(), [&](const CallSite& s) {
    return s.builtin == Builtin::DeviceRuntime && s.extern_function != kNoSlot &&
           !program.module->functions[s.extern_function].name.starts_with("__cudaCDP2");
  });
}

bool uses_device_heap(const CallSite& site) {
  const auto call = static_cast<DeviceCall>(site.device_call);
  return site.builtin == Builtin::DeviceRuntime &&
         (call == DeviceCall::Malloc || call == DeviceCall::Free);
}

// ---- DeviceRuntime: launch slots -------------------------------------------------------

Fault DeviceRuntime::prepare(DeviceMemory& memory) {
  std::lock_guard lock(mu_);
  const uint64_t wanted = std::max<uint64_t>(limits_.pending_launches, 1) * kParameterBufferBytes;
  if (base_ != 0 && (wanted == bytes_ || !held_.empty())) return {};
  if (base_ != 0) (void)memory.free(base_);
  base_ = bytes_ = 0;
  host_ = nullptr;
  free_.clear();
  Fault f;
  const uint64_t base = memory.allocate(wanted, AllocationKind::Device,
                                        "device runtime parameter buffers", &f);
  if (base == 0) return f;
  uint8_t* host = memory.host_pointer(base, wanted, f);
  if (host == nullptr) return f;
  base_ = base;
  bytes_ = wanted;
  host_ = host;
  free_.reset(base, wanted);
  return {};
}

uint64_t DeviceRuntime::acquire_slot(uint64_t bytes, uint64_t alignment) {
  const uint64_t size = std::max<uint64_t>(1, (bytes + kSlotGranule - 1) / kSlotGranule) * kSlotGranule;
  const uint64_t align = std::max(alignment, kSlotGranule);
  if (size > kParameterBufferBytes || align > kParameterBufferBytes || (align & (align - 1)) != 0)
    return 0;
  std::lock_guard lock(mu_);
  const uint64_t at = free_.take(size, align);
  if (at == 0) return 0;
  held_[at] = Slot{size, {}};
  std::memset(host_ + (at - base_), 0, size);
  return at;
}

bool DeviceRuntime::release_slot(uint64_t buffer) {
  std::lock_guard lock(mu_);
  auto h = held_.find(buffer);
  if (h == held_.end()) return false;
  free_.give_back(buffer, h->second.size);
  held_.erase(h);
  return true;
}

bool DeviceRuntime::is_held_slot(uint64_t buffer) const {
  std::lock_guard lock(mu_);
  return held_.count(buffer) != 0;
}

uint64_t DeviceRuntime::slots_held() const {
  std::lock_guard lock(mu_);
  return held_.size();
}

std::vector<uint8_t> DeviceRuntime::slot_bytes(uint64_t buffer, uint64_t bytes) const {
  std::lock_guard lock(mu_);
  auto h = held_.find(buffer);
  if (h == held_.end()) return {};
  // `bytes` bytes; past the end of a buffer too small for them, zeros.
  std::vector<uint8_t> out(bytes, 0);
  if (bytes != 0)  // a kernel without parameters: no data() to copy to
    std::memcpy(out.data(), host_ + (buffer - base_), std::min(bytes, h->second.size));
  return out;
}

void DeviceRuntime::set_slot_launch(uint64_t buffer, const SlotLaunch& launch) {
  std::lock_guard lock(mu_);
  if (auto h = held_.find(buffer); h != held_.end()) h->second.launch = launch;
}

DeviceRuntime::SlotLaunch DeviceRuntime::slot_launch(uint64_t buffer) const {
  std::lock_guard lock(mu_);
  auto h = held_.find(buffer);
  return h == held_.end() ? SlotLaunch{} : h->second.launch;
}

uint64_t DeviceRuntime::new_handle() {
  std::lock_guard lock(mu_);
  next_handle_ += 0x10;
  return next_handle_;
}

// ---- GridDeviceRuntime: one grid's calls ---------------------------------------------

GridDeviceRuntime::GridDeviceRuntime(DeviceRuntime& runtime, const Program& program,
                                     const LaunchConfig& config)
    : runtime_(runtime),
      program_(program),
      depth_(config.depth),
      legacy_(uses_legacy_device_runtime(program)) {}

DeviceError GridDeviceRuntime::record(Caller c, DeviceError e) {
  if (e == DeviceError::Success) return e;
  std::lock_guard lock(mu_);
  last_errors_[{c.cta, c.thread}] = e;
  return e;
}

DeviceError GridDeviceRuntime::last_error(Caller c, bool clear) {
  std::lock_guard lock(mu_);
  auto it = last_errors_.find({c.cta, c.thread});
  if (it == last_errors_.end()) return DeviceError::Success;
  const DeviceError e = it->second;
  if (clear) last_errors_.erase(it);
  return e;
}

uint64_t GridDeviceRuntime::get_parameter_buffer(Caller c, uint64_t alignment, uint64_t size) {
  if (size > DeviceRuntime::kParameterBufferBytes || alignment > DeviceRuntime::kParameterBufferBytes) {
    record(c, DeviceError::InvalidValue);
    return 0;
  }
  // Pending at this launch, had every child run at once: this grid's chain
  // of device-launched ancestors, itself, and the new one (device_launch.h).
  uint64_t buffer = 0;
  if (uint64_t{depth_} + 1 <= runtime_.limits().pending_launches)
    buffer = runtime_.acquire_slot(size, alignment);
  if (buffer == 0) {
    record(c, DeviceError::LaunchPendingCountExceeded);
    return 0;
  }
  std::lock_guard lock(mu_);
  unlaunched_.insert(buffer);
  return buffer;
}

uint64_t GridDeviceRuntime::get_parameter_buffer_v2(Caller c, uint64_t function, Dim3 grid,
                                                    Dim3 block, uint32_t shared) {
  // Room for the kernel's parameters (all a buffer may hold when the
  // function is not a kernel: the launch then fails and gives it back).
  uint64_t bytes = DeviceRuntime::kParameterBufferBytes;
  if (const uint32_t fn = function_at(program_, function); fn != kNoSlot)
    for (const KernelInfo& info : program_.kernels)
      if (info.function == fn) bytes = std::min<uint64_t>(bytes, info.resources.param_bytes);
  const uint64_t buffer = get_parameter_buffer(c, DeviceRuntime::kSlotGranule, bytes);
  if (buffer != 0) runtime_.set_slot_launch(buffer, {function, grid, block, shared});
  return buffer;
}

DeviceError GridDeviceRuntime::check_launch(uint64_t function, Dim3 grid, Dim3 block,
                                            uint32_t shared, const KernelInfo** kernel) const {
  const uint32_t fn = function_at(program_, function);
  const KernelInfo* k = nullptr;
  if (fn != kNoSlot)
    for (const KernelInfo& info : program_.kernels)
      if (info.function == fn) k = &info;
  if (k == nullptr) return DeviceError::InvalidDeviceFunction;
  const DeviceRuntimeLimits& lim = runtime_.limits();
  if (grid.count() == 0 || block.count() == 0 || grid.x > lim.max_grid[0] ||
      grid.y > lim.max_grid[1] || grid.z > lim.max_grid[2] || block.x > lim.max_block[0] ||
      block.y > lim.max_block[1] || block.z > lim.max_block[2] ||
      block.count() > lim.max_threads_per_block)
    return DeviceError::InvalidConfiguration;
  if (const uint64_t bound = declared_max_threads(program_, *k); bound != 0 && block.count() > bound)
    return DeviceError::LaunchOutOfResources;
  if (k->static_shared_bytes + shared > lim.shared_per_block_optin) return DeviceError::InvalidValue;
  if (k->resources.param_bytes > DeviceRuntime::kParameterBufferBytes)
    return DeviceError::InvalidValue;
  if (legacy_ && depth_ + 1 > lim.max_depth) return DeviceError::LaunchMaxDepthExceeded;
  *kernel = k;
  return DeviceError::Success;
}

bool GridDeviceRuntime::stream_kind(uint64_t stream, DeviceWork::Stream* kind) const {
  if (stream == kTailLaunchStream) *kind = DeviceWork::Stream::TailLaunch;
  else if (stream == kFireAndForgetStream) *kind = DeviceWork::Stream::FireAndForget;
  else if (stream == 0 || streams_.count(stream)) *kind = DeviceWork::Stream::Ordered;
  else return false;
  return true;
}

DeviceError GridDeviceRuntime::enqueue(Caller c, DeviceWork work, uint64_t stream) {
  std::lock_guard lock(mu_);
  // An unknown stream is an invalid argument (measured on an H100).
  if (!stream_kind(stream, &work.stream)) return DeviceError::InvalidValue;
  work.stream_handle = stream;
  work.cta = c.cta;
  work.sequence = next_sequence_++;
  work_.push_back(std::move(work));
  return DeviceError::Success;
}

DeviceError GridDeviceRuntime::launch(Caller c, uint64_t function, uint64_t buffer, Dim3 grid,
                                      Dim3 block, uint32_t shared, uint64_t stream) {
  bool taken;
  {
    std::lock_guard lock(mu_);
    taken = unlaunched_.erase(buffer) != 0;
  }
  // Only a buffer this grid took and has not launched yet can be launched.
  if (!taken) return record(c, DeviceError::InvalidValue);
  DeviceWork work;
  const KernelInfo* kernel = nullptr;
  DeviceError e = check_launch(function, grid, block, shared, &kernel);
  if (e == DeviceError::Success) {
    work.kind = DeviceWork::Kind::Launch;
    work.kernel = kernel;
    work.grid = grid;
    work.block = block;
    work.shared_bytes = shared;
    work.depth = depth_ + 1;
    work.params = runtime_.slot_bytes(buffer, kernel->resources.param_bytes);
    work.slot = buffer;
    e = enqueue(c, std::move(work), stream);
  }
  // A launch that failed gives its slot back at once.
  if (e != DeviceError::Success) (void)runtime_.release_slot(buffer);
  return record(c, e);
}

DeviceError GridDeviceRuntime::launch_v2(Caller c, uint64_t buffer, uint64_t stream) {
  const DeviceRuntime::SlotLaunch l = runtime_.slot_launch(buffer);
  return launch(c, l.function, buffer, l.grid, l.block, l.shared_bytes, stream);
}

DeviceError GridDeviceRuntime::stream_create(Caller c, uint32_t flags, uint64_t* stream) {
  // CUDA documents that device streams must be created with
  // cudaStreamNonBlocking; an H100 with CUDA 13 also accepts
  // cudaStreamDefault, and the stream is non-blocking all the same (the
  // device has no legacy NULL-stream synchronisation).
  if (flags > 1) return record(c, DeviceError::InvalidValue);
  *stream = runtime_.new_handle();
  std::lock_guard lock(mu_);
  streams_.insert(*stream);
  return DeviceError::Success;
}

DeviceError GridDeviceRuntime::stream_destroy(Caller c, uint64_t stream) {
  std::lock_guard lock(mu_);
  if (streams_.erase(stream) == 0) {  // an invalid argument on an H100
    last_errors_[{c.cta, c.thread}] = DeviceError::InvalidValue;
    return DeviceError::InvalidValue;
  }
  return DeviceError::Success;
}

DeviceError GridDeviceRuntime::event_create(Caller c, uint32_t flags, uint64_t* event) {
  // Device events only order streams: cudaEventDisableTiming (2) is required.
  if ((flags & 2u) == 0 || (flags & ~7u) != 0) return record(c, DeviceError::InvalidValue);
  *event = runtime_.new_handle();
  std::lock_guard lock(mu_);
  events_.insert(*event);
  return DeviceError::Success;
}

// Every piece of work runs to completion in issue order (children after the
// parent grid, see runtime_device_launch.cpp), so an event recorded before a
// wait is always complete by then: records and waits only check handles.
DeviceError GridDeviceRuntime::event_record(Caller c, uint64_t event, uint64_t stream) {
  DeviceWork::Stream kind;
  std::unique_lock lock(mu_);
  const bool ok = events_.count(event) && stream_kind(stream, &kind) &&
                  kind == DeviceWork::Stream::Ordered;
  lock.unlock();
  return record(c, ok ? DeviceError::Success : DeviceError::InvalidResourceHandle);
}

DeviceError GridDeviceRuntime::stream_wait_event(Caller c, uint64_t stream, uint64_t event,
                                                 uint32_t flags) {
  if (flags != 0) return record(c, DeviceError::InvalidValue);
  DeviceWork::Stream kind;
  std::unique_lock lock(mu_);
  const bool ok = events_.count(event) && stream_kind(stream, &kind) &&
                  kind == DeviceWork::Stream::Ordered;
  lock.unlock();
  return record(c, ok ? DeviceError::Success : DeviceError::InvalidResourceHandle);
}

DeviceError GridDeviceRuntime::event_destroy(Caller c, uint64_t event) {
  std::unique_lock lock(mu_);
  const bool ok = events_.erase(event) != 0;
  lock.unlock();
  return record(c, ok ? DeviceError::Success : DeviceError::InvalidResourceHandle);
}

DeviceError GridDeviceRuntime::memcpy_async(Caller c, uint64_t dst, uint64_t src, uint64_t bytes,
                                            int32_t kind, uint64_t stream) {
  // The device copies device memory only: cudaMemcpyDeviceToDevice or
  // cudaMemcpyDefault.
  if (kind != 3 && kind != 4) return record(c, DeviceError::InvalidValue);
  if (bytes == 0) return DeviceError::Success;
  DeviceWork work;
  work.kind = DeviceWork::Kind::Copy;
  work.dst = dst;
  work.src = src;
  work.bytes = bytes;
  work.depth = depth_ + 1;
  return record(c, enqueue(c, std::move(work), stream));
}

DeviceError GridDeviceRuntime::memset_async(Caller c, uint64_t dst, int32_t value, uint64_t bytes,
                                            uint64_t stream) {
  if (bytes == 0) return DeviceError::Success;
  DeviceWork work;
  work.kind = DeviceWork::Kind::Set;
  work.dst = dst;
  work.value = static_cast<uint8_t>(value);
  work.bytes = bytes;
  work.depth = depth_ + 1;
  return record(c, enqueue(c, std::move(work), stream));
}

std::vector<DeviceWork> GridDeviceRuntime::finish() {
  std::lock_guard lock(mu_);
  for (uint64_t buffer : unlaunched_) (void)runtime_.release_slot(buffer);
  unlaunched_.clear();
  std::vector<DeviceWork> work = std::move(work_);
  work_.clear();
  // CTAs may have run on several host threads: order by CTA, then by issue
  // order within it, so that every run gives the same schedule.
  std::stable_sort(work.begin(), work.end(), [](const DeviceWork& a, const DeviceWork& b) {
    return a.cta != b.cta ? a.cta < b.cta : a.sequence < b.sequence;
  });
  return work;
}

}  // namespace warpsim::functional

// ---- the call handlers: a warp's lanes call the device runtime -------------------------

namespace warpsim::functional {

namespace {

// Reads `size` bytes of argument `i` of a call (a .param variable in the
// caller's frame, a register or an immediate); the rest of `dst` is zeroed.
void read_arg(Warp& w, uint32_t lane, const CallSite& site, size_t i, void* dst, size_t size) {
  std::memset(dst, 0, size);
  if (i >= site.args.size()) return;
  const Operand& where = site.args[i];
  const size_t n = std::min<size_t>(size, site.arg_sizes[i]);
  if (where.kind == Src::FrameAddr) {
    const uint8_t* p = w.cta().local(w.warp_in_cta() * kWarpSize + lane) + w.local_base() + where.imm;
    std::memcpy(dst, p, n);
  } else {
    const uint64_t v = where.kind == Src::Reg ? w.reg(where.index)[lane] : where.imm;
    std::memcpy(dst, &v, std::min<size_t>(n, 8));
  }
}

uint64_t arg_u64(Warp& w, uint32_t lane, const CallSite& site, size_t i) {
  uint64_t v = 0;
  read_arg(w, lane, site, i, &v, sizeof v);
  return v;
}

Dim3 arg_dim3(Warp& w, uint32_t lane, const CallSite& site, size_t i) {
  uint32_t d[3];
  read_arg(w, lane, site, i, d, sizeof d);
  return Dim3{d[0], d[1], d[2]};
}

// Writes the call's return value (its low ret_sizes[0] bytes).
void set_result(Warp& w, uint32_t lane, const CallSite& site, uint64_t v) {
  if (site.rets.empty()) return;
  const Operand& where = site.rets[0];
  if (where.kind == Src::FrameAddr) {
    uint8_t* p = w.cta().local(w.warp_in_cta() * kWarpSize + lane) + w.local_base() + where.imm;
    std::memcpy(p, &v, std::min<size_t>(site.ret_sizes[0], 8));
  } else if (where.kind == Src::Reg) {
    w.reg(where.index)[lane] = v;
  }
}

// Stores through a pointer argument (cudaStreamCreateWithFlags(&s)...), as a
// store instruction would: a bad pointer faults the thread. False then.
bool store_out(Warp& w, uint32_t lane, uint64_t addr, uint64_t v, uint32_t size) {
  uint8_t* p = w.translate(Window::Generic, addr, size, lane, AccessKind::Write);
  if (p == nullptr) return false;
  std::memcpy(p, &v, size);
  return true;
}

GridDeviceRuntime::Caller caller_of(Warp& w, uint32_t lane) {
  const Dim3 g = w.launch().config.grid;
  const Dim3 c = w.cta().ctaid();
  return {c.x + uint64_t{g.x} * (c.y + uint64_t{g.y} * c.z), w.warp_in_cta() * kWarpSize + lane};
}

std::string extern_name(const Warp& w, const CallSite& site) {
  const Program& prog = *w.launch().program;
  if (site.extern_function < prog.module->functions.size())
    return std::string(prog.module->functions[site.extern_function].name);
  return "?";
}

// A call that produces an output value through its first argument: returns
// the call's error, or Success after storing `value` (or the fault).
int32_t with_output(Warp& w, uint32_t lane, GridDeviceRuntime& rt, GridDeviceRuntime::Caller c,
                    uint64_t out, DeviceError e, uint64_t value, uint32_t size) {
  if (e != DeviceError::Success) return static_cast<int32_t>(e);
  if (out == 0) return static_cast<int32_t>(rt.record(c, DeviceError::InvalidValue));
  (void)store_out(w, lane, out, value, size);
  return 0;
}

// One lane's call; returns what the function returns.
uint64_t call_device_runtime(Warp& w, uint32_t lane, const CallSite& site, DeviceCall call,
                             GridDeviceRuntime& rt) {
  const GridDeviceRuntime::Caller c = caller_of(w, lane);
  auto arg = [&](size_t i) { return arg_u64(w, lane, site, i); };
  auto err = [](DeviceError e) { return static_cast<uint64_t>(static_cast<uint32_t>(e)); };
  switch (call) {
    case DeviceCall::GetParameterBuffer:
      return rt.get_parameter_buffer(c, arg(0), arg(1));
    case DeviceCall::GetParameterBufferV2:
      return rt.get_parameter_buffer_v2(c, arg(0), arg_dim3(w, lane, site, 1),
                                        arg_dim3(w, lane, site, 2), static_cast<uint32_t>(arg(3)));
    case DeviceCall::LaunchDevice:
      return err(rt.launch(c, arg(0), arg(1), arg_dim3(w, lane, site, 2), arg_dim3(w, lane, site, 3),
                           static_cast<uint32_t>(arg(4)), arg(5)));
    case DeviceCall::LaunchDeviceV2:
      return err(rt.launch_v2(c, arg(0), arg(1)));
    case DeviceCall::GetLastError: return err(rt.last_error(c, true));
    case DeviceCall::PeekAtLastError: return err(rt.last_error(c, false));
    case DeviceCall::GetDevice:
      return static_cast<uint32_t>(with_output(w, lane, rt, c, arg(0), DeviceError::Success, 0, 4));
    case DeviceCall::GetDeviceCount:
      return static_cast<uint32_t>(with_output(w, lane, rt, c, arg(0), DeviceError::Success, 1, 4));
    case DeviceCall::RuntimeGetVersion:
      return static_cast<uint32_t>(with_output(w, lane, rt, c, arg(0), DeviceError::Success,
                                               static_cast<uint32_t>(rt.runtime().limits().runtime_version), 4));
    case DeviceCall::DeviceGetAttribute: {
      int value = 0;
      DeviceError e = DeviceError::NotSupported;
      if (static_cast<int32_t>(arg(2)) != 0) e = DeviceError::InvalidDevice;
      else if (rt.runtime().attribute)
        e = static_cast<DeviceError>(rt.runtime().attribute(static_cast<int32_t>(arg(1)), &value));
      return static_cast<uint32_t>(with_output(w, lane, rt, c, arg(0), rt.record(c, e),
                                               static_cast<uint32_t>(value), 4));
    }
    case DeviceCall::DeviceGetLimit: {
      uint64_t value = 0;
      DeviceError e = DeviceError::NotSupported;
      if (rt.runtime().limit)
        e = static_cast<DeviceError>(rt.runtime().limit(static_cast<int32_t>(arg(1)), &value));
      return static_cast<uint32_t>(with_output(w, lane, rt, c, arg(0), rt.record(c, e), value, 8));
    }
    case DeviceCall::StreamCreateWithFlags: {
      uint64_t s = 0;
      const DeviceError e = rt.stream_create(c, static_cast<uint32_t>(arg(1)), &s);
      return static_cast<uint32_t>(with_output(w, lane, rt, c, arg(0), e, s, 8));
    }
    case DeviceCall::StreamDestroy: return err(rt.stream_destroy(c, arg(0)));
    case DeviceCall::EventCreateWithFlags: {
      uint64_t ev = 0;
      const DeviceError e = rt.event_create(c, static_cast<uint32_t>(arg(1)), &ev);
      return static_cast<uint32_t>(with_output(w, lane, rt, c, arg(0), e, ev, 8));
    }
    case DeviceCall::EventRecord:
    case DeviceCall::EventRecordWithFlags:
      return err(rt.event_record(c, arg(0), arg(1)));
    case DeviceCall::StreamWaitEvent:
      return err(rt.stream_wait_event(c, arg(0), arg(1), static_cast<uint32_t>(arg(2))));
    case DeviceCall::EventDestroy: return err(rt.event_destroy(c, arg(0)));
    case DeviceCall::Malloc: {
      // The device heap of malloc() (cudaLimitMallocHeapSize), as in CUDA.
      DeviceHeap* heap = w.launch().heap;
      const uint64_t p = heap != nullptr ? heap->malloc(arg(1)) : 0;
      const DeviceError e = p != 0 || arg(1) == 0 ? DeviceError::Success : DeviceError::MemoryAllocation;
      return static_cast<uint32_t>(with_output(w, lane, rt, c, arg(0), rt.record(c, e), p, 8));
    }
    case DeviceCall::Free: {
      DeviceHeap* heap = w.launch().heap;
      const bool ok = heap != nullptr ? heap->free(arg(0)) : arg(0) == 0;
      return err(rt.record(c, ok ? DeviceError::Success : DeviceError::InvalidValue));
    }
    case DeviceCall::MemcpyAsync:
      return err(rt.memcpy_async(c, arg(0), arg(1), arg(2), static_cast<int32_t>(arg(3)), arg(4)));
    case DeviceCall::MemsetAsync:
      return err(rt.memset_async(c, arg(0), static_cast<int32_t>(arg(1)), arg(2), arg(3)));
    case DeviceCall::DeviceSynchronize:
    case DeviceCall::None: break;
  }
  return err(DeviceError::NotSupported);
}

}  // namespace

void exec_device_runtime(Warp& w, const CallSite& site, LaneMask active) {
  if (!active) return;
  const auto call = static_cast<DeviceCall>(site.device_call);
  GridDeviceRuntime* rt = w.launch().device_runtime;
  if (call == DeviceCall::DeviceSynchronize) {
    w.raise(FaultKind::Unsupported, static_cast<uint32_t>(std::countr_zero(active)),
            "device-side cudaDeviceSynchronize() is not supported: it belongs to the legacy "
            "dynamic parallelism (CDP1) that CUDA 12 removed and GPUs of compute capability 9.0 "
            "cannot run; a kernel's child grids complete before it does, and a launch into "
            "cudaStreamTailLaunch runs after them");
    return;
  }
  if (rt == nullptr) {  // a launch not made through Device::launch
    w.raise(FaultKind::Unsupported, static_cast<uint32_t>(std::countr_zero(active)),
            fmt::format("'{}' (CUDA device runtime) called outside a device launch",
                        extern_name(w, site)));
    return;
  }
  // Lane order is issue order: launches from one warp run in lane order.
  for_each_lane(active, [&](uint32_t l) {
    if (w.faulted()) return;
    set_result(w, l, site, call_device_runtime(w, l, site, call, *rt));
  });
}

void exec_unprovided_extern(Warp& w, const CallSite& site, LaneMask active) {
  if (!active) return;
  const std::string name = extern_name(w, site);
  const bool runtime = name.starts_with("__cudaCDP2") || name.starts_with("cuda");
  w.raise(FaultKind::Unsupported, static_cast<uint32_t>(std::countr_zero(active)),
          runtime ? fmt::format("call to '{}', a CUDA device-runtime function warpsim does not "
                                "implement", name)
                  : fmt::format("call to the extern function '{}', which neither the program's "
                                "PTX nor warpsim provides", name));
}

}  // namespace warpsim::functional
