#pragma once
// What the program registered at start-up (__cudaRegisterFatBinary,
// __cudaRegisterFunction, __cudaRegisterVar, __cudaRegisterManagedVar) and
// the simulator state each registration resolves to once loaded.
//
// Loading is lazy, as CUDA's own module loading is by default since 12.2: a
// binary's PTX is chosen, parsed, linked (-rdc) and lowered the first time
// one of its kernels or variables is used, so a program with large unused
// device code (thrust, CUB) starts at once. cudaDeviceReset throws the loaded
// state away (it lived in the old context) and the next use loads again.
//
// Every entry has a stable address for the life of the process: host stubs
// cache the kernel handle __cudaGetKernel returns in a static, and a binary's
// handle is the void** the program stores.
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "functional/device.h"
#include "libcudart_shim/errors.h"
#include "libcudart_shim/fatbin.h"
#include "power/activity.h"

namespace warpsim::cudart {

struct Binary;

// Per-kernel launch counters, kept for the statistics at exit.
struct KernelStats {
  uint64_t launches = 0;
  uint64_t ctas = 0;
  uint64_t warp_instructions = 0;
  uint64_t thread_instructions = 0;
  double wall_seconds = 0;  // host time spent simulating it
  uint64_t cycles = 0;      // timing mode: simulated core cycles
  power::Activity power_inputs;  // timing mode: the energy model's counters of its launches
  functional::OffloadCounts offload;  // programs with offload marks only
};

struct KernelEntry {
  Binary* binary = nullptr;
  const void* host_fun = nullptr;
  std::string name;  // mangled device name
  // Function attributes the program set (cudaFuncSetAttribute, ...).
  std::optional<uint64_t> max_dynamic_shared;
  int carveout = -1;  // percent, -1 = default
  int cache_config = 0;
  bool non_portable_cluster_size = false;
  // Resolved on load (valid while binary->generation is current).
  const functional::KernelInfo* info = nullptr;
  uint32_t registers = 0;          // per thread
  bool registers_from_cubin = false;
  uint64_t static_shared = 0;      // bytes of .shared the kernel uses (not the module's)
  uint64_t local_bytes = 0;        // per thread: the cubin's stack frame, else the PTX estimate
  KernelStats stats;
};

struct VarEntry {
  Binary* binary = nullptr;
  const void* host_var = nullptr;
  std::string name;
  uint64_t size = 0;
  bool constant = false;
  bool managed = false;
  void** managed_host_ptr = nullptr;  // the host's `static T* var` to point at the storage
  // Resolved on load.
  uint64_t address = 0;
  uint64_t device_size = 0;  // as the PTX declares it
};

struct Binary {
  uint64_t id = 0;
  const void* wrapper = nullptr;  // __fatBinC_Wrapper_t*
  std::vector<KernelEntry*> kernels;
  std::vector<VarEntry*> vars;
  bool unregistered = false;

  // Load state of generation `generation` (see Registry::generation).
  uint64_t generation = 0;
  bool attempted = false;
  Error error = Error::Success;
  std::string error_message;
  std::shared_ptr<const functional::Program> program;
  uint32_t ptx_arch = 0;     // virtual architecture of the PTX used (75 = compute_75)
  uint32_t binary_arch = 0;  // the SASS architecture a real GPU would run
  std::string contents;      // what the fatbin holds, for messages
};

// What loading needs from the runtime.
struct LoadContext {
  functional::Device* device = nullptr;
  uint32_t compute_capability = 0;  // major * 10 + minor
  uint32_t max_regs_per_thread = 255;
  uint32_t estimate_cap = 64;  // registers per thread a PTX estimate may claim
  ptx::CompileOptions compile;  // the configured passes ([compiler])
};

class Registry {
 public:
  Binary* add_binary(const void* wrapper);
  KernelEntry* add_function(Binary& binary, const void* host_fun, std::string name);
  VarEntry* add_var(Binary& binary, const void* host_var, std::string name, uint64_t size,
                    bool constant, bool managed, void** managed_host_ptr);
  void unregister(Binary& binary);

  // nullptr when unknown. A kernel is found by its host stub address or by
  // the handle __cudaGetKernel / cudaGetKernel returned (the entry itself).
  KernelEntry* kernel(const void* host_fun_or_handle) const;
  VarEntry* var(const void* host_var) const;
  // The loaded __managed__ variable whose storage starts at `address`.
  VarEntry* managed_var_at(uint64_t address) const;
  Binary* binary(void** handle) const;

  // Loads `binary` for the current generation if needed; Success or the
  // error a launch or symbol access must report (the message is printed once
  // per generation).
  Error load(Binary& binary, const LoadContext& ctx);

  // Forgets every binary's loaded state (cudaDeviceReset).
  void new_generation() { ++generation_; }
  uint64_t generation() const { return generation_; }

  const std::deque<KernelEntry>& kernels() const { return kernels_; }
  const std::deque<Binary>& binaries() const { return binaries_; }

 private:
  Error fail(Binary& b, Error e, std::string message);

  std::deque<Binary> binaries_;
  std::deque<KernelEntry> kernels_;
  std::deque<VarEntry> vars_;
  std::unordered_map<const void*, KernelEntry*> kernel_by_host_;
  std::unordered_map<const void*, VarEntry*> var_by_host_;
  std::unordered_map<const void*, Binary*> binary_by_handle_;
  uint64_t generation_ = 1;
};

// The SASS architecture a GPU of compute capability `cc` would run from
// `fatbin`: the highest ELF of the same major at or below cc (sm_90a only on
// exactly 9.0), else 0.
uint32_t matching_elf_arch(const fatbin::Fatbin& fatbin, uint32_t cc);

}  // namespace warpsim::cudart
