// graph_explicit.cu - CUDA graphs built by hand:
//  - every node kind the runtime models: kernel, memcpy (3D parms, 1D, to/from symbol),
//    memset (1-, 2- and 4-byte elements, 2D), host, empty, event record / event wait,
//    child graph; dependencies given at creation and with cudaGraphAddDependencies;
//  - a diamond whose execution must respect its edges (each stage reads the previous one);
//  - queries: node types, nodes, root nodes, edges, dependencies and dependents, parameter
//    getters, cudaGraphClone + cudaGraphNodeFindInClone, cudaGraphDebugDotPrint;
//  - instantiation is a snapshot: changing the graph afterwards does not change the
//    executable graph until cudaGraphExecUpdate; cudaGraphExec*SetParams change one node;
//  - cudaGraphNodeSetEnabled, cudaGraphRemoveDependencies, cudaGraphDestroyNode;
//  - the generic API of CUDA 12.2+ (cudaGraphAddNode, cudaGraphExecNodeSetParams).
#define TEST_NAME "graph_explicit"
#include "cuda_check.h"
#include "graph_compat.h"

#include <cstring>

__device__ int table[4];

__global__ void fill_index(int* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = i;
}
// Atomic: the diamond's two axpy branches update y concurrently on a GPU.
__global__ void axpy(int* y, const int* x, int a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(&y[i], a * x[i]);
}
__global__ void add_table(int* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] += table[i % 4];
}

static int order_log[16];
static int order_len = 0;
static void log_host(void* p) { order_log[order_len++] = (int)(size_t)p; }

static const int N = 512;

static cudaGraphNode_t kernel_node(cudaGraph_t g, const cudaGraphNode_t* deps, size_t n,
                                   void* func, void** args, int count) {
  cudaKernelNodeParams p = {};
  p.func = func;
  p.gridDim = dim3((count + 127) / 128);
  p.blockDim = dim3(128);
  p.kernelParams = args;
  cudaGraphNode_t node;
  CHECK(cudaGraphAddKernelNode(&node, g, deps, n, &p));
  return node;
}

static void test_diamond_and_queries() {
  int *x, *y;
  CHECK(cudaMalloc(&x, N * sizeof(int)));
  CHECK(cudaMalloc(&y, N * sizeof(int)));
  int n = N;
  cudaGraph_t g;
  CHECK(cudaGraphCreate(&g, 0));

  // root: memset y = 0x01010101 (1-byte elements) ... then overwritten with 2 (4-byte)
  cudaMemsetParams ms = {};
  ms.dst = y;
  ms.value = 2;
  ms.elementSize = 4;
  ms.width = N;
  ms.height = 1;
  cudaGraphNode_t set_y;
  CHECK(cudaGraphAddMemsetNode(&set_y, g, nullptr, 0, &ms));
  void* fill_args[] = {&x, &n};
  cudaGraphNode_t fill = kernel_node(g, nullptr, 0, (void*)fill_index, fill_args, N);
  // Two branches after both roots: y += 3x and y += 5x (order between them does not matter).
  int a3 = 3, a5 = 5;
  void* args3[] = {&y, &x, &a3, &n};
  void* args5[] = {&y, &x, &a5, &n};
  cudaGraphNode_t roots[2] = {set_y, fill};
  cudaGraphNode_t b3 = kernel_node(g, roots, 2, (void*)axpy, args3, N);
  cudaGraphNode_t b5 = kernel_node(g, roots, 2, (void*)axpy, args5, N);
  // Join: an empty node, then a copy of the table symbol and a kernel using it.
  cudaGraphNode_t branches[2] = {b3, b5};
  cudaGraphNode_t join;
  CHECK(cudaGraphAddEmptyNode(&join, g, branches, 2));
  static int host_table[4] = {100, 200, 300, 400};
  cudaGraphNode_t to_sym;
  CHECK(cudaGraphAddMemcpyNodeToSymbol(&to_sym, g, nullptr, 0, table, host_table,
                                       sizeof(host_table), 0, cudaMemcpyHostToDevice));
  void* targs[] = {&y, &n};
  cudaGraphNode_t use_table = kernel_node(g, &join, 1, (void*)add_table, targs, N);
  // The table copy must precede its use: an edge added afterwards.
  CHECK(add_edges(g, &to_sym, &use_table, 1));
  static int h[N];
  cudaGraphNode_t back;
  CHECK(cudaGraphAddMemcpyNode1D(&back, g, &use_table, 1, h, y, N * sizeof(int),
                                 cudaMemcpyDeviceToHost));

  // Queries.
  size_t count = 0;
  CHECK(cudaGraphGetNodes(g, nullptr, &count));
  EXPECT(count == 8, "%zu nodes, expected 8", count);
  CHECK(cudaGraphGetRootNodes(g, nullptr, &count));
  EXPECT(count == 3, "%zu roots, expected 3 (memset, fill, symbol copy)", count);
  CHECK(graph_edges(g, nullptr, nullptr, &count));
  EXPECT(count == 9, "%zu edges, expected 9", count);
  cudaGraphNode_t deps[4];
  count = 4;
  CHECK(node_dependencies(use_table, deps, &count));
  EXPECT(count == 2 && deps[0] == join && deps[1] == to_sym, "use_table dependencies");
  count = 4;
  CHECK(node_dependents(fill, deps, &count));
  EXPECT(count == 2 && deps[0] == b3 && deps[1] == b5, "fill dependents");
  cudaGraphNodeType t;
  CHECK(cudaGraphNodeGetType(join, &t));
  EXPECT(t == cudaGraphNodeTypeEmpty, "join type %d", (int)t);
  CHECK(cudaGraphNodeGetType(back, &t));
  EXPECT(t == cudaGraphNodeTypeMemcpy, "copy type %d", (int)t);
  cudaMemsetParams got_ms;
  CHECK(cudaGraphMemsetNodeGetParams(set_y, &got_ms));
  EXPECT(got_ms.dst == y && got_ms.value == 2 && got_ms.elementSize == 4 && got_ms.width == N,
         "memset node parameters");
  cudaMemcpy3DParms got_cp;
  CHECK(cudaGraphMemcpyNodeGetParams(back, &got_cp));
  EXPECT(got_cp.dstPtr.ptr == h && got_cp.srcPtr.ptr == y && got_cp.extent.width == N * sizeof(int)
             && got_cp.kind == cudaMemcpyDeviceToHost,
         "memcpy node parameters");
  cudaKernelNodeParams kp;
  CHECK(cudaGraphKernelNodeGetParams(b5, &kp));
  EXPECT(kp.func == (void*)axpy && *(int*)kp.kernelParams[2] == 5, "kernel node parameters");
  // Wrong node kind for the getter.
  CHECK_FAILS(cudaGraphKernelNodeGetParams(join, &kp), cudaErrorInvalidValue);

  cudaGraphExec_t exec;
  CHECK(instantiate(&exec, g));
  for (int rep = 0; rep < 2; ++rep) {
    memset(h, 0, sizeof(h));
    CHECK(cudaGraphLaunch(exec, 0));
    CHECK(cudaDeviceSynchronize());
    for (int i = 0; i < N; ++i)
      if (h[i] != 2 + 8 * i + host_table[i % 4])
        FAIL("diamond (launch %d): h[%d] = %d, expected %d", rep, i, h[i],
             2 + 8 * i + host_table[i % 4]);
  }

  // Instantiation is a snapshot: changing the graph's node does not change the executable...
  int a7 = 7;
  void* args7[] = {&y, &x, &a7, &n};
  kp.kernelParams = args7;
  CHECK(cudaGraphKernelNodeSetParams(b5, &kp));
  CHECK(cudaGraphLaunch(exec, 0));
  CHECK(cudaDeviceSynchronize());
  EXPECT(h[1] == 2 + 8 + 200, "the executable graph changed with its graph: h[1] = %d", h[1]);
  // ...until cudaGraphExecUpdate.
  cudaGraphExecUpdateResult result;
  cudaGraphNode_t error_node;
  CHECK(exec_update(exec, g, &result, &error_node));
  CHECK(cudaGraphLaunch(exec, 0));
  CHECK(cudaDeviceSynchronize());
  EXPECT(h[1] == 2 + 10 + 200, "after cudaGraphExecUpdate h[1] = %d", h[1]);
  // A node of the executable graph alone: the memset value.
  ms.value = 1000;
  CHECK(cudaGraphExecMemsetNodeSetParams(exec, set_y, &ms));
  CHECK(cudaGraphLaunch(exec, 0));
  CHECK(cudaDeviceSynchronize());
  EXPECT(h[1] == 1000 + 10 + 200, "after cudaGraphExecMemsetNodeSetParams h[1] = %d", h[1]);
  // Disabled kernel node: behaves as an empty node.
  unsigned on = 0;
  CHECK(cudaGraphNodeSetEnabled(exec, b3, 0));
  CHECK(cudaGraphNodeGetEnabled(exec, b3, &on));
  EXPECT(on == 0, "node still enabled");
  CHECK(cudaGraphLaunch(exec, 0));
  CHECK(cudaDeviceSynchronize());
  EXPECT(h[1] == 1000 + 7 + 200, "with the y += 3x node disabled h[1] = %d", h[1]);
  CHECK(cudaGraphNodeSetEnabled(exec, b3, 1));
  CHECK_FAILS(cudaGraphNodeSetEnabled(exec, join, 0), cudaErrorInvalidValue);

  // Clone: same shape, nodes found by their originals.
  cudaGraph_t copy;
  CHECK(cudaGraphClone(&copy, g));
  cudaGraphNode_t b5_copy;
  CHECK(cudaGraphNodeFindInClone(&b5_copy, b5, copy));
  CHECK(cudaGraphKernelNodeGetParams(b5_copy, &kp));
  EXPECT(*(int*)kp.kernelParams[2] == 7, "clone's kernel argument %d", *(int*)kp.kernelParams[2]);
  CHECK(cudaGraphGetNodes(copy, nullptr, &count));
  EXPECT(count == 8, "clone has %zu nodes", count);

  // Topology changes: an update from a graph of another shape fails.
  // An edge naming a node of another graph.
  CHECK_FAILS(remove_edges(copy, &b5_copy, &join, 1),
              cudaErrorInvalidValue);
  cudaGraphNode_t join_copy;
  CHECK(cudaGraphNodeFindInClone(&join_copy, join, copy));
  CHECK(remove_edges(copy, &b5_copy, &join_copy, 1));
  CHECK_FAILS(remove_edges(copy, &b5_copy, &join_copy, 1),
              cudaErrorInvalidValue);
  CHECK_FAILS(exec_update(exec, copy, &result, &error_node), cudaErrorGraphExecUpdateFailure);
  EXPECT(result == cudaGraphExecUpdateErrorTopologyChanged, "update result %d", (int)result);
  CHECK(cudaGraphDestroyNode(b5_copy));
  CHECK(cudaGraphGetNodes(copy, nullptr, &count));
  EXPECT(count == 7, "after cudaGraphDestroyNode %zu nodes", count);

  // Graphviz output.
  const char* dot = "graph_explicit_test.dot";
  CHECK(cudaGraphDebugDotPrint(g, dot, 0));
  FILE* f = fopen(dot, "r");
  EXPECT(f != nullptr, "no dot file");
  char buf[64] = {};
  EXPECT(fgets(buf, sizeof(buf), f) && strncmp(buf, "digraph", 7) == 0, "dot file starts '%s'",
         buf);
  fclose(f);
  remove(dot);

  CHECK(cudaGraphExecDestroy(exec));
  CHECK(cudaGraphDestroy(copy));
  CHECK(cudaGraphDestroy(g));
  CHECK(cudaFree(x));
  CHECK(cudaFree(y));
}

// Host nodes, events, child graphs, memset element sizes and 2D memsets.
static void test_host_events_child() {
  cudaGraph_t child;
  CHECK(cudaGraphCreate(&child, 0));
  cudaHostNodeParams hp = {log_host, (void*)1};
  cudaGraphNode_t h1, h2;
  CHECK(cudaGraphAddHostNode(&h1, child, nullptr, 0, &hp));
  hp.userData = (void*)2;
  CHECK(cudaGraphAddHostNode(&h2, child, &h1, 1, &hp));

  cudaGraph_t g;
  CHECK(cudaGraphCreate(&g, 0));
  hp.userData = (void*)0;
  cudaGraphNode_t first, sub, last;
  CHECK(cudaGraphAddHostNode(&first, g, nullptr, 0, &hp));
  CHECK(cudaGraphAddChildGraphNode(&sub, g, &first, 1, child));
  hp.userData = (void*)3;
  CHECK(cudaGraphAddHostNode(&last, g, &sub, 1, &hp));
  // The child was copied: adding to it now does not change g.
  cudaGraphNode_t extra;
  CHECK(cudaGraphAddEmptyNode(&extra, child, nullptr, 0));
  cudaGraph_t embedded;
  CHECK(cudaGraphChildGraphNodeGetGraph(sub, &embedded));
  size_t n = 0;
  CHECK(cudaGraphGetNodes(embedded, nullptr, &n));
  EXPECT(n == 2, "embedded child graph has %zu nodes, expected 2", n);

  // Event record node: timing across the graph.
  cudaEvent_t e0, e1;
  CHECK(cudaEventCreate(&e0));
  CHECK(cudaEventCreate(&e1));
  cudaGraphNode_t rec0, rec1;
  CHECK(cudaGraphAddEventRecordNode(&rec0, g, nullptr, 0, e0));
  CHECK(cudaGraphAddEventRecordNode(&rec1, g, &last, 1, e1));
  cudaEvent_t got;
  CHECK(cudaGraphEventRecordNodeGetEvent(rec1, &got));
  EXPECT(got == e1, "event record node event");

  // 2-byte memset of a 2D region: 4 rows of 8 elements in rows of 32 bytes.
  unsigned short* m;
  CHECK(cudaMalloc(&m, 4 * 32));
  CHECK(cudaMemset(m, 0, 4 * 32));
  cudaMemsetParams ms = {};
  ms.dst = m;
  ms.pitch = 32;
  ms.value = 0xBEEF;
  ms.elementSize = 2;
  ms.width = 8;
  ms.height = 4;
  cudaGraphNode_t set;
  CHECK(cudaGraphAddMemsetNode(&set, g, nullptr, 0, &ms));

  cudaGraphExec_t exec;
  CHECK(instantiate(&exec, g));
  CHECK(cudaGraphLaunch(exec, 0));
  CHECK(cudaDeviceSynchronize());
  int want[4] = {0, 1, 2, 3};
  EXPECT(order_len == 4, "%d host nodes ran, expected 4", order_len);
  check_ints("host node order", order_log, want, 4);
  float ms_elapsed = -1;
  CHECK(cudaEventElapsedTime(&ms_elapsed, e0, e1));
  EXPECT(ms_elapsed >= 0, "elapsed %g", ms_elapsed);
  unsigned short hm[4 * 16];
  CHECK(cudaMemcpy(hm, m, sizeof(hm), cudaMemcpyDeviceToHost));
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 16; ++c) {
      unsigned short w = c < 8 ? 0xBEEF : 0;
      if (hm[r * 16 + c] != w) FAIL("2D memset: row %d col %d = 0x%x, expected 0x%x", r, c,
                                     hm[r * 16 + c], w);
    }

  // Event wait node: a graph waiting for an event recorded in a stream.
  cudaGraph_t gw;
  CHECK(cudaGraphCreate(&gw, 0));
  cudaGraphNode_t wait;
  CHECK(cudaGraphAddEventWaitNode(&wait, gw, nullptr, 0, e1));
  CHECK(cudaGraphEventWaitNodeGetEvent(wait, &got));
  EXPECT(got == e1, "event wait node event");
  cudaGraphExec_t wexec;
  CHECK(instantiate(&wexec, gw));
  CHECK(cudaEventRecord(e1, 0));
  CHECK(cudaGraphLaunch(wexec, 0));
  CHECK(cudaDeviceSynchronize());

  CHECK(cudaGraphExecDestroy(wexec));
  CHECK(cudaGraphExecDestroy(exec));
  CHECK(cudaGraphDestroy(gw));
  CHECK(cudaGraphDestroy(g));
  CHECK(cudaGraphDestroy(child));
  CHECK(cudaEventDestroy(e0));
  CHECK(cudaEventDestroy(e1));
  CHECK(cudaFree(m));
}

#if CUDART_VERSION >= 12030
// CUDA 12.2+: cudaGraphAddNode / cudaGraphExecNodeSetParams.
static void test_generic_api() {
  int* d;
  CHECK(cudaMalloc(&d, N * sizeof(int)));
  int n = N;
  cudaGraph_t g;
  CHECK(cudaGraphCreate(&g, 0));
  cudaGraphNodeParams p = {};
  p.type = cudaGraphNodeTypeKernel;
  void* args[] = {&d, &n};
  p.kernel.func = (void*)fill_index;
  p.kernel.gridDim = dim3(N / 128);
  p.kernel.blockDim = dim3(128);
  p.kernel.kernelParams = args;
  cudaGraphNode_t k;
  CHECK(cudaGraphAddNode(&k, g, nullptr, nullptr, 0, &p));
  static int h[N];
  cudaGraphNodeParams c = {};
  c.type = cudaGraphNodeTypeMemcpy;
  c.memcpy.copyParams.srcPtr = make_cudaPitchedPtr(d, N * sizeof(int), N * sizeof(int), 1);
  c.memcpy.copyParams.dstPtr = make_cudaPitchedPtr(h, N * sizeof(int), N * sizeof(int), 1);
  c.memcpy.copyParams.extent = make_cudaExtent(N * sizeof(int), 1, 1);
  c.memcpy.copyParams.kind = cudaMemcpyDeviceToHost;
  cudaGraphNode_t cp;
  CHECK(cudaGraphAddNode(&cp, g, &k, nullptr, 1, &c));
  cudaGraphExec_t exec;
  CHECK(cudaGraphInstantiateWithFlags(&exec, g, 0));
  unsigned long long flags = 1;
  CHECK(cudaGraphExecGetFlags(exec, &flags));
  EXPECT(flags == 0, "exec flags %llu", flags);
  CHECK(cudaGraphLaunch(exec, 0));
  CHECK(cudaDeviceSynchronize());
  EXPECT(h[N - 1] == N - 1, "generic API: h[N-1] = %d", h[N - 1]);
  // Half the grid through cudaGraphExecNodeSetParams; the rest keeps its old value.
  CHECK(cudaMemset(d, 0xff, N * sizeof(int)));
  p.kernel.gridDim = dim3(N / 256);
  CHECK(cudaGraphExecNodeSetParams(exec, k, &p));
  CHECK(cudaGraphLaunch(exec, 0));
  CHECK(cudaDeviceSynchronize());
  EXPECT(h[N / 2 - 1] == N / 2 - 1 && h[N / 2] == -1, "after SetParams h[%d]=%d h[%d]=%d",
         N / 2 - 1, h[N / 2 - 1], N / 2, h[N / 2]);
  CHECK(cudaGraphExecDestroy(exec));
  CHECK(cudaGraphDestroy(g));
  CHECK(cudaFree(d));
}
#endif

int main() {
  test_diamond_and_queries();
  test_host_events_child();
#if CUDART_VERSION >= 12030
  test_generic_api();
#endif
  return report_pass();
}
