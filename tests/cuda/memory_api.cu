// memory_api.cu - memory management part of the CUDA runtime API.
//
// Covers:
//  - cudaMalloc of 0 bytes, an impossible cudaMalloc (cudaErrorMemoryAllocation, reported once
//    by cudaGetLastError, then cleared), cudaFree(nullptr), cudaFree of a host pointer / of a
//    pointer into the middle of an allocation / twice (errors), cudaMemGetInfo accounting;
//  - pinned host memory: cudaMallocHost/cudaFreeHost, cudaHostAlloc(Mapped|Portable) +
//    cudaHostGetDevicePointer + a kernel writing through the mapped pointer,
//    cudaHostRegister/cudaHostGetDevicePointer/cudaHostUnregister on an ordinary host buffer;
//  - managed memory: cudaMallocManaged, host init -> kernel -> host read, cudaMemPrefetchAsync
//    (CUDA 13 cudaMemLocation signature, int-device signature before);
//  - cudaMemcpy in every direction (H2D, D2H, D2D, H2H and cudaMemcpyDefault inferring each),
//    an invalid cudaMemcpyKind (cudaErrorInvalidMemcpyDirection), cudaMemset/cudaMemsetAsync;
//  - pitched memory: cudaMallocPitch, cudaMemcpy2D H2D/D2D/D2H with different pitches,
//    cudaMemset2D on a sub-rectangle, cudaMemcpy2DAsync; cudaMalloc3D + cudaMemcpy3D both ways
//    with a kernel addressing the pitched 3D array;
//  - cudaPointerGetAttributes for device, managed, pinned, registered and plain malloc memory;
//  - stream-ordered allocation: cudaMallocAsync / kernel / cudaFreeAsync on one stream.
//
// Build: nvcc -cudart shared -o memory_api memory_api.cu
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <cuda_runtime.h>

#define TEST_NAME "memory_api"
#include "cuda_check.h"

// check_ints with the values also in hex (the data includes cudaMemset byte patterns).
static void check_ints_hex(const char* what, const int* got, const int* want, size_t n) {
  for (size_t i = 0; i < n; ++i)
    if (got[i] != want[i])
      FAIL("%s: first mismatch at index %zu: got %d (%#x), expected %d (%#x)", what, i, got[i],
           (unsigned)got[i], want[i], (unsigned)want[i]);
}

__global__ void write_seq(int* p, int n, int base) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = base + i;
}

__global__ void scale_add(int* p, int n, int mul, int add) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = p[i] * mul + add;
}

// One block per z-slice, one thread per (x, y) of the slice.
__global__ void touch_3d(cudaPitchedPtr pp, int w, int h, int d) {
  int x = threadIdx.x, y = threadIdx.y, z = blockIdx.x;
  if (x >= w || y >= h || z >= d) return;
  char* slice = (char*)pp.ptr + (size_t)z * pp.pitch * h;
  int* row = (int*)(slice + (size_t)y * pp.pitch);
  row[x] += z * 10000 + y * 100 + x;
}

static int blocks_for(int n) { return (n + 127) / 128; }

static void test_alloc_errors() {
  // Zero-byte allocation succeeds; freeing whatever it returned succeeds.
  void* p0 = nullptr;
  CHECK(cudaMalloc(&p0, 0));
  CHECK(cudaFree(p0));

  // Impossible allocation (1 PiB): cudaErrorMemoryAllocation, non-sticky.
  void* huge = nullptr;
  CHECK_FAILS(cudaMalloc(&huge, (size_t)1 << 50), cudaErrorMemoryAllocation);

  // cudaFree(0) is documented as a no-op.
  CHECK(cudaFree(nullptr));

  // cudaFree "returns cudaErrorInvalidValue in case of failure": a host pointer, a pointer
  // into the middle of an allocation, and (documented "an error is returned") a double free.
  void* host = malloc(256);
  CHECK_FAILS(cudaFree(host), cudaErrorInvalidValue);
  free(host);
  char* d = nullptr;
  CHECK(cudaMalloc(&d, 4096));
  CHECK_FAILS(cudaFree(d + 256), cudaErrorInvalidValue);
  CHECK(cudaFree(d));
  CHECK_FAILS(cudaFree(d), cudaErrorInvalidValue);

  // cudaMemGetInfo: total >= free, and a 64 MiB allocation lowers free by at least 64 MiB
  // (allocations are rounded up to the allocation granularity, never down).
  size_t free0 = 0, total0 = 0, free1 = 0, total1 = 0;
  CHECK(cudaMemGetInfo(&free0, &total0));
  EXPECT(total0 >= free0 && free0 > 0, "cudaMemGetInfo free %zu total %zu", free0, total0);
  const size_t big = (size_t)64 << 20;
  void* pbig = nullptr;
  CHECK(cudaMalloc(&pbig, big));
  CHECK(cudaMemGetInfo(&free1, &total1));
  EXPECT(total1 == total0, "total memory changed: %zu -> %zu", total0, total1);
  EXPECT(free1 + big <= free0, "free memory %zu -> %zu after cudaMalloc(%zu)", free0, free1, big);
  CHECK(cudaFree(pbig));
}

static void test_pinned_and_mapped() {
  const int n = 3000;
  const size_t bytes = n * sizeof(int);

  // cudaMallocHost as a staging buffer.
  int* pinned = nullptr;
  CHECK(cudaMallocHost(&pinned, bytes));
  for (int i = 0; i < n; ++i) pinned[i] = i * 5;
  int* d = nullptr;
  CHECK(cudaMalloc(&d, bytes));
  CHECK(cudaMemcpy(d, pinned, bytes, cudaMemcpyHostToDevice));
  scale_add<<<blocks_for(n), 128>>>(d, n, 3, -1);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(pinned, d, bytes, cudaMemcpyDeviceToHost));
  std::vector<int> want(n);
  for (int i = 0; i < n; ++i) want[i] = i * 5 * 3 - 1;
  check_ints_hex("cudaMallocHost staging", pinned, want.data(), n);
  CHECK(cudaFree(d));
  CHECK(cudaFreeHost(pinned));

  // cudaHostAlloc mapped + portable: the kernel writes host memory directly.
  int* mapped = nullptr;
  CHECK(cudaHostAlloc(&mapped, bytes, cudaHostAllocMapped | cudaHostAllocPortable));
  memset(mapped, 0, bytes);
  int* mapped_dev = nullptr;
  CHECK(cudaHostGetDevicePointer(&mapped_dev, mapped, 0));
  EXPECT(mapped_dev != nullptr, "cudaHostGetDevicePointer returned null");
  write_seq<<<blocks_for(n), 128>>>(mapped_dev, n, 1000);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  for (int i = 0; i < n; ++i) want[i] = 1000 + i;
  check_ints_hex("kernel write through cudaHostAlloc mapped pointer", mapped, want.data(), n);
  CHECK(cudaFreeHost(mapped));

  // cudaHostRegister on an ordinary (page-aligned) host allocation.
  const size_t reg_bytes = 16384;
  int* reg = (int*)aligned_alloc(4096, reg_bytes);
  const int reg_n = (int)(reg_bytes / sizeof(int));
  for (int i = 0; i < reg_n; ++i) reg[i] = -1;
  CHECK(cudaHostRegister(reg, reg_bytes, cudaHostRegisterMapped | cudaHostRegisterPortable));
  int* reg_dev = nullptr;
  CHECK(cudaHostGetDevicePointer(&reg_dev, reg, 0));
  EXPECT(reg_dev != nullptr, "cudaHostGetDevicePointer(registered) returned null");
  write_seq<<<blocks_for(reg_n), 128>>>(reg_dev, reg_n, -50);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  std::vector<int> want_reg(reg_n);
  for (int i = 0; i < reg_n; ++i) want_reg[i] = -50 + i;
  check_ints_hex("kernel write through cudaHostRegister'ed memory", reg, want_reg.data(), reg_n);
  CHECK(cudaHostUnregister(reg));
  free(reg);
}

static void test_managed() {
  const int n = 4096;
  const size_t bytes = n * sizeof(int);
  int* m = nullptr;
  CHECK(cudaMallocManaged(&m, bytes));
  for (int i = 0; i < n; ++i) m[i] = i;  // host init
  scale_add<<<blocks_for(n), 128>>>(m, n, 2, 5);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  std::vector<int> want(n);
  for (int i = 0; i < n; ++i) want[i] = i * 2 + 5;
  check_ints_hex("managed memory after kernel", m, want.data(), n);

  // Prefetching requires cudaDevAttrConcurrentManagedAccess (documented).
  int concurrent = 0;
  CHECK(cudaDeviceGetAttribute(&concurrent, cudaDevAttrConcurrentManagedAccess, 0));
  if (concurrent) {
    cudaStream_t s;
    CHECK(cudaStreamCreate(&s));
#if CUDART_VERSION >= 13000
    cudaMemLocation to_dev;
    memset(&to_dev, 0, sizeof to_dev);
    to_dev.type = cudaMemLocationTypeDevice;
    to_dev.id = 0;
    cudaMemLocation to_host;
    memset(&to_host, 0, sizeof to_host);
    to_host.type = cudaMemLocationTypeHost;
    to_host.id = 0;  // ignored for cudaMemLocationTypeHost
    CHECK(cudaMemPrefetchAsync(m, bytes, to_dev, 0, s));
    scale_add<<<blocks_for(n), 128, 0, s>>>(m, n, 1, 1);
    CHECK(cudaGetLastError());
    CHECK(cudaMemPrefetchAsync(m, bytes, to_host, 0, s));
#else
    CHECK(cudaMemPrefetchAsync(m, bytes, 0, s));
    scale_add<<<blocks_for(n), 128, 0, s>>>(m, n, 1, 1);
    CHECK(cudaGetLastError());
    CHECK(cudaMemPrefetchAsync(m, bytes, cudaCpuDeviceId, s));
#endif
    CHECK(cudaStreamSynchronize(s));
    for (int i = 0; i < n; ++i) want[i] += 1;
    check_ints_hex("managed memory after prefetch/kernel/prefetch", m, want.data(), n);
    CHECK(cudaStreamDestroy(s));
  } else {
    printf("note: cudaDevAttrConcurrentManagedAccess = 0, cudaMemPrefetchAsync part skipped\n");
  }
  CHECK(cudaFree(m));
}

static void test_memcpy_kinds() {
  const int n = 2500;
  const size_t bytes = n * sizeof(int);
  std::vector<int> h1(n), h2(n), h3(n), want(n);
  for (int i = 0; i < n; ++i) h1[i] = i * 13 - 7;
  int *d1 = nullptr, *d2 = nullptr;
  CHECK(cudaMalloc(&d1, bytes));
  CHECK(cudaMalloc(&d2, bytes));

  // Explicit kinds: H2D -> D2D -> D2H -> H2H.
  CHECK(cudaMemcpy(d1, h1.data(), bytes, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(d2, d1, bytes, cudaMemcpyDeviceToDevice));
  CHECK(cudaMemcpy(h2.data(), d2, bytes, cudaMemcpyDeviceToHost));
  check_ints_hex("H2D/D2D/D2H round trip", h2.data(), h1.data(), n);
  CHECK(cudaMemcpy(h3.data(), h2.data(), bytes, cudaMemcpyHostToHost));
  check_ints_hex("cudaMemcpyHostToHost", h3.data(), h1.data(), n);

  // cudaMemcpyDefault infers each direction from the (unified) addresses.
  for (int i = 0; i < n; ++i) h1[i] = 90000 - i;
  CHECK(cudaMemcpy(d1, h1.data(), bytes, cudaMemcpyDefault));        // H2D
  scale_add<<<blocks_for(n), 128>>>(d1, n, 1, 3);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(d2, d1, bytes, cudaMemcpyDefault));               // D2D
  CHECK(cudaMemcpy(h2.data(), d2, bytes, cudaMemcpyDefault));        // D2H
  CHECK(cudaMemcpy(h3.data(), h2.data(), bytes, cudaMemcpyDefault)); // H2H
  for (int i = 0; i < n; ++i) want[i] = 90000 - i + 3;
  check_ints_hex("cudaMemcpyDefault chain", h3.data(), want.data(), n);

  // Partial copies with offsets on both sides.
  CHECK(cudaMemcpy(d1 + 100, h1.data() + 200, 50 * sizeof(int), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(h2.data(), d1 + 100, 50 * sizeof(int), cudaMemcpyDeviceToHost));
  check_ints_hex("offset copies", h2.data(), h1.data() + 200, 50);

  // A kind outside the enum is rejected.
  CHECK_FAILS(cudaMemcpy(d1, h1.data(), bytes, (cudaMemcpyKind)7),
              cudaErrorInvalidMemcpyDirection);

  // cudaMemset (byte value replicated) and cudaMemsetAsync on a sub-range.
  CHECK(cudaMemset(d1, 0xA5, bytes));
  cudaStream_t s;
  CHECK(cudaStreamCreate(&s));
  CHECK(cudaMemsetAsync(d1 + 1000, 0x3C, 300 * sizeof(int), s));
  CHECK(cudaStreamSynchronize(s));
  CHECK(cudaMemcpy(h2.data(), d1, bytes, cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i) want[i] = (i >= 1000 && i < 1300) ? 0x3C3C3C3C : (int)0xA5A5A5A5;
  check_ints_hex("cudaMemset/cudaMemsetAsync", h2.data(), want.data(), n);
  CHECK(cudaStreamDestroy(s));

  CHECK(cudaFree(d1));
  CHECK(cudaFree(d2));
}

static void test_pitched_2d() {
  const int W = 100, H = 37;                   // ints per row, rows
  const size_t wbytes = W * sizeof(int);       // 400
  const size_t src_pitch = 128 * sizeof(int);  // host source rows are padded to 512 bytes
  std::vector<int> src(128 * H, -1);
  for (int y = 0; y < H; ++y)
    for (int x = 0; x < W; ++x) src[y * 128 + x] = y * 1000 + x;

  int* dA = nullptr;
  size_t pitchA = 0;
  CHECK(cudaMallocPitch((void**)&dA, &pitchA, wbytes, H));
  EXPECT(pitchA >= wbytes, "cudaMallocPitch pitch %zu < width %zu", pitchA, wbytes);
  CHECK(cudaMemcpy2D(dA, pitchA, src.data(), src_pitch, wbytes, H, cudaMemcpyHostToDevice));

  // D2D into a linear allocation with another pitch (448 bytes).
  const size_t pitchB = 448;
  char* dB = nullptr;
  CHECK(cudaMalloc(&dB, pitchB * H));
  CHECK(cudaMemset(dB, 0, pitchB * H));
  CHECK(cudaMemcpy2D(dB, pitchB, dA, pitchA, wbytes, H, cudaMemcpyDeviceToDevice));

  // cudaMemset2D on a sub-rectangle: rows 3..7, ints 20..29.
  CHECK(cudaMemset2D(dB + 3 * pitchB + 20 * sizeof(int), pitchB, 0x7F, 10 * sizeof(int), 5));

  // D2H into a dense host array (pitch == width).
  std::vector<int> dst(W * H, 0);
  CHECK(cudaMemcpy2D(dst.data(), wbytes, dB, pitchB, wbytes, H, cudaMemcpyDeviceToHost));
  std::vector<int> want(W * H);
  for (int y = 0; y < H; ++y)
    for (int x = 0; x < W; ++x) {
      bool in_rect = y >= 3 && y < 8 && x >= 20 && x < 30;
      want[y * W + x] = in_rect ? 0x7F7F7F7F : y * 1000 + x;
    }
  check_ints_hex("cudaMemcpy2D H2D/D2D/D2H + cudaMemset2D", dst.data(), want.data(), W * H);

  // cudaMemcpy2DAsync into a host array with 120-int rows: the padding must stay untouched.
  const int P = 120;
  std::vector<int> dst2(P * H, -77);
  cudaStream_t s;
  CHECK(cudaStreamCreate(&s));
  CHECK(cudaMemcpy2DAsync(dst2.data(), P * sizeof(int), dA, pitchA, wbytes, H,
                          cudaMemcpyDeviceToHost, s));
  CHECK(cudaStreamSynchronize(s));
  std::vector<int> want2(P * H);
  for (int y = 0; y < H; ++y)
    for (int x = 0; x < P; ++x) want2[y * P + x] = x < W ? y * 1000 + x : -77;
  check_ints_hex("cudaMemcpy2DAsync", dst2.data(), want2.data(), P * H);
  CHECK(cudaStreamDestroy(s));

  CHECK(cudaFree(dA));
  CHECK(cudaFree(dB));
}

static void test_3d() {
  const int W = 24, H = 10, D = 6;
  cudaExtent extent = make_cudaExtent(W * sizeof(int), H, D);
  cudaPitchedPtr dev;
  CHECK(cudaMalloc3D(&dev, extent));
  EXPECT(dev.pitch >= W * sizeof(int), "cudaMalloc3D pitch %zu", dev.pitch);

  std::vector<int> h(W * H * D), back(W * H * D, 0), want(W * H * D);
  for (int i = 0; i < W * H * D; ++i) h[i] = i * 7;

  cudaMemcpy3DParms up;
  memset(&up, 0, sizeof up);
  up.srcPtr = make_cudaPitchedPtr(h.data(), W * sizeof(int), W, H);
  up.dstPtr = dev;
  up.extent = extent;
  up.kind = cudaMemcpyHostToDevice;
  CHECK(cudaMemcpy3D(&up));

  touch_3d<<<D, dim3(W, H)>>>(dev, W, H, D);
  CHECK(cudaGetLastError());

  cudaMemcpy3DParms down;
  memset(&down, 0, sizeof down);
  down.srcPtr = dev;
  down.dstPtr = make_cudaPitchedPtr(back.data(), W * sizeof(int), W, H);
  down.extent = extent;
  down.kind = cudaMemcpyDeviceToHost;
  CHECK(cudaMemcpy3D(&down));

  for (int z = 0; z < D; ++z)
    for (int y = 0; y < H; ++y)
      for (int x = 0; x < W; ++x) {
        int i = (z * H + y) * W + x;
        want[i] = i * 7 + z * 10000 + y * 100 + x;
      }
  check_ints_hex("cudaMalloc3D/cudaMemcpy3D/kernel", back.data(), want.data(), W * H * D);
  CHECK(cudaFree(dev.ptr));
}

static void test_pointer_attributes() {
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  cudaPointerAttributes a;

  int* d = nullptr;
  CHECK(cudaMalloc(&d, 1024));
  memset(&a, 0xff, sizeof a);
  CHECK(cudaPointerGetAttributes(&a, d));
  EXPECT(a.type == cudaMemoryTypeDevice, "device memory: type %d", (int)a.type);
  EXPECT(a.device == 0, "device memory: device %d", a.device);
  EXPECT(a.devicePointer == d, "device memory: devicePointer %p, expected %p", a.devicePointer,
         (void*)d);
  EXPECT(a.hostPointer == nullptr, "device memory: hostPointer %p, expected NULL",
         a.hostPointer);
  // An interior pointer reports the same kind of memory and its own address.
  memset(&a, 0xff, sizeof a);
  CHECK(cudaPointerGetAttributes(&a, d + 10));
  EXPECT(a.type == cudaMemoryTypeDevice && a.devicePointer == d + 10,
         "interior device pointer: type %d devicePointer %p", (int)a.type, a.devicePointer);
  CHECK(cudaFree(d));

  int* m = nullptr;
  CHECK(cudaMallocManaged(&m, 1024));
  memset(&a, 0xff, sizeof a);
  CHECK(cudaPointerGetAttributes(&a, m));
  EXPECT(a.type == cudaMemoryTypeManaged, "managed memory: type %d", (int)a.type);
  EXPECT(a.devicePointer == m && a.hostPointer == m,
         "managed memory: devicePointer %p hostPointer %p, expected both %p", a.devicePointer,
         a.hostPointer, (void*)m);
  CHECK(cudaFree(m));

  int* pinned = nullptr;
  CHECK(cudaMallocHost(&pinned, 1024));
  memset(&a, 0xff, sizeof a);
  CHECK(cudaPointerGetAttributes(&a, pinned));
  EXPECT(a.type == cudaMemoryTypeHost, "cudaMallocHost memory: type %d", (int)a.type);
  EXPECT(a.hostPointer == pinned, "cudaMallocHost memory: hostPointer %p, expected %p",
         a.hostPointer, (void*)pinned);
  // With unified addressing, cudaMallocHost memory has the same address on the device.
  if (prop.unifiedAddressing)
    EXPECT(a.devicePointer == pinned, "cudaMallocHost memory: devicePointer %p, expected %p",
           a.devicePointer, (void*)pinned);
  CHECK(cudaFreeHost(pinned));

  const size_t reg_bytes = 8192;
  int* reg = (int*)aligned_alloc(4096, reg_bytes);
  CHECK(cudaHostRegister(reg, reg_bytes, cudaHostRegisterMapped));
  memset(&a, 0xff, sizeof a);
  CHECK(cudaPointerGetAttributes(&a, reg));
  EXPECT(a.type == cudaMemoryTypeHost, "registered memory: type %d", (int)a.type);
  EXPECT(a.hostPointer == reg, "registered memory: hostPointer %p, expected %p", a.hostPointer,
         (void*)reg);
  EXPECT(a.devicePointer != nullptr, "registered (mapped) memory: devicePointer NULL");
  if (prop.canUseHostPointerForRegisteredMem)
    EXPECT(a.devicePointer == reg, "registered memory: devicePointer %p, expected %p",
           a.devicePointer, (void*)reg);
  CHECK(cudaHostUnregister(reg));
  free(reg);

  // Since CUDA 11 an unregistered host pointer yields cudaSuccess and
  // cudaMemoryTypeUnregistered (documented note on cudaPointerGetAttributes).
  int* plain = (int*)malloc(1024);
  memset(&a, 0xff, sizeof a);
  CHECK(cudaPointerGetAttributes(&a, plain));
  EXPECT(a.type == cudaMemoryTypeUnregistered, "malloc'ed memory: type %d", (int)a.type);
  free(plain);
}

static void test_malloc_async() {
  int pools = 0;
  CHECK(cudaDeviceGetAttribute(&pools, cudaDevAttrMemoryPoolsSupported, 0));
  if (!pools) {
    printf("note: cudaDevAttrMemoryPoolsSupported = 0, cudaMallocAsync part skipped\n");
    return;
  }
  const int n = 5000;
  const size_t bytes = n * sizeof(int);
  cudaStream_t s;
  CHECK(cudaStreamCreate(&s));
  int* host = nullptr;
  CHECK(cudaMallocHost(&host, bytes));
  int* d = nullptr;
  CHECK(cudaMallocAsync((void**)&d, bytes, s));
  write_seq<<<blocks_for(n), 128, 0, s>>>(d, n, 42);
  CHECK(cudaGetLastError());
  scale_add<<<blocks_for(n), 128, 0, s>>>(d, n, -1, 0);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpyAsync(host, d, bytes, cudaMemcpyDeviceToHost, s));
  CHECK(cudaFreeAsync(d, s));
  CHECK(cudaStreamSynchronize(s));
  std::vector<int> want(n);
  for (int i = 0; i < n; ++i) want[i] = -(42 + i);
  check_ints_hex("cudaMallocAsync/kernel/cudaFreeAsync", host, want.data(), n);
  CHECK(cudaFreeHost(host));
  CHECK(cudaStreamDestroy(s));
}

int main() {
  CHECK(cudaSetDevice(0));
  test_alloc_errors();
  test_pinned_and_mapped();
  test_managed();
  test_memcpy_kinds();
  test_pitched_2d();
  test_3d();
  test_pointer_attributes();
  test_malloc_async();
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaGetLastError());
  return report_pass();
}
