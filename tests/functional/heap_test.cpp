// Device-side malloc/free (DeviceHeap), assert and the printf FIFO, from
// nvcc-compiled PTX (tests/functional/data/heap.cu) and on DeviceHeap alone.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "functional/device.h"
#include "functional/free_ranges.h"
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

// Undefined behaviour that a GPU ignores (an H100 freed a cudaMalloc pointer without error):
// the kernel goes on, and the launch reports how many such calls it made.
TEST(Heap, FreeingAPointerMallocDidNotReturnIsIgnoredAndCounted) {
  auto l = load_heap_ptx();
  uint64_t out = upload(l->device, std::vector<int32_t>(32));
  LaunchResult r = run(*l, "heap_bad_free", {1}, {32}, {param_bytes(out)});
  ASSERT_TRUE(r.ok()) << r.fault->message;
  EXPECT_EQ(r.invalid_frees, 32u);
  EXPECT_NE(r.first_invalid_free.find("device free() of a pointer that device malloc() did not "
                                      "return"),
            std::string::npos)
      << r.first_invalid_free;
  // The heap works on, and the next launch starts counting afresh.
  r = run(*l, "heap_roundtrip", {1}, {32}, {param_bytes(out), param_bytes(int32_t{8})});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.invalid_frees, 0u);
  EXPECT_EQ(download<int32_t>(l->device, out, 1)[0], 28);
}

TEST(Heap, BlocksOutliveTheLaunchThatMadeThem) {
  auto l = load_heap_ptx();
  const uint32_t threads = 64;
  uint64_t slots = upload(l->device, std::vector<uint64_t>(threads));
  ASSERT_TRUE(run(*l, "heap_keep", {2}, {32}, {param_bytes(slots), param_bytes(int32_t{40})}).ok());
  auto p = download<uint64_t>(l->device, slots, threads);
  std::sort(p.begin(), p.end());
  for (uint32_t i = 0; i < threads; ++i) {
    EXPECT_NE(p[i], 0u);
    EXPECT_EQ(p[i] % DeviceHeap::kAlignment, 0u);
    if (i != 0) {
      EXPECT_GE(p[i] - p[i - 1], 48u);  // 40 bytes, 16-byte granules: no overlap
    }
  }
  EXPECT_EQ(l->device.heap().bytes_in_use(), threads * 48u);
  ASSERT_TRUE(run(*l, "heap_free_all", {2}, {32}, {param_bytes(slots)}).ok());  // a later launch
  EXPECT_EQ(l->device.heap().bytes_in_use(), 0u);
  // Freeing them again is a double free, counted and described as such.
  LaunchResult r = run(*l, "heap_free_all", {2}, {32}, {param_bytes(slots)});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.invalid_frees, threads);
  EXPECT_NE(r.first_invalid_free.find("double free"), std::string::npos) << r.first_invalid_free;
}

TEST(Heap, InvalidFreeNamesTheBlockInvolved) {
  DeviceMemory memory;
  DeviceHeap heap;
  ASSERT_TRUE(heap.set_capacity(4096));
  ASSERT_FALSE(heap.create(memory));
  const uint64_t a = heap.malloc(100);
  ASSERT_NE(a, 0u);
  // Inside a live block.
  Fault inside = heap.invalid_free(a + 8);
  EXPECT_EQ(inside.kind, FaultKind::InvalidFree);
  ASSERT_TRUE(inside.nearest);
  EXPECT_EQ(inside.nearest->start, a);
  EXPECT_EQ(inside.nearest->size, 112u);
  EXPECT_TRUE(inside.nearest->live);
  EXPECT_NE(describe(inside).find("8 bytes inside"), std::string::npos) << describe(inside);
  // Freed twice.
  EXPECT_TRUE(heap.free(a));
  Fault twice = heap.invalid_free(a);
  ASSERT_TRUE(twice.nearest);
  EXPECT_FALSE(twice.nearest->live);
  EXPECT_NE(describe(twice).find("double free"), std::string::npos) << describe(twice);
  // Reused: the address is a live block again and no longer "freed".
  EXPECT_EQ(heap.malloc(16), a);
  EXPECT_TRUE(heap.free(a));
  // Outside the heap: the heap itself is named.
  Fault outside = heap.invalid_free(0x1234);
  ASSERT_TRUE(outside.nearest);
  EXPECT_EQ(outside.nearest->label, "device malloc heap");
}

TEST(Heap, MallocZeroAndHugeRequests) {
  DeviceMemory memory;
  DeviceHeap heap;
  ASSERT_TRUE(heap.set_capacity(1024));
  ASSERT_FALSE(heap.create(memory));
  const uint64_t z1 = heap.malloc(0), z2 = heap.malloc(0);
  EXPECT_NE(z1, 0u);  // a distinct minimal block each time
  EXPECT_NE(z1, z2);
  EXPECT_EQ(z1 % DeviceHeap::kAlignment, 0u);
  EXPECT_TRUE(heap.free(z1));
  EXPECT_TRUE(heap.free(z2));
  EXPECT_EQ(heap.malloc(UINT64_MAX), 0u);  // no overflow in the rounding
  EXPECT_EQ(heap.malloc(1025), 0u);
  EXPECT_NE(heap.malloc(1024), 0u);  // the whole heap
  EXPECT_EQ(heap.malloc(1), 0u);
}

TEST(Heap, SizeIsFixedOnceCreatedEvenIfTheAllocationFailed) {
  DeviceMemoryConfig small;
  small.capacity = 1 << 20;
  DeviceMemory memory(small);
  DeviceHeap heap;
  ASSERT_TRUE(heap.set_capacity(64ull << 20));  // more than the device has
  EXPECT_TRUE(heap.create(memory));             // the allocation fails...
  EXPECT_TRUE(heap.created());
  EXPECT_FALSE(heap.set_capacity(1024));        // ...but the size is fixed all the same
  EXPECT_EQ(heap.malloc(16), 0u);               // and malloc returns NULL
  EXPECT_FALSE(heap.free(0x1000));
  EXPECT_TRUE(heap.free(0));
}

// The FIFO is circular: the newest records stay, older ones are overwritten, and printf
// returns its argument count all the same.
TEST(PrintfFifoOnDevice, OlderLinesAreOverwrittenWhenTheFifoIsFull) {
  auto l = load_heap_ptx();
  ASSERT_TRUE(l->device.printf_fifo().set_capacity(10 * kPrintfRecordGranule));  // ten records
  const int32_t n = 25;
  uint64_t rets = upload(l->device, std::vector<int32_t>(n));
  ASSERT_TRUE(run(*l, "print_lines", {1}, {1}, {param_bytes(rets), param_bytes(n)}).ok());
  auto v = download<int32_t>(l->device, rets, n);
  for (int32_t k = 0; k < n; ++k) EXPECT_EQ(v[k], 1) << k;
  std::string all, last;
  for (int k = 0; k < n; ++k) all += "line " + std::to_string(k) + "\n";
  for (int k = 15; k < n; ++k) last += "line " + std::to_string(k) + "\n";
  EXPECT_EQ(l->device.printed(), all);  // everything printed, for tests
  uint64_t overwritten = 0;
  EXPECT_EQ(l->device.printf_fifo().take(&overwritten), last);  // what the host reads
  EXPECT_EQ(overwritten, 15u);
  EXPECT_TRUE(l->device.printf_fifo().capacity_fixed());
  EXPECT_FALSE(l->device.printf_fifo().set_capacity(4096));
  // Read, the FIFO is empty again.
  ASSERT_TRUE(run(*l, "print_lines", {1}, {1}, {param_bytes(rets), param_bytes(int32_t{3})}).ok());
  EXPECT_EQ(l->device.printf_fifo().take(&overwritten), "line 0\nline 1\nline 2\n");
  EXPECT_EQ(overwritten, 0u);
}

TEST(FreeRanges, TakesAlignedPiecesFirstFitAndMergesWhatComesBack) {
  FreeRanges r;
  r.reset(0x1000, 0x1000);
  EXPECT_EQ(r.take(0x100, 16), 0x1000u);
  EXPECT_EQ(r.take(0x10, 0x400), 0x1400u);  // skips to the alignment, leaving a hole
  EXPECT_EQ(r.take(0x200, 16), 0x1100u);    // the hole, first fit
  EXPECT_EQ(r.take(0x100, 16), 0x1300u);    // the rest of it
  EXPECT_EQ(r.take(0x1000, 16), 0u);        // nothing that large
  r.give_back(0x1000, 0x100);
  r.give_back(0x1300, 0x100);
  EXPECT_EQ(r.take(0x300, 16), 0x1410u);    // not in the two small pieces: after b
  r.give_back(0x1410, 0x300);
  r.give_back(0x1100, 0x200);               // merges with the pieces before and after
  EXPECT_EQ(r.take(0x400, 16), 0x1000u);
  r.clear();
  EXPECT_EQ(r.take(16, 16), 0u);
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

// CUDA prints one line per failing thread on stderr (not with printf's
// output): the lines travel in the fault report, each on a line of its own.
TEST(Heap, FailedAssertReportsCudasLinesAndFailsTheLaunch) {
  auto l = load_heap_ptx();
  std::vector<int32_t> v(64, 1);
  v[37] = 9;
  v[40] = 12;
  uint64_t dv = upload(l->device, v);
  LaunchResult r = run(*l, "check_below", {2}, {32}, {param_bytes(dv), param_bytes(int32_t{5})});
  EXPECT_EQ(r.error, LaunchError::Assert);
  ASSERT_TRUE(r.fault);
  EXPECT_EQ(r.fault->cta, (Dim3{1, 0, 0}));
  EXPECT_EQ(r.fault->fault.kind, FaultKind::AssertFailed);
  const std::string& msg = r.fault->message;
  EXPECT_NE(msg.find("device assert() failed in 2 threads:\n"
                     "heap.cu:34: void check_below(const int *, int): block: [1,0,0], thread: [5,0,0] "
                     "Assertion `v[i] < limit` failed.\n"
                     "heap.cu:34: void check_below(const int *, int): block: [1,0,0], thread: [8,0,0] "
                     "Assertion `v[i] < limit` failed.\n"),
            std::string::npos)
      << msg;
  EXPECT_NE(msg.find("cudaErrorAssert"), std::string::npos);
  EXPECT_EQ(l->device.printed(), "");  // nothing on the printf stream
}

}  // namespace
}  // namespace warpsim::functional
