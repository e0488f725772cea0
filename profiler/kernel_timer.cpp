// libwarpsim_profile.so: preloaded by `warpsim profile` into a CUDA program
// that runs on a real GPU. It sits in front of the real libcudart: every
// kernel launch is bracketed by two CUDA events on the launch's stream, and at
// exit the elapsed times are written as warpsim's statistics JSON ("launches"
// in launch order, "kernels" per kernel, "warpsim" with the GPU's name and
// clocks), so `warpsim correlate` reads a GPU's run like a simulated one.
//
// Only the launch entry points and kernel registration are interposed; each
// finds the real function with dlsym(RTLD_NEXT). The types are the runtime
// ABI's, declared here because they are the same in CUDA 11, 12 and 13 and
// one library serves all three. Nothing here needs a GPU to build or load: the
// tests run it in front of warpsim's own libcudart.
#include <dlfcn.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <fstream>
#include <map>
#include <mutex>
#include <string>
#include <unordered_map>

#include <nlohmann/json.hpp>

namespace {

struct Dim3 {
  unsigned x, y, z;
};
using Error = int;
using Stream = void*;
using Event = void*;
// The leading members of cudaLaunchConfig_t (all majors).
struct LaunchConfigHead {
  Dim3 grid;
  Dim3 block;
  size_t dynamic_smem;
  Stream stream;
};
constexpr Error kSuccess = 0;
constexpr Error kNotReady = 600;
constexpr int kAttrClockRate = 13;        // cudaDevAttrClockRate, kHz
constexpr int kAttrMemoryClockRate = 36;  // cudaDevAttrMemoryClockRate, kHz
constexpr int kAttrCcMajor = 75, kAttrCcMinor = 76;
// Events older than this many launches are collected while the program
// runs (without waiting), so a program of millions of launches keeps few.
constexpr size_t kPendingLimit = 1024;

template <typename F>
F real(const char* name) {
  return reinterpret_cast<F>(dlsym(RTLD_NEXT, name));
}

struct Pending {
  std::string kernel;
  Dim3 grid, block;
  Event start = nullptr, stop = nullptr;
};

struct Done {
  std::string kernel;
  Dim3 grid, block;
  double ns = -1;  // -1: the events could not be read
};

class Timer {
 public:
  static Timer& get() {
    static Timer* t = new Timer;  // never destroyed: atexit may run after statics go
    return *t;
  }

  void name(const void* host_fun, const char* device_name) {
    std::lock_guard<std::mutex> lock(mu_);
    names_[host_fun] = device_name != nullptr ? device_name : "";
  }
  void kernel_handle(const void* kernel, const void* host_fun) {
    std::lock_guard<std::mutex> lock(mu_);
    handles_[kernel] = host_fun;
  }

  // Runs `launch` between two events recorded on `stream`.
  template <typename Launch>
  Error time(const void* func, bool is_handle, Dim3 grid, Dim3 block, Stream stream, bool ptsz, Launch launch) {
    if (!ready()) return launch();
    Pending p{lookup(func, is_handle), grid, block};
    auto record = ptsz ? record_ptsz_ : record_;
    if (create_(&p.start) != kSuccess || create_(&p.stop) != kSuccess) return launch();
    (void)record(p.start, stream);
    const Error e = launch();
    (void)record(p.stop, stream);
    if (e != kSuccess) {
      destroy_(p.start);
      destroy_(p.stop);
      return e;
    }
    std::lock_guard<std::mutex> lock(mu_);
    if (!exit_hook_) {
      // At the first launch, so that it runs before the exit handlers the
      // program and its runtime registered earlier (module unregistration,
      // context teardown).
      exit_hook_ = true;
      std::atexit([] { Timer::get().finish(); });
    }
    pending_.push_back(std::move(p));
    if (pending_.size() > kPendingLimit) collect(false);
    return e;
  }

  // Reads every event (waiting for the GPU) and writes the file.
  void finish() {
    std::lock_guard<std::mutex> lock(mu_);
    if (finished_) return;
    finished_ = true;
    collect(true);
    write();
  }

  // Before cudaDeviceReset destroys the context and its events.
  void flush() {
    std::lock_guard<std::mutex> lock(mu_);
    collect(true);
  }

 private:
  Timer() : started_(std::chrono::steady_clock::now()) {
    const char* out = std::getenv("WARPSIM_PROFILE_OUT");
    out_ = out != nullptr ? out : "";
    // Only the process `warpsim profile` started writes the file, not the
    // CUDA programs it starts in turn (they inherit LD_PRELOAD).
    if (const char* pid = std::getenv("WARPSIM_PROFILE_PID"); pid != nullptr && std::atol(pid) != getpid())
      out_.clear();
    create_ = real<Error (*)(Event*)>("cudaEventCreate");
    record_ = real<Error (*)(Event, Stream)>("cudaEventRecord");
    record_ptsz_ = real<Error (*)(Event, Stream)>("cudaEventRecord_ptsz");
    if (record_ptsz_ == nullptr) record_ptsz_ = record_;
    sync_ = real<Error (*)(Event)>("cudaEventSynchronize");
    query_ = real<Error (*)(Event)>("cudaEventQuery");
    elapsed_ = real<Error (*)(float*, Event, Event)>("cudaEventElapsedTime");
    destroy_ = real<Error (*)(Event)>("cudaEventDestroy");
  }

  bool ready() const {
    return !out_.empty() && create_ && record_ && sync_ && query_ && elapsed_ && destroy_;
  }

  std::string lookup(const void* func, bool is_handle) {
    std::lock_guard<std::mutex> lock(mu_);
    if (is_handle) {
      auto h = handles_.find(func);
      if (h == handles_.end()) return "";
      func = h->second;
    }
    auto n = names_.find(func);
    return n != names_.end() ? n->second : "";
  }

  // Collects finished launches in order; with `wait`, all of them.
  void collect(bool wait) {
    while (!pending_.empty()) {
      Pending& p = pending_.front();
      if (!wait && query_(p.stop) == kNotReady) break;
      Done d{std::move(p.kernel), p.grid, p.block};
      float ms = 0;
      if (sync_(p.stop) == kSuccess && elapsed_(&ms, p.start, p.stop) == kSuccess) d.ns = ms * 1e6;
      destroy_(p.start);
      destroy_(p.stop);
      done_.push_back(std::move(d));
      pending_.pop_front();
    }
  }

  void write() {
    using nlohmann::json;
    json launches = json::array();
    std::map<std::string, std::pair<uint64_t, double>> kernels;
    uint64_t unreadable = 0;
    for (size_t i = 0; i < done_.size(); ++i) {
      const Done& d = done_[i];
      launches.push_back({{"index", i},
                          {"kernel", d.kernel},
                          {"grid", {d.grid.x, d.grid.y, d.grid.z}},
                          {"block", {d.block.x, d.block.y, d.block.z}},
                          {"duration_ns", d.ns < 0 ? 0.0 : d.ns},
                          {"cycles", 0}});
      if (d.ns < 0) unreadable++;
      auto& k = kernels[d.kernel];
      k.first++;
      k.second += d.ns < 0 ? 0.0 : d.ns;
    }
    json per_kernel = json::array();
    for (const auto& [name, k] : kernels)
      per_kernel.push_back({{"name", name}, {"launches", k.first}, {"duration_ns", k.second}});
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
    const char* program = std::getenv("WARPSIM_PROGRAM");
    json meta = {{"mode", "profile"},
                 {"program", program != nullptr ? program : ""},
                 {"wall_seconds", wall},
                 {"launches_unreadable", unreadable}};
    describe_device(meta);
    const json j = {{"warpsim", meta}, {"launches", launches}, {"kernels", per_kernel}};
    // Written beside the target and renamed: `warpsim profile` gives a
    // temporary path of its own, but a direct user may not.
    const std::string tmp = out_ + ".partial." + std::to_string(getpid());
    {
      std::ofstream f(tmp);
      f << j.dump(2) << '\n';
      if (!f) {
        std::fprintf(stderr, "warpsim profile: cannot write %s\n", tmp.c_str());
        std::remove(tmp.c_str());
        return;
      }
    }
    if (std::rename(tmp.c_str(), out_.c_str()) != 0) {
      std::fprintf(stderr, "warpsim profile: cannot write %s\n", out_.c_str());
      std::remove(tmp.c_str());
    }
  }

  // The GPU's name, compute capability and clocks (the device in use).
  static void describe_device(nlohmann::json& meta) {
    auto get_device = real<Error (*)(int*)>("cudaGetDevice");
    auto attribute = real<Error (*)(int*, int, int)>("cudaDeviceGetAttribute");
    int dev = 0;
    if (get_device == nullptr || get_device(&dev) != kSuccess) return;
    meta["device"] = dev;
    // cudaDeviceProp starts with the name in every major; its size differs,
    // so a generous buffer.
    alignas(16) static char prop[16384];
    for (const char* fn : {"cudaGetDeviceProperties_v2", "cudaGetDeviceProperties"}) {
      auto props = real<Error (*)(void*, int)>(fn);
      if (props != nullptr && props(prop, dev) == kSuccess) {
        meta["gpu"] = std::string(prop, strnlen(prop, 256));
        break;
      }
    }
    int v = 0, minor = 0;
    if (attribute == nullptr) return;
    if (attribute(&v, kAttrClockRate, dev) == kSuccess && v > 0) meta["core_clock_mhz"] = v / 1000.0;
    if (attribute(&v, kAttrMemoryClockRate, dev) == kSuccess && v > 0) meta["memory_clock_mhz"] = v / 1000.0;
    if (attribute(&v, kAttrCcMajor, dev) == kSuccess && attribute(&minor, kAttrCcMinor, dev) == kSuccess)
      meta["compute_capability"] = std::to_string(v) + "." + std::to_string(minor);
  }

  std::mutex mu_;
  std::string out_;
  std::chrono::steady_clock::time_point started_;
  std::unordered_map<const void*, std::string> names_;
  std::unordered_map<const void*, const void*> handles_;
  std::deque<Pending> pending_;
  std::deque<Done> done_;
  bool finished_ = false;
  bool exit_hook_ = false;
  Error (*create_)(Event*) = nullptr;
  Error (*record_)(Event, Stream) = nullptr;
  Error (*record_ptsz_)(Event, Stream) = nullptr;
  Error (*sync_)(Event) = nullptr;
  Error (*query_)(Event) = nullptr;
  Error (*elapsed_)(float*, Event, Event) = nullptr;
  Error (*destroy_)(Event) = nullptr;
};

}  // namespace

extern "C" {

// The runtime's own launch entry points, interposed. Each forwards to the
// next definition (the real libcudart) with its arguments unchanged.
#define WARPSIM_FORWARD(name, type) static const auto next = real<type>(name)

__attribute__((visibility("default"))) void __cudaRegisterFunction(
    void** handle, const char* host_fun, char* device_fun, const char* device_name, int thread_limit, void* tid,
    void* bid, void* bdim, void* gdim, int* wsize) {
  using F = void (*)(void**, const char*, char*, const char*, int, void*, void*, void*, void*, int*);
  WARPSIM_FORWARD("__cudaRegisterFunction", F);
  Timer::get().name(host_fun, device_name);
  if (next != nullptr) next(handle, host_fun, device_fun, device_name, thread_limit, tid, bid, bdim, gdim, wsize);
}

__attribute__((visibility("default"))) Error __cudaGetKernel(void** kernel, const void* host_fun) {
  using F = Error (*)(void**, const void*);
  WARPSIM_FORWARD("__cudaGetKernel", F);
  if (next == nullptr) return 1;
  const Error e = next(kernel, host_fun);
  if (e == kSuccess && kernel != nullptr) Timer::get().kernel_handle(*kernel, host_fun);
  return e;
}

#define WARPSIM_TIMED_LAUNCH(name, ptsz, by_handle)                                                           \
  __attribute__((visibility("default"))) Error name(const void* func, Dim3 grid, Dim3 block, void** args, \
                                                    size_t shared, Stream stream) {                      \
    using F = Error (*)(const void*, Dim3, Dim3, void**, size_t, Stream);                                \
    WARPSIM_FORWARD(#name, F);                                                                           \
    if (next == nullptr) return 1;                                                                       \
    return Timer::get().time(func, by_handle, grid, block, stream, ptsz,                                 \
                             [&] { return next(func, grid, block, args, shared, stream); });             \
  }

// by_handle: `func` is a cudaKernel_t from __cudaGetKernel (CUDA 13's <<<>>>).
WARPSIM_TIMED_LAUNCH(cudaLaunchKernel, false, false)
WARPSIM_TIMED_LAUNCH(cudaLaunchKernel_ptsz, true, false)
WARPSIM_TIMED_LAUNCH(cudaLaunchCooperativeKernel, false, false)
WARPSIM_TIMED_LAUNCH(cudaLaunchCooperativeKernel_ptsz, true, false)
WARPSIM_TIMED_LAUNCH(__cudaLaunchKernel, false, true)
WARPSIM_TIMED_LAUNCH(__cudaLaunchKernel_ptsz, true, true)

#define WARPSIM_TIMED_LAUNCH_EX(name, ptsz)                                                               \
  __attribute__((visibility("default"))) Error name(const LaunchConfigHead* config, const void* func,      \
                                                    void** args) {                                       \
    using F = Error (*)(const LaunchConfigHead*, const void*, void**);                                   \
    WARPSIM_FORWARD(#name, F);                                                                           \
    if (next == nullptr) return 1;                                                                       \
    if (config == nullptr) return next(config, func, args);                                             \
    return Timer::get().time(func, false, config->grid, config->block, config->stream, ptsz,             \
                             [&] { return next(config, func, args); });                                  \
  }

WARPSIM_TIMED_LAUNCH_EX(cudaLaunchKernelExC, false)
WARPSIM_TIMED_LAUNCH_EX(cudaLaunchKernelExC_ptsz, true)

// The context and its events end here: read them first.
__attribute__((visibility("default"))) Error cudaDeviceReset() {
  using F = Error (*)();
  WARPSIM_FORWARD("cudaDeviceReset", F);
  Timer::get().flush();
  return next != nullptr ? next() : 1;
}

}  // extern "C"
