// Dynamic parallelism, functional side (functional/device_launch.h): the
// device runtime's calls as a kernel makes them (PTX shaped like nvcc's),
// the work a grid hands back, launch slots and the pending-launch limit,
// the checks of a device-side launch, and the faults of calls warpsim does
// not serve.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "functional/device.h"
#include "functional/device_launch.h"
#include "tests/functional/exec_test_util.h"

namespace warpsim::functional {
namespace {

using namespace testing;  // load, upload, run, download

// parent(out): thread t launches child(out + 4t, t + 1) into the NULL
// stream, then stores its cudaGetLastError() in out[64 + t].
constexpr const char* kLaunchPtx = R"(
.extern .func (.param .b64 func_retval0) __cudaCDP2GetParameterBufferV2(.param .b64 p0,
    .param .align 4 .b8 p1[12], .param .align 4 .b8 p2[12], .param .b32 p3);
.extern .func (.param .b32 func_retval0) __cudaCDP2LaunchDeviceV2(.param .b64 p0, .param .b64 p1);
.extern .func (.param .b32 func_retval0) __cudaCDP2GetLastError();

.visible .entry child(.param .u64 child_out, .param .u32 child_v)
{
  .reg .b32 %r<2>;
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [child_out];
  ld.param.u32 %r1, [child_v];
  st.global.u32 [%rd1], %r1;
  ret;
}

.visible .entry parent(.param .u64 parent_out)
{
  .reg .pred %p<2>;
  .reg .b32 %r<6>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [parent_out];
  mov.u32 %r1, %tid.x;
  mov.u64 %rd2, child;
  {
  .param .b64 param0;
  st.param.b64 [param0+0], %rd2;
  .param .align 4 .b8 param1[12];
  st.param.b32 [param1+0], 1;
  st.param.b32 [param1+4], 1;
  st.param.b32 [param1+8], 1;
  .param .align 4 .b8 param2[12];
  st.param.b32 [param2+0], 1;
  st.param.b32 [param2+4], 1;
  st.param.b32 [param2+8], 1;
  .param .b32 param3;
  st.param.b32 [param3+0], 0;
  .param .b64 retval0;
  call.uni (retval0), __cudaCDP2GetParameterBufferV2, (param0, param1, param2, param3);
  ld.param.b64 %rd3, [retval0+0];
  }
  mul.wide.u32 %rd4, %r1, 4;
  add.s64 %rd5, %rd1, %rd4;
  setp.eq.s64 %p1, %rd3, 0;
  @%p1 bra NO_BUFFER;
  st.u64 [%rd3], %rd5;
  add.s32 %r2, %r1, 1;
  st.u32 [%rd3+8], %r2;
  mov.u64 %rd6, 0;
  {
  .param .b64 param0;
  st.param.b64 [param0+0], %rd3;
  .param .b64 param1;
  st.param.b64 [param1+0], %rd6;
  .param .b32 retval0;
  call.uni (retval0), __cudaCDP2LaunchDeviceV2, (param0, param1);
  ld.param.b32 %r3, [retval0+0];
  }
NO_BUFFER:
  {
  .param .b32 retval0;
  call.uni (retval0), __cudaCDP2GetLastError, ();
  ld.param.b32 %r4, [retval0+0];
  }
  add.s64 %rd7, %rd5, 256;
  st.global.u32 [%rd7], %r4;
  ret;
}
)";

TEST(DeviceLaunch, NamesTheDeviceRuntimeFunctionsOfEveryCudaVersion) {
  EXPECT_EQ(device_call_named("__cudaCDP2LaunchDeviceV2"), DeviceCall::LaunchDeviceV2);
  EXPECT_EQ(device_call_named("cudaLaunchDeviceV2"), DeviceCall::LaunchDeviceV2);  // CUDA 11
  EXPECT_EQ(device_call_named("__cudaCDP2GetParameterBuffer"), DeviceCall::GetParameterBuffer);
  EXPECT_EQ(device_call_named("cudaDeviceSynchronize"), DeviceCall::DeviceSynchronize);
  EXPECT_EQ(device_call_named("__cudaCDP2Memcpy2DAsync"), DeviceCall::None);
  EXPECT_EQ(device_call_named("vprintf"), DeviceCall::None);
  EXPECT_TRUE(defines_device_runtime(
      ".visible .func (.param .b32 func_retval0) __cudaCDP2LaunchDeviceV2(\n.param .b64 a)"));
  EXPECT_FALSE(defines_device_runtime(
      ".extern .func  (.param .b32 func_retval0) __cudaCDP2LaunchDeviceV2\n(\n.param .b64 a)"));
}

TEST(DeviceLaunch, AGridHandsBackItsLaunchesInIssueOrder) {
  auto l = load(kLaunchPtx);
  uint64_t out = upload(l->device, std::vector<int32_t>(128, -1));
  LaunchResult r = run(*l, "parent", {1}, {4}, {param_bytes(out)});
  ASSERT_TRUE(r.ok()) << r.fault->message;
  ASSERT_EQ(r.device_work.size(), 4u);
  DeviceRuntime& dr = l->device.device_runtime();
  EXPECT_EQ(dr.slots_held(), 4u);  // held until the children complete
  const KernelInfo* child = l->program->find_kernel("child");
  for (uint32_t t = 0; t < 4; ++t) {
    DeviceWork& w = r.device_work[t];
    EXPECT_EQ(w.kind, DeviceWork::Kind::Launch);
    EXPECT_EQ(w.stream, DeviceWork::Stream::Ordered);
    EXPECT_EQ(w.kernel, child);
    EXPECT_EQ(w.depth, 1u);
    EXPECT_EQ(w.block, (Dim3{1, 1, 1}));
    ASSERT_EQ(w.params.size(), 12u);
    uint64_t p = 0;
    uint32_t v = 0;
    std::memcpy(&p, w.params.data(), 8);
    std::memcpy(&v, w.params.data() + 8, 4);
    EXPECT_EQ(p, out + 4 * t);
    EXPECT_EQ(v, t + 1);
    EXPECT_TRUE(dr.release_slot(w.slot));
    LaunchConfig cfg;
    cfg.depth = w.depth;
    ASSERT_TRUE(l->device.launch(*l->program, *w.kernel, cfg, w.params).ok());
  }
  EXPECT_EQ(dr.slots_held(), 0u);
  EXPECT_FALSE(dr.release_slot(r.device_work[0].slot));  // not held any more
  auto v = download<int32_t>(l->device, out, 68);
  for (int t = 0; t < 4; ++t) {
    EXPECT_EQ(v[t], t + 1);
    EXPECT_EQ(v[64 + t], 0);  // cudaGetLastError after a good launch
  }
}

// The pending-launch limit counts the chain a launch would wait on had every child run at
// once (device_launch.h): siblings launched one after another do not add up...
TEST(DeviceLaunch, SiblingLaunchesDoNotAddUpToThePendingLimit) {
  auto l = load(kLaunchPtx);
  DeviceRuntimeLimits lim;
  lim.pending_launches = 2;
  l->device.device_runtime().set_limits(lim);
  uint64_t out = upload(l->device, std::vector<int32_t>(128, -1));
  LaunchResult r = run(*l, "parent", {1}, {4}, {param_bytes(out)});
  ASSERT_TRUE(r.ok()) << r.fault->message;
  EXPECT_EQ(r.device_work.size(), 4u);
  auto v = download<int32_t>(l->device, out + 256, 4);
  EXPECT_EQ(v, (std::vector<int32_t>{0, 0, 0, 0}));
  for (const DeviceWork& w : r.device_work)
    EXPECT_TRUE(l->device.device_runtime().release_slot(w.slot));
  // ...but nesting does: a grid at depth 2 may not launch with the limit at 2.
  LaunchConfig deep;
  deep.grid = {1, 1, 1};
  deep.block = {4, 1, 1};
  deep.depth = 2;
  const KernelInfo& parent = *l->program->find_kernel("parent");
  const std::vector<std::vector<uint8_t>> args = {param_bytes(out)};
  auto params = l->device.layout_params(parent, args);
  ASSERT_TRUE(params);
  r = l->device.launch(*l->program, parent, deep, *params);
  ASSERT_TRUE(r.ok()) << r.fault->message;
  EXPECT_TRUE(r.device_work.empty());
  v = download<int32_t>(l->device, out + 256, 4);
  EXPECT_EQ(v, (std::vector<int32_t>{69, 69, 69, 69}));  // cudaErrorLaunchPendingCountExceeded
}

// Parameter buffers take what the kernel's parameters need from a store of limit x 4 KiB:
// with the limit at 1, sixteen 256-byte buffers; the seventeenth launch finds no room.
TEST(DeviceLaunch, LaunchesBeyondTheParameterStoreFail) {
  auto l = load(kLaunchPtx);
  DeviceRuntimeLimits lim;
  lim.pending_launches = 1;
  l->device.device_runtime().set_limits(lim);
  uint64_t out = upload(l->device, std::vector<int32_t>(128, -1));
  LaunchResult r = run(*l, "parent", {1}, {20}, {param_bytes(out)});
  ASSERT_TRUE(r.ok()) << r.fault->message;
  EXPECT_EQ(r.device_work.size(), 16u);
  auto v = download<int32_t>(l->device, out + 256, 20);
  for (int t = 0; t < 20; ++t) EXPECT_EQ(v[t], t < 16 ? 0 : 69) << t;
}

TEST(DeviceLaunch, ParameterBuffersAreCarvedAlignedAndCoalesce) {
  DeviceMemory memory;
  DeviceRuntime dr;
  DeviceRuntimeLimits lim;
  lim.pending_launches = 1;  // 4 KiB
  dr.set_limits(lim);
  ASSERT_FALSE(dr.prepare(memory));
  const uint64_t a = dr.acquire_slot(12, 8);     // 256 bytes
  const uint64_t b = dr.acquire_slot(300, 8);    // 512 bytes
  const uint64_t c = dr.acquire_slot(8, 1024);   // aligned to 1 KiB
  ASSERT_NE(a, 0u);
  EXPECT_EQ(b, a + 256);
  EXPECT_EQ(c % 1024, 0u);
  EXPECT_EQ(dr.acquire_slot(5000, 8), 0u);       // more than a buffer may hold
  EXPECT_EQ(dr.acquire_slot(8, 8192), 0u);
  EXPECT_EQ(dr.slot_bytes(a, 16).size(), 16u);   // zeros past the buffer's end
  EXPECT_TRUE(dr.slot_bytes(a, 0).empty());      // a kernel without parameters
  EXPECT_EQ(dr.slots_held(), 3u);
  EXPECT_TRUE(dr.release_slot(b));
  EXPECT_TRUE(dr.release_slot(a));
  EXPECT_FALSE(dr.release_slot(a));
  EXPECT_EQ(dr.acquire_slot(768, 8), a);         // the freed ranges coalesced
  EXPECT_TRUE(dr.release_slot(c));
  lim.pending_launches = 2;  // remade only once nothing is held
  dr.set_limits(lim);
  ASSERT_FALSE(dr.prepare(memory));
  EXPECT_TRUE(dr.is_held_slot(a));
}

// The checks of a device-side launch, called as a thread would.
TEST(DeviceLaunch, ChecksEachLaunchAndKeepsErrorsPerThread) {
  auto l = load(kLaunchPtx);
  DeviceRuntime& dr = l->device.device_runtime();
  ASSERT_FALSE(dr.prepare(l->device.memory()));
  const KernelInfo* child = l->program->find_kernel("child");
  const uint64_t fn = function_address(child->function);
  LaunchConfig cfg;
  GridDeviceRuntime g(dr, *l->program, cfg);
  const GridDeviceRuntime::Caller a{0, 0}, b{0, 1};
  auto launch = [&](GridDeviceRuntime& grid, uint64_t f, Dim3 block, uint64_t stream) {
    const uint64_t buf = grid.get_parameter_buffer_v2(a, f, {1, 1, 1}, block, 0);
    EXPECT_NE(buf, 0u);
    return grid.launch_v2(a, buf, stream);
  };
  EXPECT_EQ(launch(g, fn, {2048, 1, 1}, 0), DeviceError::InvalidConfiguration);
  EXPECT_EQ(launch(g, fn, {1, 1, 65}, 0), DeviceError::InvalidConfiguration);
  EXPECT_EQ(launch(g, fn + 8, {1, 1, 1}, 0), DeviceError::InvalidDeviceFunction);
  EXPECT_EQ(launch(g, fn, {1, 1, 1}, 0x999), DeviceError::InvalidValue);  // unknown stream
  EXPECT_EQ(g.launch_v2(a, 0, 0), DeviceError::InvalidValue);  // no buffer
  EXPECT_EQ(dr.slots_held(), 0u);  // failed launches give their slots back
  // The last error is per thread; Peek keeps it, Get clears it.
  EXPECT_EQ(g.last_error(b, false), DeviceError::Success);
  EXPECT_EQ(g.last_error(a, false), DeviceError::InvalidValue);
  EXPECT_EQ(g.last_error(a, true), DeviceError::InvalidValue);
  EXPECT_EQ(g.last_error(a, true), DeviceError::Success);
  // Streams: created with cudaStreamDefault or cudaStreamNonBlocking (an H100 accepts both);
  // destroyed once; the special ones.
  uint64_t s = 0;
  EXPECT_EQ(g.stream_create(a, 2, &s), DeviceError::InvalidValue);
  EXPECT_EQ(g.stream_create(a, 0, &s), DeviceError::Success);
  EXPECT_EQ(g.stream_destroy(a, s), DeviceError::Success);
  EXPECT_EQ(g.stream_create(a, 1, &s), DeviceError::Success);
  EXPECT_NE(s, 0u);
  EXPECT_EQ(launch(g, fn, {1, 1, 1}, s), DeviceError::Success);
  EXPECT_EQ(launch(g, fn, {1, 1, 1}, kTailLaunchStream), DeviceError::Success);
  EXPECT_EQ(launch(g, fn, {1, 1, 1}, kFireAndForgetStream), DeviceError::Success);
  EXPECT_EQ(g.stream_destroy(a, s), DeviceError::Success);
  EXPECT_EQ(g.stream_destroy(a, s), DeviceError::InvalidValue);
  // Events need cudaEventDisableTiming and order named or NULL streams only.
  uint64_t ev = 0;
  EXPECT_EQ(g.event_create(a, 0, &ev), DeviceError::InvalidValue);
  EXPECT_EQ(g.event_create(a, 2, &ev), DeviceError::Success);
  EXPECT_EQ(g.event_record(a, ev, 0), DeviceError::Success);
  EXPECT_EQ(g.event_record(a, ev, kTailLaunchStream), DeviceError::InvalidResourceHandle);
  EXPECT_EQ(g.stream_wait_event(a, 0, ev, 1), DeviceError::InvalidValue);
  EXPECT_EQ(g.event_destroy(a, ev), DeviceError::Success);
  EXPECT_EQ(g.event_destroy(a, ev), DeviceError::InvalidResourceHandle);
  // A buffer taken and never launched is given back with the grid.
  EXPECT_NE(g.get_parameter_buffer(a, 8, 64), 0u);
  EXPECT_EQ(g.get_parameter_buffer(a, 8, 8192), 0u);  // larger than a parameter buffer
  std::vector<DeviceWork> work = g.finish();
  ASSERT_EQ(work.size(), 3u);
  EXPECT_EQ(work[0].stream, DeviceWork::Stream::Ordered);
  EXPECT_EQ(work[1].stream, DeviceWork::Stream::TailLaunch);
  EXPECT_EQ(work[2].stream, DeviceWork::Stream::FireAndForget);
  EXPECT_EQ(dr.slots_held(), 3u);
  for (const DeviceWork& w : work) EXPECT_TRUE(dr.release_slot(w.slot));

  // CDP2 has no nesting limit but the pending-launch count: a grid 100 levels deep launches.
  cfg.depth = 100;
  GridDeviceRuntime deeper(dr, *l->program, cfg);
  EXPECT_EQ(launch(deeper, fn, {1, 1, 1}, 0), DeviceError::Success);
  for (const DeviceWork& w : deeper.finish()) {
    EXPECT_EQ(w.depth, 101u);
    EXPECT_TRUE(dr.release_slot(w.slot));
  }
}

// CUDA 11's device runtime (CDP1): a grid 24 levels deep may not launch.
TEST(DeviceLaunch, LegacyDeviceRuntimeLimitsTheNestingDepth) {
  std::string ptx = kLaunchPtx;
  for (size_t at = ptx.find("__cudaCDP2"); at != std::string::npos; at = ptx.find("__cudaCDP2"))
    ptx.replace(at, 10, "cuda");
  auto l = load(ptx);
  ASSERT_TRUE(uses_legacy_device_runtime(*l->program));
  DeviceRuntime& dr = l->device.device_runtime();
  ASSERT_FALSE(dr.prepare(l->device.memory()));
  const uint64_t fn = function_address(l->program->find_kernel("child")->function);
  const GridDeviceRuntime::Caller a{0, 0};
  auto launch = [&](GridDeviceRuntime& grid) {
    return grid.launch_v2(a, grid.get_parameter_buffer_v2(a, fn, {1, 1, 1}, {1, 1, 1}, 0), 0);
  };
  LaunchConfig cfg;
  cfg.depth = 24;
  GridDeviceRuntime deep(dr, *l->program, cfg);
  EXPECT_EQ(launch(deep), DeviceError::LaunchMaxDepthExceeded);
  cfg.depth = 23;
  GridDeviceRuntime deep_ok(dr, *l->program, cfg);
  EXPECT_EQ(launch(deep_ok), DeviceError::Success);
  ASSERT_EQ(deep_ok.finish().at(0).depth, 24u);
}

// Calls warpsim does not serve stop the kernel with a message naming them.
TEST(DeviceLaunch, UnservedExternCallsFaultNamingTheFunction) {
  auto l = load(R"(
.extern .func (.param .b32 func_retval0) mystery(.param .b32 a);
.extern .func (.param .b32 func_retval0) cudaDeviceSynchronize();
.extern .func (.param .b32 func_retval0) __cudaCDP2Memset2DAsync(.param .b64 a);
.visible .entry calls(.param .u32 which)
{
  .reg .pred %p<3>;
  .reg .b32 %r<3>;
  .reg .b64 %rd<2>;
  ld.param.u32 %r1, [which];
  setp.eq.u32 %p1, %r1, 0;
  setp.eq.u32 %p2, %r1, 1;
  @%p1 bra MYSTERY;
  @%p2 bra SYNC;
  mov.u64 %rd1, 0;
  { .param .b64 param0; st.param.b64 [param0+0], %rd1; .param .b32 retval0;
    call.uni (retval0), __cudaCDP2Memset2DAsync, (param0); ld.param.b32 %r2, [retval0+0]; }
  ret;
MYSTERY:
  { .param .b32 param0; st.param.b32 [param0+0], 1; .param .b32 retval0;
    call.uni (retval0), mystery, (param0); ld.param.b32 %r2, [retval0+0]; }
  ret;
SYNC:
  { .param .b32 retval0; call.uni (retval0), cudaDeviceSynchronize, (); ld.param.b32 %r2, [retval0+0]; }
  ret;
}
)");
  const std::pair<uint32_t, const char*> cases[] = {
      {0, "call to the extern function 'mystery', which neither the program's PTX nor warpsim provides"},
      {1, "device-side cudaDeviceSynchronize() is not supported"},
      {2, "call to '__cudaCDP2Memset2DAsync', a CUDA device-runtime function warpsim does not implement"},
  };
  for (const auto& [which, text] : cases) {
    LaunchResult r = run(*l, "calls", {1}, {32}, {param_bytes(which)});
    ASSERT_FALSE(r.ok()) << which;
    EXPECT_EQ(r.error, LaunchError::LaunchFailure);
    EXPECT_NE(r.fault->message.find(text), std::string::npos) << r.fault->message;
    EXPECT_NE(r.fault->message.find("test.ptx:"), std::string::npos) << r.fault->message;  // located
  }
}

}  // namespace
}  // namespace warpsim::functional
