// graph_memory.cu - graph memory nodes:
//  - cudaMallocAsync / cudaFreeAsync captured in a stream become allocation and free nodes;
//    the address returned during capture is the one the graph's kernels use at every launch;
//  - an allocation left live by a graph (no free node) is freed outside the graph by
//    cudaFreeAsync, after which the graph can be launched again; launching it again without
//    that free is cudaErrorInvalidValue, unless instantiated with
//    cudaGraphInstantiateFlagAutoFreeOnLaunch;
//  - hand-built cudaGraphAddMemAllocNode / cudaGraphAddMemFreeNode and their parameter getters;
//  - cudaDeviceGetGraphMemAttribute (used / reserved, current and high) and resetting the high
//    watermark; cudaDeviceGraphMemTrim. As an H100 with CUDA 13 reports them: nothing is
//    reserved before the first launch that allocates; that launch maps 32 MiB chunks, which
//    stay mapped - used and reserved alike - after the graph frees the memory and after the
//    graph is destroyed, until cudaDeviceGraphMemTrim;
//  - one executable graph at a time for a graph with allocation nodes (cudaErrorNotSupported);
//  - errors: bad pool properties, a free node of memory that is not graph memory, a graph with
//    memory nodes as a child graph.
#define TEST_NAME "graph_memory"
#include "cuda_check.h"
#include "graph_compat.h"

__global__ void iota(int* p, int n, int base) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = base + i;
}
__global__ void copy(int* dst, const int* src, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) dst[i] = src[i];
}

static const int N = 1024;
static const unsigned long long kGraphChunk = 32ull << 20;  // what an H100 maps for graphs

static unsigned long long graph_mem(cudaGraphMemAttributeType a) {
  unsigned long long v = 0;
  CHECK(cudaDeviceGetGraphMemAttribute(0, a, &v));
  return v;
}

static void test_captured_allocation() {
  cudaStream_t s;
  CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  int* out;
  CHECK(cudaMalloc(&out, N * sizeof(int)));

  // A scratch buffer allocated and freed inside the graph.
  CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  int* scratch = nullptr;
  CHECK(cudaMallocAsync((void**)&scratch, N * sizeof(int), s));
  EXPECT(scratch != nullptr, "no address during capture");
  iota<<<N / 256, 256, 0, s>>>(scratch, N, 7);
  copy<<<N / 256, 256, 0, s>>>(out, scratch, N);
  CHECK(cudaFreeAsync(scratch, s));
  cudaGraph_t g;
  CHECK(cudaStreamEndCapture(s, &g));
  cudaGraphNode_t nodes[4];
  size_t n = 4;
  CHECK(cudaGraphGetNodes(g, nodes, &n));
  cudaGraphNodeType t0, t3;
  CHECK(cudaGraphNodeGetType(nodes[0], &t0));
  CHECK(cudaGraphNodeGetType(nodes[3], &t3));
  EXPECT(n == 4 && t0 == cudaGraphNodeTypeMemAlloc && t3 == cudaGraphNodeTypeMemFree,
         "captured %zu nodes, types %d .. %d", n, (int)t0, (int)t3);
  cudaMemAllocNodeParams ap;
  CHECK(cudaGraphMemAllocNodeGetParams(nodes[0], &ap));
  EXPECT(ap.dptr == scratch && ap.bytesize == N * sizeof(int), "allocation node parameters");
  void* freed = nullptr;
  CHECK(cudaGraphMemFreeNodeGetParams(nodes[3], &freed));
  EXPECT(freed == scratch, "free node parameter");
  EXPECT(graph_mem(cudaGraphMemAttrReservedMemCurrent) == 0, "reserved %llu during capture",
         graph_mem(cudaGraphMemAttrReservedMemCurrent));

  cudaGraphExec_t exec;
  CHECK(instantiate(&exec, g));
  EXPECT(graph_mem(cudaGraphMemAttrReservedMemCurrent) == 0, "reserved %llu by instantiation",
         graph_mem(cudaGraphMemAttrReservedMemCurrent));
  // One executable graph at a time for a graph with memory nodes.
  cudaGraphExec_t second;
  CHECK_FAILS(instantiate(&second, g), cudaErrorNotSupported);
  int h[N];
  for (int rep = 0; rep < 3; ++rep) {
    CHECK(cudaMemsetAsync(out, 0, N * sizeof(int), s));
    CHECK(cudaGraphLaunch(exec, s));
    CHECK(cudaStreamSynchronize(s));
    CHECK(cudaMemcpy(h, out, sizeof(h), cudaMemcpyDeviceToHost));
    for (int i = 0; i < N; ++i)
      if (h[i] != 7 + i) FAIL("launch %d: out[%d] = %d, expected %d", rep, i, h[i], 7 + i);
  }
  // Freed inside the graph, the memory stays mapped for it.
  EXPECT(graph_mem(cudaGraphMemAttrUsedMemCurrent) == kGraphChunk &&
             graph_mem(cudaGraphMemAttrReservedMemCurrent) == kGraphChunk,
         "used %llu reserved %llu after the launches", graph_mem(cudaGraphMemAttrUsedMemCurrent),
         graph_mem(cudaGraphMemAttrReservedMemCurrent));
  EXPECT(graph_mem(cudaGraphMemAttrUsedMemHigh) == kGraphChunk, "used high watermark %llu",
         graph_mem(cudaGraphMemAttrUsedMemHigh));
  unsigned long long zero = 0;
  CHECK(cudaDeviceSetGraphMemAttribute(0, cudaGraphMemAttrUsedMemHigh, &zero));
  EXPECT(graph_mem(cudaGraphMemAttrUsedMemHigh) == kGraphChunk, "high watermark %llu after a "
         "reset, current %llu", graph_mem(cudaGraphMemAttrUsedMemHigh), kGraphChunk);
  unsigned long long one = 1;
  CHECK_FAILS(cudaDeviceSetGraphMemAttribute(0, cudaGraphMemAttrUsedMemCurrent, &one),
              cudaErrorInvalidValue);
  // Trimming gives back what no live allocation needs, even with the executable graph alive.
  CHECK(cudaDeviceGraphMemTrim(0));
  EXPECT(graph_mem(cudaGraphMemAttrUsedMemCurrent) == 0 &&
             graph_mem(cudaGraphMemAttrReservedMemCurrent) == 0,
         "used %llu reserved %llu after cudaDeviceGraphMemTrim",
         graph_mem(cudaGraphMemAttrUsedMemCurrent), graph_mem(cudaGraphMemAttrReservedMemCurrent));
  EXPECT(graph_mem(cudaGraphMemAttrReservedMemHigh) == kGraphChunk, "reserved high %llu",
         graph_mem(cudaGraphMemAttrReservedMemHigh));
  CHECK(cudaDeviceSetGraphMemAttribute(0, cudaGraphMemAttrUsedMemHigh, &zero));
  CHECK(cudaDeviceSetGraphMemAttribute(0, cudaGraphMemAttrReservedMemHigh, &zero));
  EXPECT(graph_mem(cudaGraphMemAttrUsedMemHigh) == 0 &&
             graph_mem(cudaGraphMemAttrReservedMemHigh) == 0,
         "high watermarks not reset");
  CHECK(cudaGraphExecDestroy(exec));
  CHECK(cudaGraphDestroy(g));
  CHECK(cudaFree(out));
  CHECK(cudaStreamDestroy(s));
}

// An allocation the graph hands to the program.
static void test_allocation_outlives_graph() {
  cudaStream_t s;
  CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  int* result = nullptr;
  CHECK(cudaMallocAsync((void**)&result, N * sizeof(int), s));
  iota<<<N / 256, 256, 0, s>>>(result, N, 100);
  cudaGraph_t g;
  CHECK(cudaStreamEndCapture(s, &g));
  cudaGraphExec_t exec;
  CHECK(instantiate(&exec, g));
  CHECK(cudaGraphLaunch(exec, s));
  CHECK(cudaStreamSynchronize(s));
  EXPECT(graph_mem(cudaGraphMemAttrUsedMemCurrent) == kGraphChunk, "used %llu",
         graph_mem(cudaGraphMemAttrUsedMemCurrent));
  CHECK(cudaDeviceGraphMemTrim(0));  // the live allocation keeps its chunk
  EXPECT(graph_mem(cudaGraphMemAttrUsedMemCurrent) == kGraphChunk, "used %llu after trimming",
         graph_mem(cudaGraphMemAttrUsedMemCurrent));
  int h[N];
  CHECK(cudaMemcpy(h, result, sizeof(h), cudaMemcpyDeviceToHost));
  EXPECT(h[N - 1] == 100 + N - 1, "result[%d] = %d", N - 1, h[N - 1]);
  // Still allocated: a second launch is refused until the program frees it.
  CHECK_FAILS(cudaGraphLaunch(exec, s), cudaErrorInvalidValue);
  CHECK(cudaFreeAsync(result, s));
  CHECK_FAILS(cudaFreeAsync(result, s), cudaErrorInvalidValue);  // double free
  CHECK(cudaGraphLaunch(exec, s));
  CHECK(cudaStreamSynchronize(s));
  CHECK(cudaFree(result));  // cudaFree works too
  CHECK(cudaGraphExecDestroy(exec));

  // AutoFreeOnLaunch: the next launch frees the previous allocation itself.
  CHECK(cudaGraphInstantiateWithFlags(&exec, g, cudaGraphInstantiateFlagAutoFreeOnLaunch));
  CHECK(cudaGraphLaunch(exec, s));
  CHECK(cudaGraphLaunch(exec, s));
  CHECK(cudaStreamSynchronize(s));
  CHECK(cudaFreeAsync(result, s));
  CHECK(cudaStreamSynchronize(s));
  CHECK(cudaGraphExecDestroy(exec));
  CHECK(cudaGraphDestroy(g));
  CHECK(cudaStreamDestroy(s));
}

static void test_explicit_nodes_and_errors() {
  cudaGraph_t g;
  CHECK(cudaGraphCreate(&g, 0));
  cudaMemAllocNodeParams ap = {};
  ap.poolProps.allocType = cudaMemAllocationTypePinned;
  ap.poolProps.location.type = cudaMemLocationTypeDevice;
  ap.poolProps.location.id = 0;
  ap.bytesize = N * sizeof(int);
  cudaGraphNode_t alloc, fill, back, free_node;
  CHECK(cudaGraphAddMemAllocNode(&alloc, g, nullptr, 0, &ap));
  EXPECT(ap.dptr != nullptr, "no address from cudaGraphAddMemAllocNode");
  int* buf = (int*)ap.dptr;
  int n = N, base = 3;
  void* args[] = {&buf, &n, &base};
  cudaKernelNodeParams kp = {};
  kp.func = (void*)iota;
  kp.gridDim = dim3(N / 256);
  kp.blockDim = dim3(256);
  kp.kernelParams = args;
  CHECK(cudaGraphAddKernelNode(&fill, g, &alloc, 1, &kp));
  static int h[N];
  CHECK(cudaGraphAddMemcpyNode1D(&back, g, &fill, 1, h, buf, sizeof(h), cudaMemcpyDeviceToHost));
  CHECK(cudaGraphAddMemFreeNode(&free_node, g, &back, 1, buf));
  cudaGraphExec_t exec;
  CHECK(instantiate(&exec, g));
  CHECK(cudaGraphLaunch(exec, 0));
  CHECK(cudaDeviceSynchronize());
  EXPECT(h[10] == 13, "explicit allocation graph: h[10] = %d", h[10]);

  // Errors.
  cudaGraphNode_t x;
  cudaMemAllocNodeParams bad = ap;
  bad.poolProps.allocType = cudaMemAllocationTypeInvalid;
  CHECK_FAILS(cudaGraphAddMemAllocNode(&x, g, nullptr, 0, &bad), cudaErrorInvalidValue);
  bad = ap;
  bad.poolProps.location.id = 3;  // an invalid argument, not cudaErrorInvalidDevice (an H100)
  CHECK_FAILS(cudaGraphAddMemAllocNode(&x, g, nullptr, 0, &bad), cudaErrorInvalidValue);
#if CUDART_VERSION >= 12020  // cudaMemLocationTypeHost
  bad = ap;
  bad.poolProps.location.type = cudaMemLocationTypeHost;
  CHECK_FAILS(cudaGraphAddMemAllocNode(&x, g, nullptr, 0, &bad), cudaErrorNotSupported);
#endif
  bad = ap;
  bad.bytesize = 0;
  CHECK_FAILS(cudaGraphAddMemAllocNode(&x, g, nullptr, 0, &bad), cudaErrorInvalidValue);
  int* plain;
  CHECK(cudaMalloc(&plain, 64));
  CHECK_FAILS(cudaGraphAddMemFreeNode(&x, g, nullptr, 0, plain), cudaErrorInvalidValue);
  cudaGraph_t outer;
  CHECK(cudaGraphCreate(&outer, 0));
  CHECK_FAILS(cudaGraphAddChildGraphNode(&x, outer, nullptr, 0, g), cudaErrorNotSupported);
  // A captured free of memory that is not graph memory.
  cudaStream_t s;
  CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  CHECK_FAILS(cudaFreeAsync(plain, s), cudaErrorInvalidValue);
  cudaGraph_t c;
  CHECK(cudaStreamEndCapture(s, &c));
  CHECK(cudaGraphDestroy(c));
  CHECK(cudaStreamDestroy(s));

  CHECK(cudaFree(plain));
  CHECK(cudaGraphDestroy(outer));
  CHECK(cudaGraphExecDestroy(exec));
  CHECK(cudaGraphDestroy(g));
  // Destroying the graphs keeps the memory mapped; trimming gives it back.
  EXPECT(graph_mem(cudaGraphMemAttrReservedMemCurrent) == kGraphChunk,
         "reserved %llu after destroying", graph_mem(cudaGraphMemAttrReservedMemCurrent));
  CHECK(cudaDeviceGraphMemTrim(0));
  EXPECT(graph_mem(cudaGraphMemAttrReservedMemCurrent) == 0, "reserved %llu after trimming",
         graph_mem(cudaGraphMemAttrReservedMemCurrent));
}

int main() {
  test_captured_allocation();
  test_allocation_outlives_graph();
  test_explicit_nodes_and_errors();
  return report_pass();
}
