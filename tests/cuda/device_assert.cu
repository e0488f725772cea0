// device_assert.cu - assert() in device code.
//
// Covers:
//  1. asserts that hold change nothing (results written, cudaDeviceSynchronize succeeds);
//  2. a kernel compiled with NDEBUG (assert.h included again after #define NDEBUG): a false
//     assert does nothing;
//  3. a kernel where two threads of one warp (block 1 of a 2-block grid of 8x4 threads) fail
//     an assert: each failing thread's message reaches stderr in CUDA's format
//       <file>:<line>: <function>: block: [bx,by,bz], thread: [tx,ty,tz] Assertion `<expr>` failed.
//     (the program captures its own stderr around the launch and the synchronisation, checks
//     both lines, then copies what it captured to stderr); cudaDeviceSynchronize returns
//     cudaErrorAssert;
//  4. the error is sticky: cudaMalloc, cudaMemcpy, cudaStreamSynchronize,
//     cudaDeviceSynchronize and a later launch all fail with it; like any failing call each
//     becomes the thread's last error, which cudaGetLastError reports once (measured on an
//     H100 with CUDA 13: it does not keep returning a sticky error); queries that need no
//     context (cudaGetErrorName) still work.
//
// Sources: CUDA C++ Programming Guide, "Assertion" ("each thread for which expression is
// equal to zero prints a message to stderr after synchronization with the host ... Any
// subsequent host-side synchronization calls made for the same device will return
// cudaErrorAssert"; the message format above; "Assertions are disabled by defining NDEBUG");
// driver_types.h, cudaErrorAssert = 710 ("The device cannot be used until cudaThreadExit()
// is called. All existing allocations are invalid").
//
// Build: nvcc -cudart shared -o device_assert device_assert.cu
#include <cassert>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <unistd.h>

#include <cuda_runtime.h>

#define TEST_NAME "device_assert"
#include "cuda_check.h"

static const int kBlocks = 2, kBlockX = 8, kBlockY = 4;
static const int kN = kBlocks * kBlockX * kBlockY;

__device__ int linear_index() {
  return blockIdx.x * blockDim.x * blockDim.y + threadIdx.y * blockDim.x + threadIdx.x;
}

static const int kAssertLine = __LINE__ + 4;  // the line of the assert below
__global__ void check_positive(const int* v, int* out) {
  const int i = linear_index();
  out[i] = -1;
  assert(v[i] > 0);
  out[i] = 2 * v[i];
}

// From here on assert() is compiled out.
#define NDEBUG
#include <assert.h>

__global__ void check_positive_ndebug(const int* v, int* out) {
  const int i = linear_index();
  assert(v[i] > 0);
  out[i] = 3 * v[i];
}

static void run(void (*kernel)(const int*, int*), const int* d_v, int* d_out) {
  kernel<<<kBlocks, dim3(kBlockX, kBlockY)>>>(d_v, d_out);
}

// Runs the failing launch with fd 2 captured; returns what was written there (static storage).
static const char* run_failing_launch(const int* d_v, int* d_out) {
  FILE* cap = tmpfile();
  if (!cap) FAIL("tmpfile() failed");
  fflush(stderr);
  const int saved = dup(2);
  if (saved < 0 || dup2(fileno(cap), 2) < 0) FAIL("cannot redirect stderr");
  // The kernel fails asynchronously: whether cudaGetLastError already reports it right after
  // the launch depends on timing on a GPU, so only the synchronisation is checked.
  run(check_positive, d_v, d_out);
  const cudaError_t sync = cudaDeviceSynchronize();
  fflush(stderr);
  dup2(saved, 2);
  close(saved);
  static char got[64 * 1024];
  fseek(cap, 0, SEEK_SET);
  const size_t len = fread(got, 1, sizeof got - 1, cap);
  got[len] = '\0';
  fclose(cap);
  fputs(got, stderr);  // keep it visible
  CHECK_RET(sync, cudaErrorAssert);
  return got;
}

// `text` must hold a whole line "<...>device_assert.cu:<kAssertLine>: <rest>".
static void expect_assert_line(const char* text, const char* rest) {
  char suffix[512];
  snprintf(suffix, sizeof suffix, "device_assert.cu:%d: %s\n", kAssertLine, rest);
  const char* at = strstr(text, suffix);
  EXPECT(at != nullptr, "stderr lacks the line \"...%.*s\"; it holds:\n%s",
         (int)strlen(suffix) - 1, suffix, text);
  const char* line_start = at;
  while (line_start > text && line_start[-1] != '\n') --line_start;
  EXPECT(strchr(line_start, ':') == at + strlen("device_assert.cu"),
         "the message does not start with the file name: %.*s", (int)(at - line_start), line_start);
}

int main() {
  CHECK(cudaSetDevice(0));
  static int v[kN], out[kN], want[kN];
  for (int i = 0; i < kN; ++i) v[i] = i + 1;
  int *d_v = nullptr, *d_out = nullptr;
  CHECK(cudaMalloc(&d_v, sizeof v));
  CHECK(cudaMalloc(&d_out, sizeof out));

  // 1. every assert holds
  CHECK(cudaMemcpy(d_v, v, sizeof v, cudaMemcpyHostToDevice));
  run(check_positive, d_v, d_out);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaMemcpy(out, d_out, sizeof out, cudaMemcpyDeviceToHost));
  for (int i = 0; i < kN; ++i) want[i] = 2 * v[i];
  check_ints("asserts that hold", out, want, kN);

  // 2. NDEBUG: a false assert does nothing
  v[37] = -4;  // block 1, thread [5,0,0]
  v[40] = 0;   // block 1, thread [0,1,0]
  CHECK(cudaMemcpy(d_v, v, sizeof v, cudaMemcpyHostToDevice));
  run(check_positive_ndebug, d_v, d_out);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaMemcpy(out, d_out, sizeof out, cudaMemcpyDeviceToHost));
  for (int i = 0; i < kN; ++i) want[i] = 3 * v[i];
  check_ints("asserts compiled out with NDEBUG", out, want, kN);

  // 3. two threads fail: each prints CUDA's line on stderr
  const char* err = run_failing_launch(d_v, d_out);
  expect_assert_line(err, "void check_positive(const int *, int *): block: [1,0,0], "
                          "thread: [5,0,0] Assertion `v[i] > 0` failed.");
  expect_assert_line(err, "void check_positive(const int *, int *): block: [1,0,0], "
                          "thread: [0,1,0] Assertion `v[i] > 0` failed.");

  // 4. sticky: everything that needs the context fails with cudaErrorAssert; the failed
  // synchronisation is the thread's last error, reported once
  CHECK_RET(cudaPeekAtLastError(), cudaErrorAssert);
  CHECK_RET(cudaGetLastError(), cudaErrorAssert);
  CHECK_RET(cudaGetLastError(), cudaSuccess);
  int* d_more = nullptr;
  CHECK_RET(cudaMalloc(&d_more, 64), cudaErrorAssert);
  CHECK_RET(cudaGetLastError(), cudaErrorAssert);
  CHECK_RET(cudaMemcpy(out, d_out, sizeof out, cudaMemcpyDeviceToHost), cudaErrorAssert);
  CHECK_RET(cudaStreamSynchronize(0), cudaErrorAssert);
  check_positive_ndebug<<<1, 1>>>(d_v, d_out);
  CHECK_RET(cudaGetLastError(), cudaErrorAssert);
  CHECK_RET(cudaDeviceSynchronize(), cudaErrorAssert);
  EXPECT(strcmp(cudaGetErrorName(cudaErrorAssert), "cudaErrorAssert") == 0,
         "cudaGetErrorName(710) = %s", cudaGetErrorName(cudaErrorAssert));
  EXPECT((int)cudaErrorAssert == 710, "cudaErrorAssert is %d", (int)cudaErrorAssert);
  return report_pass();
}
