#include "functional/device_memory.h"

#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstring>
#include <numeric>
#include <vector>

namespace warpsim::functional {
namespace {

constexpr uint64_t kBase = 0x7f0000000000;
constexpr uint64_t kGranule = 2 << 20;

// Tests of faults between allocations as compute-sanitizer sees them.
DeviceMemoryConfig strict_config() {
  DeviceMemoryConfig c;
  c.check = MemoryCheck::Strict;
  return c;
}

// Resident set size of this process in bytes (Linux /proc/self/statm).
uint64_t resident_bytes() {
  unsigned long pages = 0, resident = 0;
  FILE* f = std::fopen("/proc/self/statm", "r");
  if (f == nullptr) return 0;
  if (std::fscanf(f, "%lu %lu", &pages, &resident) != 2) resident = 0;
  std::fclose(f);
  return uint64_t{resident} * static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
}

TEST(DeviceMemory, AddressesAreAlignedSeparatedAndDeterministic) {
  const std::array<uint64_t, 6> sizes{1, 1000, 256, 4097, 65536, 3};
  DeviceMemory mem(strict_config());
  std::vector<uint64_t> addrs;
  for (uint64_t bytes : sizes) addrs.push_back(mem.allocate(bytes, AllocationKind::Device, "a"));
  EXPECT_EQ(addrs[0], kBase);
  for (size_t i = 0; i < addrs.size(); ++i) {
    EXPECT_EQ(addrs[i] % 256, 0u);
    if (i > 0) {
      EXPECT_GE(addrs[i], addrs[i - 1] + sizes[i - 1] + 4096) << "no guard page after allocation";
    }
  }
  // Same calls, same addresses: nothing depends on host pointers.
  DeviceMemory again(strict_config());
  for (size_t i = 0; i < sizes.size(); ++i)
    EXPECT_EQ(again.allocate(sizes[i], AllocationKind::Device, "a"), addrs[i]);
  EXPECT_EQ(again.allocations().size(), addrs.size());
  for (size_t i = 0; i < addrs.size(); ++i) EXPECT_EQ(again.allocations()[i].start, addrs[i]);
}

TEST(DeviceMemory, ZeroByteAllocationsAreUniqueAndUnusable) {
  DeviceMemory mem;
  const uint64_t a = mem.allocate(0, AllocationKind::Device, "z0");
  const uint64_t b = mem.allocate(0, AllocationKind::Device, "z1");
  EXPECT_NE(a, 0u);
  EXPECT_NE(b, 0u);
  EXPECT_NE(a, b);
  uint8_t byte = 0;
  EXPECT_EQ(mem.read(a, &byte, 1).kind, FaultKind::OutOfBounds);
  EXPECT_FALSE(mem.free(a));
  EXPECT_FALSE(mem.free(b));
}

TEST(DeviceMemory, RoundTripAndZeroInit) {
  DeviceMemory mem;
  for (uint64_t bytes : {uint64_t{100}, uint64_t{1} << 20}) {  // calloc and mmap backed
    const uint64_t a = mem.allocate(bytes, AllocationKind::Device, "buf");
    std::vector<uint8_t> out(bytes, 0xAA);
    ASSERT_FALSE(mem.copy_to_host(out.data(), a, bytes));
    EXPECT_TRUE(std::all_of(out.begin(), out.end(), [](uint8_t v) { return v == 0; }));
    std::vector<uint8_t> in(bytes);
    std::iota(in.begin(), in.end(), uint8_t{7});
    ASSERT_FALSE(mem.copy_from_host(a, in.data(), bytes));
    ASSERT_FALSE(mem.copy_to_host(out.data(), a, bytes));
    EXPECT_EQ(in, out);
  }
  const uint64_t w = mem.allocate(64, AllocationKind::Device, "w");
  const uint32_t v = 0xdeadbeef;
  const uint64_t d = 0x0123456789abcdefull;
  ASSERT_FALSE(mem.write(w + 4, &v, 4));
  ASSERT_FALSE(mem.write(w + 8, &d, 8));
  uint32_t v2 = 0;
  uint64_t d2 = 0;
  ASSERT_FALSE(mem.read(w + 4, &v2, 4));
  ASSERT_FALSE(mem.read(w + 8, &d2, 8));
  EXPECT_EQ(v2, v);
  EXPECT_EQ(d2, d);
  std::array<uint8_t, 16> vec{};
  ASSERT_FALSE(mem.read(w + 48, vec.data(), 16));  // last 16 bytes: in bounds
}

TEST(DeviceMemory, SparseHugeAllocationUsesLittleHostMemory) {
  DeviceMemory mem;
  const uint64_t big = uint64_t{16} << 30;
  Fault err;
  const uint64_t a = mem.allocate(big, AllocationKind::Device, "huge", &err);
  ASSERT_NE(a, 0u) << describe(err);
  const uint64_t before = resident_bytes();
  const uint8_t one = 1, two = 2;
  ASSERT_FALSE(mem.write(a, &one, 1));
  ASSERT_FALSE(mem.write(a + big - 1, &two, 1));
  uint8_t r = 0;
  ASSERT_FALSE(mem.read(a + big / 2, &r, 1));  // untouched: zero
  EXPECT_EQ(r, 0);
  ASSERT_FALSE(mem.read(a + big - 1, &r, 1));
  EXPECT_EQ(r, 2);
  EXPECT_LT(resident_bytes() - before, uint64_t{64} << 20);
  EXPECT_EQ(mem.used_bytes(), big);
  EXPECT_FALSE(mem.free(a));
  EXPECT_EQ(mem.used_bytes(), 0u);
}

TEST(DeviceMemory, OutOfBoundsPastEndBelowStartAndInGap) {
  DeviceMemory mem(strict_config());
  const uint64_t a = mem.allocate(1024, AllocationKind::Device, "d_out");
  const uint64_t b = mem.allocate(512, AllocationKind::Device, "d_in");
  uint32_t v = 0;
  Fault f = mem.write(a + 1024, &v, 4);  // one past the end
  ASSERT_EQ(f.kind, FaultKind::OutOfBounds);
  EXPECT_EQ(f.address, a + 1024);
  EXPECT_EQ(f.size, 4u);
  EXPECT_EQ(f.access, AccessKind::Write);
  ASSERT_TRUE(f.nearest);
  EXPECT_EQ(f.nearest->start, a);
  EXPECT_EQ(f.nearest->size, 1024u);
  EXPECT_EQ(f.nearest->label, "d_out");

  std::array<uint8_t, 16> vec{};
  f = mem.copy_to_host(vec.data(), a + 1020, 8);  // host copy crossing the end
  ASSERT_EQ(f.kind, FaultKind::OutOfBounds);
  EXPECT_EQ(f.nearest->start, a);

  f = mem.read(b - 4, &v, 4);  // just below b: nearest is b
  ASSERT_EQ(f.kind, FaultKind::OutOfBounds);
  EXPECT_EQ(f.nearest->label, "d_in");

  f = mem.read(a + 1024 + 256, &v, 4);  // in the gap, nearer to a's end
  ASSERT_EQ(f.kind, FaultKind::OutOfBounds);
  EXPECT_EQ(f.nearest->label, "d_out");

  f = mem.read(kBase - 4, &v, 4);  // below every allocation
  ASSERT_EQ(f.kind, FaultKind::OutOfBounds);
  EXPECT_EQ(f.nearest->label, "d_out");
  f = mem.read(0, &v, 4);  // null
  EXPECT_EQ(f.kind, FaultKind::OutOfBounds);
  EXPECT_NE(describe(f).find("near null"), std::string::npos);

  const uint64_t odd = mem.allocate(6, AllocationKind::Device, "odd");
  f = mem.read(odd + 4, &v, 4);  // aligned, but crosses the end of a 6-byte allocation
  ASSERT_EQ(f.kind, FaultKind::OutOfBounds);
  EXPECT_EQ(f.nearest->label, "odd");
  EXPECT_NE(describe(f).find("overruns the end"), std::string::npos) << describe(f);

  DeviceMemory empty(strict_config());
  f = empty.read(kBase, &v, 4);
  EXPECT_EQ(f.kind, FaultKind::OutOfBounds);
  EXPECT_FALSE(f.nearest);
}

TEST(DeviceMemory, MisalignedAccesses) {
  DeviceMemory mem;
  const uint64_t a = mem.allocate(256, AllocationKind::Device, "m");
  uint64_t v = 0;
  Fault f;
  EXPECT_EQ(mem.translate(a + 2, 4, AccessKind::Read, f), nullptr);
  EXPECT_EQ(f.kind, FaultKind::Misaligned);
  ASSERT_TRUE(f.nearest);
  EXPECT_EQ(f.nearest->start, a);
  EXPECT_EQ(mem.write(a + 4, &v, 8).kind, FaultKind::Misaligned);
  EXPECT_EQ(mem.read(a + 1, &v, 2).kind, FaultKind::Misaligned);
  EXPECT_FALSE(mem.read(a + 3, &v, 1));
  EXPECT_FALSE(mem.read(a + 8, &v, 8));
  // Misaligned even after the cache holds this allocation (fast path).
  EXPECT_EQ(mem.read(a + 12, &v, 8).kind, FaultKind::Misaligned);
  Fault z;
  EXPECT_EQ(mem.translate(a, 0, AccessKind::Read, z), nullptr);
  EXPECT_EQ(z.kind, FaultKind::InvalidValue);
}

TEST(DeviceMemory, UseAfterFree) {
  DeviceMemory mem;
  const uint64_t a = mem.allocate(128, AllocationKind::Device, "gone");
  const uint64_t b = mem.allocate(128, AllocationKind::Device, "kept");
  uint32_t v = 1;
  ASSERT_FALSE(mem.write(a + 16, &v, 4));  // caches `a`
  ASSERT_FALSE(mem.free(a));
  Fault f = mem.read(a + 16, &v, 4);
  ASSERT_EQ(f.kind, FaultKind::UseAfterFree);
  ASSERT_TRUE(f.nearest);
  EXPECT_EQ(f.nearest->label, "gone");
  EXPECT_FALSE(f.nearest->live);
  EXPECT_EQ(mem.copy_from_host(a, &v, 4).kind, FaultKind::UseAfterFree);
  EXPECT_FALSE(mem.read(b, &v, 4));
  // Addresses are not reused.
  const uint64_t c = mem.allocate(128, AllocationKind::Device, "new");
  EXPECT_GT(c, b);
  ASSERT_EQ(mem.allocations().size(), 2u);
  EXPECT_EQ(mem.allocations()[0].label, "kept");
  auto info = mem.find_allocation(a + 4);
  ASSERT_TRUE(info);
  EXPECT_FALSE(info->live);
}

TEST(DeviceMemory, OldFreedRecordsAreDropped) {
  DeviceMemoryConfig cfg;
  cfg.freed_records_kept = 2;
  DeviceMemory mem(cfg);
  std::vector<uint64_t> addrs;
  for (int i = 0; i < 8; ++i) addrs.push_back(mem.allocate(64, AllocationKind::Device, "x"));
  for (uint64_t a : addrs) ASSERT_FALSE(mem.free(a));
  uint32_t v = 0;
  EXPECT_EQ(mem.read(addrs.back(), &v, 4).kind, FaultKind::UseAfterFree);
  EXPECT_EQ(mem.read(addrs[addrs.size() - 2], &v, 4).kind, FaultKind::UseAfterFree);
  EXPECT_EQ(mem.read(addrs.front(), &v, 4).kind, FaultKind::OutOfBounds);  // forgotten
}

TEST(DeviceMemory, InvalidFrees) {
  DeviceMemory mem;
  EXPECT_EQ(mem.free(kBase).kind, FaultKind::InvalidFree);  // nothing allocated
  const uint64_t a = mem.allocate(1024, AllocationKind::Device, "buf");
  Fault f = mem.free(a + 16);
  ASSERT_EQ(f.kind, FaultKind::InvalidFree);
  EXPECT_EQ(f.nearest->start, a);
  EXPECT_NE(describe(f).find("16 bytes inside allocation 'buf'"), std::string::npos) << describe(f);
  EXPECT_EQ(mem.free(a + (uint64_t{1} << 30)).kind, FaultKind::InvalidFree);  // unknown
  EXPECT_EQ(mem.allocations().size(), 1u);  // nothing changed
  EXPECT_FALSE(mem.free(a));
  f = mem.free(a);
  ASSERT_EQ(f.kind, FaultKind::InvalidFree);
  EXPECT_NE(describe(f).find("double free"), std::string::npos) << describe(f);
  EXPECT_FALSE(mem.free(0));  // cudaFree(nullptr)
}

TEST(DeviceMemory, CapacityExhaustion) {
  DeviceMemoryConfig cfg;
  cfg.capacity = 1 << 20;
  DeviceMemory mem(cfg);
  EXPECT_EQ(mem.capacity(), uint64_t{1} << 20);
  const uint64_t a = mem.allocate(768 << 10, AllocationKind::Device, "a");
  ASSERT_NE(a, 0u);
  Fault err;
  EXPECT_EQ(mem.allocate(512 << 10, AllocationKind::Managed, "b", &err), 0u);
  EXPECT_EQ(err.kind, FaultKind::OutOfMemory);
  EXPECT_NE(describe(err).find("'b'"), std::string::npos) << describe(err);
  EXPECT_EQ(mem.used_bytes(), uint64_t{768} << 10);
  // Pinned host memory does not count against the device.
  EXPECT_NE(mem.allocate(512 << 10, AllocationKind::HostPinned, "pinned"), 0u);
  EXPECT_NE(mem.allocate(256 << 10, AllocationKind::Device, "c"), 0u);  // exactly full
  EXPECT_EQ(mem.allocate(1, AllocationKind::Device, "d"), 0u);
  ASSERT_FALSE(mem.free(a));
  EXPECT_NE(mem.allocate(512 << 10, AllocationKind::Device, "e"), 0u);
  EXPECT_EQ(mem.allocate(uint64_t{1} << 62, AllocationKind::HostPinned, "x", &err), 0u);
  EXPECT_EQ(err.kind, FaultKind::OutOfMemory);  // host mmap or address space refuses
}

TEST(DeviceMemory, MemsetAndCopies) {
  DeviceMemory mem;
  const uint64_t a = mem.allocate(256, AllocationKind::Device, "a");
  const uint64_t b = mem.allocate(256, AllocationKind::Device, "b");
  ASSERT_FALSE(mem.memset(a + 10, 0x5A, 20));
  std::array<uint8_t, 256> out{};
  ASSERT_FALSE(mem.copy_to_host(out.data(), a, 256));
  for (int i = 0; i < 256; ++i) EXPECT_EQ(out[i], (i >= 10 && i < 30) ? 0x5A : 0) << i;
  ASSERT_FALSE(mem.copy_device(b + 100, a + 10, 20));
  ASSERT_FALSE(mem.copy_to_host(out.data(), b + 100, 20));
  for (int i = 0; i < 20; ++i) EXPECT_EQ(out[i], 0x5A);
  // Overlapping copy within one allocation behaves like memmove.
  std::array<uint8_t, 8> seq{1, 2, 3, 4, 5, 6, 7, 8};
  ASSERT_FALSE(mem.copy_from_host(a, seq.data(), 8));
  ASSERT_FALSE(mem.copy_device(a + 2, a, 6));
  ASSERT_FALSE(mem.copy_to_host(out.data(), a, 8));
  EXPECT_EQ((std::array<uint8_t, 8>{out[0], out[1], out[2], out[3], out[4], out[5], out[6], out[7]}),
            (std::array<uint8_t, 8>{1, 2, 1, 2, 3, 4, 5, 6}));
  // A failing operation writes nothing.
  ASSERT_FALSE(mem.memset(b, 0, 256));
  EXPECT_EQ(mem.memset(b + 200, 0xFF, 100).kind, FaultKind::OutOfBounds);
  EXPECT_EQ(mem.copy_device(b, a + 200, 100).kind, FaultKind::OutOfBounds);
  ASSERT_FALSE(mem.copy_to_host(out.data(), b, 256));
  EXPECT_TRUE(std::all_of(out.begin(), out.end(), [](uint8_t v) { return v == 0; }));
  EXPECT_FALSE(mem.copy_from_host(0, nullptr, 0));  // zero bytes: no checks
}

TEST(DeviceMemory, TwoDimensionalHelpersWithPitch) {
  DeviceMemory mem;
  constexpr uint64_t kPitch = 64, kWidth = 10, kHeight = 4;
  const uint64_t a = mem.allocate(kPitch * kHeight, AllocationKind::Device, "img");
  ASSERT_FALSE(mem.memset2d(a, kPitch, 0x11, kWidth, kHeight));
  std::vector<uint8_t> all(kPitch * kHeight);
  ASSERT_FALSE(mem.copy_to_host(all.data(), a, all.size()));
  for (uint64_t y = 0; y < kHeight; ++y)
    for (uint64_t x = 0; x < kPitch; ++x) EXPECT_EQ(all[y * kPitch + x], x < kWidth ? 0x11 : 0);

  // Host rows of pitch 12 into device rows of pitch 64, and back with pitch 16.
  std::vector<uint8_t> src(12 * kHeight);
  std::iota(src.begin(), src.end(), uint8_t{1});
  ASSERT_FALSE(mem.copy2d_from_host(a, kPitch, src.data(), 12, kWidth, kHeight));
  std::vector<uint8_t> back(16 * kHeight, 0);
  ASSERT_FALSE(mem.copy2d_to_host(back.data(), 16, a, kPitch, kWidth, kHeight));
  for (uint64_t y = 0; y < kHeight; ++y)
    for (uint64_t x = 0; x < 16; ++x)
      EXPECT_EQ(back[y * 16 + x], x < kWidth ? src[y * 12 + x] : 0) << y << "," << x;

  const uint64_t b = mem.allocate(32 * kHeight, AllocationKind::Device, "dst");
  ASSERT_FALSE(mem.copy2d_device(b, 32, a, kPitch, kWidth, kHeight));
  std::vector<uint8_t> row(kWidth);
  ASSERT_FALSE(mem.copy_to_host(row.data(), b + 3 * 32, kWidth));
  EXPECT_TRUE(std::equal(row.begin(), row.end(), src.begin() + 3 * 12));

  // Width beyond pitch, and a last row past the end: errors, nothing written.
  EXPECT_EQ(mem.memset2d(a, 8, 0, 9, 2).kind, FaultKind::InvalidValue);
  EXPECT_EQ(mem.memset2d(a, kPitch, 0xEE, kWidth, kHeight + 1).kind, FaultKind::OutOfBounds);
  EXPECT_EQ(mem.copy2d_device(b, 32, a, kPitch, kWidth, kHeight + 1).kind, FaultKind::OutOfBounds);
  EXPECT_EQ(mem.memset2d(a, uint64_t{1} << 63, 0, 1, 4).kind, FaultKind::InvalidValue);
  ASSERT_FALSE(mem.copy_to_host(all.data(), a, all.size()));
  EXPECT_EQ(std::count(all.begin(), all.end(), 0xEE), 0);
  EXPECT_FALSE(mem.memset2d(a, kPitch, 0, 0, 100));  // empty
}

TEST(DeviceMemory, ConstIsReadOnlyForDeviceWrites) {
  DeviceMemory mem;
  const uint64_t c = mem.allocate(64, AllocationKind::Const, "c_table");
  const uint32_t v = 42;
  ASSERT_FALSE(mem.copy_from_host(c + 8, &v, 4));  // the host may initialise it
  uint32_t r = 0;
  ASSERT_FALSE(mem.read(c + 8, &r, 4));  // now cached
  EXPECT_EQ(r, 42u);
  Fault f = mem.write(c + 8, &v, 4);
  ASSERT_EQ(f.kind, FaultKind::ReadOnly);
  EXPECT_EQ(f.nearest->label, "c_table");
  Fault g;
  EXPECT_EQ(mem.translate(c, 4, AccessKind::Atomic, g), nullptr);
  EXPECT_EQ(g.kind, FaultKind::ReadOnly);
  EXPECT_NE(describe(f).find("read-only"), std::string::npos) << describe(f);
  EXPECT_FALSE(mem.memset(c, 0, 64));
}

TEST(DeviceMemory, TranslateCacheAlternatingAllocations) {
  DeviceMemory mem(strict_config());
  const uint64_t a = mem.allocate(4096, AllocationKind::Device, "a");
  const uint64_t b = mem.allocate(100, AllocationKind::Device, "b");
  for (uint32_t i = 0; i < 100; ++i) {
    Fault f;
    uint8_t* pa = mem.translate(a + 4 * i, 4, AccessKind::Write, f);
    uint8_t* pb = mem.translate(b + (4 * i) % 100, 4, AccessKind::Write, f);
    ASSERT_TRUE(pa && pb) << describe(f);
    std::memcpy(pa, &i, 4);
    const uint32_t j = i + 1000;
    std::memcpy(pb, &j, 4);
    // The end of the smaller allocation must not be judged by the other's size.
    EXPECT_EQ(mem.translate(b + 100, 4, AccessKind::Read, f), nullptr);
    EXPECT_EQ(f.kind, FaultKind::OutOfBounds);
  }
  for (uint32_t i = 0; i < 100; ++i) {
    uint32_t va = 0, vb = 0;
    ASSERT_FALSE(mem.read(a + 4 * i, &va, 4));
    EXPECT_EQ(va, i);
    if (i >= 75) {
      ASSERT_FALSE(mem.read(b + (4 * i) % 100, &vb, 4));
      EXPECT_EQ(vb, i + 1000);
    }
  }
  // Same host pointer for repeated translations; freeing invalidates the cache.
  Fault f;
  uint8_t* p1 = mem.translate(a + 8, 4, AccessKind::Read, f);
  EXPECT_EQ(mem.translate(a + 8, 4, AccessKind::Read, f), p1);
  ASSERT_FALSE(mem.free(a));
  EXPECT_EQ(mem.translate(a + 8, 4, AccessKind::Read, f), nullptr);
  EXPECT_EQ(f.kind, FaultKind::UseAfterFree);
}

TEST(DeviceMemory, DescribeText) {
  DeviceMemory mem(strict_config());
  const uint64_t a = mem.allocate(1024, AllocationKind::Device, "d_out");
  const uint32_t v = 0;
  EXPECT_EQ(describe(mem.write(a + 1024, &v, 4)),
            "out-of-bounds write of 4 bytes at 0x7f0000000400: 0 bytes past the end of "
            "allocation 'd_out' [0x7f0000000000, +1024) (device)");
  EXPECT_EQ(describe(mem.write(a - 8, &v, 4)),
            "out-of-bounds write of 4 bytes at 0x7efffffffff8: 8 bytes before the start of "
            "allocation 'd_out' [0x7f0000000000, +1024) (device)");
  EXPECT_EQ(describe(mem.copy_from_host(a + 1000, &v, 32)),
            "out-of-bounds write of 32 bytes at 0x7f00000003e8: the access overruns the end of "
            "allocation 'd_out' [0x7f0000000000, +1024) (device) by 8 bytes (it starts at offset "
            "1000) (copy_from_host destination)");
  uint64_t d = 0;
  EXPECT_EQ(describe(mem.read(a + 4, &d, 8)),
            "misaligned read of 8 bytes at 0x7f0000000004: the address is not a multiple of 8 "
            "(offset 4 in allocation 'd_out' [0x7f0000000000, +1024) (device))");
  EXPECT_EQ(describe(mem.memset2d(a, 8, 0, 9, 2)),
            "invalid argument: memset2d: width 9 exceeds pitch 8");
  ASSERT_FALSE(mem.free(a));
  EXPECT_EQ(describe(mem.read(a + 16, &d, 8)),
            "use-after-free read of 8 bytes at 0x7f0000000010: the address is at offset 16 in "
            "freed allocation 'd_out' [0x7f0000000000, +1024) (device)");
  EXPECT_EQ(describe(Fault{}), "");
}

// --- memory-check modes ----------------------------------------------------

TEST(DeviceMemoryGpuMode, IsTheDefaultAndLaysAllocationsOutInGranules) {
  EXPECT_EQ(DeviceMemoryConfig{}.check, MemoryCheck::Gpu);
  DeviceMemory mem;
  const uint64_t a = mem.allocate(1000, AllocationKind::Device, "a");
  const uint64_t b = mem.allocate(3 * kGranule + 1, AllocationKind::Device, "b");
  const uint64_t c = mem.allocate(kGranule, AllocationKind::Device, "c");
  const uint64_t z = mem.allocate(0, AllocationKind::Device, "z");
  const uint64_t d = mem.allocate(1, AllocationKind::Device, "d");
  // Contiguous granules, no guard: each start is the previous mapped end.
  EXPECT_EQ(a, kBase);
  EXPECT_EQ(b, a + kGranule);
  EXPECT_EQ(c, b + 4 * kGranule);
  EXPECT_EQ(z, c + kGranule);
  EXPECT_EQ(d, z + kGranule);  // a zero-byte allocation still has a unique address
  for (uint64_t x : {a, b, c, z, d}) EXPECT_EQ(x % kGranule, 0u);
  uint8_t byte = 1;
  EXPECT_EQ(mem.read(z, &byte, 1).kind, FaultKind::OutOfBounds);  // maps nothing
  // A base aligned only to `alignment` is rounded up to the granule.
  DeviceMemoryConfig odd;
  odd.base = kBase + (64 << 10);
  DeviceMemory shifted(odd);
  EXPECT_EQ(shifted.allocate(8, AllocationKind::Device, "s"), kBase + kGranule);
}

TEST(DeviceMemoryGpuMode, AccessBeforeTheNextAllocationRunsOn) {
  // Rodinia srad_v2 reads 1 KiB before the start of a cudaMalloc buffer: on
  // a GPU that is the mapped tail of the buffer before it.
  DeviceMemory mem;
  mem.allocate(4096, AllocationKind::Device, "first");
  const uint64_t b = mem.allocate(4096, AllocationKind::Device, "second");
  uint32_t v = 7;
  EXPECT_FALSE(mem.read(b - 1024, &v, 4)) << describe(mem.read(b - 1024, &v, 4));
  EXPECT_EQ(v, 0u);
  // Where the first allocation fills its granule, the bytes below the next
  // one are its data.
  DeviceMemory full;
  const uint64_t f1 = full.allocate(kGranule, AllocationKind::Device, "full");
  const uint64_t f2 = full.allocate(64, AllocationKind::Device, "next");
  const uint32_t magic = 0xC0FFEE;
  ASSERT_FALSE(full.copy_from_host(f1 + kGranule - 1024, &magic, 4));
  v = 0;
  EXPECT_FALSE(full.read(f2 - 1024, &v, 4));
  EXPECT_EQ(v, magic);
  // Strict mode faults there, naming the next allocation.
  DeviceMemory strict(strict_config());
  strict.allocate(4096, AllocationKind::Device, "first");
  const uint64_t sb = strict.allocate(4096, AllocationKind::Device, "second");
  const Fault f = strict.read(sb - 1024, &v, 4);
  ASSERT_EQ(f.kind, FaultKind::OutOfBounds);
  ASSERT_TRUE(f.nearest);
  EXPECT_EQ(f.nearest->label, "second");
}

TEST(DeviceMemoryGpuMode, SlackPastTheEndReadsZeroAndDropsWrites) {
  DeviceMemory mem;
  const uint64_t a = mem.allocate(1000, AllocationKind::Device, "a");
  const uint64_t b = mem.allocate(256, AllocationKind::Device, "b");
  std::vector<uint8_t> pattern(1000);
  std::iota(pattern.begin(), pattern.end(), uint8_t{1});
  ASSERT_FALSE(mem.copy_from_host(a, pattern.data(), pattern.size()));
  const uint64_t ones = ~uint64_t{0};
  ASSERT_FALSE(mem.copy_from_host(b, &ones, 8));

  uint64_t v = ones;
  EXPECT_FALSE(mem.read(a + 1000, &v, 8));  // just past the end
  EXPECT_EQ(v, 0u);
  EXPECT_FALSE(mem.write(a + 1000, &ones, 8));          // dropped
  EXPECT_FALSE(mem.write(a + kGranule - 8, &ones, 8));  // the granule's last bytes
  v = ones;
  EXPECT_FALSE(mem.read(a + 1000, &v, 8));
  EXPECT_EQ(v, 0u);
  v = ones;
  EXPECT_FALSE(mem.read(a + kGranule - 8, &v, 8));
  EXPECT_EQ(v, 0u);
  // An atomic in the slack sees zero; a 32-byte vector access works too.
  Fault f;
  uint8_t* p = mem.translate(a + 2048, 4, AccessKind::Atomic, f);
  ASSERT_NE(p, nullptr) << describe(f);
  uint32_t w = 1;
  std::memcpy(&w, p, 4);
  EXPECT_EQ(w, 0u);
  std::array<uint8_t, 32> vec{};
  vec.fill(0xAB);
  EXPECT_FALSE(mem.read(a + 1024, vec.data(), 32));
  EXPECT_TRUE(std::all_of(vec.begin(), vec.end(), [](uint8_t x) { return x == 0; }));
  // A read straddling the end keeps its in-bounds bytes and reads zeros past
  // them; a straddling write keeps its in-bounds bytes only.
  uint16_t s = 0;
  EXPECT_FALSE(mem.read(a + 998, &s, 2));
  EXPECT_EQ(s, pattern[998] | pattern[999] << 8);
  vec.fill(0xAB);
  EXPECT_FALSE(mem.read(a + 992, vec.data(), 16));  // 8 data bytes, 8 slack bytes
  for (int i = 0; i < 8; ++i) EXPECT_EQ(vec[i], pattern[992 + i]) << i;
  for (int i = 8; i < 16; ++i) EXPECT_EQ(vec[i], 0) << i;
  std::array<uint8_t, 16> sixteen{};
  sixteen.fill(0xCD);
  EXPECT_FALSE(mem.write(a + 992, sixteen.data(), 16));
  vec.fill(0xAB);
  EXPECT_FALSE(mem.read(a + 992, vec.data(), 16));
  for (int i = 0; i < 8; ++i) EXPECT_EQ(vec[i], 0xCD) << i;
  for (int i = 8; i < 16; ++i) EXPECT_EQ(vec[i], 0) << i;
  p = mem.translate(a + 992, 16, AccessKind::Atomic, f);  // a straddling atomic sees a zero tail
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p[8], 0);

  // Nothing else changed: a's data (bar the straddling write's bytes) and b.
  std::vector<uint8_t> back(1000);
  ASSERT_FALSE(mem.copy_to_host(back.data(), a, back.size()));
  for (size_t i = 992; i < 1000; ++i) pattern[i] = 0xCD;
  EXPECT_EQ(back, pattern);
  v = 0;
  ASSERT_FALSE(mem.copy_to_host(&v, b, 8));
  EXPECT_EQ(v, ones);

  // Host-side helpers keep strict bounds.
  EXPECT_EQ(mem.copy_to_host(&v, a + 1000, 8).kind, FaultKind::OutOfBounds);
  EXPECT_EQ(mem.memset(a + 996, 0, 8).kind, FaultKind::OutOfBounds);
  EXPECT_EQ(mem.host_pointer(a + 1000, 1, f), nullptr);

  // Const allocations stay read-only in their slack.
  const uint64_t c = mem.allocate(4, AllocationKind::Const, "c");
  EXPECT_FALSE(mem.read(c + 8, &v, 8));
  EXPECT_EQ(mem.write(c + 8, &v, 8).kind, FaultKind::ReadOnly);
}

TEST(DeviceMemoryGpuMode, UnmappedAddressesStillFault) {
  DeviceMemory mem;
  const uint64_t a = mem.allocate(1024, AllocationKind::Device, "d_out");
  const uint64_t b = mem.allocate(100, AllocationKind::Device, "last");
  uint32_t v = 0;
  // Beyond the last mapped granule: the structured report, nearest named.
  Fault f = mem.write(b + kGranule, &v, 4);
  ASSERT_EQ(f.kind, FaultKind::OutOfBounds);
  EXPECT_EQ(f.address, b + kGranule);
  ASSERT_TRUE(f.nearest);
  EXPECT_EQ(f.nearest->label, "last");
  EXPECT_NE(describe(f).find("bytes past the end of allocation 'last'"), std::string::npos)
      << describe(f);
  EXPECT_EQ(mem.read(b + (uint64_t{16} << 30), &v, 4).kind, FaultKind::OutOfBounds);
  EXPECT_EQ(mem.read(kBase - 4, &v, 4).kind, FaultKind::OutOfBounds);  // below the first
  EXPECT_EQ(mem.read(0, &v, 4).kind, FaultKind::OutOfBounds);
  // The last bytes of the granule are mapped; one more is not.
  EXPECT_FALSE(mem.read(b + kGranule - 4, &v, 4));
  EXPECT_EQ(mem.read(b + kGranule - 2, &v, 4).kind, FaultKind::Misaligned);
  std::array<uint8_t, 3> three{};
  EXPECT_EQ(mem.read(b + kGranule - 2, three.data(), 3).kind, FaultKind::OutOfBounds);
  // Use-after-free: a freed allocation's granules are unmapped.
  ASSERT_FALSE(mem.write(a + 16, &v, 4));
  ASSERT_FALSE(mem.free(a));
  EXPECT_EQ(mem.read(a + 16, &v, 4).kind, FaultKind::UseAfterFree);
  f = mem.read(a + 2048, &v, 4);  // its slack
  EXPECT_EQ(f.kind, FaultKind::OutOfBounds);
  ASSERT_TRUE(f.nearest);
  EXPECT_EQ(f.nearest->label, "d_out");
  EXPECT_EQ(mem.read(b - 1024, &v, 4).kind, FaultKind::OutOfBounds);
}

TEST(DeviceMemoryGpuMode, StrictModeFaultsInTheSlack) {
  DeviceMemory mem(strict_config());
  const uint64_t a = mem.allocate(1000, AllocationKind::Device, "a");
  uint64_t v = 0;
  EXPECT_EQ(mem.read(a + 1000, &v, 8).kind, FaultKind::OutOfBounds);
  EXPECT_EQ(mem.write(a + 1000, &v, 8).kind, FaultKind::OutOfBounds);
  EXPECT_FALSE(mem.read(a + 992, &v, 8));
  std::array<uint8_t, 16> vec{};
  EXPECT_EQ(mem.read(a + 992, vec.data(), 16).kind, FaultKind::OutOfBounds);
  EXPECT_EQ(mem.read(a + kGranule - 8, &v, 8).kind, FaultKind::OutOfBounds);
  Fault f;
  EXPECT_EQ(mem.translate(a + 2048, 4, AccessKind::Atomic, f), nullptr);
  EXPECT_EQ(f.kind, FaultKind::OutOfBounds);
  // Strict layout: 64 KiB alignment and a 64 KiB guard, not granules.
  EXPECT_EQ(mem.allocate(8, AllocationKind::Device, "b"), a + (128 << 10));
}

TEST(DeviceMemoryGpuMode, AddressSpaceStillBoundsAllocations) {
  DeviceMemoryConfig c;
  c.address_space = 4 * kGranule;
  DeviceMemory mem(c);
  for (int i = 0; i < 4; ++i) EXPECT_NE(mem.allocate(1, AllocationKind::Device, "x"), 0u) << i;
  Fault err;
  EXPECT_EQ(mem.allocate(1, AllocationKind::Device, "y", &err), 0u);
  EXPECT_EQ(err.kind, FaultKind::OutOfMemory);
}

// Managed and pinned memory in the host-visible window: the device address
// is a host pointer the host can use directly (unified addressing).
DeviceMemoryConfig host_visible_config() {
  DeviceMemoryConfig c;
  c.base = 0x3000'0000'0000ull;
  c.host_visible_base = 0x4000'0000'0000ull;
  return c;
}

TEST(DeviceMemory, HostVisibleAllocationsAreHostPointers) {
  DeviceMemory mem(host_visible_config());
  const uint64_t m = mem.allocate(1000, AllocationKind::Managed, "managed");
  const uint64_t p = mem.allocate(64, AllocationKind::HostPinned, "pinned");
  const uint64_t d = mem.allocate(64, AllocationKind::Device, "device");
  ASSERT_NE(m, 0u);
  ASSERT_NE(p, 0u);
  EXPECT_GE(m, 0x4000'0000'0000ull);
  EXPECT_GE(p, m + 1000);
  EXPECT_LT(d, 0x4000'0000'0000ull);  // device memory stays where it was
  // The host writes through the address; the device sees it, and back.
  auto* host = reinterpret_cast<uint32_t*>(m);
  host[3] = 0xdeadbeef;
  uint32_t v = 0;
  ASSERT_FALSE(mem.read(m + 12, &v, 4));
  EXPECT_EQ(v, 0xdeadbeefu);
  v = 42;
  ASSERT_FALSE(mem.write(m + 16, &v, 4));
  EXPECT_EQ(host[4], 42u);
  // Bounds and use-after-free are still checked.
  EXPECT_EQ(mem.read(m + 1000, &v, 4).kind, FaultKind::OutOfBounds);
  ASSERT_FALSE(mem.free(m));
  EXPECT_EQ(mem.read(m + 12, &v, 4).kind, FaultKind::UseAfterFree);
  // Pinned memory does not count against the device's capacity; managed does.
  EXPECT_EQ(mem.used_bytes(), 64u);
  ASSERT_TRUE(mem.allocation_at(p));
  EXPECT_EQ(mem.allocation_at(p + 63)->kind, AllocationKind::HostPinned);
  EXPECT_FALSE(mem.allocation_at(p + 64));
}

TEST(DeviceMemory, RegisteredHostMemory) {
  DeviceMemory mem(host_visible_config());
  std::vector<uint32_t> buf(256, 7);
  auto* raw = reinterpret_cast<uint8_t*>(buf.data());
  const uint64_t addr = reinterpret_cast<uint64_t>(raw);
  ASSERT_FALSE(mem.register_host(raw, 1024, "buf"));
  uint32_t v = 0;
  ASSERT_FALSE(mem.read(addr + 8, &v, 4));
  EXPECT_EQ(v, 7u);
  v = 9;
  ASSERT_FALSE(mem.write(addr + 8, &v, 4));
  EXPECT_EQ(buf[2], 9u);
  EXPECT_EQ(mem.used_bytes(), 0u);
  // Overlapping registrations, a free() of it, and unregistering the middle fail.
  EXPECT_EQ(mem.register_host(raw + 512, 1024, "again").kind, FaultKind::Overlap);
  EXPECT_EQ(mem.free(addr).kind, FaultKind::InvalidFree);
  EXPECT_EQ(mem.unregister_host(addr + 4).kind, FaultKind::InvalidFree);
  EXPECT_EQ(mem.register_host(nullptr, 16, "null").kind, FaultKind::InvalidValue);
  // Unregistering forgets the range (the memory stays the program's), and
  // it can be registered again.
  ASSERT_FALSE(mem.unregister_host(addr));
  EXPECT_EQ(mem.read(addr, &v, 4).kind, FaultKind::OutOfBounds);
  EXPECT_FALSE(mem.register_host(raw, 1024, "buf"));
  EXPECT_EQ(buf[2], 9u);
}

TEST(DeviceMemory, HostVisibleSkipsOccupiedAddresses) {
  // Something else already lives at the window's start: allocation moves on.
  DeviceMemoryConfig c = host_visible_config();
  c.host_visible_base = 0x4100'0000'0000ull;
  void* squatter = mmap(reinterpret_cast<void*>(c.host_visible_base), 4096, PROT_READ,
                        MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
  ASSERT_NE(squatter, MAP_FAILED);
  DeviceMemory mem(c);
  const uint64_t m = mem.allocate(100, AllocationKind::Managed, "m");
  ASSERT_NE(m, 0u);
  EXPECT_NE(m, c.host_visible_base);
  reinterpret_cast<char*>(m)[99] = 1;
  munmap(squatter, 4096);
}

}  // namespace
}  // namespace warpsim::functional
