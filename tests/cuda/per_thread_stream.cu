// per_thread_stream.cu - the per-thread default stream (nvcc --default-stream per-thread).
//
// Covers: 4 host std::threads, each doing cudaMalloc, cudaMemcpy, a <<<>>> launch without a
// stream argument, cudaMemcpyAsync on stream 0, cudaStreamSynchronize(cudaStreamPerThread) and
// cudaStreamSynchronize(0), cudaStreamQuery(cudaStreamPerThread), then checking its own
// results; with this build mode "stream 0" and the default launch stream are the calling
// thread's own stream, so (CUDA >= 12) cudaStreamGetId(cudaStreamPerThread) differs between the
// threads. The main thread then uses cudaStreamLegacy explicitly (launch, cudaMemcpyAsync,
// cudaStreamSynchronize).
//
// Build: nvcc --default-stream per-thread -cudart shared -o per_thread_stream per_thread_stream.cu
// (Built without the option it still compiles, but fails at run time with a message.)
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include <cuda_runtime.h>

#define TEST_NAME "per_thread_stream"
#include "cuda_check.h"

// Inside worker threads failures are recorded and reported by the main thread.
#define TCHECK(call)                                                                         \
  do {                                                                                       \
    cudaError_t err_ = (call);                                                               \
    if (err_ != cudaSuccess) {                                                               \
      char buf_[512];                                                                        \
      snprintf(buf_, sizeof buf_, "%s:%d: %s returned %s (%d), expected cudaSuccess",        \
               __FILE__, __LINE__, #call, cudaGetErrorName(err_), (int)err_);                \
      r.error = buf_;                                                                        \
      return;                                                                                \
    }                                                                                        \
  } while (0)

__global__ void transform(int* p, int n, int mul, int add) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = p[i] * mul + add;
}

struct WorkerResult {
  std::string error;
  unsigned long long stream_id = 0;
};

static void worker(int t, WorkerResult& r) {
  const int n = 3000 + 500 * t;
  TCHECK(cudaSetDevice(0));
  std::vector<int> h(n), back(n, -1);
  for (int i = 0; i < n; ++i) h[i] = i + t * 100000;
  int* d = nullptr;
  TCHECK(cudaMalloc(&d, n * sizeof(int)));
  TCHECK(cudaMemcpy(d, h.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  for (int k = 0; k < 3; ++k) {  // several launches on the thread's default stream
    transform<<<(n + 127) / 128, 128>>>(d, n, 2, t);
    TCHECK(cudaGetLastError());
  }
  TCHECK(cudaStreamSynchronize(cudaStreamPerThread));
  TCHECK(cudaStreamQuery(cudaStreamPerThread));
  transform<<<(n + 127) / 128, 128, 0, 0>>>(d, n, 1, -t);  // explicit stream 0
  TCHECK(cudaGetLastError());
  TCHECK(cudaMemcpyAsync(back.data(), d, n * sizeof(int), cudaMemcpyDeviceToHost, 0));
  TCHECK(cudaStreamSynchronize(0));
#if CUDART_VERSION >= 12000
  TCHECK(cudaStreamGetId(cudaStreamPerThread, &r.stream_id));
#endif
  for (int i = 0; i < n; ++i) {
    long long v = h[i];
    for (int k = 0; k < 3; ++k) v = v * 2 + t;
    v -= t;
    if (back[i] != (int)v) {
      char buf[256];
      snprintf(buf, sizeof buf, "thread %d: first mismatch at index %d: got %d, expected %lld",
               t, i, back[i], v);
      r.error = buf;
      cudaFree(d);
      return;
    }
  }
  TCHECK(cudaFree(d));
}

#ifdef CUDA_API_PER_THREAD_DEFAULT_STREAM
static volatile bool kPerThreadBuild = true;  // volatile: no "unreachable code" warning
#else
static volatile bool kPerThreadBuild = false;  // volatile: no "unreachable code" warning
#endif

int main() {
  if (!kPerThreadBuild) FAIL("not built with --default-stream per-thread");
  CHECK(cudaSetDevice(0));
  CHECK(cudaFree(0));

  const int kThreads = 4;
  std::vector<WorkerResult> results(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) threads.emplace_back(worker, t, std::ref(results[t]));
  for (std::thread& th : threads) th.join();
  for (int t = 0; t < kThreads; ++t)
    if (!results[t].error.empty()) FAIL("worker %d: %s", t, results[t].error.c_str());
#if CUDART_VERSION >= 12000
  for (int a = 0; a < kThreads; ++a)
    for (int b = a + 1; b < kThreads; ++b)
      if (results[a].stream_id == results[b].stream_id)
        FAIL("threads %d and %d share per-thread stream id %llu", a, b, results[a].stream_id);
#endif

  // The legacy default stream, named explicitly.
  const int n = 2048;
  std::vector<int> h(n);
  for (int i = 0; i < n; ++i) h[i] = 7 * i;
  int* d = nullptr;
  CHECK(cudaMalloc(&d, n * sizeof(int)));
  CHECK(cudaMemcpyAsync(d, h.data(), n * sizeof(int), cudaMemcpyHostToDevice, cudaStreamLegacy));
  transform<<<(n + 255) / 256, 256, 0, cudaStreamLegacy>>>(d, n, -1, 3);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpyAsync(h.data(), d, n * sizeof(int), cudaMemcpyDeviceToHost, cudaStreamLegacy));
  CHECK(cudaStreamSynchronize(cudaStreamLegacy));
  for (int i = 0; i < n; ++i)
    if (h[i] != -7 * i + 3)
      FAIL("cudaStreamLegacy: first mismatch at index %d: got %d, expected %d", i, h[i],
           -7 * i + 3);
  CHECK(cudaFree(d));
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaGetLastError());
  return report_pass();
}
