// capture_fork_destroy.cu - destroying a forked stream during a stream capture.
//
// Covers the fork/join pattern of NVIDIA's graphMemoryNodes sample: a second stream joins a
// capture by waiting on an event of the capturing stream, does its part, is joined back by
// an event the origin waits on, and is destroyed before cudaStreamEndCapture, which still
// succeeds with every node in the graph; the graph then runs and computes the right result.
// A forked stream destroyed before it was joined back makes cudaStreamEndCapture fail with
// cudaErrorStreamCaptureUnjoined; destroying the origin stream invalidates the capture
// (cudaErrorStreamCaptureInvalidated from a joined stream ending it is not reachable, so the
// origin's destruction is checked through cudaStreamGetCaptureInfo of the other stream).
//
// Build: nvcc -cudart shared -o capture_fork_destroy capture_fork_destroy.cu
#define TEST_NAME "capture_fork_destroy"
#include "cuda_check.h"

__global__ void fill(int* a, int n, int v) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] = v + i;
}
__global__ void add(int* out, const int* a, const int* b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = a[i] + b[i];
}

int main() {
  const int n = 1024;
  int *a, *b, *out;
  CHECK(cudaMalloc(&a, n * sizeof(int)));
  CHECK(cudaMalloc(&b, n * sizeof(int)));
  CHECK(cudaMalloc(&out, n * sizeof(int)));

  // Joined back, then destroyed: the capture succeeds.
  cudaStream_t origin, forked;
  cudaEvent_t fork_event, join_event;
  CHECK(cudaStreamCreateWithFlags(&origin, cudaStreamNonBlocking));
  CHECK(cudaStreamCreateWithFlags(&forked, cudaStreamNonBlocking));
  CHECK(cudaEventCreate(&fork_event));
  CHECK(cudaEventCreate(&join_event));
  CHECK(cudaStreamBeginCapture(origin, cudaStreamCaptureModeGlobal));
  CHECK(cudaEventRecord(fork_event, origin));
  CHECK(cudaStreamWaitEvent(forked, fork_event, 0));
  fill<<<n / 256, 256, 0, origin>>>(a, n, 100);
  fill<<<n / 256, 256, 0, forked>>>(b, n, 7000);
  CHECK(cudaEventRecord(join_event, forked));
  CHECK(cudaStreamWaitEvent(origin, join_event, 0));
  CHECK(cudaStreamDestroy(forked));
  add<<<n / 256, 256, 0, origin>>>(out, a, b, n);
  cudaGraph_t graph;
  CHECK(cudaStreamEndCapture(origin, &graph));
  size_t nodes = 0;
  CHECK(cudaGraphGetNodes(graph, nullptr, &nodes));
  EXPECT(nodes == 3, "the graph has %zu nodes, expected 3", nodes);
  cudaGraphExec_t exec;
  CHECK(cudaGraphInstantiate(&exec, graph, 0));
  CHECK(cudaGraphLaunch(exec, origin));
  CHECK(cudaStreamSynchronize(origin));
  static int got[n], want[n];
  CHECK(cudaMemcpy(got, out, sizeof got, cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i) want[i] = 100 + i + 7000 + i;
  check_ints("out", got, want, n);
  CHECK(cudaGraphExecDestroy(exec));
  CHECK(cudaGraphDestroy(graph));

  // Destroyed before it was joined back: its work is unjoined.
  CHECK(cudaStreamCreateWithFlags(&forked, cudaStreamNonBlocking));
  CHECK(cudaStreamBeginCapture(origin, cudaStreamCaptureModeGlobal));
  CHECK(cudaEventRecord(fork_event, origin));
  CHECK(cudaStreamWaitEvent(forked, fork_event, 0));
  fill<<<n / 256, 256, 0, forked>>>(b, n, 1);
  CHECK(cudaStreamDestroy(forked));
  graph = nullptr;
  CHECK_FAILS(cudaStreamEndCapture(origin, &graph), cudaErrorStreamCaptureUnjoined);
  EXPECT(graph == nullptr, "a failed capture returned a graph");

  // The origin destroyed: the capture is invalidated, its other stream sees it.
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  CHECK(cudaStreamCreateWithFlags(&forked, cudaStreamNonBlocking));
  CHECK(cudaStreamBeginCapture(origin, cudaStreamCaptureModeGlobal));
  CHECK(cudaEventRecord(fork_event, origin));
  CHECK(cudaStreamWaitEvent(forked, fork_event, 0));
  CHECK(cudaStreamIsCapturing(forked, &status));
  EXPECT(status == cudaStreamCaptureStatusActive, "forked stream capture status %d", (int)status);
  CHECK(cudaStreamDestroy(origin));
  CHECK_RET(cudaStreamIsCapturing(forked, &status), cudaSuccess);
  EXPECT(status == cudaStreamCaptureStatusInvalidated, "after the origin went: status %d",
         (int)status);

  CHECK(cudaStreamDestroy(forked));
  CHECK(cudaEventDestroy(fork_event));
  CHECK(cudaEventDestroy(join_event));
  CHECK(cudaFree(a));
  CHECK(cudaFree(b));
  CHECK(cudaFree(out));
  return report_pass();
}
