#pragma once
// What one kernel launch needs at run time, shared by all its CTAs and warps.
#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "functional/device_heap.h"
#include "functional/device_memory.h"
#include "functional/device_printf.h"
#include "functional/occupancy.h"
#include "functional/program.h"

namespace warpsim::functional {

class TextureTable;
class GridDeviceRuntime;

struct Dim3 {
  uint32_t x = 1, y = 1, z = 1;
  uint64_t count() const { return uint64_t{x} * y * z; }
  friend bool operator==(const Dim3&, const Dim3&) = default;
};

struct LaunchConfig {
  Dim3 grid;
  Dim3 block;
  uint32_t dynamic_shared_bytes = 0;
  uint32_t local_bytes_per_thread = 16 * 1024;  // call stack + local arrays (cudaLimitStackSize)
  uint64_t grid_id = 1;
  // All CTAs resident at once and interleaved (cudaLaunchCooperativeKernel):
  // needed when CTAs wait for each other, as in a grid-wide sync.
  bool cooperative = false;
  // Thread-block cluster shape (cudaLaunchAttributeClusterDimension); 1x1x1
  // means the kernel's own .reqnctapercluster, if any.
  Dim3 cluster;
  // %envreg0..31 as the driver sets them (the runtime puts the grid-sync
  // workspace address of a cooperative launch in %envreg2 (low 32 bits) and
  // %envreg1 (high 32 bits): nvcc's grid.sync() rebuilds it that way).
  std::array<uint32_t, 32> envreg{};
  // Dynamic parallelism: how deep this grid is nested (0: launched by the
  // host; a grid's children are one deeper).
  uint32_t depth = 0;
  // What decides how many CTAs an SM holds at once in timing mode: the SM's
  // resources with the kernel's shared-memory carveout and the registers
  // per thread ptxas allocated (the runtime knows both). Unset: the timing
  // model takes the [gpu] section's resources and the PTX register count.
  std::optional<LaunchResources> resources;
};

// Everything a warp can reach that is the same for the whole launch.
struct LaunchContext {
  const Program* program = nullptr;
  const KernelInfo* kernel = nullptr;
  DeviceMemory* memory = nullptr;
  LaunchConfig config;
  std::vector<uint8_t> params;              // the parameter buffer, laid out per the kernel ABI
  // Device printf output: a record's text and the bytes it takes in the FIFO.
  std::function<void(std::string_view text, uint64_t record_bytes)> print;
  uint32_t num_sms = 1;                     // for %nsmid
  uint64_t clock = 0;                       // %clock/%globaltimer base of this launch
  // Timing mode: the current core cycle of the launch (%clock = clock +
  // *cycle); null in functional mode, where %clock counts the warp's
  // instructions.
  const uint64_t* cycle = nullptr;
  bool buffer_output = false;               // printf kept per CTA, emitted in CTA order
  bool concurrent = false;                  // CTAs run on several host threads
  DeviceHeap* heap = nullptr;               // device malloc/free
  const TextureTable* textures = nullptr;   // texture/surface objects (tex, suld, sust...)
  // Device-runtime calls of this grid (dynamic parallelism: child launches,
  // device streams...); null when the program makes none.
  GridDeviceRuntime* device_runtime = nullptr;
};

}  // namespace warpsim::functional
