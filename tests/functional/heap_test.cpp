// Device-side malloc/free (DeviceHeap) and assert, from nvcc-compiled PTX
// (tests/functional/data/heap.cu).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include "functional/device.h"
#include "tests/functional/exec_test_util.h"

namespace warpsim::functional {
namespace {

using namespace testing;  // load, upload, run, download, run_lanes

std::unique_ptr<testing::Loaded> load_heap_ptx() {
  std::ifstream in(std::filesystem::path(WARPSIM_SOURCE_DIR) / "tests/functional/data/heap.ptx");
  std::stringstream text;
  text << in.rdbuf();
  return testing::load(text.str(), /*with_header=*/false);
}

TEST(Heap, EveryThreadMallocsUsesAndFrees) {
  auto l = load_heap_ptx();
  const uint32_t threads = 256, n = 50;
  uint64_t out = upload(l->device, std::vector<int32_t>(threads));
  LaunchResult r = run(*l, "heap_roundtrip", {4}, {64}, {param_bytes(out), param_bytes(n)});
  ASSERT_TRUE(r.ok()) << r.fault->message;
  auto v = download<int32_t>(l->device, out, threads);
  for (uint32_t i = 0; i < threads; ++i) EXPECT_EQ(v[i], static_cast<int32_t>(n * (n - 1) / 2 + i * n));
  EXPECT_EQ(l->device.heap().bytes_in_use(), 0u);
}

TEST(Heap, MallocReturnsNullWhenTheHeapIsExhausted) {
  auto l = load_heap_ptx();
  ASSERT_TRUE(l->device.heap().set_capacity(64 * 1024));
  uint64_t out = upload(l->device, std::vector<int32_t>(128));
  // 128 threads x 1 KiB from a 64 KiB heap: the first 64 (in thread order) get memory.
  ASSERT_TRUE(run(*l, "heap_hoard", {2}, {64}, {param_bytes(out), param_bytes(int32_t{1024})}).ok());
  auto v = download<int32_t>(l->device, out, 128);
  for (uint32_t i = 0; i < 128; ++i) EXPECT_EQ(v[i], i < 64 ? 1 : 0) << i;
  // The size cannot change once the heap exists, as with cudaDeviceSetLimit.
  EXPECT_FALSE(l->device.heap().set_capacity(1 << 20));
}

TEST(Heap, FreeingAPointerMallocDidNotReturnStopsTheKernel) {
  auto l = load_heap_ptx();
  uint64_t out = upload(l->device, std::vector<int32_t>(32));
  LaunchResult r = run(*l, "heap_bad_free", {1}, {32}, {param_bytes(out)});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.fault->fault.kind, FaultKind::InvalidFree);
  EXPECT_NE(r.fault->message.find("not a block from device malloc"), std::string::npos) << r.fault->message;
}

TEST(Heap, FreedBlocksCoalesceAndAreReused) {
  DeviceMemory memory;
  DeviceHeap heap;
  ASSERT_TRUE(heap.set_capacity(1024));
  ASSERT_FALSE(heap.create(memory));
  uint64_t a = heap.malloc(100), b = heap.malloc(200), c = heap.malloc(300);
  ASSERT_NE(a, 0u);
  EXPECT_EQ(b - a, 112u);  // 16-byte granules
  EXPECT_EQ(c - b, 208u);
  EXPECT_EQ(heap.malloc(1024), 0u);
  EXPECT_TRUE(heap.free(b));
  EXPECT_TRUE(heap.free(a));
  EXPECT_FALSE(heap.free(a));  // double free
  EXPECT_EQ(heap.malloc(320), a);  // a and b merged into one 320-byte hole
  EXPECT_TRUE(heap.free(0));
}

TEST(Heap, FailedAssertPrintsLikeCudaAndFailsTheLaunch) {
  auto l = load_heap_ptx();
  std::vector<int32_t> v(64, 1);
  v[37] = 9;
  v[40] = 12;
  uint64_t dv = upload(l->device, v);
  LaunchResult r = run(*l, "check_below", {2}, {32}, {param_bytes(dv), param_bytes(int32_t{5})});
  EXPECT_EQ(r.error, LaunchError::Assert);
  ASSERT_TRUE(r.fault);
  EXPECT_EQ(r.fault->cta, (Dim3{1, 0, 0}));
  const std::string& out = l->device.printed();
  EXPECT_NE(out.find("heap.cu:34: void check_below(const int *, int): block: [1,0,0], thread: [5,0,0] "
                     "Assertion `v[i] < limit` failed.\n"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("thread: [8,0,0] Assertion"), std::string::npos) << out;
  EXPECT_NE(r.fault->message.find("cudaErrorAssert"), std::string::npos);
}

}  // namespace
}  // namespace warpsim::functional
