#pragma once
// functional::Device: the embedding API of the functional simulator, used by
// tests and by the CUDA runtime shim. Load PTX, look up a kernel, lay out its
// parameters from values, allocate and copy device memory, launch a grid,
// read results. A faulting kernel yields a structured report and an error
// code; the process always continues.
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "common/diagnostics.h"
#include "functional/device_launch.h"
#include "functional/device_memory.h"
#include "functional/grid.h"
#include "functional/launch.h"
#include "functional/program.h"
#include "functional/texture.h"
#include "functional/warp.h"
#include "ptx/compile.h"

namespace warpsim::functional {

// The CUDA error a fault maps to (the runtime translates these names to
// cudaError_t values).
enum class LaunchError : uint8_t {
  None,
  IllegalAddress,      // cudaErrorIllegalAddress
  MisalignedAddress,   // cudaErrorMisalignedAddress
  LaunchFailure,       // cudaErrorLaunchFailure (trap, stack overflow, deadlock, unsupported)
  IllegalInstruction,  // cudaErrorIllegalInstruction
  Assert,              // cudaErrorAssert
  InvalidConfiguration,  // cudaErrorInvalidConfiguration (bad grid/block/shared size)
  InvalidValue,        // cudaErrorInvalidValue (bad parameters)
  LaunchTimeout,       // cudaErrorLaunchTimeout (the watchdog stopped a hung kernel)
};
std::string_view to_string(LaunchError e);

// Where and why a kernel stopped.
struct FaultReport {
  LaunchError error = LaunchError::None;
  std::string kernel;
  Dim3 cta, thread;
  std::string location;     // PTX file:line, plus the CUDA source line from .loc when known
  std::string instruction;  // the PTX instruction text
  Fault fault;
  std::string message;      // the whole report, ready to print
};

struct LaunchResult {
  LaunchError error = LaunchError::None;
  std::optional<FaultReport> fault;
  uint64_t ctas = 0;
  uint64_t warp_instructions = 0;
  uint64_t thread_instructions = 0;
  uint64_t cycles = 0;  // timing mode: core cycles the grid took (0 in functional mode)
  OffloadCounts offload;  // programs with offload marks only
  // Dynamic parallelism: the work the grid launched on the device (child
  // grids, copies), in issue order; the caller runs it (device_launch.h).
  std::vector<DeviceWork> device_work;
  // Device free() calls on pointers that device malloc() did not return (or
  // freed twice): ignored, as a GPU ignores them (DeviceHeap::invalid_free);
  // how many, and the first one described.
  uint64_t invalid_frees = 0;
  std::string first_invalid_free;
  bool ok() const { return error == LaunchError::None; }
};

class Device {
 public:
  explicit Device(DeviceMemoryConfig memory_config = {});

  DeviceMemory& memory() { return *memory_; }

  // Compiles PTX sources (ptx::compile: parse and check, link, passes) and
  // lowers the module for this device; null with diagnostics on error.
  std::shared_ptr<const Program> load(std::span<const ptx::PtxSource> sources,
                                      const ptx::CompileOptions& options, DiagnosticEngine& diags);
  // load() of one source with no passes.
  std::shared_ptr<const Program> load_ptx(std::string_view text, std::string name,
                                          DiagnosticEngine& diags);

  // The simulated GPU's SM count (what %nsmid reports).
  void set_sm_count(uint32_t sms) { sm_count_ = sms == 0 ? 1 : sms; }
  uint32_t sm_count() const { return sm_count_; }

  // Lays out kernel parameters: values[i] holds the bytes of parameter i.
  // Returns nullopt (and an explanation) when counts or sizes do not match.
  std::optional<std::vector<uint8_t>> layout_params(const KernelInfo& kernel,
                                                    std::span<const std::vector<uint8_t>> values,
                                                    std::string* why = nullptr) const;

  // Runs every CTA of the grid to completion (or to the first fault).
  LaunchResult launch(const Program& program, const KernelInfo& kernel, const LaunchConfig& config,
                      std::vector<uint8_t> params);

  // How launches run their CTAs (host threads, watchdog...): see grid.h.
  void set_executor_options(const ExecutorOptions& options) { options_ = options; }
  const ExecutorOptions& executor_options() const { return options_; }

  // What runs a launch's grid once it is checked and set up: run_grid
  // (functional mode) unless replaced; the timing model installs its own
  // runner, which executes the same grid cycle by cycle.
  using GridRunner =
      std::function<GridOutcome(LaunchContext& ctx, const ExecutorOptions& options, Dim3 cluster)>;
  void set_grid_runner(GridRunner runner) { grid_runner_ = std::move(runner); }

  // The heap of device-side malloc/free (cudaLimitMallocHeapSize).
  DeviceHeap& heap() { return heap_; }
  // Device printf's FIFO (cudaLimitPrintfFifoSize): every launch's output
  // goes there; the host reads it (PrintfFifo::take) at each flush point.
  PrintfFifo& printf_fifo() { return printf_fifo_; }

  // Dynamic parallelism: limits, launch slots and parameter buffers of the
  // device runtime (device_launch.h).
  DeviceRuntime& device_runtime() { return device_runtime_; }

  // CUDA arrays, texture objects and surface objects (functional/texture.h):
  // handles for cudaArray_t / cudaTextureObject_t / cudaSurfaceObject_t.
  // Creation returns 0 and says why on invalid descriptions.
  TextureTable& textures() { return textures_; }
  uint64_t create_array(const ArrayDesc& desc, std::string* why = nullptr) {
    return textures_.create_array(*memory_, desc, why);
  }
  bool destroy_array(uint64_t array) { return textures_.destroy_array(*memory_, array); }
  Fault copy_to_array(uint64_t array, const void* src) {
    return textures_.copy_to_array(*memory_, array, src);
  }
  Fault copy_from_array(void* dst, uint64_t array) const {
    return textures_.copy_from_array(*memory_, dst, array);
  }
  uint64_t create_texture_object(const ResourceDesc& res, const TextureDesc& desc,
                                 std::string* why = nullptr) {
    return textures_.create_texture(res, desc, why);
  }
  bool destroy_texture_object(uint64_t tex) { return textures_.destroy_texture(tex); }
  uint64_t create_surface_object(const ResourceDesc& res, std::string* why = nullptr) {
    return textures_.create_surface(res, why);
  }
  bool destroy_surface_object(uint64_t surf) { return textures_.destroy_surface(surf); }

  // Device printf output of all launches so far, as it was printed (also
  // into the FIFO), unless keep_printed is off (the runtime reads the FIFO
  // and must not accumulate output for the life of the process).
  const std::string& printed() const { return printed_; }
  void set_keep_printed(bool keep) { keep_printed_ = keep; }

 private:
  std::unique_ptr<DeviceMemory> memory_;
  GridRunner grid_runner_;
  std::string printed_;
  uint64_t next_grid_id_ = 1;
  uint64_t clock_base_ = 0;  // %clock64 at the start of the next launch
  uint32_t sm_count_ = 1;
  bool keep_printed_ = true;
  ExecutorOptions options_;
  DeviceHeap heap_;
  PrintfFifo printf_fifo_;
  DeviceRuntime device_runtime_;
  TextureTable textures_;
};

// Helpers to build parameter values.
template <typename T>
std::vector<uint8_t> param_bytes(const T& v) {
  std::vector<uint8_t> b(sizeof(T));
  std::memcpy(b.data(), &v, sizeof(T));
  return b;
}

}  // namespace warpsim::functional
