// mem_pool.cu - stream-ordered allocation and memory pools, plus unified-memory hints.
//
// Covers:
//  - the default pool: cudaDeviceGetDefaultMemPool == cudaDeviceGetMemPool, cudaMallocAsync +
//    kernels + cudaFreeAsync, the same address coming back after a free in the same stream,
//    UsedMemCurrent/High, ReservedMemCurrent in 2 MiB units (32 MiB on an H100), memory given back at
//    cudaStreamSynchronize (release threshold 0) and kept with a high threshold,
//    cudaMemPoolTrimTo, cudaMemGetInfo following the reserved memory;
//  - attributes: reuse switches (default on), release threshold, resetting the *High ones,
//    read-only *Current ones, unknown attribute;
//  - a created pool: cudaMemPoolCreate, cudaMallocFromPoolAsync, cudaMemPoolSetAccess /
//    GetAccess, cudaDeviceSetMemPool / GetMemPool (cudaMallocAsync then uses it), reuse across
//    streams with the reuse switches off, cudaMemPoolDestroy with a live allocation (deferred),
//    maxSize exhaustion (CUDA 12.2+; maxSize is rounded up to the reservation granularity);
//  - errors: bad pool properties, destroying the default pool, cudaFreeAsync of a host pointer,
//    double free, pool exhaustion (more than cudaMemGetInfo's total), a NULL result pointer;
//    cudaFreeAsync of cudaMalloc memory and cudaFree of pool memory are allowed;
//  - CUDA 13's cudaMemGetDefaultMemPool / cudaMemGetMemPool / cudaMemSetMemPool;
//  - cudaMemAdvise / cudaMemPrefetchAsync on managed memory read back with
//    cudaMemRangeGetAttribute; prefetch and advice on device memory (cudaErrorInvalidValue);
//  - a kernel reading pool memory after it went back to the device: cudaErrorIllegalAddress,
//    then (on warpsim only, see cuda_check.h) cudaDeviceReset and a working default pool.
//
// Build: nvcc -cudart shared -o mem_pool mem_pool.cu
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <cuda_runtime.h>

#define TEST_NAME "mem_pool"
#include "cuda_check.h"

static const size_t kMiB = 1 << 20;

__global__ void fill(int* p, int n, int base) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = base + i;
}

__global__ void add(int* p, int n, int v) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] += v;
}

__global__ void read_first(const int* p, int* out) { *out = p[0]; }

static unsigned long long attr(cudaMemPool_t pool, cudaMemPoolAttr a) {
  unsigned long long v = 0;
  CHECK(cudaMemPoolGetAttribute(pool, a, &v));
  return v;
}

static int reuse_switch(cudaMemPool_t pool, cudaMemPoolAttr a) {
  int v = -1;
  CHECK(cudaMemPoolGetAttribute(pool, a, &v));
  return v;
}

static void set_reuse(cudaMemPool_t pool, int on) {
  CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolReuseFollowEventDependencies, &on));
  CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolReuseAllowOpportunistic, &on));
  CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolReuseAllowInternalDependencies, &on));
}

// Writes base + i into n ints on `s` and checks them on the host.
static void check_usable(const char* what, int* d, int n, int base, cudaStream_t s) {
  fill<<<(n + 255) / 256, 256, 0, s>>>(d, n, base);
  CHECK(cudaGetLastError());
  add<<<(n + 255) / 256, 256, 0, s>>>(d, n, 7);
  CHECK(cudaGetLastError());
  int* h = (int*)malloc(n * sizeof(int));
  CHECK(cudaMemcpyAsync(h, d, n * sizeof(int), cudaMemcpyDeviceToHost, s));
  CHECK(cudaStreamSynchronize(s));
  for (int i = 0; i < n; ++i)
    if (h[i] != base + i + 7)
      FAIL("%s: index %d: got %d, expected %d", what, i, h[i], base + i + 7);
  free(h);
}

static cudaMemPoolProps device_props() {
  cudaMemPoolProps props;
  memset(&props, 0, sizeof props);
  props.allocType = cudaMemAllocationTypePinned;
  props.handleTypes = cudaMemHandleTypeNone;
  props.location.type = cudaMemLocationTypeDevice;
  props.location.id = 0;
  return props;
}

static void test_default_pool(cudaStream_t s) {
  cudaMemPool_t def = nullptr, cur = nullptr;
  CHECK(cudaDeviceGetDefaultMemPool(&def, 0));
  CHECK(cudaDeviceGetMemPool(&cur, 0));
  EXPECT(def != nullptr && def == cur, "default pool %p, current pool %p", (void*)def, (void*)cur);
  CHECK_FAILS(cudaDeviceGetDefaultMemPool(&def, 1), cudaErrorInvalidDevice);
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaMemPoolTrimTo(def, 0));
  EXPECT(attr(def, cudaMemPoolAttrReservedMemCurrent) == 0, "reserved at start: %llu",
         attr(def, cudaMemPoolAttrReservedMemCurrent));
  EXPECT(attr(def, cudaMemPoolAttrReleaseThreshold) == 0, "default release threshold %llu",
         attr(def, cudaMemPoolAttrReleaseThreshold));
  size_t free0 = 0, total = 0;
  CHECK(cudaMemGetInfo(&free0, &total));

  const int n = (int)(kMiB / sizeof(int));
  int* a = nullptr;
  CHECK(cudaMallocAsync((void**)&a, kMiB, s));
  EXPECT(a != nullptr && ((size_t)a & 255) == 0, "cudaMallocAsync returned %p", (void*)a);
  check_usable("default pool block", a, n, 100, s);
  const unsigned long long reserved = attr(def, cudaMemPoolAttrReservedMemCurrent);
  EXPECT(reserved >= kMiB && reserved % (2 * kMiB) == 0, "reserved %llu for 1 MiB", reserved);
  EXPECT(attr(def, cudaMemPoolAttrUsedMemCurrent) == kMiB, "used %llu",
         attr(def, cudaMemPoolAttrUsedMemCurrent));
  size_t free1 = 0;
  CHECK(cudaMemGetInfo(&free1, &total));
  EXPECT(free1 + reserved <= free0 + 0, "cudaMemGetInfo free %zu -> %zu with %llu reserved", free0,
         free1, reserved);

  // Freed in the stream, the block goes back to the pool and the next
  // allocation of the same stream gets it again.
  CHECK(cudaFreeAsync(a, s));
  EXPECT(attr(def, cudaMemPoolAttrUsedMemCurrent) == 0, "used after free %llu",
         attr(def, cudaMemPoolAttrUsedMemCurrent));
  int* b = nullptr;
  CHECK(cudaMallocAsync((void**)&b, kMiB, s));
  EXPECT(b == a, "same-stream reuse: %p after freeing %p", (void*)b, (void*)a);
  check_usable("reused block", b, n, -5, s);
  EXPECT(attr(def, cudaMemPoolAttrUsedMemHigh) == kMiB, "used high %llu",
         attr(def, cudaMemPoolAttrUsedMemHigh));
  CHECK(cudaFreeAsync(b, s));
  // Release threshold 0: the memory goes back at the synchronisation.
  CHECK(cudaStreamSynchronize(s));
  EXPECT(attr(def, cudaMemPoolAttrReservedMemCurrent) == 0, "reserved after sync %llu",
         attr(def, cudaMemPoolAttrReservedMemCurrent));
  size_t free2 = 0;
  CHECK(cudaMemGetInfo(&free2, &total));
  EXPECT(free2 == free0, "cudaMemGetInfo free %zu after the pool released, %zu before", free2,
         free0);

  // A high threshold keeps it; cudaMemPoolTrimTo gives it back.
  unsigned long long keep_all = ~0ull;
  CHECK(cudaMemPoolSetAttribute(def, cudaMemPoolAttrReleaseThreshold, &keep_all));
  EXPECT(attr(def, cudaMemPoolAttrReleaseThreshold) == keep_all, "threshold not set");
  CHECK(cudaMallocAsync((void**)&a, 4 * kMiB, s));
  CHECK(cudaFreeAsync(a, s));
  CHECK(cudaStreamSynchronize(s));
  EXPECT(attr(def, cudaMemPoolAttrReservedMemCurrent) >= 4 * kMiB, "threshold ignored: %llu",
         attr(def, cudaMemPoolAttrReservedMemCurrent));
  CHECK(cudaMallocAsync((void**)&b, 4 * kMiB, s));
  EXPECT(b == a, "reuse after a synchronisation: %p, freed %p", (void*)b, (void*)a);
  CHECK(cudaFreeAsync(b, s));
  CHECK(cudaStreamSynchronize(s));
  // Keeps more than it has: nothing happens. (Not ~0: an H100 with CUDA 13 releases everything
  // for that value, as if it wrapped around.)
  CHECK(cudaMemPoolTrimTo(def, (size_t)1 << 40));
  EXPECT(attr(def, cudaMemPoolAttrReservedMemCurrent) >= 4 * kMiB, "trim to a huge size released");
  CHECK(cudaMemPoolTrimTo(def, 0));
  EXPECT(attr(def, cudaMemPoolAttrReservedMemCurrent) == 0, "reserved after trim %llu",
         attr(def, cudaMemPoolAttrReservedMemCurrent));
  unsigned long long zero = 0;
  CHECK(cudaMemPoolSetAttribute(def, cudaMemPoolAttrReleaseThreshold, &zero));

  // Zero bytes: success and no memory (as cudaMalloc(&p, 0)).
  void* z = (void*)1;
  CHECK(cudaMallocAsync(&z, 0, s));
  EXPECT(z == nullptr, "cudaMallocAsync of 0 bytes returned %p", z);
}

static void test_attributes() {
  cudaMemPool_t def = nullptr;
  CHECK(cudaDeviceGetDefaultMemPool(&def, 0));
  EXPECT(reuse_switch(def, cudaMemPoolReuseFollowEventDependencies) == 1, "follow events off");
  EXPECT(reuse_switch(def, cudaMemPoolReuseAllowOpportunistic) == 1, "opportunistic off");
  EXPECT(reuse_switch(def, cudaMemPoolReuseAllowInternalDependencies) == 1, "internal deps off");
  int off = 0;
  CHECK(cudaMemPoolSetAttribute(def, cudaMemPoolReuseAllowOpportunistic, &off));
  EXPECT(reuse_switch(def, cudaMemPoolReuseAllowOpportunistic) == 0, "opportunistic still on");
  int on = 1;
  CHECK(cudaMemPoolSetAttribute(def, cudaMemPoolReuseAllowOpportunistic, &on));

  unsigned long long v = 0;
  CHECK_FAILS(cudaMemPoolSetAttribute(def, cudaMemPoolAttrUsedMemCurrent, &v),
              cudaErrorInvalidValue);
  CHECK_FAILS(cudaMemPoolSetAttribute(def, cudaMemPoolAttrReservedMemCurrent, &v),
              cudaErrorInvalidValue);
  v = 4096;
  CHECK_FAILS(cudaMemPoolSetAttribute(def, cudaMemPoolAttrUsedMemHigh, &v), cudaErrorInvalidValue);
  CHECK_FAILS(cudaMemPoolSetAttribute(def, cudaMemPoolAttrReservedMemHigh, &v),
              cudaErrorInvalidValue);
  CHECK_FAILS(cudaMemPoolGetAttribute(def, (cudaMemPoolAttr)99, &v), cudaErrorInvalidValue);
  CHECK_FAILS(cudaMemPoolGetAttribute(def, cudaMemPoolAttrUsedMemHigh, nullptr),
              cudaErrorInvalidValue);

  // Resetting a high watermark brings it down to the current value.
  v = 0;
  CHECK(cudaMemPoolSetAttribute(def, cudaMemPoolAttrUsedMemHigh, &v));
  EXPECT(attr(def, cudaMemPoolAttrUsedMemHigh) == attr(def, cudaMemPoolAttrUsedMemCurrent),
         "used high %llu after reset, current %llu", attr(def, cudaMemPoolAttrUsedMemHigh),
         attr(def, cudaMemPoolAttrUsedMemCurrent));
  int* a = nullptr;
  int* b = nullptr;
  CHECK(cudaMallocAsync((void**)&a, 2 * kMiB, 0));
  CHECK(cudaMallocAsync((void**)&b, 2 * kMiB, 0));
  CHECK(cudaFreeAsync(b, 0));
  EXPECT(attr(def, cudaMemPoolAttrUsedMemHigh) == 4 * kMiB, "used high %llu",
         attr(def, cudaMemPoolAttrUsedMemHigh));
  v = 0;
  CHECK(cudaMemPoolSetAttribute(def, cudaMemPoolAttrUsedMemHigh, &v));
  EXPECT(attr(def, cudaMemPoolAttrUsedMemHigh) == 2 * kMiB, "used high after reset %llu",
         attr(def, cudaMemPoolAttrUsedMemHigh));
  CHECK(cudaFreeAsync(a, 0));
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaMemPoolSetAttribute(def, cudaMemPoolAttrReservedMemHigh, &v));
  EXPECT(attr(def, cudaMemPoolAttrReservedMemHigh) == attr(def, cudaMemPoolAttrReservedMemCurrent),
         "reserved high %llu after reset, current %llu", attr(def, cudaMemPoolAttrReservedMemHigh),
         attr(def, cudaMemPoolAttrReservedMemCurrent));
}

static void test_created_pool(cudaStream_t s) {
  cudaMemPoolProps props = device_props();
  cudaMemPool_t pool = nullptr;
  CHECK(cudaMemPoolCreate(&pool, &props));
  cudaMemPool_t def = nullptr;
  CHECK(cudaDeviceGetDefaultMemPool(&def, 0));
  EXPECT(pool != def, "a created pool is the default pool");

  const int n = 50000;
  int* a = nullptr;
  CHECK(cudaMallocFromPoolAsync((void**)&a, n * sizeof(int), pool, s));
  check_usable("cudaMallocFromPoolAsync block", a, n, 1000, s);
  EXPECT(attr(pool, cudaMemPoolAttrUsedMemCurrent) >= n * sizeof(int), "pool used %llu",
         attr(pool, cudaMemPoolAttrUsedMemCurrent));
  cudaPointerAttributes pa;
  memset(&pa, 0, sizeof pa);
  CHECK(cudaPointerGetAttributes(&pa, a));
  EXPECT(pa.type == cudaMemoryTypeDevice && pa.device == 0, "pointer attributes type %d device %d",
         (int)pa.type, pa.device);

  // Access: device 0 owns the pool and always has read-write access.
  cudaMemLocation loc;
  memset(&loc, 0, sizeof loc);
  loc.type = cudaMemLocationTypeDevice;
  loc.id = 0;
  cudaMemAccessFlags flags = cudaMemAccessFlagsProtNone;
  CHECK(cudaMemPoolGetAccess(&flags, pool, &loc));
  EXPECT(flags == cudaMemAccessFlagsProtReadWrite, "access flags %d", (int)flags);
  cudaMemAccessDesc desc;
  memset(&desc, 0, sizeof desc);
  desc.location = loc;
  desc.flags = cudaMemAccessFlagsProtReadWrite;
  CHECK(cudaMemPoolSetAccess(pool, &desc, 1));
  desc.flags = cudaMemAccessFlagsProtNone;
  CHECK_FAILS(cudaMemPoolSetAccess(pool, &desc, 1), cudaErrorInvalidDevice);
  desc.flags = cudaMemAccessFlagsProtReadWrite;
  desc.location.id = 1;
  CHECK_FAILS(cudaMemPoolSetAccess(pool, &desc, 1), cudaErrorInvalidDevice);

  // The device's current pool serves cudaMallocAsync.
  CHECK(cudaDeviceSetMemPool(0, pool));
  cudaMemPool_t cur = nullptr;
  CHECK(cudaDeviceGetMemPool(&cur, 0));
  EXPECT(cur == pool, "cudaDeviceGetMemPool %p, set %p", (void*)cur, (void*)pool);
  const unsigned long long used_before = attr(pool, cudaMemPoolAttrUsedMemCurrent);
  int* b = nullptr;
  CHECK(cudaMallocAsync((void**)&b, kMiB, s));
  EXPECT(attr(pool, cudaMemPoolAttrUsedMemCurrent) == used_before + kMiB,
         "cudaMallocAsync did not use the current pool");
  CHECK(cudaFreeAsync(b, s));
  CHECK_FAILS(cudaDeviceSetMemPool(1, pool), cudaErrorInvalidValue);  // as an H100 reports it

  // Reuse across streams with every reuse switch off: a block freed in a
  // busy stream is not handed to an unrelated stream, only to its own.
  set_reuse(pool, 0);
  cudaStream_t s2;
  CHECK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
  int* c = nullptr;
  CHECK(cudaMallocFromPoolAsync((void**)&c, kMiB, pool, s));
  fill<<<64, 256, 0, s>>>(c, 64 * 256, 0);
  CHECK(cudaGetLastError());
  CHECK(cudaFreeAsync(c, s));
  int* other = nullptr;
  CHECK(cudaMallocFromPoolAsync((void**)&other, kMiB, pool, s2));
  EXPECT(other != c, "reuse across streams with all reuse switches off (%p)", (void*)c);
  int* again = nullptr;
  CHECK(cudaMallocFromPoolAsync((void**)&again, kMiB, pool, s));
  EXPECT(again == c, "same-stream reuse: %p, freed %p", (void*)again, (void*)c);
  CHECK(cudaFreeAsync(other, s2));
  CHECK(cudaFreeAsync(again, s));
  CHECK(cudaStreamSynchronize(s2));
  CHECK(cudaStreamDestroy(s2));
  set_reuse(pool, 1);

  // Destroying a pool with a live allocation: it returns at once, the
  // allocation stays usable until freed; the default pool is current again.
  CHECK(cudaMemPoolDestroy(pool));
  CHECK(cudaDeviceGetMemPool(&cur, 0));
  EXPECT(cur == def, "current pool after destroying it: %p (default %p)", (void*)cur, (void*)def);
  check_usable("block of a destroyed pool", a, n, 77, s);
  CHECK(cudaFreeAsync(a, s));
  CHECK(cudaStreamSynchronize(s));

#if CUDART_VERSION >= 12020
  // maxSize bounds the pool, rounded up to the reservation granularity (an H100: 32 MiB).
  props = device_props();
  props.maxSize = 4 * kMiB;
  CHECK(cudaMemPoolCreate(&pool, &props));
  int* c2 = nullptr;
  CHECK(cudaMallocFromPoolAsync((void**)&a, 3 * kMiB, pool, s));
  CHECK(cudaMallocFromPoolAsync((void**)&b, 2 * kMiB, pool, s));
  CHECK(cudaMallocFromPoolAsync((void**)&c2, 20 * kMiB, pool, s));
  int* d2 = nullptr;
  CHECK_FAILS(cudaMallocFromPoolAsync((void**)&d2, 10 * kMiB, pool, s), cudaErrorMemoryAllocation);
  CHECK(cudaFreeAsync(a, s));
  CHECK(cudaFreeAsync(b, s));
  CHECK(cudaFreeAsync(c2, s));
  CHECK(cudaStreamSynchronize(s));
  CHECK(cudaMemPoolDestroy(pool));
#endif
}

static void test_errors(cudaStream_t s) {
  cudaMemPool_t pool = nullptr;
  cudaMemPoolProps props = device_props();
  props.allocType = cudaMemAllocationTypeInvalid;
  CHECK_FAILS(cudaMemPoolCreate(&pool, &props), cudaErrorInvalidValue);
  props = device_props();
  props.location.type = cudaMemLocationTypeInvalid;
  CHECK_FAILS(cudaMemPoolCreate(&pool, &props), cudaErrorInvalidValue);
  props = device_props();
  props.location.id = 5;  // an invalid argument, not cudaErrorInvalidDevice (an H100)
  CHECK_FAILS(cudaMemPoolCreate(&pool, &props), cudaErrorInvalidValue);
  props = device_props();
  props.handleTypes = (cudaMemAllocationHandleType)0x40;
  CHECK_FAILS(cudaMemPoolCreate(&pool, &props), cudaErrorInvalidValue);
  CHECK_FAILS(cudaMemPoolCreate(&pool, nullptr), cudaErrorInvalidValue);
  props = device_props();
  props.handleTypes = cudaMemHandleTypePosixFileDescriptor;  // IPC-capable pool
  CHECK(cudaMemPoolCreate(&pool, &props));
  CHECK(cudaMemPoolDestroy(pool));

  cudaMemPool_t def = nullptr;
  CHECK(cudaDeviceGetDefaultMemPool(&def, 0));
  CHECK_FAILS(cudaMemPoolDestroy(def), cudaErrorInvalidValue);

  // Frees: a host pointer, a double free; cudaMalloc memory may go through
  // cudaFreeAsync, pool memory through cudaFree.
  int host[4] = {0, 0, 0, 0};
  CHECK_FAILS(cudaFreeAsync(host, s), cudaErrorInvalidValue);
  int* p = nullptr;
  CHECK(cudaMallocAsync((void**)&p, 4096, s));
  CHECK(cudaFreeAsync(p, s));
  CHECK_FAILS(cudaFreeAsync(p, s), cudaErrorInvalidValue);
  CHECK(cudaMalloc((void**)&p, 4096));
  CHECK(cudaFreeAsync(p, s));
  CHECK(cudaStreamSynchronize(s));
  CHECK(cudaMallocAsync((void**)&p, 4096, s));
  CHECK(cudaFree(p));

  // More than the device has.
  size_t free_bytes = 0, total = 0;
  CHECK(cudaMemGetInfo(&free_bytes, &total));
  CHECK_FAILS(cudaMallocAsync((void**)&p, total + 2 * kMiB, s), cudaErrorMemoryAllocation);
  CHECK_FAILS(cudaMallocAsync(nullptr, 16, s), cudaErrorInvalidValue);
  CHECK(cudaStreamSynchronize(s));
}

#if CUDART_VERSION >= 13000
static void test_location_pools() {
  cudaMemLocation loc;
  memset(&loc, 0, sizeof loc);
  loc.type = cudaMemLocationTypeDevice;
  loc.id = 0;
  cudaMemPool_t def = nullptr, by_loc = nullptr, cur = nullptr;
  CHECK(cudaDeviceGetDefaultMemPool(&def, 0));
  CHECK(cudaMemGetDefaultMemPool(&by_loc, &loc, cudaMemAllocationTypePinned));
  EXPECT(by_loc == def, "cudaMemGetDefaultMemPool %p, device default %p", (void*)by_loc,
         (void*)def);
  cudaMemPoolProps props = device_props();
  cudaMemPool_t pool = nullptr;
  CHECK(cudaMemPoolCreate(&pool, &props));
  CHECK(cudaMemSetMemPool(&loc, cudaMemAllocationTypePinned, pool));
  CHECK(cudaMemGetMemPool(&cur, &loc, cudaMemAllocationTypePinned));
  EXPECT(cur == pool, "cudaMemGetMemPool %p, set %p", (void*)cur, (void*)pool);
  CHECK(cudaDeviceGetMemPool(&cur, 0));
  EXPECT(cur == pool, "cudaDeviceGetMemPool %p after cudaMemSetMemPool %p", (void*)cur,
         (void*)pool);
  CHECK(cudaMemPoolDestroy(pool));
  loc.id = 3;  // an invalid argument, not cudaErrorInvalidDevice (an H100)
  CHECK_FAILS(cudaMemGetDefaultMemPool(&by_loc, &loc, cudaMemAllocationTypePinned),
              cudaErrorInvalidValue);
  loc.id = 0;
  CHECK_FAILS(cudaMemGetMemPool(&cur, &loc, cudaMemAllocationTypeInvalid), cudaErrorInvalidValue);
  CHECK_FAILS(cudaMemGetMemPool(&cur, nullptr, cudaMemAllocationTypePinned),
              cudaErrorInvalidValue);
}

static cudaMemLocation location(cudaMemLocationType type, int id) {
  cudaMemLocation loc;
  memset(&loc, 0, sizeof loc);
  loc.type = type;
  loc.id = id;
  return loc;
}
#define ADVISE(ptr, bytes, advice, dev)                                                  \
  cudaMemAdvise((ptr), (bytes), (advice),                                                \
                (dev) < 0 ? location(cudaMemLocationTypeHost, 0)                         \
                          : location(cudaMemLocationTypeDevice, (dev)))
#define PREFETCH(ptr, bytes, dev, s)                                                     \
  cudaMemPrefetchAsync((ptr), (bytes),                                                   \
                       (dev) < 0 ? location(cudaMemLocationTypeHost, 0)                  \
                                 : location(cudaMemLocationTypeDevice, (dev)),           \
                       0, (s))
#else
#define ADVISE(ptr, bytes, advice, dev) cudaMemAdvise((ptr), (bytes), (advice), (dev))
#define PREFETCH(ptr, bytes, dev, s) cudaMemPrefetchAsync((ptr), (bytes), (dev), (s))
#endif

static int range_attr(const void* p, size_t bytes, cudaMemRangeAttribute a) {
  int v = -100;
  CHECK(cudaMemRangeGetAttribute(&v, sizeof v, a, p, bytes));
  return v;
}

static void test_managed_hints(cudaStream_t s) {
  int concurrent = 0;
  CHECK(cudaDeviceGetAttribute(&concurrent, cudaDevAttrConcurrentManagedAccess, 0));
  if (!concurrent) {
    printf("note: cudaDevAttrConcurrentManagedAccess = 0, advice/prefetch part skipped\n");
    return;
  }
  const size_t bytes = 256 * 1024;
  char* m = nullptr;
  CHECK(cudaMallocManaged((void**)&m, bytes, cudaMemAttachGlobal));
  EXPECT(range_attr(m, bytes, cudaMemRangeAttributePreferredLocation) == cudaInvalidDeviceId,
         "preferred location before advice: %d",
         range_attr(m, bytes, cudaMemRangeAttributePreferredLocation));
  CHECK(ADVISE(m, bytes, cudaMemAdviseSetPreferredLocation, 0));
  EXPECT(range_attr(m, bytes, cudaMemRangeAttributePreferredLocation) == 0,
         "preferred location %d", range_attr(m, bytes, cudaMemRangeAttributePreferredLocation));
  // Half the range preferring the host: the whole range has no single answer.
  CHECK(ADVISE(m, bytes / 2, cudaMemAdviseSetPreferredLocation, cudaCpuDeviceId));
  EXPECT(range_attr(m, bytes / 2, cudaMemRangeAttributePreferredLocation) == cudaCpuDeviceId,
         "host-preferred half: %d",
         range_attr(m, bytes / 2, cudaMemRangeAttributePreferredLocation));
  EXPECT(range_attr(m, bytes, cudaMemRangeAttributePreferredLocation) == cudaInvalidDeviceId,
         "mixed preferred location: %d",
         range_attr(m, bytes, cudaMemRangeAttributePreferredLocation));
#if CUDART_VERSION >= 12020
  EXPECT(range_attr(m + bytes / 2, bytes / 2, cudaMemRangeAttributePreferredLocationType) ==
             cudaMemLocationTypeDevice,
         "preferred location type %d",
         range_attr(m + bytes / 2, bytes / 2, cudaMemRangeAttributePreferredLocationType));
#endif
  CHECK(ADVISE(m, bytes, cudaMemAdviseSetAccessedBy, 0));
  int accessed[2] = {-100, -100};
  CHECK(cudaMemRangeGetAttribute(accessed, sizeof accessed, cudaMemRangeAttributeAccessedBy, m,
                                 bytes));
  EXPECT(accessed[0] == 0 && accessed[1] == cudaInvalidDeviceId, "accessed by %d %d", accessed[0],
         accessed[1]);

  CHECK(PREFETCH(m, bytes, 0, s));
  CHECK(cudaStreamSynchronize(s));
  EXPECT(range_attr(m, bytes, cudaMemRangeAttributeLastPrefetchLocation) == 0,
         "last prefetch location %d",
         range_attr(m, bytes, cudaMemRangeAttributeLastPrefetchLocation));
  CHECK(PREFETCH(m, bytes, cudaCpuDeviceId, s));
  CHECK(cudaStreamSynchronize(s));
  EXPECT(range_attr(m, bytes, cudaMemRangeAttributeLastPrefetchLocation) == cudaCpuDeviceId,
         "last prefetch location %d",
         range_attr(m, bytes, cudaMemRangeAttributeLastPrefetchLocation));

  // Device (pool and cudaMalloc) memory is not managed: no prefetch, no advice.
  int* d = nullptr;
  CHECK(cudaMallocAsync((void**)&d, 4096, s));
  CHECK_FAILS(PREFETCH(d, 4096, 0, s), cudaErrorInvalidValue);
  CHECK_FAILS(ADVISE(d, 4096, cudaMemAdviseSetReadMostly, 0), cudaErrorInvalidValue);
  CHECK(cudaFreeAsync(d, s));
  CHECK(cudaStreamSynchronize(s));
  CHECK(cudaFree(m));
}

// Memory the pool gave back to the device is gone: a kernel reading it
// faults, as after cudaFree. cudaDeviceReset recovers.
static void test_use_after_release(cudaStream_t s) {
  int* p = nullptr;
  CHECK(cudaMallocAsync((void**)&p, kMiB, s));
  CHECK(cudaFreeAsync(p, s));
  CHECK(cudaStreamSynchronize(s));  // release threshold 0: the chunk goes back
  int* out = nullptr;
  CHECK(cudaMalloc((void**)&out, sizeof(int)));
  read_first<<<1, 1, 0, s>>>(p, out);
  CHECK_RET(cudaStreamSynchronize(s), cudaErrorIllegalAddress);
  if (!on_warpsim()) {
    note_skipped_on_gpu("recovery by cudaDeviceReset");
    return;
  }
  CHECK_RET(cudaDeviceReset(), cudaSuccess);
  (void)cudaGetLastError();  // the fault stays the thread's last error until read
  cudaMemPool_t def = nullptr;
  CHECK(cudaDeviceGetDefaultMemPool(&def, 0));
  EXPECT(attr(def, cudaMemPoolAttrReservedMemCurrent) == 0, "default pool after reset holds %llu",
         attr(def, cudaMemPoolAttrReservedMemCurrent));
  CHECK(cudaMallocAsync((void**)&p, 4096, 0));
  check_usable("pool memory after reset", p, 1024, 3, 0);
  CHECK(cudaFreeAsync(p, 0));
  CHECK(cudaDeviceSynchronize());
}

int main() {
  CHECK(cudaSetDevice(0));
  int pools = 0;
  CHECK(cudaDeviceGetAttribute(&pools, cudaDevAttrMemoryPoolsSupported, 0));
  EXPECT(pools == 1, "cudaDevAttrMemoryPoolsSupported = %d", pools);
  cudaStream_t s;
  CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  test_default_pool(s);
  test_attributes();
  test_created_pool(s);
  test_errors(s);
#if CUDART_VERSION >= 13000
  test_location_pools();
#endif
  test_managed_hints(s);
  test_use_after_release(s);  // resets the device: last
  return report_pass();
}
