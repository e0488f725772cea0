#pragma once
// Dynamic parallelism, functional side: the CUDA device runtime a kernel
// calls - libcudadevrt's __cudaCDP2* functions (CUDA 12/13) and CUDA 11's
// plain names (cudaGetParameterBuffer, cudaLaunchDevice...). nvcc emits them
// as `.extern .func`s whose code is in libcudadevrt, not in the PTX warpsim
// reads, so warpsim implements them.
//
// A grid's calls run nothing themselves. Each launch (and each device-side
// cudaMemcpyAsync / cudaMemsetAsync) becomes a DeviceWork record; after the
// grid, the caller (the runtime shim, runtime_device_launch.cpp) runs the
// records. Running children after their parent grid is one of the schedules
// CUDA allows: a parent and its children are never guaranteed to run
// concurrently. The checks the device runtime makes at the call - the child's
// configuration, the nesting depth, the pending-launch limit, stream and
// event handles - are made here, so the calling thread gets the error as the
// call's result and from its device-side cudaGetLastError.
//
// The pending-launch limit (cudaLimitDevRuntimePendingLaunchCount): a launch
// is pending until its grid completes, descendants included. On a GPU,
// children run while their parent does, so what counts at a launch is the
// chain of grids that cannot complete yet. An H100 with CUDA 13 showed both
// sides: a grid recursing without end went exactly as deep as the limit
// before its launch failed with cudaErrorLaunchPendingCountExceeded, and one
// thread launching 150 short children with the limit at 32 had every launch
// succeed. warpsim runs children after their parent, so it counts what a GPU
// running each child at once would: a launch from a grid at depth d (the
// host's grids are depth 0) fails when d + 1 exceeds the limit. CDP2 has no
// other nesting limit; CDP1's 24 levels apply to CUDA 11's API.
//
// Launch slots: each launch holds a parameter buffer from
// cudaGetParameterBuffer until its grid completes. The buffers are carved
// from one device allocation of cudaLimitDevRuntimePendingLaunchCount x 4 KiB
// (the reservation a GPU makes for pending launches), made before the grid
// runs, because device memory must not be allocated while executor threads
// translate addresses; a buffer takes what its kernel's parameters need
// (rounded up to 256 bytes), so far more launches than the limit can wait for
// warpsim's deferred schedule. Only if that memory runs out does a launch fail
// (with cudaErrorLaunchPendingCountExceeded) where a GPU might not.
#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <string_view>
#include <utility>
#include <vector>

#include "functional/device_memory.h"
#include "functional/free_ranges.h"
#include "functional/launch.h"
#include "functional/program.h"

namespace warpsim::functional {

// cudaError_t values the device runtime returns (the same in every CUDA major).
enum class DeviceError : int32_t {
  Success = 0,
  InvalidValue = 1,
  MemoryAllocation = 2,
  InvalidConfiguration = 9,
  LaunchMaxDepthExceeded = 65,
  LaunchPendingCountExceeded = 69,
  InvalidDeviceFunction = 98,
  InvalidDevice = 101,
  InvalidResourceHandle = 400,
  LaunchOutOfResources = 701,
  NotSupported = 801,
};

// The device-runtime functions warpsim implements (CallSite::device_call).
enum class DeviceCall : uint8_t {
  None,
  GetParameterBuffer,    // (alignment, size) -> buffer
  GetParameterBufferV2,  // (kernel, grid, block, shared) -> buffer
  LaunchDevice,          // (kernel, buffer, grid, block, shared, stream) -> error
  LaunchDeviceV2,        // (buffer, stream) -> error
  GetLastError,
  PeekAtLastError,
  GetDevice,
  GetDeviceCount,
  DeviceGetAttribute,
  DeviceGetLimit,
  RuntimeGetVersion,
  StreamCreateWithFlags,
  StreamDestroy,
  EventCreateWithFlags,
  EventRecord,
  EventRecordWithFlags,
  StreamWaitEvent,
  EventDestroy,
  Malloc,
  Free,
  MemcpyAsync,
  MemsetAsync,
  DeviceSynchronize,  // CUDA 11 (CDP1) only: refused with a fault
};
// The call an extern function name means ("__cudaCDP2LaunchDeviceV2", or
// CUDA 11's "cudaLaunchDeviceV2"), or None.
DeviceCall device_call_named(std::string_view name);
// Whether PTX text defines the device runtime (libcudadevrt's own code,
// which -rdc programs linked with -lcudadevrt carry as one more object).
bool defines_device_runtime(std::string_view ptx);
// Whether any call site of `program` calls the device runtime.
bool uses_device_runtime(const Program& program);
// Whether it calls CUDA 11's (CDP1) device runtime rather than __cudaCDP2*.
bool uses_legacy_device_runtime(const Program& program);
// Whether the call site needs the device malloc heap (device cudaMalloc/cudaFree).
bool uses_device_heap(const CallSite& site);

// The device runtime's special streams (cuda_device_runtime_api.h).
inline constexpr uint64_t kTailLaunchStream = 0x3;
inline constexpr uint64_t kFireAndForgetStream = 0x4;

// One unit of work a grid put into a device stream.
struct DeviceWork {
  enum class Kind : uint8_t { Launch, Copy, Set };
  // Ordered: the block's NULL stream or a stream the block created.
  enum class Stream : uint8_t { Ordered, TailLaunch, FireAndForget };
  Kind kind = Kind::Launch;
  Stream stream = Stream::Ordered;
  uint64_t stream_handle = 0;
  uint64_t cta = 0;       // linear index of the issuing CTA
  uint64_t sequence = 0;  // issue order within the grid (and so within the CTA)
  // Launch: the kernel, its configuration and parameters, and the launch
  // slot it holds until its grid starts (DeviceRuntime::release_slot).
  const KernelInfo* kernel = nullptr;
  Dim3 grid, block;
  uint32_t shared_bytes = 0;
  uint32_t depth = 0;  // the child grid's nesting depth
  std::vector<uint8_t> params;
  uint64_t slot = 0;
  // Copy / Set: device addresses.
  uint64_t dst = 0, src = 0, bytes = 0;
  uint8_t value = 0;
};

// What the device runtime checks launches against, set by the runtime shim
// from the configured GPU and its limits.
struct DeviceRuntimeLimits {
  std::array<uint32_t, 3> max_grid{0x7fffffffu, 65535, 65535};
  std::array<uint32_t, 3> max_block{1024, 1024, 64};
  uint32_t max_threads_per_block = 1024;
  uint64_t shared_per_block_optin = 227 << 10;
  uint32_t max_depth = 24;             // nesting levels below the host's grid (CDP1 only)
  uint64_t pending_launches = 2048;    // cudaLimitDevRuntimePendingLaunchCount
  int32_t runtime_version = 13000;     // cudaRuntimeGetVersion
};

// The device-wide state of the device runtime: limits, launch slots and
// their parameter buffers, stream/event handle numbers.
class DeviceRuntime {
 public:
  // Bytes of one parameter buffer: the largest parameter list a device-side
  // launch may pass.
  static constexpr uint64_t kParameterBufferBytes = 4096;

  void set_limits(const DeviceRuntimeLimits& limits) { limits_ = limits; }
  const DeviceRuntimeLimits& limits() const { return limits_; }
  // cudaDeviceGetAttribute / cudaDeviceGetLimit called on the device: the
  // host runtime's answers (cudaError_t result). Unset: cudaErrorNotSupported.
  std::function<int32_t(int attribute, int* value)> attribute;
  std::function<int32_t(int limit, uint64_t* value)> limit;

  // Granularity and smallest alignment of parameter buffers.
  static constexpr uint64_t kSlotGranule = 256;

  // Makes the buffer store (limits().pending_launches x kParameterBufferBytes)
  // if there is none, or remakes it when the limit changed and no slot is
  // held. Called before a grid that calls the device runtime runs; not
  // thread-safe.
  Fault prepare(DeviceMemory& memory);

  // The rest is safe to call from several executor threads.
  // A zeroed parameter buffer of `bytes` (device address) aligned to
  // `alignment` (at most kParameterBufferBytes), or 0 when the store has no
  // room for it.
  uint64_t acquire_slot(uint64_t bytes, uint64_t alignment);
  // Gives a slot back; false when `buffer` is not a held slot.
  bool release_slot(uint64_t buffer);
  bool is_held_slot(uint64_t buffer) const;
  uint64_t slots_held() const;
  // The first `bytes` of a held slot's parameter buffer (zeros past its end);
  // empty when `buffer` is not held.
  std::vector<uint8_t> slot_bytes(uint64_t buffer, uint64_t bytes) const;
  // What cudaGetParameterBufferV2 was told, kept for cudaLaunchDeviceV2.
  struct SlotLaunch {
    uint64_t function = 0;
    Dim3 grid, block;
    uint32_t shared_bytes = 0;
  };
  void set_slot_launch(uint64_t buffer, const SlotLaunch& launch);
  SlotLaunch slot_launch(uint64_t buffer) const;

  // A new device stream or event handle: unique, never a special stream.
  uint64_t new_handle();

 private:
  struct Slot {
    uint64_t size = 0;
    SlotLaunch launch;
  };

  mutable std::mutex mu_;
  DeviceRuntimeLimits limits_;
  uint64_t base_ = 0;        // store device address (0: none yet)
  uint64_t bytes_ = 0;       // store size
  uint8_t* host_ = nullptr;  // store host address
  FreeRanges free_;
  std::map<uint64_t, Slot> held_;  // buffer -> slot
  uint64_t next_handle_ = 0x1000;
};

// One grid's device-runtime calls, made by its threads (thread-safe), and
// the work they launched, collected after the grid by finish().
class GridDeviceRuntime {
 public:
  // The calling thread: its CTA's linear index and its index in the CTA.
  struct Caller {
    uint64_t cta = 0;
    uint32_t thread = 0;
  };

  GridDeviceRuntime(DeviceRuntime& runtime, const Program& program, const LaunchConfig& config);

  uint64_t get_parameter_buffer(Caller c, uint64_t alignment, uint64_t size);
  uint64_t get_parameter_buffer_v2(Caller c, uint64_t function, Dim3 grid, Dim3 block,
                                   uint32_t shared);
  DeviceError launch(Caller c, uint64_t function, uint64_t buffer, Dim3 grid, Dim3 block,
                     uint32_t shared, uint64_t stream);
  DeviceError launch_v2(Caller c, uint64_t buffer, uint64_t stream);

  DeviceError stream_create(Caller c, uint32_t flags, uint64_t* stream);
  DeviceError stream_destroy(Caller c, uint64_t stream);
  DeviceError event_create(Caller c, uint32_t flags, uint64_t* event);
  DeviceError event_record(Caller c, uint64_t event, uint64_t stream);
  DeviceError stream_wait_event(Caller c, uint64_t stream, uint64_t event, uint32_t flags);
  DeviceError event_destroy(Caller c, uint64_t event);
  DeviceError memcpy_async(Caller c, uint64_t dst, uint64_t src, uint64_t bytes, int32_t kind,
                           uint64_t stream);
  DeviceError memset_async(Caller c, uint64_t dst, int32_t value, uint64_t bytes,
                           uint64_t stream);

  // The thread's last error (cudaGetLastError clears it, Peek does not).
  DeviceError last_error(Caller c, bool clear);
  // Makes `e` the thread's last error when it is an error; returns it.
  DeviceError record(Caller c, DeviceError e);

  const DeviceRuntime& runtime() const { return runtime_; }
  uint32_t depth() const { return depth_; }

  // After the grid: its work in issue order per CTA (CTAs in index order).
  // Slots taken but never launched are given back.
  std::vector<DeviceWork> finish();

 private:
  // Checks a child launch (mu_ not held); fills `kernel`.
  DeviceError check_launch(uint64_t function, Dim3 grid, Dim3 block, uint32_t shared,
                           const KernelInfo** kernel) const;
  // The kind of a stream handle this grid may use; false when it is unknown.
  bool stream_kind(uint64_t stream, DeviceWork::Stream* kind) const;  // mu_ held
  DeviceError enqueue(Caller c, DeviceWork work, uint64_t stream);

  DeviceRuntime& runtime_;
  const Program& program_;
  uint32_t depth_ = 0;
  bool legacy_ = false;  // CDP1: the nesting depth is limited
  mutable std::mutex mu_;
  uint64_t next_sequence_ = 0;
  std::vector<DeviceWork> work_;
  std::set<uint64_t> unlaunched_;  // slots taken by this grid, not launched yet
  std::set<uint64_t> streams_, events_;
  std::map<std::pair<uint64_t, uint32_t>, DeviceError> last_errors_;
};

class Warp;
// The handlers of Builtin::DeviceRuntime and Builtin::Unprovided calls
// (exec_device_runtime.cpp): read the call's arguments lane by lane, call
// the grid's GridDeviceRuntime, write the results.
void exec_device_runtime(Warp& w, const CallSite& site, LaneMask active);
void exec_unprovided_extern(Warp& w, const CallSite& site, LaneMask active);

}  // namespace warpsim::functional
