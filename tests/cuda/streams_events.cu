// streams_events.cu - streams, events and host callbacks.
//
// Covers:
//  - cudaStreamCreate / cudaStreamCreateWithFlags(cudaStreamNonBlocking) /
//    cudaStreamCreateWithPriority (incl. clamping of an out-of-range priority),
//    cudaStreamGetFlags, cudaStreamGetPriority ("0 represents default priority");
//  - per-stream ordering of H2D copy -> kernel -> D2D copy -> kernel -> D2H copy chains on 4
//    streams with pinned host memory;
//  - cudaStreamWaitEvent: stream B waits for a slow kernel in stream A (the result proves the
//    order); cudaStreamQuery == cudaSuccess after cudaStreamSynchronize;
//  - events: cudaEventCreate / cudaEventCreateWithFlags(cudaEventDisableTiming,
//    cudaEventBlockingSync), cudaEventRecord on streams and on the default stream,
//    cudaEventSynchronize, cudaEventQuery (a never-recorded event is complete: cudaSuccess),
//    cudaEventElapsedTime >= 0, and cudaErrorInvalidResourceHandle from cudaEventElapsedTime
//    when an event has timing disabled or was never recorded (documented);
//  - cudaStreamAddCallback and cudaLaunchHostFunc run in stream order, after the preceding
//    kernel finished (they read what it wrote to mapped host memory);
//  - cudaStreamPerThread and cudaStreamLegacy accepted by cudaMemcpyAsync, launches and
//    cudaStreamSynchronize;
//  - cudaStreamDestroy of a stream with pending work returns at once and the work completes.
//
// Build: nvcc -cudart shared -o streams_events streams_events.cu   [also builds with CUDA 11.8]
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <cuda_runtime.h>

#define TEST_NAME "streams_events"
#include "cuda_check.h"

__global__ void k_scale_add(int* p, int n, int mul, int add) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = p[i] * mul + add;
}

// One thread burns `iters` iterations, then publishes `value` (and the LCG state, so the loop
// cannot be optimised away).
__global__ void k_slow_write(int* dst, int value, int iters, unsigned* sink) {
  unsigned acc = 1;
  for (int i = 0; i < iters; ++i) acc = acc * 1103515245u + 12345u;
  *sink = acc;
  *dst = value;
}

__global__ void k_read_plus_one(const int* src, int* dst) { *dst = *src + 1; }

__global__ void k_set(int* p, int v) { *p = v; }

static const int kN = 4096;
static int blocks(int n) { return (n + 127) / 128; }

// ---- host callbacks ----
static volatile int* g_mapped = nullptr;  // host view of the mapped flag written by kernels
static int g_order[8];
static int g_norder = 0;
static cudaError_t g_cb_status = cudaSuccess;

static void CUDART_CB stream_callback(cudaStream_t, cudaError_t status, void* user) {
  if (status != cudaSuccess) g_cb_status = status;
  g_order[g_norder++] = (int)(size_t)user + *g_mapped;
}
static void CUDART_CB host_func(void* user) { g_order[g_norder++] = (int)(size_t)user + *g_mapped; }

int main() {
  CHECK(cudaSetDevice(0));
  int least = 0, greatest = 0;
  CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));

  // ---- stream creation and queries ----
  cudaStream_t s_plain, s_nb, s_prio, s_clamped;
  CHECK(cudaStreamCreate(&s_plain));
  CHECK(cudaStreamCreateWithFlags(&s_nb, cudaStreamNonBlocking));
  CHECK(cudaStreamCreateWithPriority(&s_prio, cudaStreamNonBlocking, greatest));
  CHECK(cudaStreamCreateWithPriority(&s_clamped, cudaStreamDefault, greatest - 100));
  unsigned flags = 99;
  int prio = 99;
  CHECK(cudaStreamGetFlags(s_plain, &flags));
  EXPECT(flags == cudaStreamDefault, "cudaStreamCreate stream flags %u", flags);
  CHECK(cudaStreamGetPriority(s_plain, &prio));
  EXPECT(prio == 0, "cudaStreamCreate stream priority %d, expected default 0", prio);
  CHECK(cudaStreamGetFlags(s_nb, &flags));
  EXPECT(flags == cudaStreamNonBlocking, "non-blocking stream flags %u", flags);
  CHECK(cudaStreamGetFlags(s_prio, &flags));
  EXPECT(flags == cudaStreamNonBlocking, "priority stream flags %u", flags);
  CHECK(cudaStreamGetPriority(s_prio, &prio));
  EXPECT(prio == greatest, "priority stream priority %d, expected %d", prio, greatest);
  CHECK(cudaStreamGetPriority(s_clamped, &prio));
  EXPECT(prio == greatest, "out-of-range priority %d not clamped to %d", prio, greatest);

  // ---- 4 streams, each a chain H2D -> kernel -> D2D -> kernel -> D2H ----
  {
    cudaStream_t st[4] = {s_plain, s_nb, s_prio, s_clamped};
    int* h_in[4];
    int* h_out[4];
    int* d_a[4];
    int* d_b[4];
    const size_t bytes = kN * sizeof(int);
    for (int s = 0; s < 4; ++s) {
      CHECK(cudaMallocHost(&h_in[s], bytes));
      CHECK(cudaMallocHost(&h_out[s], bytes));
      CHECK(cudaMalloc(&d_a[s], bytes));
      CHECK(cudaMalloc(&d_b[s], bytes));
      for (int i = 0; i < kN; ++i) {
        h_in[s][i] = i * (s + 1);
        h_out[s][i] = -1;
      }
    }
    for (int s = 0; s < 4; ++s) {
      CHECK(cudaMemcpyAsync(d_a[s], h_in[s], bytes, cudaMemcpyHostToDevice, st[s]));
      k_scale_add<<<blocks(kN), 128, 0, st[s]>>>(d_a[s], kN, 2, s);
      CHECK(cudaGetLastError());
      CHECK(cudaMemcpyAsync(d_b[s], d_a[s], bytes, cudaMemcpyDeviceToDevice, st[s]));
      k_scale_add<<<blocks(kN), 128, 0, st[s]>>>(d_b[s], kN, -1, 1000 * s);
      CHECK(cudaGetLastError());
      CHECK(cudaMemcpyAsync(h_out[s], d_b[s], bytes, cudaMemcpyDeviceToHost, st[s]));
    }
    static int want[kN];
    for (int s = 0; s < 4; ++s) {
      CHECK(cudaStreamSynchronize(st[s]));
      CHECK(cudaStreamQuery(st[s]));  // all work done -> cudaSuccess
      for (int i = 0; i < kN; ++i) want[i] = -(i * (s + 1) * 2 + s) + 1000 * s;
      char what[64];
      snprintf(what, sizeof what, "stream %d chain", s);
      check_ints(what, h_out[s], want, kN);
    }
    for (int s = 0; s < 4; ++s) {
      CHECK(cudaFreeHost(h_in[s]));
      CHECK(cudaFreeHost(h_out[s]));
      CHECK(cudaFree(d_a[s]));
      CHECK(cudaFree(d_b[s]));
    }
  }

  int* d_ints = nullptr;  // [0] value, [1] result, [2..] scratch
  unsigned* d_sink = nullptr;
  CHECK(cudaMalloc(&d_ints, 64 * sizeof(int)));
  CHECK(cudaMalloc(&d_sink, sizeof(unsigned)));
  CHECK(cudaMemset(d_ints, 0, 64 * sizeof(int)));
  // s_nb / s_prio are non-blocking: they do not wait for the legacy stream's memset.
  CHECK(cudaDeviceSynchronize());

  // ---- cudaStreamWaitEvent: B must not read before A's slow kernel wrote ----
  {
    cudaEvent_t ev_a;
    CHECK(cudaEventCreateWithFlags(&ev_a, cudaEventDisableTiming));
    k_slow_write<<<1, 1, 0, s_nb>>>(d_ints, 41, 20000, d_sink);
    CHECK(cudaGetLastError());
    CHECK(cudaEventRecord(ev_a, s_nb));
    CHECK(cudaStreamWaitEvent(s_prio, ev_a, 0));
    k_read_plus_one<<<1, 1, 0, s_prio>>>(d_ints, d_ints + 1);
    CHECK(cudaGetLastError());
    CHECK(cudaStreamSynchronize(s_prio));
    CHECK(cudaStreamQuery(s_prio));
    int r[2];
    CHECK(cudaMemcpy(r, d_ints, sizeof r, cudaMemcpyDeviceToHost));
    EXPECT(r[0] == 41 && r[1] == 42, "cudaStreamWaitEvent: value %d, reader saw %d (want 42)",
           r[0], r[1]);
    CHECK(cudaEventDestroy(ev_a));
  }

  // ---- events ----
  {
    cudaEvent_t e_start, e_stop, e_notime, e_block, e_never;
    CHECK(cudaEventCreate(&e_start));
    CHECK(cudaEventCreate(&e_stop));
    CHECK(cudaEventCreateWithFlags(&e_notime, cudaEventDisableTiming));
    CHECK(cudaEventCreateWithFlags(&e_block, cudaEventBlockingSync));
    CHECK(cudaEventCreate(&e_never));

    // "Before the first call to cudaEventRecord(), an event represents an empty set of work,
    // so for example cudaEventQuery() would return cudaSuccess."
    CHECK(cudaEventQuery(e_never));
    CHECK(cudaEventSynchronize(e_never));

    // Default stream.
    CHECK(cudaEventRecord(e_start, 0));
    k_slow_write<<<1, 1>>>(d_ints + 2, 7, 5000, d_sink);
    CHECK(cudaGetLastError());
    CHECK(cudaEventRecord(e_stop));  // default argument: stream 0
    CHECK(cudaEventSynchronize(e_stop));
    CHECK(cudaEventQuery(e_stop));
    CHECK(cudaEventQuery(e_start));
    float ms = -1.0f;
    CHECK(cudaEventElapsedTime(&ms, e_start, e_stop));
    EXPECT(ms >= 0.0f, "cudaEventElapsedTime = %f ms", (double)ms);
    int v = 0;
    CHECK(cudaMemcpy(&v, d_ints + 2, sizeof v, cudaMemcpyDeviceToHost));
    EXPECT(v == 7, "kernel between events wrote %d", v);

    // Events recorded on a created stream; BlockingSync event.
    k_set<<<1, 1, 0, s_plain>>>(d_ints + 3, 99);
    CHECK(cudaGetLastError());
    CHECK(cudaEventRecord(e_block, s_plain));
    CHECK(cudaEventRecord(e_notime, s_plain));
    CHECK(cudaEventSynchronize(e_block));
    CHECK(cudaEventQuery(e_block));
    CHECK(cudaMemcpy(&v, d_ints + 3, sizeof v, cudaMemcpyDeviceToHost));
    EXPECT(v == 99, "kernel before e_block wrote %d", v);
    CHECK(cudaEventSynchronize(e_notime));
    CHECK(cudaEventQuery(e_notime));
    CHECK(cudaEventElapsedTime(&ms, e_stop, e_block));
    EXPECT(ms >= 0.0f, "cudaEventElapsedTime(e_stop, e_block) = %f ms", (double)ms);

    // "If either event was created with the cudaEventDisableTiming flag, then this function
    // will return cudaErrorInvalidResourceHandle."
    CHECK_FAILS(cudaEventElapsedTime(&ms, e_start, e_notime), cudaErrorInvalidResourceHandle);
    CHECK_FAILS(cudaEventElapsedTime(&ms, e_notime, e_stop), cudaErrorInvalidResourceHandle);
    // "If cudaEventRecord() has not been called on either event, then
    // cudaErrorInvalidResourceHandle is returned."
    CHECK_FAILS(cudaEventElapsedTime(&ms, e_never, e_stop), cudaErrorInvalidResourceHandle);

    // Re-recording overwrites the captured state.
    CHECK(cudaEventRecord(e_start, s_nb));
    CHECK(cudaEventSynchronize(e_start));
    CHECK(cudaEventElapsedTime(&ms, e_stop, e_start));
    EXPECT(ms >= 0.0f, "elapsed to re-recorded event = %f ms", (double)ms);

    CHECK(cudaEventDestroy(e_start));
    CHECK(cudaEventDestroy(e_stop));
    CHECK(cudaEventDestroy(e_notime));
    CHECK(cudaEventDestroy(e_block));
    CHECK(cudaEventDestroy(e_never));
  }

  // ---- callbacks in stream order ----
  {
    int* mapped = nullptr;
    CHECK(cudaHostAlloc(&mapped, sizeof(int), cudaHostAllocMapped));
    *mapped = 0;
    g_mapped = mapped;
    int* mapped_dev = nullptr;
    CHECK(cudaHostGetDevicePointer(&mapped_dev, mapped, 0));
    k_set<<<1, 1, 0, s_plain>>>(mapped_dev, 1);
    CHECK(cudaGetLastError());
    CHECK(cudaStreamAddCallback(s_plain, stream_callback, (void*)(size_t)10, 0));
    k_set<<<1, 1, 0, s_plain>>>(mapped_dev, 2);
    CHECK(cudaGetLastError());
    CHECK(cudaLaunchHostFunc(s_plain, host_func, (void*)(size_t)20));
    k_set<<<1, 1, 0, s_plain>>>(mapped_dev, 3);
    CHECK(cudaGetLastError());
    CHECK(cudaStreamAddCallback(s_plain, stream_callback, (void*)(size_t)30, 0));
    CHECK(cudaLaunchHostFunc(s_plain, host_func, (void*)(size_t)40));
    CHECK(cudaStreamSynchronize(s_plain));
    EXPECT(g_cb_status == cudaSuccess, "callback got status %s", cudaGetErrorName(g_cb_status));
    const int want[4] = {11, 22, 33, 43};
    EXPECT(g_norder == 4, "%d callbacks ran, expected 4", g_norder);
    check_ints("callback order / visibility of preceding kernels", g_order, want, 4);
    g_mapped = nullptr;
    CHECK(cudaFreeHost(mapped));
  }

  // ---- special stream handles ----
  {
    const cudaStream_t handles[2] = {cudaStreamPerThread, cudaStreamLegacy};
    const char* names[2] = {"cudaStreamPerThread", "cudaStreamLegacy"};
    int* h = nullptr;
    CHECK(cudaMallocHost(&h, kN * sizeof(int)));
    int* d = nullptr;
    CHECK(cudaMalloc(&d, kN * sizeof(int)));
    static int want[kN];
    for (int k = 0; k < 2; ++k) {
      for (int i = 0; i < kN; ++i) h[i] = i - k;
      CHECK(cudaMemcpyAsync(d, h, kN * sizeof(int), cudaMemcpyHostToDevice, handles[k]));
      k_scale_add<<<blocks(kN), 128, 0, handles[k]>>>(d, kN, 3, k);
      CHECK(cudaGetLastError());
      CHECK(cudaMemcpyAsync(h, d, kN * sizeof(int), cudaMemcpyDeviceToHost, handles[k]));
      CHECK(cudaStreamSynchronize(handles[k]));
      CHECK(cudaStreamQuery(handles[k]));
      for (int i = 0; i < kN; ++i) want[i] = (i - k) * 3 + k;
      check_ints(names[k], h, want, kN);
    }
    CHECK(cudaFreeHost(h));
    CHECK(cudaFree(d));
  }

  // ---- destroying a stream with pending work ----
  {
    cudaStream_t s_tmp;
    CHECK(cudaStreamCreate(&s_tmp));
    CHECK(cudaMemset(d_ints, 0, 64 * sizeof(int)));
    CHECK(cudaDeviceSynchronize());
    k_slow_write<<<1, 1, 0, s_tmp>>>(d_ints + 10, 123, 20000, d_sink);
    CHECK(cudaGetLastError());
    k_read_plus_one<<<1, 1, 0, s_tmp>>>(d_ints + 10, d_ints + 11);
    CHECK(cudaGetLastError());
    // "the function will return immediately and the resources associated with stream will
    // be released automatically once the device has completed all work in stream."
    CHECK(cudaStreamDestroy(s_tmp));
    CHECK(cudaDeviceSynchronize());
    int r[2];
    CHECK(cudaMemcpy(r, d_ints + 10, sizeof r, cudaMemcpyDeviceToHost));
    EXPECT(r[0] == 123 && r[1] == 124, "work of destroyed stream: %d %d", r[0], r[1]);
  }

  CHECK(cudaStreamDestroy(s_plain));
  CHECK(cudaStreamDestroy(s_nb));
  CHECK(cudaStreamDestroy(s_prio));
  CHECK(cudaStreamDestroy(s_clamped));
  CHECK(cudaFree(d_ints));
  CHECK(cudaFree(d_sink));
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaGetLastError());
  return report_pass();
}
