// The runtime core (libcudart_shim/runtime.h) in-process, without the ABI
// layer: error tables, the stream/event timeline, managed-memory advice,
// memory operations with their CUDA error codes, and registration, loading
// and launching of a real nvcc fatbin (data/ptx75_sm80.fatbin).
#include "libcudart_shim/runtime.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <span>
#include <sstream>
#include <vector>

#include "libcudart_shim/device_attributes.h"
#include "libcudart_shim/fatbin.h"

namespace warpsim::cudart {
namespace {

// ---- errors --------------------------------------------------------------------------------

TEST(Errors, NamesAndStringsAsTheRealRuntime) {
  EXPECT_STREQ(error_name(0, 13), "cudaSuccess");
  EXPECT_STREQ(error_string(0, 13), "no error");
  EXPECT_STREQ(error_name(700, 13), "cudaErrorIllegalAddress");
  EXPECT_STREQ(error_string(700, 13), "an illegal memory access was encountered");
  EXPECT_STREQ(error_string(9, 11), "invalid configuration argument");
  EXPECT_STREQ(error_name(801, 12), "cudaErrorNotSupported");
  // Codes a major does not know, and codes nobody knows.
  EXPECT_STREQ(error_name(721, 12), "unrecognized error code");  // TensorMemoryLeak is 13's
  EXPECT_STREQ(error_name(721, 13), "cudaErrorTensorMemoryLeak");
  EXPECT_STREQ(error_string(12345, 13), "unrecognized error code");
  EXPECT_STREQ(error_name(-1, 13), "unrecognized error code");
  EXPECT_TRUE(is_sticky(Error::IllegalAddress));
  EXPECT_TRUE(is_sticky(Error::Assert));
  EXPECT_FALSE(is_sticky(Error::InvalidConfiguration));
  EXPECT_FALSE(is_sticky(Error::MemoryAllocation));
}

// ---- the timeline ----------------------------------------------------------------------------

TEST(StreamTable, HandlesResolve) {
  StreamTable t;
  Stream* legacy = t.resolve(nullptr, false);
  ASSERT_NE(legacy, nullptr);
  EXPECT_TRUE(legacy->legacy);
  EXPECT_EQ(t.resolve(reinterpret_cast<void*>(1), true), legacy);  // cudaStreamLegacy
  Stream* mine = t.resolve(reinterpret_cast<void*>(2), false);     // cudaStreamPerThread
  ASSERT_NE(mine, nullptr);
  EXPECT_TRUE(mine->per_thread);
  EXPECT_EQ(t.resolve(nullptr, true), mine);  // _ptsz: 0 is this thread's stream
  Stream* s = t.create(0, 0);
  EXPECT_EQ(t.resolve(s, false), s);
  int junk = 0;
  EXPECT_EQ(t.resolve(&junk, false), nullptr);
  EXPECT_FALSE(t.destroy(mine));    // implicit streams cannot be destroyed
  EXPECT_FALSE(t.destroy(legacy));
  EXPECT_TRUE(t.destroy(s));
  EXPECT_FALSE(t.destroy(s));       // regression: a second destroy read the freed stream
  EXPECT_EQ(t.resolve(s, false), nullptr);
  // Another table: this thread gets a different implicit stream there.
  StreamTable other;
  EXPECT_NE(other.resolve(reinterpret_cast<void*>(2), false), mine);
  EXPECT_EQ(t.resolve(reinterpret_cast<void*>(2), false), mine);
  Event* e = t.create_event(0);
  EXPECT_TRUE(t.destroy_event(e));
  EXPECT_FALSE(t.destroy_event(e));
  EXPECT_EQ(t.event(e), nullptr);
}

TEST(StreamTable, TimelineFollowsCudaOrderingRules) {
  StreamTable t;
  Stream& legacy = t.legacy();
  Stream* blocking = t.create(0, 0);
  Stream* nonblocking = t.create(1, 0);
  // Independent streams overlap.
  EXPECT_EQ(t.schedule(*blocking, 100), 100);
  EXPECT_EQ(t.schedule(*nonblocking, 50), 50);
  // The legacy stream waits for blocking streams, not for non-blocking ones.
  EXPECT_EQ(t.schedule(legacy, 10), 110);
  // A blocking stream then waits for the legacy stream; a non-blocking one does not.
  EXPECT_EQ(t.schedule(*blocking, 5), 115);
  EXPECT_EQ(t.schedule(*nonblocking, 5), 55);
  // Events: recorded where the stream is; a wait moves another stream on.
  Event* e = t.create_event(0);
  t.record(*e, *blocking);
  EXPECT_TRUE(e->recorded);
  EXPECT_EQ(e->time_ns, 115);
  t.wait(*nonblocking, *e);
  EXPECT_EQ(t.schedule(*nonblocking, 1), 116);
  // The host waiting makes later work start no earlier.
  t.host_waits_for(t.all_done_ns());
  Stream* late = t.create(1, 0);
  EXPECT_EQ(t.schedule(*late, 1), 117);
  // Regression: the work of a destroyed stream still counts in the total.
  Stream* gone = t.create(1, 0);
  EXPECT_EQ(t.schedule(*gone, 1000), 1116);  // starts when the host last waited
  EXPECT_TRUE(t.destroy(gone));
  EXPECT_EQ(t.all_done_ns(), 1116);
}

// ---- managed-memory advice ---------------------------------------------------------------------

TEST(ManagedAdvice, RangesSplitMergeAndQuery) {
  ManagedAdvice a;
  EXPECT_FALSE(a.read_mostly(0, 100));
  EXPECT_EQ(a.preferred(0, 100), kInvalidDevice);
  a.advise(0, 100, 1, 0);  // SetReadMostly
  EXPECT_TRUE(a.read_mostly(0, 100));
  EXPECT_TRUE(a.read_mostly(10, 20));
  EXPECT_FALSE(a.read_mostly(50, 150));  // partly unadvised
  a.advise(40, 60, 2, 0);                // UnsetReadMostly in the middle
  EXPECT_FALSE(a.read_mostly(0, 100));
  EXPECT_TRUE(a.read_mostly(60, 100));
  a.advise(0, 100, 3, kCpuDevice);  // SetPreferredLocation host
  EXPECT_EQ(a.preferred(0, 100), kCpuDevice);
  a.advise(0, 50, 3, 0);
  EXPECT_EQ(a.preferred(0, 50), 0);
  EXPECT_EQ(a.preferred(0, 100), kInvalidDevice);  // mixed
  a.advise(0, 100, 5, 0);  // SetAccessedBy GPU
  EXPECT_EQ(a.accessed_by(0, 100), std::vector<int>{0});
  a.advise(0, 10, 6, 0);
  EXPECT_TRUE(a.accessed_by(0, 100).empty());
  a.prefetched(0, 100, 0);
  EXPECT_EQ(a.last_prefetch(20, 30), 0);
  a.forget(0, 100);
  EXPECT_EQ(a.last_prefetch(20, 30), kInvalidDevice);
  EXPECT_FALSE(a.read_mostly(60, 100));
}

// ---- a runtime in-process ----------------------------------------------------------------------

std::vector<char> read_fixture(const std::string& name) {
  std::ifstream in(std::string(WARPSIM_SOURCE_DIR) + "/tests/libcudart_shim/data/" + name,
                   std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  const std::string s = ss.str();
  return std::vector<char>(s.begin(), s.end());
}

// __fatBinC_Wrapper_t as nvcc lays it out.
struct Wrapper {
  uint32_t magic = 0x466243b1;
  uint32_t version = 1;
  const void* data = nullptr;
  const void* prelinked = nullptr;
};

class RuntimeTest : public ::testing::Test {
 protected:
  explicit RuntimeTest(int cuda_major = 13) : rt(cuda_major, SimConfig{}) {}
  Runtime rt;
};

void* as_ptr(uint64_t v) { return reinterpret_cast<void*>(v); }

TEST_F(RuntimeTest, DeviceAttributesDescribeTheConfiguredGpu) {
  int v = 0;
  ASSERT_EQ(rt.device_attribute(kAttrMultiProcessorCount, &v), Error::Success);
  EXPECT_EQ(v, 132);
  ASSERT_EQ(rt.device_attribute(kAttrComputeCapabilityMajor, &v), Error::Success);
  EXPECT_EQ(v, 9);
  ASSERT_EQ(rt.device_attribute(kAttrMaxSharedMemoryPerBlockOptin, &v), Error::Success);
  EXPECT_EQ(v, 227 * 1024);
  EXPECT_EQ(rt.device_attribute(44, &v), Error::InvalidValue);   // unused number
  EXPECT_EQ(rt.device_attribute(0, &v), Error::InvalidValue);
  EXPECT_EQ(rt.device_attribute(148, &v), Error::InvalidValue);  // cudaDevAttrMax of 13
  GpuConfig g;
  g.num_sms = 7;
  EXPECT_EQ(device_attribute(g, kAttrMultiProcessorCount, 12), 7);
  EXPECT_FALSE(device_attribute(g, 144, 12));  // 13's HostMemoryPoolsSupported
  EXPECT_TRUE(device_attribute(g, 144, 13));
  EXPECT_FALSE(device_attribute(g, 122, 11));  // 11.8's cudaDevAttrMax
}

TEST_F(RuntimeTest, MallocFreeAndTheirErrors) {
  void* p = as_ptr(1);
  EXPECT_EQ(rt.malloc_device(&p, 0), Error::Success);
  EXPECT_EQ(p, nullptr);
  EXPECT_EQ(rt.malloc_device(&p, uint64_t{1} << 50), Error::MemoryAllocation);
  ASSERT_EQ(rt.malloc_device(&p, 4096), Error::Success);
  EXPECT_EQ(rt.free_device(static_cast<char*>(p) + 16, true), Error::InvalidValue);
  int host = 0;
  EXPECT_EQ(rt.free_device(&host, true), Error::InvalidValue);
  EXPECT_EQ(rt.free_device(p, true), Error::Success);
  EXPECT_EQ(rt.free_device(p, true), Error::InvalidValue);  // double free
  EXPECT_EQ(rt.free_device(nullptr, true), Error::Success);
  uint64_t free = 0, total = 0;
  ASSERT_EQ(rt.memory_info(&free, &total), Error::Success);
  EXPECT_EQ(total, rt.config().gpu.memory_size);
  EXPECT_EQ(free, total);
}

TEST_F(RuntimeTest, CopiesCheckKindAndRanges) {
  void* d = nullptr;
  ASSERT_EQ(rt.malloc_device(&d, 256), Error::Success);
  std::vector<int> in(64), out(64, 0);
  for (int i = 0; i < 64; ++i) in[i] = i * 3;
  EXPECT_EQ(rt.memcpy(d, in.data(), 256, 1, nullptr, false, false), Error::Success);
  EXPECT_EQ(rt.memcpy(out.data(), d, 256, 2, nullptr, false, false), Error::Success);
  EXPECT_EQ(out, in);
  // The wrong side is not device memory, or the range runs past the end.
  EXPECT_EQ(rt.memcpy(out.data(), in.data(), 16, 1, nullptr, false, false), Error::InvalidValue);
  EXPECT_EQ(rt.memcpy(d, in.data(), 257, 1, nullptr, false, false), Error::InvalidValue);
  EXPECT_EQ(rt.memcpy(d, in.data(), 16, 7, nullptr, false, false), Error::InvalidMemcpyDirection);
  // cudaMemcpyDefault works out both sides; host to host is a plain copy.
  std::fill(out.begin(), out.end(), 0);
  EXPECT_EQ(rt.memcpy(out.data(), d, 256, 4, nullptr, false, false), Error::Success);
  EXPECT_EQ(out, in);
  // An unknown stream handle.
  int junk = 0;
  EXPECT_EQ(rt.memcpy(d, in.data(), 16, 1, &junk, true, false), Error::InvalidResourceHandle);
  // 2D with pitches, then a set.
  void* d2 = nullptr;
  uint64_t pitch = 0;
  ASSERT_EQ(rt.malloc_pitch(&d2, &pitch, 10, 4), Error::Success);
  EXPECT_EQ(pitch, 512u);
  Copy3D c;
  c.dst = PitchedRegion{d2, 0, pitch, 4};
  c.src = PitchedRegion{in.data(), 0, 12, 4};
  c.width = 10;
  c.height = 4;
  c.kind = 1;
  EXPECT_EQ(rt.memcpy_3d(c, nullptr, false, false), Error::Success);
  std::vector<char> row(10);
  EXPECT_EQ(rt.memcpy(row.data(), static_cast<char*>(d2) + 3 * pitch, 10, 2, nullptr, false, false),
            Error::Success);
  EXPECT_EQ(std::memcmp(row.data(), reinterpret_cast<const char*>(in.data()) + 36, 10), 0);
  c.width = 13;  // wider than the source pitch
  EXPECT_EQ(rt.memcpy_3d(c, nullptr, false, false), Error::InvalidPitchValue);
  EXPECT_EQ(rt.memset_3d(PitchedRegion{d2, 0, pitch, 4}, 0x5a, 10, 4, 1, nullptr, false, false),
            Error::Success);
  EXPECT_EQ(rt.memcpy(row.data(), d2, 10, 2, nullptr, false, false), Error::Success);
  EXPECT_EQ(row[9], 0x5a);
}

TEST_F(RuntimeTest, HostVisibleMemoryAndPointerAttributes) {
  void* m = nullptr;
  ASSERT_EQ(rt.malloc_managed(&m, 1000, 1), Error::Success);
  static_cast<int*>(m)[5] = 77;  // the host uses the pointer directly
  int type = -1, dev = -1;
  void* dp = nullptr;
  void* hp = nullptr;
  ASSERT_EQ(rt.pointer_attributes(m, &type, &dev, &dp, &hp), Error::Success);
  EXPECT_EQ(type, 3);  // cudaMemoryTypeManaged
  EXPECT_EQ(dp, m);
  EXPECT_EQ(hp, m);
  EXPECT_EQ(rt.malloc_managed(&m, 0, 1), Error::InvalidValue);
  EXPECT_EQ(rt.malloc_managed(&m, 16, 3), Error::InvalidValue);  // both attach flags

  void* pinned = nullptr;
  ASSERT_EQ(rt.malloc_host(&pinned, 64, 0), Error::Success);
  ASSERT_EQ(rt.pointer_attributes(pinned, &type, &dev, &dp, &hp), Error::Success);
  EXPECT_EQ(type, 1);
  unsigned flags = 0;
  ASSERT_EQ(rt.host_flags(&flags, pinned), Error::Success);
  EXPECT_TRUE(flags & 2u);  // mapped
  void* mapped = nullptr;
  ASSERT_EQ(rt.host_device_pointer(&mapped, pinned, 0), Error::Success);
  EXPECT_EQ(mapped, pinned);
  EXPECT_EQ(rt.free_device(pinned, true), Error::InvalidValue);  // cudaFree of pinned memory
  EXPECT_EQ(rt.free_host(pinned), Error::Success);

  std::vector<int> buf(256);
  ASSERT_EQ(rt.host_register(buf.data(), 1024, 0), Error::Success);
  EXPECT_EQ(rt.host_register(buf.data() + 8, 64, 0), Error::HostMemoryAlreadyRegistered);
  ASSERT_EQ(rt.pointer_attributes(buf.data() + 3, &type, &dev, &dp, &hp), Error::Success);
  EXPECT_EQ(type, 1);
  EXPECT_EQ(rt.host_unregister(buf.data() + 1), Error::HostMemoryNotRegistered);
  EXPECT_EQ(rt.host_unregister(buf.data()), Error::Success);
  ASSERT_EQ(rt.pointer_attributes(buf.data(), &type, &dev, &dp, &hp), Error::Success);
  EXPECT_EQ(type, 0);  // unregistered host memory is answered, not an error

  // Advice on managed memory, read back.
  ASSERT_EQ(rt.malloc_managed(&m, 8192, 1), Error::Success);
  EXPECT_EQ(rt.advise(m, 8192, 1, 0), Error::Success);
  int rm = 0;
  EXPECT_EQ(rt.range_attribute(&rm, sizeof rm, 1, m, 4096), Error::Success);
  EXPECT_EQ(rm, 1);
  EXPECT_EQ(rt.advise(buf.data(), 16, 1, 0), Error::InvalidValue);  // not managed
  EXPECT_EQ(rt.prefetch(m, 8192, 0, nullptr, false), Error::Success);
  int where = -5;
  EXPECT_EQ(rt.range_attribute(&where, sizeof where, 4, m, 8192), Error::Success);
  EXPECT_EQ(where, 0);
}

TEST_F(RuntimeTest, LimitsAndDeviceFlags) {
  uint64_t v = 0;
  ASSERT_EQ(rt.get_limit(0, &v), Error::Success);
  EXPECT_EQ(v, 1024u);  // cudaLimitStackSize default
  ASSERT_EQ(rt.set_limit(0, 1000), Error::Success);
  ASSERT_EQ(rt.get_limit(0, &v), Error::Success);
  EXPECT_EQ(v, 1008u);  // rounded up
  EXPECT_EQ(rt.set_limit(5, 48), Error::InvalidValue);  // L2 fetch granularity: powers of two
  EXPECT_EQ(rt.set_limit(99, 1), Error::UnsupportedLimit);
  EXPECT_EQ(rt.set_device_flags(0x1 | 0x2), Error::InvalidValue);  // two schedules
  EXPECT_EQ(rt.set_device_flags(0x4 | 0x8), Error::Success);
  EXPECT_EQ(rt.set_device(1), Error::InvalidDevice);
}

// What an H100 with CUDA 13 reads back, and cudaDeviceReset restoring every default.
TEST_F(RuntimeTest, LimitsHaveTheirMinimumsAndResetRestoresTheDefaults) {
  const uint64_t set[] = {4096, 4096, 1 << 20, 0, 8, 32, 1 << 20};  // limits 0..6
  const uint64_t read[] = {4096, 512 << 10, 4 << 20, 0, 32, 32, 1 << 20};
  uint64_t defaults[7];
  for (int l = 0; l < 7; ++l) {
    if (l == 3) continue;  // cudaLimitDevRuntimeSyncDepth: unsupported on cc 9.0 with CUDA 13
    ASSERT_EQ(rt.get_limit(l, &defaults[l]), Error::Success) << l;
    ASSERT_EQ(rt.set_limit(l, set[l]), Error::Success) << l;
    uint64_t v = 0;
    ASSERT_EQ(rt.get_limit(l, &v), Error::Success) << l;
    EXPECT_EQ(v, read[l]) << l;
  }
  uint64_t v = 0;
  EXPECT_EQ(rt.get_limit(3, &v), Error::UnsupportedLimit);
  EXPECT_EQ(rt.set_limit(3, 4), Error::UnsupportedLimit);
  ASSERT_EQ(rt.reset(), Error::Success);
  for (int l = 0; l < 7; ++l) {
    if (l == 3) continue;
    ASSERT_EQ(rt.get_limit(l, &v), Error::Success) << l;
    EXPECT_EQ(v, defaults[l]) << l;
  }
}

// The fixture's kernels: scale(float*, float, int) and add(const int*, const int*, int*, int),
// PTX compute_75 (zstd) and SASS sm_80.
constexpr const char* kScale = "_Z5scalePffi";
constexpr const char* kAdd = "_Z3addPKiS0_Pii";

class LoadedRuntimeTest : public RuntimeTest {
 protected:
  explicit LoadedRuntimeTest(int cuda_major = 13)
      : RuntimeTest(cuda_major), fatbin(read_fixture("ptx75_sm80.fatbin")) {
    wrapper.data = fatbin.data();
    Binary* b = rt.registry().add_binary(&wrapper);
    rt.registry().add_function(*b, &scale_stub, kScale);
    rt.registry().add_function(*b, &add_stub, kAdd);
  }
  std::vector<char> fatbin;
  Wrapper wrapper;
  char scale_stub = 0, add_stub = 0;  // stand-ins for the host stubs' addresses
};

TEST_F(LoadedRuntimeTest, LaunchRunsTheKernel) {
  const int n = 1000;
  std::vector<float> x(n);
  for (int i = 0; i < n; ++i) x[i] = static_cast<float>(i);
  void* d = nullptr;
  ASSERT_EQ(rt.malloc_device(&d, n * 4), Error::Success);
  ASSERT_EQ(rt.memcpy(d, x.data(), n * 4, 1, nullptr, false, false), Error::Success);
  float a = 2.5f;
  int count = n;
  void* args[] = {&d, &a, &count};
  LaunchRequest r;
  r.function = &scale_stub;
  r.grid = {4, 1, 1};
  r.block = {256, 1, 1};
  r.args = args;
  ASSERT_EQ(rt.launch(r), Error::Success);
  ASSERT_EQ(rt.memcpy(x.data(), d, n * 4, 2, nullptr, false, false), Error::Success);
  for (int i = 0; i < n; ++i) ASSERT_EQ(x[i], 2.5f * static_cast<float>(i)) << i;
  EXPECT_EQ(rt.stats().counter("runtime.kernels_launched"), 1u);
  EXPECT_GT(rt.stats().counter("gpu_tot_sim_insn"), uint64_t{n});
  EXPECT_EQ(rt.sticky_error(), Error::Success);
}

TEST_F(LoadedRuntimeTest, AttributesComeFromTheCubin) {
  KernelAttributes a;
  ASSERT_EQ(rt.kernel_attributes(&add_stub, &a), Error::Success);
  EXPECT_EQ(a.ptx_version, 75u);
  EXPECT_EQ(a.binary_version, 90u);  // sm_80 SASS cannot run on 9.0: JIT from PTX
  EXPECT_GT(a.registers, 0u);
  EXPECT_LT(a.registers, 32u);
  EXPECT_EQ(a.shared_bytes, 0u);
  EXPECT_EQ(a.max_threads_per_block, 1024u);
  EXPECT_EQ(a.max_dynamic_shared, 48u * 1024);
  int blocks = 0;
  ASSERT_EQ(rt.occupancy(&blocks, &add_stub, 256, 0, 0), Error::Success);
  EXPECT_EQ(blocks, 8);
  EXPECT_EQ(rt.occupancy(&blocks, &add_stub, 0, 0, 0), Error::InvalidValue);
  // CUDA 13 takes an unknown function for a cudaKernel_t handle (measured on an H100).
  int not_a_kernel = 0;
  EXPECT_EQ(rt.kernel_attributes(&not_a_kernel, &a), Error::InvalidResourceHandle);
}

// The same program as seen by the CUDA 12 runtime, where launch-configuration and
// function errors have the codes documented before CUDA 13.
class LoadedCuda12RuntimeTest : public LoadedRuntimeTest {
 protected:
  LoadedCuda12RuntimeTest() : LoadedRuntimeTest(12) {}
};

TEST_F(LoadedCuda12RuntimeTest, ConfigurationErrorsHaveTheirCuda12Codes) {
  KernelAttributes a;
  int not_a_kernel = 0;
  EXPECT_EQ(rt.kernel_attributes(&not_a_kernel, &a), Error::InvalidDeviceFunction);
  uint64_t v = 0;
  void* args[] = {&v, &v, &v, &v};
  LaunchRequest r;
  r.function = &add_stub;
  r.grid = {1, 1, 1};
  r.args = args;
  r.block = {2048, 1, 1};
  EXPECT_EQ(rt.launch(r), Error::InvalidConfiguration);
  r.block = {32, 1, 1};
  r.grid = {1, 70000, 1};
  EXPECT_EQ(rt.launch(r), Error::InvalidConfiguration);
  EXPECT_EQ(rt.stats().counter("runtime.kernels_launched"), 0u);
}

TEST_F(LoadedRuntimeTest, InvalidLaunchesAreRefusedWithoutTouchingTheContext) {
  uint64_t v = 0;  // as wide as the widest parameter: never read past
  void* args[] = {&v, &v, &v, &v};
  LaunchRequest r;
  r.function = &add_stub;
  r.grid = {1, 1, 1};
  r.args = args;
  // CUDA 13: cudaErrorInvalidValue for a shape the device cannot run (measured on an H100).
  r.block = {2048, 1, 1};
  EXPECT_EQ(rt.launch(r), Error::InvalidValue);
  r.block = {32, 32, 2};
  EXPECT_EQ(rt.launch(r), Error::InvalidValue);
  r.block = {1, 1, 65};
  EXPECT_EQ(rt.launch(r), Error::InvalidValue);
  r.block = {32, 1, 1};
  r.grid = {0, 1, 1};
  EXPECT_EQ(rt.launch(r), Error::InvalidValue);
  r.grid = {1, 70000, 1};
  EXPECT_EQ(rt.launch(r), Error::InvalidValue);
  r.grid = {1, 1, 1};
  r.shared_bytes = 64 << 10;  // over the default 48 KiB without the opt-in
  EXPECT_EQ(rt.launch(r), Error::InvalidValue);
  ASSERT_EQ(rt.set_kernel_attribute(&add_stub, 8, 64 << 10), Error::Success);
  EXPECT_EQ(rt.set_kernel_attribute(&add_stub, 8, 300 << 10), Error::InvalidValue);
  EXPECT_EQ(rt.set_kernel_attribute(&add_stub, 9, 101), Error::InvalidValue);
  r.cooperative = true;
  r.shared_bytes = 0;
  r.block = {256, 1, 1};  // 8 CTAs per SM fit: 132 x 8 at once
  r.grid = {132 * 8 + 1, 1, 1};
  EXPECT_EQ(rt.launch(r), Error::CooperativeLaunchTooLarge);
  int junk = 0;
  r.cooperative = false;
  r.grid = {1, 1, 1};
  r.stream = &junk;
  EXPECT_EQ(rt.launch(r), Error::InvalidResourceHandle);
  EXPECT_EQ(rt.sticky_error(), Error::Success);
  EXPECT_EQ(rt.stats().counter("runtime.kernels_launched"), 0u);
}

TEST_F(LoadedRuntimeTest, AFaultIsStickyUntilReset) {
  void* d = nullptr;
  ASSERT_EQ(rt.malloc_device(&d, 16), Error::Success);
  int n = 1000;  // far more than the 4 ints allocated
  void* args[] = {&d, &d, &d, &n};
  // The default memory check faults only outside the mapped 2 MiB granules:
  // read 1 GiB away.
  void* far = static_cast<char*>(d) + (uint64_t{1} << 30);
  void* bad_args[] = {&far, &d, &d, &n};
  LaunchRequest r;
  r.function = &add_stub;
  r.grid = {4, 1, 1};
  r.block = {256, 1, 1};
  r.args = bad_args;
  testing::internal::CaptureStderr();
  EXPECT_EQ(rt.launch(r), Error::Success);  // the failure is asynchronous...
  const std::string report = testing::internal::GetCapturedStderr();
  EXPECT_EQ(rt.sticky_error(), Error::IllegalAddress);  // ...and sticky
  EXPECT_NE(report.find("out-of-bounds"), std::string::npos) << report;
  EXPECT_NE(report.find(kAdd), std::string::npos) << report;
  EXPECT_EQ(rt.synchronize(), Error::IllegalAddress);
  EXPECT_EQ(rt.reset(), Error::Success);
  EXPECT_EQ(rt.sticky_error(), Error::Success);
  // After the reset the binary loads again into the new context.
  ASSERT_EQ(rt.malloc_device(&d, 4 * 1000), Error::Success);
  r.args = args;
  EXPECT_EQ(rt.launch(r), Error::Success);
  EXPECT_EQ(rt.sticky_error(), Error::Success);
}

TEST(LoadedRuntime, NoPtxForTheConfiguredGpu) {
  SimConfig config;
  config.gpu.compute_capability = "7.0";  // below the fixture's compute_75
  Runtime rt(13, config);
  std::vector<char> bytes = read_fixture("ptx75_sm80.fatbin");
  Wrapper w;
  w.data = bytes.data();
  Binary* b = rt.registry().add_binary(&w);
  char stub = 0;
  rt.registry().add_function(*b, &stub, kScale);
  testing::internal::CaptureStderr();
  KernelEntry* k = nullptr;
  EXPECT_EQ(rt.load_kernel(&stub, &k), Error::NoKernelImageForDevice);
  const std::string message = testing::internal::GetCapturedStderr();
  EXPECT_NE(message.find("no PTX image usable on compute capability 7.0"), std::string::npos)
      << message;
  EXPECT_NE(message.find("PTX compute_75"), std::string::npos) << message;
  // The genuine case for a rebuild: the binary holds nothing for this GPU.
  EXPECT_NE(message.find("rebuild with -arch=compute_XX"), std::string::npos) << message;
}

// A PTX image whose compressed bytes are damaged: rebuilding for another
// architecture would not help, so the message says the device code is
// corrupt, what failed and where, and gives no -arch hint.
TEST(LoadedRuntime, DamagedPtxImageIsCorruptNotAMissingArchitecture) {
  Runtime rt(13, SimConfig{});
  std::vector<char> bytes = read_fixture("ptx75_sm80.fatbin");
  const auto parsed = fatbin::parse_fatbin(std::as_bytes(std::span(bytes)));
  ASSERT_TRUE(parsed) << parsed.error().message;
  const fatbin::Entry* ptx = nullptr;
  for (const fatbin::Entry* e : parsed->entries())
    if (e->is_ptx()) ptx = e;
  ASSERT_NE(ptx, nullptr);
  ASSERT_EQ(ptx->compression, fatbin::Compression::Zstd);
  // The zstd frame's magic number: the payload is no longer a zstd frame.
  const size_t payload = static_cast<size_t>(ptx->payload.data() - std::as_bytes(std::span(bytes)).data());
  bytes[payload] ^= 0x5a;
  Wrapper w;
  w.data = bytes.data();
  Binary* b = rt.registry().add_binary(&w);
  char stub = 0;
  rt.registry().add_function(*b, &stub, kScale);
  testing::internal::CaptureStderr();
  KernelEntry* k = nullptr;
  EXPECT_EQ(rt.load_kernel(&stub, &k), Error::InvalidKernelImage);
  const std::string message = testing::internal::GetCapturedStderr();
  EXPECT_NE(message.find("device code (fatbin #1) is corrupt"), std::string::npos) << message;
  EXPECT_NE(message.find(fmt::format("PTX compute_75: zstd image at offset {}:", ptx->offset)), std::string::npos)
      << message;
  EXPECT_EQ(message.find("-arch"), std::string::npos) << message;
  EXPECT_EQ(message.find("rebuild"), std::string::npos) << message;
}

TEST(LoadedRuntime, CorruptDeviceCodeIsAnErrorNotACrash) {
  Runtime rt(13, SimConfig{});
  std::vector<char> bytes = read_fixture("ptx75_sm80.fatbin");
  bytes[1] ^= 0x40;  // the container magic
  Wrapper w;
  w.data = bytes.data();
  Binary* b = rt.registry().add_binary(&w);
  char stub = 0;
  rt.registry().add_function(*b, &stub, kScale);
  testing::internal::CaptureStderr();
  KernelEntry* k = nullptr;
  EXPECT_EQ(rt.load_kernel(&stub, &k), Error::InvalidKernelImage);
  const std::string message = testing::internal::GetCapturedStderr();
  EXPECT_NE(message.find("cannot be read"), std::string::npos) << message;
  // Asked again, the same answer (loading is not retried within a context).
  EXPECT_EQ(rt.load_kernel(&stub, &k), Error::InvalidKernelImage);
}

}  // namespace
}  // namespace warpsim::cudart
