// Memory pools (libcudart_shim/mem_pool.h) and the runtime's stream-ordered
// allocation (runtime_pool.cpp): chunk reservation at 32 MiB granularity,
// block reuse under CUDA's stream-ordering rules, trimming and release
// thresholds, attributes and their errors, pool limits, deferred
// destruction, and the runtime's checks (foreign pointers, cudaFree of pool
// memory, cudaFreeAsync of cudaMalloc memory, release at synchronisation).
#include "libcudart_shim/mem_pool.h"

#include <gtest/gtest.h>

#include "libcudart_shim/runtime.h"

namespace warpsim::cudart {
namespace {

constexpr uint64_t kMiB = uint64_t{1} << 20;
constexpr uint64_t kChunk = MemPool::kChunkGranularity;

functional::DeviceMemoryConfig small_device(uint64_t capacity) {
  functional::DeviceMemoryConfig c;
  c.capacity = capacity;
  return c;
}

PoolRequest on(uint64_t stream, double at_ns = 0, double host_ns = 0) {
  return PoolRequest{stream, at_ns, host_ns};
}

uint64_t alloc(MemPool& pool, functional::DeviceMemory& mem, uint64_t bytes,
               const PoolRequest& at, double* wait = nullptr) {
  PoolAllocation a;
  EXPECT_EQ(pool.allocate(mem, bytes, at, &a), Error::Success);
  if (wait != nullptr) *wait = a.wait_ns;
  return a.address;
}

void all_reuse(MemPool& pool, bool follow, bool opportunistic, bool internal) {
  ASSERT_EQ(pool.set_attribute(PoolAttribute::ReuseFollowEventDependencies, follow),
            Error::Success);
  ASSERT_EQ(pool.set_attribute(PoolAttribute::ReuseAllowOpportunistic, opportunistic),
            Error::Success);
  ASSERT_EQ(pool.set_attribute(PoolAttribute::ReuseAllowInternalDependencies, internal),
            Error::Success);
}

TEST(MemPool, ReservesChunksOfTheGranularityAndCarvesBlocks) {
  EXPECT_EQ(kChunk, 32 * kMiB);  // what an H100 with CUDA 13 reserves
  functional::DeviceMemory mem;
  MemPool pool;
  const uint64_t a = alloc(pool, mem, 1000, on(1));
  EXPECT_EQ(pool.reserved(), kChunk);
  EXPECT_EQ(pool.used(), 1024u);  // rounded to 256 bytes
  EXPECT_EQ(mem.used_bytes(), kChunk);  // reserved memory is device memory in use
  const uint64_t b = alloc(pool, mem, 256, on(1));
  EXPECT_EQ(b, a + 1024);
  // A block that fits in the chunk's free rest is carved from it (an H100: a 1 MiB and then a
  // 3 MiB block reserve 32 MiB in all).
  const uint64_t c = alloc(pool, mem, 3 * kMiB, on(1));
  EXPECT_TRUE(c > b && c < a + kChunk);
  EXPECT_EQ(pool.reserved(), kChunk);
  // A larger one gets a chunk of its own, rounded up to the granularity (40 MiB: 64 MiB).
  const uint64_t d = alloc(pool, mem, 40 * kMiB, on(1));
  EXPECT_FALSE(d >= a && d < a + kChunk);
  EXPECT_EQ(pool.reserved(), 3 * kChunk);
  EXPECT_EQ(pool.used(), 1024u + 256u + 3 * kMiB + 40 * kMiB);
  EXPECT_EQ(pool.live_blocks(), 4u);
  EXPECT_TRUE(pool.holds(a + 5000));
  EXPECT_EQ(pool.live_block_size(b), 256u);
  EXPECT_EQ(pool.live_block_size(b + 16), 0u);
}

TEST(MemPool, FreedBlockComesBackToTheSameStream) {
  functional::DeviceMemory mem;
  MemPool pool;
  all_reuse(pool, false, false, false);  // stream order alone
  const uint64_t a = alloc(pool, mem, 4096, on(7, 10));
  ASSERT_TRUE(pool.free(a, 7, 20));
  EXPECT_EQ(pool.used(), 0u);
  EXPECT_EQ(pool.reserved(), kChunk);  // the memory stays in the pool
  EXPECT_EQ(alloc(pool, mem, 4096, on(7, 21)), a);
  EXPECT_EQ(pool.reserved(), kChunk);
}

TEST(MemPool, CrossStreamReuseFollowsTheReuseSwitches) {
  functional::DeviceMemory mem;
  MemPool pool;
  all_reuse(pool, false, false, false);
  const uint64_t a = alloc(pool, mem, 4096, on(1, 0));
  ASSERT_TRUE(pool.free(a, 1, 100));  // complete at t=100
  // Stream 2 at t=50, host at 0: nothing allows the reuse: a new chunk.
  const uint64_t b = alloc(pool, mem, 4096, on(2, 50, 0));
  EXPECT_NE(b, a);
  EXPECT_EQ(pool.reserved(), 2 * kChunk);
  ASSERT_TRUE(pool.free(b, 2, 60));

  // Following dependencies: stream 3 is already past the free of `a`.
  all_reuse(pool, true, false, false);
  EXPECT_EQ(alloc(pool, mem, 4096, on(3, 150, 0)), a);
  ASSERT_TRUE(pool.free(a, 1, 200));

  // Opportunistic: the host has seen the free complete.
  all_reuse(pool, false, true, false);
  EXPECT_EQ(alloc(pool, mem, 4096, on(4, 10, 250)), a);
  ASSERT_TRUE(pool.free(a, 1, 300));

  // Internal dependencies: any free block, the stream waits for the free.
  all_reuse(pool, false, false, true);
  double wait = 0;
  const uint64_t c = alloc(pool, mem, 4096, on(5, 10, 0), &wait);
  EXPECT_EQ(c, a);
  EXPECT_EQ(wait, 300);
}

TEST(MemPool, FreeRejectsDoubleFreesAndInteriorPointers) {
  functional::DeviceMemory mem;
  MemPool pool;
  const uint64_t a = alloc(pool, mem, 1024, on(1));
  EXPECT_FALSE(pool.free(a + 256, 1, 0));
  EXPECT_TRUE(pool.free(a, 1, 0));
  EXPECT_FALSE(pool.free(a, 1, 0));
  EXPECT_FALSE(pool.free(12345, 1, 0));
}

TEST(MemPool, CoalescedFreeSpaceServesALargerBlock) {
  functional::DeviceMemory mem;
  MemPool pool;
  const uint64_t a = alloc(pool, mem, 1024, on(1));
  const uint64_t b = alloc(pool, mem, 1024, on(1));
  (void)alloc(pool, mem, 1024, on(1));
  ASSERT_TRUE(pool.free(a, 1, 1));
  ASSERT_TRUE(pool.free(b, 1, 1));
  EXPECT_EQ(alloc(pool, mem, 2048, on(1, 2)), a);
}

TEST(MemPool, TrimKeepsAtLeastTheRequestedBytesAndOnlyIdleChunks) {
  functional::DeviceMemory mem;
  MemPool pool;
  const uint64_t a = alloc(pool, mem, kChunk, on(1));
  const uint64_t b = alloc(pool, mem, kChunk, on(1));
  const uint64_t c = alloc(pool, mem, kChunk, on(1));
  ASSERT_EQ(pool.reserved(), 3 * kChunk);
  ASSERT_TRUE(pool.free(a, 1, 10));
  ASSERT_TRUE(pool.free(b, 1, 10));
  ASSERT_TRUE(pool.free(c, 1, 1000));  // not yet complete for the host
  pool.trim(mem, 0, 100);
  EXPECT_EQ(pool.reserved(), kChunk);  // c's chunk stays: its free is outstanding
  EXPECT_FALSE(mem.allocation_at(a).has_value());
  EXPECT_TRUE(mem.allocation_at(c).has_value());
  pool.trim(mem, 0, 1000);
  EXPECT_EQ(pool.reserved(), 0u);
  EXPECT_EQ(mem.used_bytes(), 0u);

  (void)alloc(pool, mem, kChunk, on(1));
  const uint64_t e = alloc(pool, mem, kChunk, on(1));
  const uint64_t f = alloc(pool, mem, kChunk, on(1));
  ASSERT_TRUE(pool.free(e, 1, 0));
  ASSERT_TRUE(pool.free(f, 1, 0));
  pool.trim(mem, kChunk + kChunk / 2, 0);  // may go down to 2 chunks, not below 1.5
  EXPECT_EQ(pool.reserved(), 2 * kChunk);
  pool.trim(mem, 4 * kChunk, 0);  // less reserved than that: nothing happens
  EXPECT_EQ(pool.reserved(), 2 * kChunk);
}

TEST(MemPool, AttributesAndTheirErrors) {
  functional::DeviceMemory mem;
  MemPool pool;
  uint64_t v = 7;
  for (auto a : {PoolAttribute::ReuseFollowEventDependencies,
                 PoolAttribute::ReuseAllowOpportunistic,
                 PoolAttribute::ReuseAllowInternalDependencies}) {
    ASSERT_EQ(pool.get_attribute(a, &v), Error::Success);
    EXPECT_EQ(v, 1u);  // enabled by default
  }
  ASSERT_EQ(pool.get_attribute(PoolAttribute::ReleaseThreshold, &v), Error::Success);
  EXPECT_EQ(v, 0u);
  const uint64_t a = alloc(pool, mem, kChunk, on(1));  // fills its chunk
  const uint64_t b = alloc(pool, mem, 1 * kMiB, on(1));  // a chunk of its own
  ASSERT_TRUE(pool.free(a, 1, 0));
  pool.trim(mem, 0, 0);
  ASSERT_EQ(pool.get_attribute(PoolAttribute::ReservedMemCurrent, &v), Error::Success);
  EXPECT_EQ(v, kChunk);
  ASSERT_EQ(pool.get_attribute(PoolAttribute::ReservedMemHigh, &v), Error::Success);
  EXPECT_EQ(v, 2 * kChunk);
  ASSERT_EQ(pool.get_attribute(PoolAttribute::UsedMemCurrent, &v), Error::Success);
  EXPECT_EQ(v, 1 * kMiB);
  ASSERT_EQ(pool.get_attribute(PoolAttribute::UsedMemHigh, &v), Error::Success);
  EXPECT_EQ(v, kChunk + 1 * kMiB);
  // Read-only, reset-only-to-zero, unknown.
  EXPECT_EQ(pool.set_attribute(PoolAttribute::ReservedMemCurrent, 0), Error::InvalidValue);
  EXPECT_EQ(pool.set_attribute(PoolAttribute::UsedMemCurrent, 0), Error::InvalidValue);
  EXPECT_EQ(pool.set_attribute(PoolAttribute::UsedMemHigh, 5), Error::InvalidValue);
  EXPECT_EQ(pool.set_attribute(static_cast<PoolAttribute>(9), 0), Error::InvalidValue);
  EXPECT_EQ(pool.get_attribute(static_cast<PoolAttribute>(0), &v), Error::InvalidValue);
  // Resetting a high watermark sets it to the current value.
  EXPECT_EQ(pool.set_attribute(PoolAttribute::UsedMemHigh, 0), Error::Success);
  ASSERT_EQ(pool.get_attribute(PoolAttribute::UsedMemHigh, &v), Error::Success);
  EXPECT_EQ(v, 1 * kMiB);
  EXPECT_EQ(pool.set_attribute(PoolAttribute::ReservedMemHigh, 0), Error::Success);
  ASSERT_EQ(pool.get_attribute(PoolAttribute::ReservedMemHigh, &v), Error::Success);
  EXPECT_EQ(v, kChunk);
  ASSERT_TRUE(pool.free(b, 1, 0));
}

TEST(MemPool, MaxSizeAndDeviceCapacityLimitThePool) {
  functional::DeviceMemory mem(small_device(4 * kChunk));
  // maxSize is rounded up to the granularity (an H100: a 4 MiB pool served 3 + 2 + 20 MiB of
  // blocks and refused 10 MiB more).
  MemPool limited(4 * kMiB);
  PoolAllocation out;
  EXPECT_EQ(limited.allocate(mem, kChunk + 1, on(1), &out), Error::MemoryAllocation);
  const uint64_t a = alloc(limited, mem, 3 * kMiB, on(1));
  const uint64_t a2 = alloc(limited, mem, 2 * kMiB, on(1));
  const uint64_t a3 = alloc(limited, mem, 20 * kMiB, on(1));
  EXPECT_EQ(limited.allocate(mem, 10 * kMiB, on(1), &out), Error::MemoryAllocation);
  for (uint64_t p : {a, a2, a3}) ASSERT_TRUE(limited.free(p, 1, 0));

  // The device is full of pool B's idle chunks: pool B's own allocation
  // trims them and succeeds.
  MemPool big;
  const uint64_t b = alloc(big, mem, 3 * kChunk, on(1));
  ASSERT_TRUE(big.free(b, 1, 0));
  // One chunk is still held by `limited`.
  EXPECT_EQ(big.allocate(mem, 3 * kChunk + kMiB, on(2, 0, 0), &out), Error::MemoryAllocation);
  limited.trim(mem, 0, 0);
  EXPECT_EQ(big.allocate(mem, 3 * kChunk + kMiB, on(2, 0, 0), &out), Error::Success);
  EXPECT_EQ(big.reserved(), 4 * kChunk);
  EXPECT_EQ(big.allocate(mem, 0, on(1), &out), Error::MemoryAllocation);  // callers handle 0
}

TEST(MemPoolTable, DefaultCurrentCreateDestroy) {
  functional::DeviceMemory mem;
  MemPoolTable t;
  MemPool* def = t.default_pool();
  EXPECT_EQ(t.current(), def);
  EXPECT_EQ(t.find(def), def);
  EXPECT_EQ(t.destroy(mem, def), Error::InvalidValue);  // the default pool cannot be destroyed
  MemPool* p = t.create(0);
  EXPECT_EQ(t.find(p), p);
  t.set_current(p);
  const uint64_t a = alloc(*p, mem, 1024, on(1));
  EXPECT_EQ(t.owner(a + 100), p);
  EXPECT_EQ(t.owner(12345), nullptr);
  // Destroyed with a live block: the handle goes, the memory stays until
  // the block is freed; the device's current pool is the default again.
  EXPECT_EQ(t.destroy(mem, p), Error::Success);
  EXPECT_EQ(t.current(), def);
  EXPECT_EQ(t.find(p), nullptr);
  EXPECT_EQ(t.destroy(mem, p), Error::InvalidValue);
  EXPECT_EQ(t.owner(a), p);
  EXPECT_TRUE(mem.allocation_at(a).has_value());
  EXPECT_TRUE(t.free(mem, p, a, 1, 0));
  EXPECT_FALSE(mem.allocation_at(a).has_value());
  EXPECT_EQ(t.owner(a), nullptr);
  EXPECT_EQ(mem.used_bytes(), 0u);
}

TEST(MemPoolTable, ReleaseAboveThresholds) {
  functional::DeviceMemory mem;
  MemPoolTable t;
  MemPool* keep = t.create(0);
  ASSERT_EQ(keep->set_attribute(PoolAttribute::ReleaseThreshold, ~uint64_t{0}), Error::Success);
  MemPool* def = t.default_pool();
  const uint64_t a = alloc(*def, mem, 1024, on(1));
  const uint64_t b = alloc(*keep, mem, 1024, on(1));
  ASSERT_TRUE(t.free(mem, def, a, 1, 5));
  ASSERT_TRUE(t.free(mem, keep, b, 1, 5));
  t.release_above_thresholds(mem, 1);  // frees not complete yet
  EXPECT_EQ(def->reserved(), kChunk);
  t.release_above_thresholds(mem, 5);
  EXPECT_EQ(def->reserved(), 0u);     // threshold 0: everything idle goes
  EXPECT_EQ(keep->reserved(), kChunk);  // threshold "infinite": kept
  t.trim_all(mem, 5);
  EXPECT_EQ(keep->reserved(), 0u);
}

// ---- the runtime -----------------------------------------------------------------------------

class PoolRuntimeTest : public ::testing::Test {
 protected:
  PoolRuntimeTest() : rt(13, SimConfig{}) {}
  uint64_t reserved(const void* pool) {
    uint64_t v = 0;
    EXPECT_EQ(rt.pool_get_attribute(pool, 5, &v), Error::Success);
    return v;
  }
  Runtime rt;
};

TEST_F(PoolRuntimeTest, MallocAsyncFreeAsyncAndSynchronisation) {
  void* pool = nullptr;
  ASSERT_EQ(rt.current_pool(&pool, 0), Error::Success);
  void* def = nullptr;
  ASSERT_EQ(rt.default_pool(&def, 0), Error::Success);
  EXPECT_EQ(pool, def);
  void* p = reinterpret_cast<void*>(1);
  EXPECT_EQ(rt.pool_malloc(&p, 0, nullptr, true, nullptr, false), Error::Success);
  EXPECT_EQ(p, nullptr);
  ASSERT_EQ(rt.pool_malloc(&p, 4096, nullptr, true, nullptr, false), Error::Success);
  EXPECT_EQ(reserved(def), kChunk);
  uint64_t free = 0, total = 0;
  ASSERT_EQ(rt.memory_info(&free, &total), Error::Success);
  EXPECT_EQ(total - free, kChunk);
  ASSERT_EQ(rt.pool_free(p, nullptr, false), Error::Success);
  EXPECT_EQ(rt.pool_free(p, nullptr, false), Error::InvalidValue);  // double free
  EXPECT_EQ(reserved(def), kChunk);  // until a synchronisation
  ASSERT_EQ(rt.stream_synchronize(nullptr, false), Error::Success);
  EXPECT_EQ(reserved(def), 0u);
  ASSERT_EQ(rt.memory_info(&free, &total), Error::Success);
  EXPECT_EQ(free, total);

  // cudaFree of pool memory, cudaFreeAsync of cudaMalloc memory, a foreign pointer.
  ASSERT_EQ(rt.pool_malloc(&p, 4096, nullptr, true, nullptr, false), Error::Success);
  EXPECT_EQ(rt.free_device(static_cast<char*>(p) + 256, true), Error::InvalidValue);
  EXPECT_EQ(rt.free_device(p, true), Error::Success);
  void* d = nullptr;
  ASSERT_EQ(rt.malloc_device(&d, 4096), Error::Success);
  EXPECT_EQ(rt.pool_free(d, nullptr, false), Error::Success);
  EXPECT_FALSE(rt.device().memory().allocation_at(reinterpret_cast<uint64_t>(d)).has_value());
  int host = 0;
  EXPECT_EQ(rt.pool_free(&host, nullptr, false), Error::InvalidValue);
  EXPECT_EQ(rt.pool_free(p, reinterpret_cast<void*>(0x1234), false),
            Error::InvalidResourceHandle);
  EXPECT_EQ(rt.pool_malloc(nullptr, 16, nullptr, true, nullptr, false), Error::InvalidValue);
  EXPECT_EQ(rt.pool_malloc(&p, 16, nullptr, false, nullptr, false), Error::InvalidValue);
  EXPECT_EQ(rt.pool_malloc(&p, uint64_t{1} << 50, nullptr, true, nullptr, false),
            Error::MemoryAllocation);
}

TEST_F(PoolRuntimeTest, CreatedPoolsPropsAccessAndDestroy) {
  Runtime::PoolProps props;
  void* pool = nullptr;
  Runtime::PoolProps bad = props;
  bad.alloc_type = 0;
  EXPECT_EQ(rt.pool_create(&pool, bad), Error::InvalidValue);
  bad = props;
  bad.location_type = 0;
  EXPECT_EQ(rt.pool_create(&pool, bad), Error::InvalidValue);
  bad.location_type = 4;  // HostNumaCurrent
  EXPECT_EQ(rt.pool_create(&pool, bad), Error::InvalidValue);
  bad = props;
  bad.location_id = 1;  // an H100 reports an invalid argument
  EXPECT_EQ(rt.pool_create(&pool, bad), Error::InvalidValue);
  bad = props;
  bad.handle_types = 0x40;
  EXPECT_EQ(rt.pool_create(&pool, bad), Error::InvalidValue);
  bad.handle_types = 0x2;  // Win32 on Linux
  EXPECT_EQ(rt.pool_create(&pool, bad), Error::NotSupported);
  bad = props;
  bad.win32_security = true;
  EXPECT_EQ(rt.pool_create(&pool, bad), Error::InvalidValue);
  props.handle_types = 0x1;  // POSIX file descriptors
  props.max_size = 4 * kMiB;
  ASSERT_EQ(rt.pool_create(&pool, props), Error::Success);

  void* p = nullptr;  // maxSize 4 MiB is rounded up to one chunk
  EXPECT_EQ(rt.pool_malloc(&p, kChunk + 1, pool, false, nullptr, false), Error::MemoryAllocation);
  ASSERT_EQ(rt.pool_malloc(&p, 1 * kMiB, pool, false, nullptr, false), Error::Success);

  Runtime::PoolAccess rw{1, 0, 3};
  EXPECT_EQ(rt.pool_set_access(pool, &rw, 1), Error::Success);
  Runtime::PoolAccess none{1, 0, 0};
  EXPECT_EQ(rt.pool_set_access(pool, &none, 1), Error::InvalidDevice);
  Runtime::PoolAccess other{1, 1, 3};
  EXPECT_EQ(rt.pool_set_access(pool, &other, 1), Error::InvalidDevice);
  Runtime::PoolAccess host{2, 0, 3};
  EXPECT_EQ(rt.pool_set_access(pool, &host, 1), Error::InvalidValue);
  EXPECT_EQ(rt.pool_set_access(pool, nullptr, 1), Error::InvalidValue);
  int flags = 0;
  ASSERT_EQ(rt.pool_get_access(&flags, pool, 1, 0), Error::Success);
  EXPECT_EQ(flags, 3);
  EXPECT_EQ(rt.pool_get_access(&flags, pool, 1, 3), Error::InvalidDevice);

  ASSERT_EQ(rt.set_current_pool(0, pool), Error::Success);
  EXPECT_EQ(rt.set_current_pool(1, pool), Error::InvalidValue);  // as an H100 reports it
  void* current = nullptr;
  ASSERT_EQ(rt.current_pool(&current, 0), Error::Success);
  EXPECT_EQ(current, pool);
  void* def = nullptr;
  ASSERT_EQ(rt.default_pool(&def, 0), Error::Success);
  EXPECT_EQ(rt.pool_destroy(def), Error::InvalidValue);
  ASSERT_EQ(rt.pool_destroy(pool), Error::Success);  // deferred: p is live
  ASSERT_EQ(rt.current_pool(&current, 0), Error::Success);
  EXPECT_EQ(current, def);
  uint64_t v = 0;
  EXPECT_EQ(rt.pool_get_attribute(pool, 5, &v), Error::InvalidValue);
  EXPECT_TRUE(rt.device().memory().allocation_at(reinterpret_cast<uint64_t>(p)).has_value());
  ASSERT_EQ(rt.pool_free(p, nullptr, false), Error::Success);
  EXPECT_FALSE(rt.device().memory().allocation_at(reinterpret_cast<uint64_t>(p)).has_value());
}

TEST_F(PoolRuntimeTest, ResetDropsThePools) {
  void* pool = nullptr;
  ASSERT_EQ(rt.pool_create(&pool, Runtime::PoolProps{}), Error::Success);
  void* p = nullptr;
  ASSERT_EQ(rt.pool_malloc(&p, 4096, pool, false, nullptr, false), Error::Success);
  ASSERT_EQ(rt.reset(), Error::Success);
  // The pool's memory went with the device (its handle is stale; like CUDA's,
  // a later pool may get the same one).
  EXPECT_EQ(rt.pool_free(p, nullptr, false), Error::InvalidValue);
  EXPECT_FALSE(rt.device().memory().allocation_at(reinterpret_cast<uint64_t>(p)).has_value());
  void* def = nullptr;
  ASSERT_EQ(rt.default_pool(&def, 0), Error::Success);
  EXPECT_EQ(reserved(def), 0u);
}


// Graph memory as an H100 with CUDA 13 accounts it (runtime_graph.cpp): nothing before the
// first launch, then 32 MiB chunks that stay mapped - used and reserved alike - until
// cudaDeviceGraphMemTrim gives back what live allocations do not need.
class GraphMemoryTest : public PoolRuntimeTest {
 protected:
  uint64_t attr(int a) {
    uint64_t v = 0;
    EXPECT_EQ(rt.graph_memory_attribute(a, &v, false), Error::Success);
    return v;
  }
  // A graph allocating `bytes` and, if `free_it`, freeing them again.
  Graph* alloc_graph(uint64_t bytes, bool free_it, uint64_t* address) {
    Graph* g = rt.graphs().create();
    GraphNode* alloc = nullptr;
    EXPECT_EQ(g->add(NodeType::MemAlloc, {}, &alloc), Error::Success);
    rt.graphs().added(alloc);
    EXPECT_EQ(rt.graph_memory_allocate(bytes, &alloc->alloc), Error::Success);
    *address = alloc->alloc->address;
    if (free_it) {
      GraphNode* fr = nullptr;
      EXPECT_EQ(g->add(NodeType::MemFree, std::vector<GraphNode*>{alloc}, &fr), Error::Success);
      rt.graphs().added(fr);
      fr->free_address = *address;
    }
    return g;
  }
};

TEST_F(GraphMemoryTest, MapsChunksAtTheFirstLaunchAndKeepsThemUntilTrimmed) {
  uint64_t a = 0;
  Graph* g = alloc_graph(4096, true, &a);
  EXPECT_EQ(attr(2), 0u);  // reserved: nothing at creation...
  GraphExec* exec = nullptr;
  ASSERT_EQ(rt.instantiate(&exec, *g, 0, nullptr), Error::Success);
  EXPECT_EQ(attr(2), 0u);  // ...or instantiation
  GraphExec* second = nullptr;  // one executable graph at a time
  EXPECT_EQ(rt.instantiate(&second, *g, 0, nullptr), Error::NotSupported);
  ASSERT_EQ(rt.launch_graph(*exec, nullptr, false), Error::Success);
  EXPECT_EQ(attr(0), kChunk);  // used
  EXPECT_EQ(attr(2), kChunk);  // reserved
  ASSERT_TRUE(rt.graphs().destroy_exec(exec));
  ASSERT_TRUE(rt.graphs().destroy(g));
  EXPECT_EQ(attr(0), kChunk);  // still mapped
  rt.graph_memory_trim();
  EXPECT_EQ(attr(0), 0u);
  EXPECT_EQ(attr(2), 0u);
  EXPECT_EQ(attr(1), kChunk);  // the high watermarks stay...
  EXPECT_EQ(attr(3), kChunk);
  uint64_t v = 0;
  ASSERT_EQ(rt.graph_memory_attribute(3, &v, true), Error::Success);
  EXPECT_EQ(attr(3), 0u);  // ...until reset to the current value
  v = 1;
  EXPECT_EQ(rt.graph_memory_attribute(3, &v, true), Error::InvalidValue);
  EXPECT_EQ(rt.graph_memory_attribute(2, &v, true), Error::InvalidValue);
  // Another exec of a destroyed one's graph is fine again.
  g = alloc_graph(40 * kMiB, true, &a);
  ASSERT_EQ(rt.instantiate(&exec, *g, 0, nullptr), Error::Success);
  ASSERT_EQ(rt.launch_graph(*exec, nullptr, false), Error::Success);
  EXPECT_EQ(attr(2), 2 * kChunk);  // 40 MiB: two chunks
}

TEST_F(GraphMemoryTest, ALiveAllocationKeepsItsChunkThroughATrim) {
  uint64_t a = 0;
  Graph* g = alloc_graph(4096, false, &a);
  GraphExec* exec = nullptr;
  ASSERT_EQ(rt.instantiate(&exec, *g, 0, nullptr), Error::Success);
  ASSERT_EQ(rt.launch_graph(*exec, nullptr, false), Error::Success);
  rt.graph_memory_trim();
  EXPECT_EQ(attr(2), kChunk);
  EXPECT_EQ(rt.launch_graph(*exec, nullptr, false), Error::InvalidValue);  // not freed yet
  ASSERT_EQ(rt.free_device(reinterpret_cast<void*>(a), true), Error::Success);
  EXPECT_EQ(attr(2), kChunk);
  rt.graph_memory_trim();
  EXPECT_EQ(attr(2), 0u);
  ASSERT_EQ(rt.reset(), Error::Success);
  EXPECT_EQ(attr(3), 0u);  // a reset forgets the watermarks
}

}  // namespace
}  // namespace warpsim::cudart
