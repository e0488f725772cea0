// graph_capture.cu - CUDA graphs built by stream capture:
//  - a captured sequence (memset, H2D copy, two kernels, D2H copy, host function) runs only when
//    the graph is launched, every time it is launched, in order;
//  - capture status and information (id, graph, dependencies) while capturing;
//  - fork/join across streams through events: the joined streams' work becomes parallel
//    branches of one graph (checked through the captured graph's shape: dependencies a join
//    gathers are all kept, implied ones too);
//  - nodes without a path between them overlap on the simulated timeline: a graph of two
//    independent kernels takes less event time than the same kernels in one stream;
//  - launching a graph into a capturing stream is refused (cudaErrorStreamCaptureUnsupported)
//    and invalidates the capture (an H100 with CUDA 13);
//  - cudaStreamUpdateCaptureDependencies and capture into an existing graph
//    (cudaStreamBeginCaptureToGraph);
//  - cudaGraphExecKernelNodeSetParams and cudaGraphExecUpdate on a captured graph;
//  - the capture modes: cudaMalloc is refused during a global capture (and the capture is
//    invalidated), allowed in relaxed mode; cudaThreadExchangeStreamCaptureMode;
//  - the host cannot wait for a captured event: cudaEventSynchronize / cudaEventQuery fail with
//    cudaErrorCapturedEvent and invalidate the capture (cudaErrorInvalidValue once it is
//    invalidated); during a global capture, waiting for or querying an ordinary event is
//    refused (cudaErrorStreamCaptureUnsupported) and so is querying the legacy stream while a
//    blocking stream captures (cudaErrorStreamCaptureImplicit), each invalidating the capture
//    (all measured on an H100 with CUDA 13).
#define TEST_NAME "graph_capture"
#include "cuda_check.h"
#include "graph_compat.h"

__global__ void scale(float* x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= a;
}

__global__ void add_const(float* x, float c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] += c;
}

// Busy work: enough instructions for a visible duration.
__global__ void spin(float* x, int iters) {
  float v = x[threadIdx.x];
  for (int k = 0; k < iters; ++k) v = v * 0.999f + 0.5f;
  x[blockIdx.x * blockDim.x + threadIdx.x] = v;
}

static int host_calls = 0;
static void count_call(void* p) { ++*static_cast<int*>(p); }

static const int N = 1024;

static void test_captured_sequence() {
  cudaStream_t s;
  CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  float *d = nullptr, *h_in = nullptr, *h_out = nullptr;
  CHECK(cudaMalloc(&d, N * sizeof(float)));
  CHECK(cudaMallocHost(&h_in, N * sizeof(float)));
  CHECK(cudaMallocHost(&h_out, N * sizeof(float)));
  for (int i = 0; i < N; ++i) h_in[i] = (float)i;
  CHECK(cudaMemset(d, 0, N * sizeof(float)));

  cudaStreamCaptureStatus st;
  CHECK(cudaStreamIsCapturing(s, &st));
  EXPECT(st == cudaStreamCaptureStatusNone, "status %d before capture", (int)st);

  CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  CHECK(cudaStreamIsCapturing(s, &st));
  EXPECT(st == cudaStreamCaptureStatusActive, "status %d during capture", (int)st);
  CHECK(cudaMemsetAsync(d, 0, N * sizeof(float), s));
  CHECK(cudaMemcpyAsync(d, h_in, N * sizeof(float), cudaMemcpyHostToDevice, s));
  scale<<<N / 256, 256, 0, s>>>(d, 2.0f, N);
  CHECK(cudaGetLastError());
  add_const<<<N / 256, 256, 0, s>>>(d, 1.0f, N);
  CHECK(cudaMemcpyAsync(h_out, d, N * sizeof(float), cudaMemcpyDeviceToHost, s));
  CHECK(cudaLaunchHostFunc(s, count_call, &host_calls));

  unsigned long long id = 0;
  cudaGraph_t during = nullptr;
  const cudaGraphNode_t* deps = nullptr;
  size_t ndeps = 0;
  CHECK(capture_info(s, &st, &id, &during, &deps, &ndeps));
  EXPECT(st == cudaStreamCaptureStatusActive && id != 0 && during != nullptr && ndeps == 1,
         "capture info: status %d id %llu graph %p deps %zu", (int)st, id, (void*)during, ndeps);
  cudaGraphNodeType t;
  CHECK(cudaGraphNodeGetType(deps[0], &t));
  EXPECT(t == cudaGraphNodeTypeHost, "last captured node type %d", (int)t);

  // Nothing ran yet.
  EXPECT(host_calls == 0, "host function ran during capture");
  for (int i = 0; i < N; ++i) h_out[i] = -1.0f;

  cudaGraph_t g;
  CHECK(cudaStreamEndCapture(s, &g));
  EXPECT(g == during, "EndCapture returned another graph than GetCaptureInfo");
  CHECK(cudaStreamIsCapturing(s, &st));
  EXPECT(st == cudaStreamCaptureStatusNone, "status %d after capture", (int)st);
  size_t n = 0;
  CHECK(cudaGraphGetNodes(g, nullptr, &n));
  EXPECT(n == 6, "captured %zu nodes, expected 6", n);
  size_t nedges = 0;
  CHECK(graph_edges(g, nullptr, nullptr, &nedges));
  EXPECT(nedges == 5, "captured chain has %zu edges, expected 5", nedges);

  cudaGraphExec_t exec;
  CHECK(instantiate(&exec, g));
  EXPECT(h_out[0] == -1.0f && host_calls == 0, "instantiation ran the graph");
  for (int launch = 1; launch <= 3; ++launch) {
    for (int i = 0; i < N; ++i) h_in[i] = (float)(i * launch);
    CHECK(cudaGraphLaunch(exec, s));
    CHECK(cudaStreamSynchronize(s));
    for (int i = 0; i < N; ++i)
      if (h_out[i] != 2.0f * i * launch + 1.0f)
        FAIL("launch %d: out[%d] = %g, expected %g", launch, i, h_out[i], 2.0f * i * launch + 1.0f);
    EXPECT(host_calls == launch, "host function ran %d times after %d launches", host_calls,
           launch);
  }

  // Change the second kernel's constant in the instantiated graph only.
  cudaGraphNode_t nodes[6];
  n = 6;
  CHECK(cudaGraphGetNodes(g, nodes, &n));
  cudaGraphNode_t add_node = nullptr;
  int kernels = 0;
  for (size_t i = 0; i < n; ++i) {
    CHECK(cudaGraphNodeGetType(nodes[i], &t));
    if (t == cudaGraphNodeTypeKernel && ++kernels == 2) add_node = nodes[i];
  }
  EXPECT(add_node != nullptr, "no second kernel node");
  cudaKernelNodeParams kp;
  CHECK(cudaGraphKernelNodeGetParams(add_node, &kp));
  EXPECT(kp.gridDim.x == N / 256 && kp.blockDim.x == 256, "kernel node grid %u block %u",
         kp.gridDim.x, kp.blockDim.x);
  EXPECT(*(float*)kp.kernelParams[1] == 1.0f, "captured argument %g",
         *(float*)kp.kernelParams[1]);
  float c = 10.0f;
  void* args[] = {&d, &c, (void*)&N};
  int nn = N;
  args[2] = &nn;
  kp.kernelParams = args;
  CHECK(cudaGraphExecKernelNodeSetParams(exec, add_node, &kp));
  for (int i = 0; i < N; ++i) h_in[i] = (float)i;
  CHECK(cudaGraphLaunch(exec, s));
  CHECK(cudaStreamSynchronize(s));
  EXPECT(h_out[5] == 2.0f * 5 + 10.0f, "after SetParams out[5] = %g", h_out[5]);

  // cudaGraphExecUpdate from a second capture of the same shape (constant 100).
  CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  CHECK(cudaMemsetAsync(d, 0, N * sizeof(float), s));
  CHECK(cudaMemcpyAsync(d, h_in, N * sizeof(float), cudaMemcpyHostToDevice, s));
  scale<<<N / 256, 256, 0, s>>>(d, 3.0f, N);
  add_const<<<N / 256, 256, 0, s>>>(d, 100.0f, N);
  CHECK(cudaMemcpyAsync(h_out, d, N * sizeof(float), cudaMemcpyDeviceToHost, s));
  CHECK(cudaLaunchHostFunc(s, count_call, &host_calls));
  cudaGraph_t g2;
  CHECK(cudaStreamEndCapture(s, &g2));
  cudaGraphExecUpdateResult result;
  cudaGraphNode_t error_node;
  CHECK(exec_update(exec, g2, &result, &error_node));
  EXPECT(result == cudaGraphExecUpdateSuccess, "update result %d", (int)result);
  CHECK(cudaGraphLaunch(exec, s));
  CHECK(cudaStreamSynchronize(s));
  EXPECT(h_out[7] == 3.0f * 7 + 100.0f, "after update out[7] = %g", h_out[7]);

  CHECK(cudaGraphExecDestroy(exec));
  CHECK(cudaGraphDestroy(g));
  CHECK(cudaGraphDestroy(g2));
  CHECK(cudaFree(d));
  CHECK(cudaFreeHost(h_in));
  CHECK(cudaFreeHost(h_out));
  CHECK(cudaStreamDestroy(s));
}

// s0 forks s1 and s2 through an event; each scales its own half; both join back.
static void test_fork_join() {
  cudaStream_t s0, s1, s2;
  CHECK(cudaStreamCreate(&s0));
  CHECK(cudaStreamCreate(&s1));
  CHECK(cudaStreamCreate(&s2));
  cudaEvent_t fork, j1, j2;
  CHECK(cudaEventCreateWithFlags(&fork, cudaEventDisableTiming));
  CHECK(cudaEventCreateWithFlags(&j1, cudaEventDisableTiming));
  CHECK(cudaEventCreateWithFlags(&j2, cudaEventDisableTiming));
  float* d;
  CHECK(cudaMalloc(&d, N * sizeof(float)));
  float h[N];
  for (int i = 0; i < N; ++i) h[i] = 1.0f;

  CHECK(cudaStreamBeginCapture(s0, cudaStreamCaptureModeThreadLocal));
  CHECK(cudaMemcpyAsync(d, h, N * sizeof(float), cudaMemcpyHostToDevice, s0));
  CHECK(cudaEventRecord(fork, s0));
  CHECK(cudaStreamWaitEvent(s1, fork, 0));
  CHECK(cudaStreamWaitEvent(s2, fork, 0));
  cudaStreamCaptureStatus st;
  CHECK(cudaStreamIsCapturing(s1, &st));
  EXPECT(st == cudaStreamCaptureStatusActive, "s1 did not join the capture (status %d)", (int)st);
  scale<<<N / 2 / 256, 256, 0, s1>>>(d, 3.0f, N / 2);
  scale<<<N / 2 / 256, 256, 0, s2>>>(d + N / 2, 5.0f, N / 2);
  CHECK(cudaEventRecord(j1, s1));
  CHECK(cudaEventRecord(j2, s2));
  // Ending before the branches joined back is an error.
  CHECK(cudaStreamWaitEvent(s0, j1, 0));
  CHECK(cudaStreamWaitEvent(s0, j2, 0));
  add_const<<<N / 256, 256, 0, s0>>>(d, 1.0f, N);
  CHECK(cudaMemcpyAsync(h, d, N * sizeof(float), cudaMemcpyDeviceToHost, s0));
  cudaGraph_t g;
  CHECK(cudaStreamEndCapture(s0, &g));
  CHECK(cudaStreamIsCapturing(s1, &st));
  EXPECT(st == cudaStreamCaptureStatusNone, "s1 still capturing after the end (status %d)", (int)st);

  // Shape: copy -> {scale, scale} -> add -> copy: 5 nodes, one root. The join keeps every
  // dependency the origin stream had gathered, the copy's too although the branches imply it
  // (as an H100 with CUDA 13 builds it): 6 edges, and the copy has 3 dependents.
  size_t n = 0, edges = 0, roots = 0;
  CHECK(cudaGraphGetNodes(g, nullptr, &n));
  CHECK(graph_edges(g, nullptr, nullptr, &edges));
  CHECK(cudaGraphGetRootNodes(g, nullptr, &roots));
  EXPECT(n == 5 && edges == 6 && roots == 1, "fork/join graph: %zu nodes %zu edges %zu roots", n,
         edges, roots);
  cudaGraphNode_t root;
  roots = 1;
  CHECK(cudaGraphGetRootNodes(g, &root, &roots));
  size_t fan = 0;
  CHECK(node_dependents(root, nullptr, &fan));
  EXPECT(fan == 3, "the copy has %zu dependents, expected 2 branches and the join", fan);

  cudaGraphExec_t exec;
  CHECK(instantiate(&exec, g));
  for (int i = 0; i < N; ++i) h[i] = 2.0f;
  CHECK(cudaGraphLaunch(exec, s0));
  CHECK(cudaStreamSynchronize(s0));
  for (int i = 0; i < N; ++i) {
    float want = 2.0f * (i < N / 2 ? 3.0f : 5.0f) + 1.0f;
    if (h[i] != want) FAIL("fork/join: h[%d] = %g, expected %g", i, h[i], want);
  }

  // A branch that never joins back: cudaErrorStreamCaptureUnjoined, no graph.
  CHECK(cudaStreamBeginCapture(s0, cudaStreamCaptureModeGlobal));
  CHECK(cudaEventRecord(fork, s0));
  CHECK(cudaStreamWaitEvent(s1, fork, 0));
  scale<<<1, 256, 0, s1>>>(d, 1.0f, 256);
  cudaGraph_t bad = (cudaGraph_t)0x1;
  CHECK_FAILS(cudaStreamEndCapture(s0, &bad), cudaErrorStreamCaptureUnjoined);
  EXPECT(bad == nullptr, "unjoined capture returned a graph");
  CHECK(cudaStreamIsCapturing(s1, &st));
  EXPECT(st == cudaStreamCaptureStatusNone, "s1 still capturing after a failed end");

  CHECK(cudaGraphExecDestroy(exec));
  CHECK(cudaGraphDestroy(g));
  CHECK(cudaFree(d));
  CHECK(cudaEventDestroy(fork));
  CHECK(cudaEventDestroy(j1));
  CHECK(cudaEventDestroy(j2));
  CHECK(cudaStreamDestroy(s0));
  CHECK(cudaStreamDestroy(s1));
  CHECK(cudaStreamDestroy(s2));
}

// Two independent kernels in a graph overlap on the simulated timeline; the same two kernels
// in one stream do not.
static void test_overlap() {
  cudaStream_t s, a, b;
  CHECK(cudaStreamCreate(&s));
  CHECK(cudaStreamCreate(&a));
  CHECK(cudaStreamCreate(&b));
  float *x, *y;
  CHECK(cudaMalloc(&x, 256 * sizeof(float)));
  CHECK(cudaMalloc(&y, 256 * sizeof(float)));
  CHECK(cudaMemset(x, 0, 256 * sizeof(float)));
  CHECK(cudaMemset(y, 0, 256 * sizeof(float)));
  cudaEvent_t e0, e1, fork, join;
  CHECK(cudaEventCreate(&e0));
  CHECK(cudaEventCreate(&e1));
  CHECK(cudaEventCreateWithFlags(&fork, cudaEventDisableTiming));
  CHECK(cudaEventCreateWithFlags(&join, cudaEventDisableTiming));
  const int iters = 2000;

  // Serial: both kernels in stream s.
  CHECK(cudaEventRecord(e0, s));
  spin<<<1, 256, 0, s>>>(x, iters);
  spin<<<1, 256, 0, s>>>(y, iters);
  CHECK(cudaEventRecord(e1, s));
  CHECK(cudaEventSynchronize(e1));
  float serial_ms = 0;
  CHECK(cudaEventElapsedTime(&serial_ms, e0, e1));

  // Graph: the kernels on two branches.
  CHECK(cudaStreamBeginCapture(a, cudaStreamCaptureModeGlobal));
  CHECK(cudaEventRecord(fork, a));
  CHECK(cudaStreamWaitEvent(b, fork, 0));
  spin<<<1, 256, 0, a>>>(x, iters);
  spin<<<1, 256, 0, b>>>(y, iters);
  CHECK(cudaEventRecord(join, b));
  CHECK(cudaStreamWaitEvent(a, join, 0));
  cudaGraph_t g;
  CHECK(cudaStreamEndCapture(a, &g));
  cudaGraphExec_t exec;
  CHECK(instantiate(&exec, g));
  CHECK(cudaEventRecord(e0, s));
  CHECK(cudaGraphLaunch(exec, s));
  CHECK(cudaEventRecord(e1, s));
  CHECK(cudaEventSynchronize(e1));
  float graph_ms = 0;
  CHECK(cudaEventElapsedTime(&graph_ms, e0, e1));
  // The graph takes about one kernel's time (ratio ~0.5), certainly less than 0.8 of two.
  EXPECT(graph_ms > 0 && graph_ms < 0.8f * serial_ms,
         "independent graph nodes did not overlap: graph %.4f ms, serial %.4f ms", graph_ms,
         serial_ms);
  printf("overlap: serial %.4f ms, graph of two independent kernels %.4f ms\n", serial_ms,
         graph_ms);

  // Launching a graph into a capturing stream is refused and invalidates the capture (an H100
  // with CUDA 13).
  CHECK(cudaStreamBeginCapture(a, cudaStreamCaptureModeGlobal));
  CHECK_FAILS(cudaGraphLaunch(exec, a), cudaErrorStreamCaptureUnsupported);
  cudaGraph_t outer = (cudaGraph_t)0x1;
  CHECK_FAILS(cudaStreamEndCapture(a, &outer), cudaErrorStreamCaptureInvalidated);
  EXPECT(outer == nullptr, "an invalidated capture returned a graph");

  CHECK(cudaGraphExecDestroy(exec));
  CHECK(cudaGraphDestroy(g));
  CHECK(cudaFree(x));
  CHECK(cudaFree(y));
  CHECK(cudaStreamDestroy(s));
  CHECK(cudaStreamDestroy(a));
  CHECK(cudaStreamDestroy(b));
}

#if CUDART_VERSION >= 12030
static void test_capture_to_graph_and_dependencies() {
  cudaStream_t s;
  CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  float* d;
  CHECK(cudaMalloc(&d, N * sizeof(float)));
  // An existing graph with one hand-made memset node; the capture continues after it.
  cudaGraph_t g;
  CHECK(cudaGraphCreate(&g, 0));
  cudaMemsetParams mp = {};
  mp.dst = d;
  mp.value = 0;
  mp.elementSize = 4;
  mp.width = N;
  mp.height = 1;
  cudaGraphNode_t set;
  CHECK(cudaGraphAddMemsetNode(&set, g, nullptr, 0, &mp));
  CHECK(cudaStreamBeginCaptureToGraph(s, g, &set, nullptr, 1, cudaStreamCaptureModeGlobal));
  add_const<<<N / 256, 256, 0, s>>>(d, 4.0f, N);
  // Replace the stream's dependencies with the memset only: the next kernel runs after the
  // memset but not after the first kernel.
  CHECK(update_capture_dependencies(s, &set, 1, cudaStreamSetCaptureDependencies));
  add_const<<<N / 256, 256, 0, s>>>(d, 0.0f, N);
  cudaGraph_t out = nullptr;
  CHECK(cudaStreamEndCapture(s, &out));
  EXPECT(out == g, "capture into an existing graph returned another graph");
  size_t n = 0;
  CHECK(cudaGraphGetNodes(g, nullptr, &n));
  EXPECT(n == 3, "graph has %zu nodes, expected 3", n);
  size_t fan = 0;
  CHECK(node_dependents(set, nullptr, &fan));
  EXPECT(fan == 2, "memset has %zu dependents, expected 2", fan);
  cudaGraphExec_t exec;
  CHECK(instantiate(&exec, g));
  CHECK(cudaGraphLaunch(exec, s));
  float h[N];
  CHECK(cudaStreamSynchronize(s));
  CHECK(cudaMemcpy(h, d, sizeof(h), cudaMemcpyDeviceToHost));
  for (int i = 0; i < N; ++i)
    if (h[i] != 4.0f) FAIL("capture to graph: h[%d] = %g, expected 4", i, h[i]);
  CHECK(cudaGraphExecDestroy(exec));
  CHECK(cudaGraphDestroy(g));
  CHECK(cudaFree(d));
  CHECK(cudaStreamDestroy(s));
}
#endif

static void test_modes() {
  cudaStream_t s;
  CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  void* p = nullptr;
  // Global mode: cudaMalloc may synchronise, so it is refused and the capture is invalidated.
  CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  CHECK_FAILS(cudaMalloc(&p, 256), cudaErrorStreamCaptureUnsupported);
  cudaStreamCaptureStatus st;
  CHECK(cudaStreamIsCapturing(s, &st));
  EXPECT(st == cudaStreamCaptureStatusInvalidated, "status %d after a refused call", (int)st);
  CHECK_FAILS(cudaLaunchHostFunc(s, count_call, &host_calls), cudaErrorStreamCaptureInvalidated);
  cudaGraph_t g = nullptr;
  CHECK_FAILS(cudaStreamEndCapture(s, &g), cudaErrorStreamCaptureInvalidated);
  EXPECT(g == nullptr, "an invalidated capture returned a graph");
  (void)cudaGetLastError();

  // Relaxed mode: cudaMalloc is allowed.
  CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeRelaxed));
  CHECK(cudaMalloc(&p, 256));
  CHECK(cudaStreamEndCapture(s, &g));
  CHECK(cudaGraphDestroy(g));
  CHECK(cudaFree(p));

  // The thread's own mode: relaxed lets this thread call cudaMalloc during a global capture.
  CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  cudaStreamCaptureMode mode = cudaStreamCaptureModeRelaxed;
  CHECK(cudaThreadExchangeStreamCaptureMode(&mode));
  EXPECT(mode == cudaStreamCaptureModeGlobal, "previous thread mode %d", (int)mode);
  CHECK(cudaMalloc(&p, 256));
  CHECK(cudaThreadExchangeStreamCaptureMode(&mode));
  EXPECT(mode == cudaStreamCaptureModeRelaxed, "restored mode %d", (int)mode);
  CHECK(cudaStreamEndCapture(s, &g));
  CHECK(cudaGraphDestroy(g));
  CHECK(cudaFree(p));

  // Synchronising a capturing stream is an error; so is capturing the legacy stream.
  CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeRelaxed));
  CHECK_FAILS(cudaStreamSynchronize(s), cudaErrorStreamCaptureUnsupported);
  CHECK_FAILS(cudaStreamEndCapture(s, &g), cudaErrorStreamCaptureInvalidated);
  CHECK_FAILS(cudaStreamBeginCapture(0, cudaStreamCaptureModeGlobal),
              cudaErrorStreamCaptureUnsupported);
  // Ending a capture that never began.
  CHECK_FAILS(cudaStreamEndCapture(s, &g), cudaErrorIllegalState);
  (void)cudaGetLastError();
  CHECK(cudaStreamDestroy(s));
}

// Starts a capture in s0 with one kernel, forked into s1 through `ev`.
static void begin_forked_capture(cudaStream_t s0, cudaStream_t s1, cudaEvent_t ev, float* d,
                                 cudaStreamCaptureMode mode) {
  CHECK(cudaStreamBeginCapture(s0, mode));
  scale<<<N / 256, 256, 0, s0>>>(d, 2.0f, N);
  CHECK(cudaEventRecord(ev, s0));
  CHECK(cudaStreamWaitEvent(s1, ev, 0));
}

// The capture of s0 (and s1 with it) was invalidated: further work is refused and the capture
// ends without a graph.
static void expect_invalidated(cudaStream_t s0, cudaStream_t s1, float* d) {
  cudaStreamCaptureStatus st;
  CHECK(cudaStreamIsCapturing(s1, &st));
  EXPECT(st == cudaStreamCaptureStatusInvalidated, "s1: status %d", (int)st);
  scale<<<N / 256, 256, 0, s1>>>(d, 2.0f, N);
  CHECK_RET(cudaGetLastError(), cudaErrorStreamCaptureInvalidated);
  cudaGraph_t g = (cudaGraph_t)0x1;
  CHECK_FAILS(cudaStreamEndCapture(s0, &g), cudaErrorStreamCaptureInvalidated);
  EXPECT(g == nullptr, "an invalidated capture returned a graph");
  CHECK(cudaStreamIsCapturing(s1, &st));
  EXPECT(st == cudaStreamCaptureStatusNone, "s1 still capturing after the end (status %d)",
         (int)st);
}

static void test_host_waits_during_capture() {
  cudaStream_t s0, s1;
  CHECK(cudaStreamCreate(&s0));  // blocking streams: the legacy stream waits for them
  CHECK(cudaStreamCreate(&s1));
  cudaEvent_t ev, other;
  CHECK(cudaEventCreateWithFlags(&ev, cudaEventDisableTiming));
  CHECK(cudaEventCreateWithFlags(&other, cudaEventDisableTiming));
  CHECK(cudaEventRecord(other, 0));
  CHECK(cudaDeviceSynchronize());
  float* d;
  CHECK(cudaMalloc(&d, N * sizeof(float)));

  // A captured event, in a thread-local and in a relaxed capture.
  const cudaStreamCaptureMode modes[2] = {cudaStreamCaptureModeThreadLocal,
                                          cudaStreamCaptureModeRelaxed};
  for (int m = 0; m < 2; ++m) {
    begin_forked_capture(s0, s1, ev, d, modes[m]);
    CHECK_FAILS(cudaEventSynchronize(ev), cudaErrorCapturedEvent);
    CHECK_FAILS(cudaEventQuery(ev), cudaErrorInvalidValue);
    expect_invalidated(s0, s1, d);
    begin_forked_capture(s0, s1, ev, d, modes[m]);
    CHECK_FAILS(cudaEventQuery(ev), cudaErrorCapturedEvent);
    expect_invalidated(s0, s1, d);
  }
  // Global mode: an ordinary event, the legacy stream.
  begin_forked_capture(s0, s1, ev, d, cudaStreamCaptureModeGlobal);
  CHECK_FAILS(cudaEventQuery(other), cudaErrorStreamCaptureUnsupported);
  expect_invalidated(s0, s1, d);
  begin_forked_capture(s0, s1, ev, d, cudaStreamCaptureModeGlobal);
  CHECK_FAILS(cudaEventSynchronize(other), cudaErrorStreamCaptureUnsupported);
  expect_invalidated(s0, s1, d);
  begin_forked_capture(s0, s1, ev, d, cudaStreamCaptureModeGlobal);
  CHECK_FAILS(cudaStreamQuery(0), cudaErrorStreamCaptureImplicit);
  expect_invalidated(s0, s1, d);

  CHECK(cudaFree(d));
  CHECK(cudaEventDestroy(ev));
  CHECK(cudaEventDestroy(other));
  CHECK(cudaStreamDestroy(s0));
  CHECK(cudaStreamDestroy(s1));
}

int main() {
  test_captured_sequence();
  test_fork_join();
  test_overlap();
#if CUDART_VERSION >= 12030
  test_capture_to_graph_and_dependencies();
#endif
  test_modes();
  test_host_waits_during_capture();
  CHECK(cudaDeviceSynchronize());
  return report_pass();
}
