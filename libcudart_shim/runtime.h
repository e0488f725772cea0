#pragma once
// The CUDA runtime's process-level context, independent of any CUDA major's
// ABI: the simulated device, what the program registered, streams and
// events, limits, the error state, and the statistics written at exit.
//
// The extern "C" entry points (api_*.cpp, compiled once per CUDA major)
// convert ABI structs and call these methods under mutex(); everything here
// uses plain C++ types and CUDA's error codes. This is the one place in
// warpsim with process-wide state (docs/architecture.md, "The one
// process-wide object"): the entry points reach
// the single Runtime through runtime_instance(); the class itself can be
// constructed any number of times (unit tests do).
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "common/stats.h"
#include "functional/device.h"
#include "functional/occupancy.h"
#include "power/power_trace.h"
#include "timing/gpu.h"
#include "timing/sim_config.h"
#include "libcudart_shim/capture.h"
#include "libcudart_shim/copy_region.h"
#include "libcudart_shim/errors.h"
#include "libcudart_shim/graph.h"
#include "libcudart_shim/managed_advice.h"
#include "libcudart_shim/mem_pool.h"
#include "libcudart_shim/registry.h"
#include "libcudart_shim/run_progress.h"
#include "libcudart_shim/streams.h"

namespace warpsim::cudart {

// Ends the process by `sig` with its default action (from any thread), as
// if nobody had caught it.
[[noreturn]] void end_process_by_signal(int sig);

// How the runtime was started (environment of `warpsim run`).
struct RuntimeOptions {
  std::string config;                  // WARPSIM_CONFIG: name or file, empty = built-in GPU
  std::vector<std::string> overrides;  // WARPSIM_SET: section.key=value, one per line
  std::string mode = "timing";         // WARPSIM_MODE: timing or functional
  std::string stats_file;              // WARPSIM_STATS_FILE: JSON written at exit
  std::string program;                 // WARPSIM_PROGRAM: for the statistics
  int root_pid = 0;                    // WARPSIM_ROOT_PID: only this process writes stats
  bool verbose = false;                // WARPSIM_VERBOSE=1: one line per loaded binary
  std::string power_trace;             // WARPSIM_POWER_TRACE: CSV of power over time (timing mode)
  int progress_fd = -1;                // WARPSIM_PROGRESS_FD: the page shared with warpsim run
  static RuntimeOptions from_environment();
};

// Functional-mode durations for the simulated timeline (streams.h): an
// idealised machine, so events and cudaEventElapsedTime report plausible,
// deterministic times until the timing model supplies real ones.
struct CostModel {
  double launch_ns = 2000;            // fixed cost of a kernel launch
  double issue_per_sm_per_cycle = 4;  // warp instructions (one per scheduler)
  double copy_latency_ns = 5000;      // host<->device copy setup
  double pcie_bytes_per_ns = 25;      // host<->device bandwidth (25 GB/s)
};

// Resources of one kernel as cudaFuncGetAttributes reports them.
struct KernelAttributes {
  uint64_t shared_bytes = 0;
  uint64_t const_bytes = 0;
  uint64_t local_bytes = 0;
  uint32_t max_threads_per_block = 0;
  uint32_t registers = 0;
  uint32_t ptx_version = 0;     // virtual architecture of the PTX used (75 for compute_75)
  uint32_t binary_version = 0;
  uint64_t max_dynamic_shared = 0;
  int carveout = -1;
  uint32_t cluster_dims[3] = {0, 0, 0};
  bool cluster_dims_set = false;
  bool non_portable_cluster_size = false;
};

struct LaunchRequest {
  const void* function = nullptr;  // host stub or kernel handle
  functional::Dim3 grid, block;
  uint64_t shared_bytes = 0;
  const void* stream = nullptr;
  bool per_thread_stream = false;  // _ptsz entry point
  void** args = nullptr;
  bool cooperative = false;
  functional::Dim3 cluster{1, 1, 1};  // from launch attributes; 1x1x1 = kernel's own
};

class Runtime {
 public:
  Runtime(int abi_major, SimConfig config, RuntimeOptions options = {});
  // From the environment; never fails: a bad configuration is reported and
  // becomes init_error() (every call then returns cudaErrorInitializationError).
  static std::unique_ptr<Runtime> from_environment(int abi_major);

  std::recursive_mutex& mutex() { return mutex_; }
  int abi_major() const { return abi_major_; }
  int runtime_version() const;  // CUDART_VERSION of the major impersonated
  const SimConfig& config() const { return config_; }
  Error init_error() const { return init_error_; }

  // ---- errors ------------------------------------------------------------------------
  Error sticky_error() const { return sticky_; }
  static Error& last_error();  // per host thread
  // Records `e` as the thread's last error when it is an error; returns it.
  Error record(Error e);

  // ---- device ------------------------------------------------------------------------
  functional::Device& device() { return *device_; }
  functional::SmResources sm_resources(int carveout_percent = -1) const;
  int current_device() const;
  Error set_device(int device);
  unsigned device_flags() const { return device_flags_; }
  Error set_device_flags(unsigned flags);
  Error device_attribute(int attribute, int* value) const;
  Error set_limit(int limit, uint64_t value);
  Error get_limit(int limit, uint64_t* value) const;
  bool sync_depth_limit_supported() const;  // cudaLimitDevRuntimeSyncDepth
  Error synchronize();  // cudaDeviceSynchronize
  Error reset();        // cudaDeviceReset
  int cache_config = 0;
  int shared_mem_config = 0;

  // ---- registration ------------------------------------------------------------------
  Registry& registry() { return registry_; }
  Error load(Binary& binary);
  Error load_kernel(const void* function, KernelEntry** out);
  Error load_var(const void* symbol, VarEntry** out);

  // ---- memory (runtime_memory.cpp) ----------------------------------------------------
  Error malloc_device(void** ptr, uint64_t bytes);
  Error free_device(void* ptr, bool synchronous);  // cudaFree synchronises, cudaFreeAsync not
  Error malloc_host(void** ptr, uint64_t bytes, unsigned flags);
  Error free_host(void* ptr);
  Error malloc_managed(void** ptr, uint64_t bytes, unsigned flags);
  Error malloc_pitch(void** ptr, uint64_t* pitch, uint64_t width, uint64_t height);
  Error host_register(void* ptr, uint64_t bytes, unsigned flags);
  Error host_unregister(void* ptr);
  Error host_device_pointer(void** device, void* host, unsigned flags);
  Error host_flags(unsigned* flags, void* host);
  Error memory_info(uint64_t* free, uint64_t* total) const;
  // cudaPointerGetAttributes: type (cudaMemoryType), device, pointers.
  Error pointer_attributes(const void* ptr, int* type, int* device, void** device_ptr,
                           void** host_ptr) const;

  Error memcpy(void* dst, const void* src, uint64_t bytes, int kind, const void* stream,
               bool async, bool per_thread);
  Error memcpy_3d(const Copy3D& copy, const void* stream, bool async, bool per_thread);
  Error memset_3d(const PitchedRegion& dst, int value, uint64_t width, uint64_t height,
                  uint64_t depth, const void* stream, bool async, bool per_thread);
  Error memcpy_to_symbol(const void* symbol, const void* src, uint64_t bytes, uint64_t offset,
                         int kind, const void* stream, bool async, bool per_thread);
  Error memcpy_from_symbol(void* dst, const void* symbol, uint64_t bytes, uint64_t offset,
                           int kind, const void* stream, bool async, bool per_thread);
  Error symbol_address(void** ptr, const void* symbol);
  Error symbol_size(uint64_t* size, const void* symbol);
  // Unified-memory hints; `location` is 0 (the GPU) or -1 (the host).
  Error prefetch(const void* ptr, uint64_t bytes, int location, const void* stream,
                 bool per_thread);
  Error advise(const void* ptr, uint64_t bytes, int advice, int location);
  // cudaMemRangeGetAttribute: `data` receives `size` bytes.
  Error range_attribute(void* data, uint64_t size, int attribute, const void* ptr,
                        uint64_t bytes) const;

  // Arrays, textures, surfaces (runtime_texture.cpp). malloc_array takes
  // cudaMalloc3DArray's extent and flags (cudaMallocArray: depth 0).
  Error malloc_array(uint64_t* array, const functional::ChannelFormat& format, uint64_t width,
                     uint64_t height, uint64_t depth, unsigned flags);
  Error free_array(uint64_t array);
  const functional::ArrayInfo* array(uint64_t handle) const;
  Error create_texture(uint64_t* handle, const functional::ResourceDesc& res,
                       const functional::TextureDesc& desc);
  Error destroy_texture(uint64_t handle);
  Error create_surface(uint64_t* handle, const functional::ResourceDesc& res);
  Error destroy_surface(uint64_t handle);
  // The ABI descriptors a texture or surface object was created from, kept
  // by the entry points for cudaGetTextureObject*Desc (bytes of the structs
  // of the CUDA major in use).
  std::unordered_map<uint64_t, std::string> object_descriptors;

  // ---- streams and events -------------------------------------------------------------
  StreamTable& streams() { return streams_; }
  Stream* stream(const void* handle, bool per_thread) {
    return streams_.resolve(handle, per_thread);
  }
  Error stream_synchronize(const void* handle, bool per_thread);
  Error event_synchronize(const void* handle);
  Error event_elapsed(float* ms, const void* start, const void* end);
  // Runs a host function in stream order (cudaLaunchHostFunc, cudaStreamAddCallback).
  Error host_function(const void* stream, bool per_thread, void (*fn)(void*), void* user);

  // ---- graphs and stream capture (runtime_graph.cpp) ---------------------------------
  GraphTable& graphs() { return graphs_; }
  CaptureTable& captures() { return captures_; }
  // cudaEventRecord(WithFlags) and cudaStreamWaitEvent, which take part in
  // capture (fork/join across streams).
  Error record_event(Event& event, Stream& stream, unsigned flags);
  Error wait_event(Stream& stream, Event& event, unsigned flags);
  Error begin_capture(Stream& stream, int mode, Graph* into, std::vector<GraphNode*> deps);
  Error end_capture(Stream& stream, Graph** graph);
  // cudaStreamUpdateCaptureDependencies: flags 0 adds, 1 replaces.
  Error update_capture_dependencies(Stream& stream, std::vector<GraphNode*> nodes,
                                    unsigned flags);
  // A potentially unsafe call (cudaMalloc, synchronous copies, device or
  // stream synchronisation) while a capture prohibits it: the error to
  // return, or Success.
  Error capture_forbids_unsafe_call();
  // cudaEventQuery / cudaEventSynchronize of `e` while captures may be
  // active (measured on an H100 with CUDA 13): an event recorded in a
  // capture stands for work that has not run, so waiting for it fails with
  // cudaErrorCapturedEvent and invalidates that capture (cudaErrorInvalidValue
  // once it is invalidated); any other event is a potentially unsafe call.
  Error host_waits_for_event(Event& e);
  // Node parameters from a kernel launch (arguments copied).
  Error kernel_node_params(const void* function, functional::Dim3 grid, functional::Dim3 block,
                           uint64_t shared, void** args, void** extra, KernelParams* out);
  Error instantiate(GraphExec** exec, Graph& graph, uint64_t flags, GraphNode** error_node);
  // Graph memory nodes: memory for a new allocation node (its address is
  // fixed from now on), the allocation at an address (or nullptr),
  // cudaDeviceGet/SetGraphMemAttribute (attributes 0-3: used and reserved,
  // current and high; only the high ones can be set, to 0), and
  // cudaDeviceGraphMemTrim.
  Error graph_memory_allocate(uint64_t bytes, std::shared_ptr<GraphAllocation>* out);
  GraphAllocation* graph_allocation(uint64_t address) const;
  Error graph_memory_attribute(int attribute, uint64_t* value, bool set);
  void graph_memory_trim();
  // A free (cudaFree, cudaFreeAsync, a free node) of graph memory: ends the
  // live allocation at `address`; false when none is live there.
  bool free_graph_memory(uint64_t address);
  Error launch_graph(GraphExec& exec, const void* stream, bool per_thread);

  // ---- launches (runtime_launch.cpp) --------------------------------------------------
  unsigned push_call_configuration(functional::Dim3 grid, functional::Dim3 block,
                                   uint64_t shared, const void* stream);
  Error pop_call_configuration(functional::Dim3* grid, functional::Dim3* block, uint64_t* shared,
                               const void** stream);
  Error launch(const LaunchRequest& request);
  Error kernel_attributes(const void* function, KernelAttributes* out);
  Error set_kernel_attribute(const void* function, int attribute, int value);
  Error set_kernel_cache_config(const void* function, int config);
  Error occupancy(int* ctas, const void* function, int block_size, uint64_t dynamic_shared,
                  unsigned flags);
  Error available_dynamic_shared(uint64_t* bytes, const void* function, int ctas, int block_size);

  // ---- memory pools: stream-ordered allocation (runtime_pool.cpp, mem_pool.h) ---------
  // Pool handles are MemPool addresses; `pool` == nullptr means the device's
  // current pool. Allocation and free are operations of their stream.
  Error pool_malloc(void** ptr, uint64_t bytes, const void* pool, bool use_current,
                    const void* stream, bool per_thread);
  Error pool_free(void* ptr, const void* stream, bool per_thread);  // cudaFreeAsync
  // cudaMemPoolCreate: the fields of cudaMemPoolProps that matter here.
  struct PoolProps {
    int alloc_type = 1;       // cudaMemAllocationType: 1 pinned
    int handle_types = 0;     // cudaMemAllocationHandleType bits
    int location_type = 1;    // cudaMemLocationType: 1 device
    int location_id = 0;
    bool win32_security = false;  // win32SecurityAttributes != NULL
    uint64_t max_size = 0;
  };
  Error pool_create(void** pool, const PoolProps& props);
  Error pool_destroy(const void* pool);
  Error default_pool(void** pool, int device);
  Error current_pool(void** pool, int device);
  Error set_current_pool(int device, const void* pool);
  // cudaMemPoolSet/GetAttribute; `value` is an int for the reuse switches
  // (attributes 1-3), a uint64 otherwise.
  Error pool_set_attribute(const void* pool, int attribute, const void* value);
  Error pool_get_attribute(const void* pool, int attribute, void* value);
  Error pool_trim(const void* pool, uint64_t keep_bytes);
  // cudaMemPoolSetAccess / GetAccess: cudaMemLocationType + id, cudaMemAccessFlags.
  struct PoolAccess {
    int location_type = 1;
    int id = 0;
    int flags = 3;
  };
  Error pool_set_access(const void* pool, const PoolAccess* list, uint64_t count);
  Error pool_get_access(int* flags, const void* pool, int location_type, int id);
  MemPoolTable& pools() { return pools_; }
  // At a synchronisation point (device, stream, event synchronize): pools
  // above their release threshold give idle chunks back to the device.
  void release_pool_memory();

 private:
  MemPoolTable pools_;

 public:
  // ---- output and statistics ----------------------------------------------------------
  // Device printf output waits in the device's FIFO until a flush point (a
  // launch from the host, a synchronising call), as on a GPU, and then goes
  // to the program's stdout.
  void flush_printf();
  void write_statistics();  // at exit, to options().stats_file
  // The run was interrupted by signal `sig` (SIGINT, SIGTERM, SIGHUP): the
  // running launch stops at its next look at the monitor, and the
  // statistics written from now on are marked partial.
  void interrupt(int sig);
  // Ends the process as signal `sig` would, after writing the statistics
  // gathered so far (marked partial). Called under the lock, by the thread
  // whose launch the signal stopped or by the signal watcher.
  [[noreturn]] void end_by_signal(int sig);
  // The page shared with `warpsim run` (null when the program runs alone).
  RunProgressPage* progress_page() { return progress_; }
  const RuntimeOptions& options() const { return options_; }
  StatsRegistry& stats() { return stats_; }
  // One line on stderr naming an entry point warpsim does not implement
  // (first call of each only).
  void report_unsupported(const char* function);

 private:
  Error check_launch(const KernelEntry& k, const LaunchRequest& r, uint64_t* dynamic_shared);
  // Simulated duration of a launch: its timing-mode cycles at the core clock,
  // or the functional-mode estimate from its warp instructions.
  double kernel_duration_ns(const functional::LaunchResult& r) const;
  double copy_duration_ns(uint64_t bytes, bool crosses_pcie) const;
  // Enqueues an operation: the stream (or an invalid-handle error), its end
  // time; synchronous operations make the host wait for it.
  Error enqueue(const void* stream, bool per_thread, double duration_ns, bool synchronous);
  void make_device();
  void publish_launch(KernelEntry& k, const functional::LaunchResult& r, double seconds);
  // Timing mode: the energy model's figures (power.*, per kernel) into `j`.
  void publish_power(nlohmann::json& j);
  // The power trace: opened when the device is made, sampled by the timing model.
  void start_power_trace();
  // The energy model's counters of a launch's activity.
  static power::Activity power_activity(const timing::LaunchActivity& a);
  // Graphs and capture (runtime_graph.cpp). Before an operation on `stream`
  // runs: whether it is to be recorded in the stream's capture instead
  // (*record), or an error when capture forbids it.
  Error capture_gate(Stream& stream, bool synchronous, bool* record);
  // Appends a node of `type` to `stream`'s capture; it becomes the stream's
  // only dependency.
  GraphNode* capture_node(Stream& stream, NodeType type);
  // Places an operation on the simulated timeline: on `stream`, or, while a
  // graph runs, at its node's start.
  double place(Stream& stream, double duration_ns);
  Error run_node(const GraphNode& node, double start_ns, double* end_ns);
  Error run_graph(const Graph& graph, const GraphExec* exec, double start_ns, double* end_ns);
  Error run_memset_node(const MemsetParams& p);

  // ---- dynamic parallelism (runtime_device_launch.cpp) ---------------------------------
  // Gives the device runtime its limits and queries (the configured GPU,
  // cudaLimitDevRuntimePendingLaunchCount...) before a launch.
  void configure_device_runtime();
  // Runs one grid, from the host or the device: the threads' stack size,
  // the timing model's resources for the kernel (`k` may be null for a
  // kernel the program did not register), host time in *seconds.
  functional::LaunchResult run_grid(const Binary& binary, const functional::KernelInfo& info,
                                    const KernelEntry* k, functional::LaunchConfig cfg,
                                    std::vector<uint8_t> params, double* seconds);
  // Counts a grid that ran in its kernel's record, the launch log and the
  // statistics.
  void account_grid(KernelEntry& k, const functional::KernelInfo& info,
                    const functional::LaunchConfig& cfg, const functional::LaunchResult& r,
                    double seconds);
  // The kernel's parameter block from cudaLaunchKernel-style `args` (one
  // pointer per parameter); cudaErrorInvalidValue for a missing one.
  static Error pack_arguments(const functional::KernelInfo& info, void** args,
                              std::vector<uint8_t>* block);
  // Runs the work the grid `top` launched on the device, and all that work
  // launches in turn, after the grid; returns its simulated duration. A
  // fault stops it all and becomes `top`'s fault.
  double run_device_work(Binary& binary, functional::LaunchResult& top);
  uint32_t max_device_depth_ = 0;

  int abi_major_;
  SimConfig config_;
  ptx::PassPipeline passes_;  // [compiler] passes, run on every module loaded
  RuntimeOptions options_;
  CostModel cost_;
  Error init_error_ = Error::Success;
  Error sticky_ = Error::Success;
  std::recursive_mutex mutex_;
  std::unique_ptr<functional::Device> device_;
  // Bytes of device memory the runtime holds for itself (make_device), not
  // shown to the program as used (cudaMemGetInfo).
  uint64_t own_bytes_ = 0;
  std::unique_ptr<timing::Gpu> timing_;  // timing mode: runs the device's launches
  std::optional<timing::LaunchActivity> launched_;  // the last grid's, until publish_launch
  std::unique_ptr<power::PowerTrace> power_trace_;  // --power-trace
  RunProgressPage* progress_ = nullptr;  // shared with warpsim run (mapped, never unmapped)
  int interrupted_by_ = 0;               // the signal that stopped the run, 0: none
  void map_progress_page();
  void end_progress_line();
  // The energy model's view of the GPU, computed with the device: the
  // statistics are written at exit, after the registries it needs may be
  // gone.
  power::Machine power_machine_;
  StatsRegistry power_parameters_;  // power.parameters.*, for the same reason
  Registry registry_;
  StreamTable streams_;
  // Graph allocations by address (declared before graphs_: the nodes' last
  // references release their memory through it).
  std::unordered_map<uint64_t, GraphAllocation*> graph_allocations_;
  // Graph memory as the driver accounts it (runtime_graph.cpp): bytes of
  // live graph allocations, and the physical memory mapped for graphs.
  uint64_t graph_mem_live_ = 0, graph_mem_mapped_ = 0;
  uint64_t graph_mem_used_high_ = 0, graph_mem_reserved_high_ = 0;
  GraphTable graphs_;
  CaptureTable captures_;
  struct NodeTiming {
    double start_ns = 0;
    double duration_ns = 0;
  };
  NodeTiming* node_timing_ = nullptr;  // set while a graph node runs
  StatsRegistry stats_;
  ManagedAdvice advice_;
  std::unordered_map<uint64_t, unsigned> host_flags_;  // pinned/registered host memory's flags
  uint64_t coop_workspace_ = 0;  // grid-sync workspace of cooperative launches
  // Device printf / malloc: whether the one warning about
  // overwritten printf records was given in this context.
  bool printf_overflow_reported_ = false;
  bool invalid_free_reported_ = false;  // the one warning about invalid device free() calls
  unsigned device_flags_ = 0;
  // cudaDeviceSetLimit's values, with their defaults (cudaDeviceReset restores them).
  struct Limits {
    uint64_t stack = 1024;
    uint64_t printf_fifo = functional::kDefaultPrintfFifoBytes;
    uint64_t heap = functional::DeviceHeap::kDefaultCapacity;
    uint64_t sync_depth = 2;
    uint64_t pending_launches = 2048;  // at least 32 (an H100 reads 8 back as 32)
    uint64_t l2_fetch_granularity = 64;
    uint64_t persisting_l2 = 0;
  };
  static constexpr uint64_t kMinPendingLaunches = 32;
  Limits limits_;
  std::vector<std::string> unsupported_reported_;
  std::chrono::steady_clock::time_point started_;
  double launch_seconds_ = 0;
  // Every grid as it ran, in launch order: the statistics' "launches" list,
  // which `warpsim correlate` joins with measured kernel times. Bounded, so
  // that a program of millions of launches keeps a readable file.
  struct LaunchRecord {
    std::string kernel;  // mangled name
    functional::Dim3 grid, block;
    uint64_t thread_instructions = 0;
    uint64_t cycles = 0;       // timing mode
    double duration_ns = 0;    // on the simulated timeline
    double wall_seconds = 0;   // host time simulating it
    bool device_side = false;  // launched by a kernel (dynamic parallelism)
    timing::Sampling sampling = timing::Sampling::None;  // timing mode: how its cycles were found
  };
  static constexpr size_t kMaxLaunchRecords = 100000;
  std::vector<LaunchRecord> launch_records_;
  uint64_t launches_unrecorded_ = 0;
};

}  // namespace warpsim::cudart
