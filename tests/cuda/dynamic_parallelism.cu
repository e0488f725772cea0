// dynamic_parallelism.cu - kernels launching kernels (CUDA Dynamic Parallelism, CDP2).
//
// Covers:
//  - child writes visible to the host after the top-level grid completes (4 parents x 1 child);
//  - nesting: a 3-level binary tree of grids (1 + 2 + 4 + 8 grids) and a recursive sum that
//    splits an array down to 4 levels and adds the halves in tail launches;
//  - the NULL stream of a block runs its launches in order (8 children appending to a log);
//  - named device streams (cudaStreamNonBlocking) run in launch order; an event recorded in
//    one stream and waited on in another orders a consumer after its producer;
//  - a tail launch (cudaStreamTailLaunch) sees the results of all the grid's other children
//    (and their children), and tail launches run in launch order;
//  - cudaStreamFireAndForget children run and their results reach the host and the tail launch;
//  - device-side errors: a child with too many threads / a block z above 64
//    (cudaErrorInvalidConfiguration) - the parent goes on; cudaPeekAtLastError keeps the error,
//    cudaGetLastError returns and clears it; destroying an unknown stream and launching into
//    one (cudaErrorInvalidValue); a stream created with cudaStreamDefault is accepted (CUDA
//    documents cudaStreamNonBlocking as required; an H100 with CUDA 13 accepts both);
//  - cudaLimitDevRuntimePendingLaunchCount: at least 32 (8 reads back as 32), so 12 launches of
//    one thread all run; a launch is pending until its grid completes with its descendants, so
//    a grid recursing without end goes exactly as deep as the limit (100, and the default
//    2048), and the launch
//    from there fails with cudaErrorLaunchPendingCountExceeded - CDP2 has no other nesting
//    limit; cudaLimitDevRuntimeSyncDepth is cudaErrorUnsupportedLimit on compute capability 9.0
//    (all measured on an H100 with CUDA 13);
//  - device runtime queries: cudaGetDevice, cudaDeviceGetAttribute (the host's SM count),
//    device cudaMalloc/cudaFree; the explicit cudaGetParameterBuffer + cudaLaunchDevice API;
//    cudaMemsetAsync then cudaMemcpyAsync then a child, in order: the values are checked on
//    warpsim only (an H100 with CUDA 13 returned cudaSuccess and did nothing);
//  - a child that stores out of bounds makes the top-level launch fail: cudaDeviceSynchronize
//    returns cudaErrorIllegalAddress, sticky; on warpsim, cudaDeviceReset recovers and child
//    launches work again (cuda_check.h, on_warpsim).
//
// Build: nvcc -cudart shared -rdc=true -lcudadevrt -o dynamic_parallelism dynamic_parallelism.cu
#include <cstdio>
#include <cstdlib>

#include <cuda_runtime.h>

#define TEST_NAME "dynamic_parallelism"
#include "cuda_check.h"

// ---- child results reach the host ---------------------------------------------------------

__global__ void fill(int* out, int base) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[base + i] = base * 10 + i;
}

__global__ void fill_parent(int* out) {
  if (threadIdx.x == 0) fill<<<2, 64>>>(out, blockIdx.x * 128);
}

static void test_child_writes() {
  int* d;
  CHECK(cudaMalloc(&d, 512 * sizeof(int)));
  CHECK(cudaMemset(d, 0xff, 512 * sizeof(int)));
  fill_parent<<<4, 32>>>(d);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  int h[512], want[512];
  CHECK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
  for (int b = 0; b < 4; ++b)
    for (int i = 0; i < 128; ++i) want[b * 128 + i] = b * 128 * 10 + i;
  check_ints("child writes", h, want, 512);
  CHECK(cudaFree(d));
}

// ---- nesting ---------------------------------------------------------------------------

__global__ void tree(int* grids_per_level, int level) {
  if (threadIdx.x == 0) {
    atomicAdd(&grids_per_level[level], 1);
    if (level < 3) tree<<<2, 32>>>(grids_per_level, level + 1);
  }
}

// Adds the two halves' sums, written by the children, into sums[node].
__global__ void add_halves(long long* sums, int node) {
  sums[node] = sums[2 * node + 1] + sums[2 * node + 2];
}

// sums[node] = data[0..n): split in two children until 64 elements, then sum in place; the
// parent adds its halves in a tail launch, which runs after both children completed.
__global__ void rsum(const int* data, int n, long long* sums, int node) {
  if (n <= 64) {
    __shared__ long long part[64];
    part[threadIdx.x] = threadIdx.x < n ? data[threadIdx.x] : 0;
    __syncthreads();
    if (threadIdx.x == 0) {
      long long s = 0;
      for (int i = 0; i < 64; ++i) s += part[i];
      sums[node] = s;
    }
    return;
  }
  if (threadIdx.x == 0) {
    const int half = n / 2;
    rsum<<<1, 64>>>(data, half, sums, 2 * node + 1);
    rsum<<<1, 64>>>(data + half, n - half, sums, 2 * node + 2);
    add_halves<<<1, 1, 0, cudaStreamTailLaunch>>>(sums, node);
  }
}

static void test_nesting() {
  int* levels;
  CHECK(cudaMalloc(&levels, 4 * sizeof(int)));
  CHECK(cudaMemset(levels, 0, 4 * sizeof(int)));
  tree<<<1, 32>>>(levels, 0);
  CHECK(cudaDeviceSynchronize());
  int h[4];
  const int want[4] = {1, 2, 4, 8};
  CHECK(cudaMemcpy(h, levels, sizeof h, cudaMemcpyDeviceToHost));
  check_ints("grids per nesting level", h, want, 4);
  CHECK(cudaFree(levels));

  const int n = 1000;  // 1000 -> 500 -> 250 -> 125 -> 62/63: 4 levels of children
  int hdata[n];
  long long total = 0;
  for (int i = 0; i < n; ++i) total += hdata[i] = (i * 37) % 101 - 20;
  int* data;
  long long* sums;
  CHECK(cudaMalloc(&data, sizeof hdata));
  CHECK(cudaMalloc(&sums, 64 * sizeof(long long)));
  CHECK(cudaMemcpy(data, hdata, sizeof hdata, cudaMemcpyHostToDevice));
  CHECK(cudaMemset(sums, 0, 64 * sizeof(long long)));
  rsum<<<1, 64>>>(data, n, sums, 0);
  CHECK(cudaDeviceSynchronize());
  long long got = 0;
  CHECK(cudaMemcpy(&got, sums, sizeof got, cudaMemcpyDeviceToHost));
  EXPECT(got == total, "recursive sum %lld, expected %lld", got, total);
  CHECK(cudaFree(data));
  CHECK(cudaFree(sums));
}

// ---- streams: NULL stream, named streams, events, tail launch, fire-and-forget --------------

// Appends `value` to log[0..]: log[0] is the count.
__global__ void append(int* log, int value) { log[1 + log[0]++] = value; }

__global__ void null_stream_parent(int* logs) {
  if (threadIdx.x == 0) {
    int* log = logs + blockIdx.x * 16;
    for (int k = 0; k < 8; ++k) append<<<1, 1>>>(log, blockIdx.x * 100 + k);
  }
}

__global__ void add_one(int* dst, const int* src) { *dst = *src + 1; }

// errs: results of the device calls; out[0..3]: the stream chain, out[4..5]: the event pair.
__global__ void streams_parent(int* out, int* errs) {
  if (threadIdx.x != 0) return;
  cudaStream_t a, b;
  errs[0] = cudaStreamCreateWithFlags(&a, cudaStreamNonBlocking);
  errs[1] = cudaStreamCreateWithFlags(&b, cudaStreamNonBlocking);
  // Stream a: out[1] = out[0] + 1, then out[2] = out[1] + 1, then out[3] = out[2] + 1.
  add_one<<<1, 1, 0, a>>>(out + 1, out + 0);
  add_one<<<1, 1, 0, a>>>(out + 2, out + 1);
  add_one<<<1, 1, 0, a>>>(out + 3, out + 2);
  errs[2] = cudaGetLastError();
  // Producer in a, consumer in b after an event.
  cudaEvent_t ev;
  errs[3] = cudaEventCreateWithFlags(&ev, cudaEventDisableTiming);
  add_one<<<1, 1, 0, a>>>(out + 4, out + 3);
  errs[4] = cudaEventRecord(ev, a);
  errs[5] = cudaStreamWaitEvent(b, ev, 0);
  add_one<<<1, 1, 0, b>>>(out + 5, out + 4);
  errs[6] = cudaGetLastError();
  errs[7] = cudaEventDestroy(ev);
  errs[8] = cudaStreamDestroy(a);
  errs[9] = cudaStreamDestroy(b);
}

__global__ void write_value(int* p, int v) { *p = v; }

// Tail launches: sum out[0..3] (written by ordinary, fire-and-forget and grandchild grids),
// then a second tail doubles the first one's result.
__global__ void sum4(int* out) { out[4] = out[0] + out[1] + out[2] + out[3]; }
__global__ void double_it(int* out) { out[5] = out[4] * 2; }
__global__ void grandparent_of(int* out) { write_value<<<1, 1>>>(out + 3, 4000); }

__global__ void tail_parent(int* out) {
  if (threadIdx.x != 0) return;
  sum4<<<1, 1, 0, cudaStreamTailLaunch>>>(out);      // launched first, still runs last
  double_it<<<1, 1, 0, cudaStreamTailLaunch>>>(out);
  write_value<<<1, 1>>>(out + 0, 1000);
  write_value<<<1, 1, 0, cudaStreamFireAndForget>>>(out + 1, 2000);
  write_value<<<1, 1, 0, cudaStreamFireAndForget>>>(out + 2, 3000);
  grandparent_of<<<1, 1>>>(out);
}

static void test_streams() {
  int* logs;
  CHECK(cudaMalloc(&logs, 2 * 16 * sizeof(int)));
  CHECK(cudaMemset(logs, 0, 2 * 16 * sizeof(int)));
  null_stream_parent<<<2, 32>>>(logs);
  CHECK(cudaDeviceSynchronize());
  int h[32];
  CHECK(cudaMemcpy(h, logs, sizeof h, cudaMemcpyDeviceToHost));
  for (int b = 0; b < 2; ++b) {
    int want[9] = {8};
    for (int k = 0; k < 8; ++k) want[1 + k] = b * 100 + k;
    check_ints(b == 0 ? "NULL-stream order, block 0" : "NULL-stream order, block 1", h + b * 16,
               want, 9);
  }
  CHECK(cudaFree(logs));

  int *out, *errs;
  CHECK(cudaMalloc(&out, 8 * sizeof(int)));
  CHECK(cudaMalloc(&errs, 10 * sizeof(int)));
  CHECK(cudaMemset(out, 0, 8 * sizeof(int)));
  CHECK(cudaMemset(errs, 0xff, 10 * sizeof(int)));
  streams_parent<<<1, 32>>>(out, errs);
  CHECK(cudaDeviceSynchronize());
  int ho[8], he[10];
  CHECK(cudaMemcpy(ho, out, sizeof ho, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(he, errs, sizeof he, cudaMemcpyDeviceToHost));
  const int want_errs[10] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
  check_ints("named stream / event calls", he, want_errs, 10);
  const int want_out[6] = {0, 1, 2, 3, 4, 5};
  check_ints("named stream order and event wait", ho, want_out, 6);

  CHECK(cudaMemset(out, 0, 8 * sizeof(int)));
  tail_parent<<<1, 32>>>(out);
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaMemcpy(ho, out, sizeof ho, cudaMemcpyDeviceToHost));
  const int want_tail[6] = {1000, 2000, 3000, 4000, 10000, 20000};
  check_ints("tail launches after all other children", ho, want_tail, 6);
  CHECK(cudaFree(out));
  CHECK(cudaFree(errs));
}

// ---- device-side errors and limits -----------------------------------------------------

__global__ void noop() {}

// errs[0..]: what the device calls returned; errs[9]: the parent went on after the errors.
__global__ void error_parent(int* errs) {
  if (threadIdx.x != 0) return;
  noop<<<1, 2048>>>();                   // more threads than a block may have
  errs[0] = cudaPeekAtLastError();       // not cleared...
  errs[1] = cudaGetLastError();          // ...until read
  errs[2] = cudaGetLastError();          // success now
  noop<<<1, dim3(1, 1, 128)>>>();        // block z above 64
  errs[3] = cudaGetLastError();
  noop<<<dim3(1, 0, 1), 1>>>();          // an empty grid
  errs[4] = cudaGetLastError();
  cudaStream_t s;
  errs[5] = cudaStreamCreateWithFlags(&s, cudaStreamDefault);  // must be non-blocking
  errs[6] = cudaStreamDestroy((cudaStream_t)0x12345678);
  noop<<<1, 1, 0, (cudaStream_t)0x12345678>>>();
  errs[7] = cudaGetLastError();
  noop<<<1, 1>>>();
  errs[8] = cudaGetLastError();
  errs[9] = 42;
}

__global__ void count_one(int* counter) { atomicAdd(counter, 1); }

// Launches 12 children; errs[i] is what the i-th launch left in cudaGetLastError.
__global__ void pending_parent(int* counter, int* errs) {
  if (threadIdx.x != 0) return;
  for (int i = 0; i < 12; ++i) {
    count_one<<<1, 1>>>(counter);
    errs[i] = cudaGetLastError();
  }
}

// Recurses until a launch fails: deepest[0] = the deepest depth reached, deepest[1] = the
// error of the launch that failed, deepest[2] = the depth it was made from.
__global__ void recurse(int* deepest, int depth) {
  if (threadIdx.x != 0) return;
  atomicMax(&deepest[0], depth);
  recurse<<<1, 1>>>(deepest, depth + 1);
  const cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess) {
    deepest[1] = e;
    deepest[2] = depth;
  }
}

static void test_errors_and_limits() {
  int* errs;
  CHECK(cudaMalloc(&errs, 16 * sizeof(int)));
  CHECK(cudaMemset(errs, 0xff, 16 * sizeof(int)));
  error_parent<<<1, 32>>>(errs);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  int h[16];
  CHECK(cudaMemcpy(h, errs, sizeof h, cudaMemcpyDeviceToHost));
  const int want[10] = {cudaErrorInvalidConfiguration, cudaErrorInvalidConfiguration, cudaSuccess,
                        cudaErrorInvalidConfiguration, cudaErrorInvalidConfiguration,
                        cudaSuccess, cudaErrorInvalidValue, cudaErrorInvalidValue, cudaSuccess, 42};
  check_ints("device-side launch errors", h, want, 10);

  size_t limit = 0;
  CHECK(cudaDeviceGetLimit(&limit, cudaLimitDevRuntimePendingLaunchCount));
  EXPECT(limit == 2048, "default pending launch limit %zu", limit);
  CHECK(cudaDeviceSetLimit(cudaLimitDevRuntimePendingLaunchCount, 8));
  CHECK(cudaDeviceGetLimit(&limit, cudaLimitDevRuntimePendingLaunchCount));
  EXPECT(limit == 32, "pending launch limit %zu after setting 8", limit);
  int cc_major = 0;
  CHECK(cudaDeviceGetAttribute(&cc_major, cudaDevAttrComputeCapabilityMajor, 0));
  if (cc_major >= 9) {
    CHECK_FAILS(cudaDeviceGetLimit(&limit, cudaLimitDevRuntimeSyncDepth),
                cudaErrorUnsupportedLimit);
    CHECK_FAILS(cudaDeviceSetLimit(cudaLimitDevRuntimeSyncDepth, 4), cudaErrorUnsupportedLimit);
  }
  int* counter;
  CHECK(cudaMalloc(&counter, sizeof(int)));
  CHECK(cudaMemset(counter, 0, sizeof(int)));
  CHECK(cudaMemset(errs, 0xff, 16 * sizeof(int)));
  pending_parent<<<1, 32>>>(counter, errs);
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaMemcpy(h, errs, sizeof h, cudaMemcpyDeviceToHost));
  const int want_pending[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
  check_ints("12 launches within the pending-launch limit", h, want_pending, 12);
  int ran = 0;
  CHECK(cudaMemcpy(&ran, counter, sizeof ran, cudaMemcpyDeviceToHost));
  EXPECT(ran == 12, "%d children ran, expected 12", ran);
  CHECK(cudaFree(counter));

  CHECK(cudaDeviceSetLimit(cudaLimitDevRuntimePendingLaunchCount, 100));
  CHECK(cudaMemset(errs, 0, 16 * sizeof(int)));
  recurse<<<1, 1>>>(errs, 0);
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaMemcpy(h, errs, 3 * sizeof(int), cudaMemcpyDeviceToHost));
  const int want_depth[3] = {100, cudaErrorLaunchPendingCountExceeded, 100};
  check_ints("recursion down to the pending-launch limit (deepest, error, depth)", h, want_depth,
             3);
  // The default limit: 2048 levels (warpsim walks them without the host's stack).
  CHECK(cudaDeviceSetLimit(cudaLimitDevRuntimePendingLaunchCount, 2048));
  CHECK(cudaMemset(errs, 0, 16 * sizeof(int)));
  recurse<<<1, 1>>>(errs, 0);
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaMemcpy(h, errs, 3 * sizeof(int), cudaMemcpyDeviceToHost));
  const int want_default[3] = {2048, cudaErrorLaunchPendingCountExceeded, 2048};
  check_ints("recursion down to the default pending-launch limit", h, want_default, 3);
  CHECK(cudaFree(errs));
}

// ---- device runtime queries, memory, copies ---------------------------------------------

__global__ void check_copy(int* out, const int* src) { out[8] = src[0] + src[3]; }

// out[0]: device, out[1]: SM count, out[2..4], out[6], out[7], out[10]: errors, out[5]: the
// malloc'd pointer is non-null, out[8]: the stream-ordered copy, out[9]: cudaLaunchDevice's child.
__global__ void query_parent(int* out, int* buf) {
  if (threadIdx.x != 0) return;
  int dev = -1, sms = -1;
  out[2] = cudaGetDevice(&dev);
  out[3] = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
  out[0] = dev;
  out[1] = sms;
  int* p = nullptr;
  out[4] = cudaMalloc((void**)&p, 256);
  out[5] = p != nullptr;
  if (p != nullptr) {
    p[63] = 7;
    out[6] = cudaFree(p);
  }
  // In one stream: set buf to 0x01 bytes, copy its first 16 bytes to buf + 16 ints, then a
  // child reads the copy.
  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  cudaMemsetAsync(buf, 1, 16 * sizeof(int), s);
  cudaMemcpyAsync(buf + 16, buf, 4 * sizeof(int), cudaMemcpyDeviceToDevice, s);
  check_copy<<<1, 1, 0, s>>>(out, buf + 16);
  out[7] = cudaGetLastError();
  cudaStreamDestroy(s);
  // The explicit launch API: write_value(out + 9, 77).
  void* params = cudaGetParameterBuffer(8, 16);
  if (params != nullptr) {
    *(int**)params = out + 9;
    ((int*)params)[2] = 77;
    out[10] = cudaLaunchDevice((void*)write_value, params, dim3(1), dim3(1), 0, 0);
  }
}

static void test_queries() {
  int *out, *buf;
  CHECK(cudaMalloc(&out, 16 * sizeof(int)));
  CHECK(cudaMalloc(&buf, 32 * sizeof(int)));
  CHECK(cudaMemset(out, 0xff, 16 * sizeof(int)));
  CHECK(cudaMemset(buf, 0, 32 * sizeof(int)));
  query_parent<<<1, 32>>>(out, buf);
  CHECK(cudaDeviceSynchronize());
  int h[11];
  CHECK(cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost));
  int sms = 0;
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  int want[11] = {0, sms, 0, 0, 0, 1, 0, 0, 2 * 0x01010101, 77, 0};
  if (!on_warpsim()) {
    note_skipped_on_gpu("the values of device-side cudaMemsetAsync / cudaMemcpyAsync");
    want[8] = h[8];
  }
  check_ints("device queries, malloc, stream-ordered memset/memcpy, cudaLaunchDevice", h, want,
             11);
  CHECK(cudaFree(out));
  CHECK(cudaFree(buf));
}

// ---- a faulting child -------------------------------------------------------------------

__global__ void store_far(int* p) { p[1 << 28] = 1; }  // 1 GiB past a small allocation
__global__ void faulting_parent(int* p) {
  if (threadIdx.x == 0) store_far<<<1, 1>>>(p);
}

static void test_faulting_child() {
  int* d;
  CHECK(cudaMalloc(&d, 256));
  // (Whether cudaGetLastError sees the failure right after the launch depends on when the
  // asynchronous grid fails: not checked.)
  faulting_parent<<<1, 32>>>(d);
  CHECK_RET(cudaDeviceSynchronize(), cudaErrorIllegalAddress);
  CHECK_RET(cudaGetLastError(), cudaErrorIllegalAddress);  // sticky
  void* p = nullptr;
  CHECK_RET(cudaMalloc(&p, 16), cudaErrorIllegalAddress);
  if (!on_warpsim()) {
    note_skipped_on_gpu("recovery by cudaDeviceReset");
    return;
  }
  CHECK(cudaDeviceReset());
  (void)cudaGetLastError();
  // Device launches work again in the new context.
  int* out;
  CHECK(cudaMalloc(&out, 512 * sizeof(int)));
  fill_parent<<<4, 32>>>(out);
  CHECK(cudaDeviceSynchronize());
  int h[4];
  CHECK(cudaMemcpy(h, out + 128 * 3, sizeof h, cudaMemcpyDeviceToHost));
  const int want[4] = {3840, 3841, 3842, 3843};
  check_ints("child writes after cudaDeviceReset", h, want, 4);
  CHECK(cudaFree(out));
}

int main() {
  test_child_writes();
  test_nesting();
  test_streams();
  test_errors_and_limits();
  test_queries();
  test_faulting_child();  // last: it resets the device
  return report_pass();
}
