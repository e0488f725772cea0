// Entry points: the registration ABI nvcc's generated code calls at start-up
// and exit, and kernel launches (<<<>>>, cudaLaunchKernel, cudaLaunchKernelExC,
// cooperative launches).
#include <atomic>
#include <cstdio>
#include <cstdlib>

#include "libcudart_shim/api.h"

namespace warpsim::cudart::api {

namespace {
std::atomic<Runtime*> g_created{nullptr};  // set once rt() has made the runtime
}  // namespace

Runtime& rt() {
  static Runtime* instance = [] {
    Runtime* r = Runtime::from_environment(WARPSIM_CUDA_MAJOR).release();
    g_created.store(r);
    return r;
  }();
  return *instance;
}

Runtime* created_runtime() { return g_created.load(); }

cudaError_t unsupported(const char* function) {
  Runtime& r = rt();
  std::lock_guard lock(r.mutex());
  r.report_unsupported(function);
  return static_cast<cudaError_t>(r.record(Error::NotSupported));
}

namespace {

// Statistics and pending device output at process exit (after the program's
// own atexit handlers, which may still call the runtime). Processes that
// never used CUDA (children that inherited LD_PRELOAD) do nothing.
__attribute__((destructor)) void at_exit() {
  Runtime* r = g_created.load();
  if (r == nullptr) return;
  std::lock_guard lock(r->mutex());
  r->write_statistics();
  std::fflush(stdout);
}

cudaError_t launch(const void* func, dim3 grid, dim3 block, void** args, size_t shared,
                   cudaStream_t stream, bool per_thread, bool cooperative) {
  return entry(kContext, [&](Runtime& r) {
    LaunchRequest req;
    req.function = func;
    req.grid = to_dim3(grid);
    req.block = to_dim3(block);
    req.shared_bytes = shared;
    req.stream = stream;
    req.per_thread_stream = per_thread;
    req.args = args;
    req.cooperative = cooperative;
    return r.launch(req);
  });
}

cudaError_t launch_ex(const cudaLaunchConfig_t* config, const void* func, void** args,
                      bool per_thread) {
  return entry(kContext, [&](Runtime& r) {
    if (config == nullptr) return Error::InvalidValue;
    LaunchRequest req;
    req.function = func;
    req.grid = to_dim3(config->gridDim);
    req.block = to_dim3(config->blockDim);
    req.shared_bytes = config->dynamicSmemBytes;
    req.stream = config->stream;
    req.per_thread_stream = per_thread;
    req.args = args;
    if (config->numAttrs > 0 && config->attrs == nullptr) return Error::InvalidValue;
    for (unsigned i = 0; i < config->numAttrs; ++i) {
      const cudaLaunchAttribute& a = config->attrs[i];
      switch (a.id) {
        case cudaLaunchAttributeCooperative: req.cooperative = a.val.cooperative != 0; break;
        case cudaLaunchAttributeClusterDimension: {
          const auto& c = a.val.clusterDim;
          if (c.x == 0 || c.y == 0 || c.z == 0) return Error::InvalidValue;
          if (r.config().gpu.cc() < 90) return Error::InvalidClusterSize;
          req.cluster = {c.x, c.y, c.z};
          break;
        }
        // Scheduling hints (priority, access policy, synchronisation policy,
        // memory sync domains, programmatic serialisation...) change when
        // work runs, never what it computes.
        default: break;
      }
    }
    return r.launch(req);
  });
}

}  // namespace

}  // namespace warpsim::cudart::api

using namespace warpsim::cudart;
using warpsim::cudart::api::entry;
using warpsim::cudart::api::kContext;
using warpsim::cudart::api::kNoContext;
using warpsim::cudart::api::rt;

extern "C" {

// ---- registration ------------------------------------------------------------------------

void** __cudaRegisterFatBinary(void* fat_cubin) {
  Runtime& r = rt();
  std::lock_guard lock(r.mutex());
  return reinterpret_cast<void**>(r.registry().add_binary(fat_cubin));
}

void __cudaRegisterFatBinaryEnd(void** handle) { (void)handle; }

void __cudaUnregisterFatBinary(void** handle) {
  Runtime& r = rt();
  std::lock_guard lock(r.mutex());
  if (Binary* b = r.registry().binary(handle)) r.registry().unregister(*b);
}

void __cudaRegisterFunction(void** handle, const char* host_fun, char* device_fun,
                            const char* device_name, int thread_limit, uint3* tid, uint3* bid,
                            dim3* bdim, dim3* gdim, int* wsize) {
  (void)device_name, (void)thread_limit, (void)tid, (void)bid, (void)bdim, (void)gdim, (void)wsize;
  Runtime& r = rt();
  std::lock_guard lock(r.mutex());
  Binary* b = r.registry().binary(handle);
  if (b == nullptr || device_fun == nullptr) return;
  r.registry().add_function(*b, host_fun, device_fun);
}

void __cudaRegisterVar(void** handle, char* host_var, char* device_address,
                       const char* device_name, int ext, size_t size, int constant, int global) {
  (void)device_address, (void)ext, (void)global;
  Runtime& r = rt();
  std::lock_guard lock(r.mutex());
  Binary* b = r.registry().binary(handle);
  if (b == nullptr || device_name == nullptr) return;
  r.registry().add_var(*b, host_var, device_name, size, constant != 0, false, nullptr);
}

void __cudaRegisterManagedVar(void** handle, void** host_var_ptr_address, char* device_address,
                              const char* device_name, int ext, size_t size, int constant,
                              int global) {
  (void)device_address, (void)ext, (void)global;
  Runtime& r = rt();
  std::lock_guard lock(r.mutex());
  Binary* b = r.registry().binary(handle);
  if (b == nullptr || device_name == nullptr) return;
  // The host reads the variable through `*host_var_ptr_address`, so the key
  // for symbol calls (cudaMemcpyToSymbol(var...)) is that pointer's address.
  r.registry().add_var(*b, host_var_ptr_address, device_name, size, constant != 0, true,
                       host_var_ptr_address);
}

void __cudaRegisterHostVar(void** handle, const char* device_name, char* host_var, size_t size) {
  (void)handle, (void)device_name, (void)host_var, (void)size;
}

// Called before the host first touches a __managed__ variable: the module
// must be loaded so the variable has storage and the host pointer is set.
char __cudaInitModule(void** handle) {
  Runtime& r = rt();
  std::lock_guard lock(r.mutex());
  Binary* b = r.registry().binary(handle);
  if (b == nullptr) return 0;
  return r.load(*b) == Error::Success ? 1 : 0;
}

unsigned __cudaPushCallConfiguration(dim3 grid, dim3 block, size_t shared, cudaStream_t stream) {
  Runtime& r = rt();
  return r.push_call_configuration(warpsim::cudart::api::to_dim3(grid),
                                   warpsim::cudart::api::to_dim3(block), shared, stream);
}

cudaError_t __cudaPopCallConfiguration(dim3* grid, dim3* block, size_t* shared, void* stream) {
  Runtime& r = rt();
  warpsim::functional::Dim3 g, b;
  uint64_t sh = 0;
  const void* s = nullptr;
  Error e = r.pop_call_configuration(&g, &b, &sh, &s);
  if (e != Error::Success) return static_cast<cudaError_t>(e);
  if (grid) *grid = dim3{g.x, g.y, g.z};
  if (block) *block = dim3{b.x, b.y, b.z};
  if (shared) *shared = sh;
  if (stream) *static_cast<const void**>(stream) = s;
  return 0;
}

// The kernel handle nvcc's stubs cache: the registration entry itself.
cudaError_t __cudaGetKernel(cudaKernel_t* kernel, const void* host_fun) {
  return entry(kNoContext, [&](Runtime& r) {
    if (kernel == nullptr) return Error::InvalidValue;
    KernelEntry* k = r.registry().kernel(host_fun);
    if (k == nullptr) return Error::InvalidDeviceFunction;
    *kernel = reinterpret_cast<cudaKernel_t>(k);
    return Error::Success;
  });
}

cudaError_t cudaGetKernel(cudaKernel_t* kernel, const void* entry_func) {
  return __cudaGetKernel(kernel, entry_func);
}

cudaError_t cudaGetFuncBySymbol(cudaFunction_t* function, const void* symbol) {
  return entry(kNoContext, [&](Runtime& r) {
    if (function == nullptr) return Error::InvalidValue;
    KernelEntry* k = r.registry().kernel(symbol);
    if (k == nullptr) return Error::InvalidDeviceFunction;
    *function = reinterpret_cast<cudaFunction_t>(k);
    return Error::Success;
  });
}

cudaError_t cudaFuncGetName(const char** name, const void* func) {
  return entry(kNoContext, [&](Runtime& r) {
    if (name == nullptr) return Error::InvalidValue;
    KernelEntry* k = r.registry().kernel(func);
    if (k == nullptr) return Error::InvalidDeviceFunction;
    *name = k->name.c_str();
    return Error::Success;
  });
}

cudaError_t cudaFuncGetParamInfo(const void* func, size_t index, size_t* offset, size_t* size) {
  return entry(kContext, [&](Runtime& r) {
    KernelEntry* k = nullptr;
    if (Error e = r.load_kernel(func, &k); e != Error::Success) return e;
    const auto& params = k->info->resources.params;
    if (index >= params.size()) return Error::InvalidValue;
    if (offset) *offset = params[index].offset;
    if (size) *size = params[index].size;
    return Error::Success;
  });
}

// ---- launches -----------------------------------------------------------------------------

cudaError_t __cudaLaunchKernel(cudaKernel_t kernel, dim3 grid, dim3 block, void** args,
                               size_t shared, cudaStream_t stream) {
  return warpsim::cudart::api::launch(kernel, grid, block, args, shared, stream, false, false);
}
cudaError_t __cudaLaunchKernel_ptsz(cudaKernel_t kernel, dim3 grid, dim3 block, void** args,
                                    size_t shared, cudaStream_t stream) {
  return warpsim::cudart::api::launch(kernel, grid, block, args, shared, stream, true, false);
}
cudaError_t cudaLaunchKernel(const void* func, dim3 grid, dim3 block, void** args, size_t shared,
                             cudaStream_t stream) {
  return warpsim::cudart::api::launch(func, grid, block, args, shared, stream, false, false);
}
cudaError_t cudaLaunchKernel_ptsz(const void* func, dim3 grid, dim3 block, void** args,
                                  size_t shared, cudaStream_t stream) {
  return warpsim::cudart::api::launch(func, grid, block, args, shared, stream, true, false);
}
cudaError_t cudaLaunchCooperativeKernel(const void* func, dim3 grid, dim3 block, void** args,
                                        size_t shared, cudaStream_t stream) {
  return warpsim::cudart::api::launch(func, grid, block, args, shared, stream, false, true);
}
cudaError_t cudaLaunchCooperativeKernel_ptsz(const void* func, dim3 grid, dim3 block, void** args,
                                             size_t shared, cudaStream_t stream) {
  return warpsim::cudart::api::launch(func, grid, block, args, shared, stream, true, true);
}
cudaError_t cudaLaunchKernelExC(const cudaLaunchConfig_t* config, const void* func, void** args) {
  return warpsim::cudart::api::launch_ex(config, func, args, false);
}
cudaError_t cudaLaunchKernelExC_ptsz(const cudaLaunchConfig_t* config, const void* func,
                                     void** args) {
  return warpsim::cudart::api::launch_ex(config, func, args, true);
}

}  // extern "C"
