// graph_errors.cu - the error paths of CUDA graphs:
//  - a graph with a cycle cannot be instantiated (cudaErrorInvalidValue; with
//    cudaGraphInstantiateWithParams the result is cudaGraphInstantiateInvalidStructure and the
//    error node is on the cycle), and a cycle inside a child graph is found too;
//  - bad handles and arguments: null graphs and nodes, a dependency from another graph, a
//    repeated dependency or edge, bad memset element sizes, a host node without a function, a
//    kernel node with too many threads per block, unknown flags;
//  - cudaGraphExecUpdate with a changed node type reports cudaGraphExecUpdateErrorNodeTypeChanged;
//  - a kernel that faults inside a graph launch: the remaining nodes do not run, the error is
//    sticky and reported by the next synchronisation, and the program continues to its own error
//    handling (the last part of the program).
#define TEST_NAME "graph_errors"
#include "cuda_check.h"
#include "graph_compat.h"

__global__ void store(int* p, int v) { p[threadIdx.x] = v; }

static int host_ran = 0;
static void mark(void*) { host_ran = 1; }

int main() {
  int* d;
  CHECK(cudaMalloc(&d, 1024));
  cudaGraph_t g, other;
  CHECK(cudaGraphCreate(&g, 0));
  CHECK(cudaGraphCreate(&other, 0));
  CHECK_FAILS(cudaGraphCreate(&g, 1), cudaErrorInvalidValue);
  CHECK_FAILS(cudaGraphCreate(nullptr, 0), cudaErrorInvalidValue);

  // A cycle a -> b -> c -> a.
  cudaGraphNode_t a, b, c, x;
  CHECK(cudaGraphAddEmptyNode(&a, g, nullptr, 0));
  CHECK(cudaGraphAddEmptyNode(&b, g, &a, 1));
  CHECK(cudaGraphAddEmptyNode(&c, g, &b, 1));
  CHECK(add_edges(g, &c, &a, 1));
  cudaGraphExec_t exec = nullptr;
  CHECK_FAILS(instantiate(&exec, g), cudaErrorInvalidValue);
#if CUDART_VERSION >= 12000
  cudaGraphInstantiateParams ip = {};
  CHECK_FAILS(cudaGraphInstantiateWithParams(&exec, g, &ip), cudaErrorInvalidValue);
  EXPECT(ip.result_out == cudaGraphInstantiateInvalidStructure, "instantiate result %d",
         (int)ip.result_out);
  EXPECT(ip.errNode_out == a || ip.errNode_out == b || ip.errNode_out == c,
         "error node is not on the cycle");
#else
  cudaGraphNode_t err_node = nullptr;
  char log[128] = {};
  CHECK_FAILS(cudaGraphInstantiate(&exec, g, &err_node, log, sizeof(log)), cudaErrorInvalidValue);
  EXPECT(err_node == a || err_node == b || err_node == c, "error node is not on the cycle");
  EXPECT(log[0] != 0, "no instantiation log");
#endif
  // The same cycle inside a child graph.
  cudaGraph_t outer;
  CHECK(cudaGraphCreate(&outer, 0));
  cudaGraphNode_t child;
  CHECK(cudaGraphAddChildGraphNode(&child, outer, nullptr, 0, g));
  CHECK_FAILS(instantiate(&exec, outer), cudaErrorInvalidValue);
  // Breaking the cycle makes it instantiable.
  CHECK(remove_edges(g, &c, &a, 1));
  CHECK(instantiate(&exec, g));
  CHECK(cudaGraphExecDestroy(exec));

  // Bad handles and arguments.
  CHECK_FAILS(cudaGraphAddEmptyNode(&x, nullptr, nullptr, 0), cudaErrorInvalidValue);
  CHECK_FAILS(cudaGraphAddEmptyNode(nullptr, g, nullptr, 0), cudaErrorInvalidValue);
  CHECK_FAILS(cudaGraphAddEmptyNode(&x, other, &a, 1), cudaErrorInvalidValue);  // foreign dep
  cudaGraphNode_t twice[2] = {a, a};
  CHECK_FAILS(cudaGraphAddEmptyNode(&x, g, twice, 2), cudaErrorInvalidValue);
  CHECK_FAILS(cudaGraphAddEmptyNode(&x, g, nullptr, 1), cudaErrorInvalidValue);
  CHECK_FAILS(add_edges(g, &a, &b, 1), cudaErrorInvalidValue);  // exists
  CHECK_FAILS(add_edges(g, &a, &a, 1), cudaErrorInvalidValue);  // self
  CHECK_FAILS(remove_edges(g, &a, &c, 1), cudaErrorInvalidValue);
  cudaMemsetParams ms = {};
  ms.dst = d;
  ms.value = 1;
  ms.elementSize = 3;
  ms.width = 4;
  ms.height = 1;
  CHECK_FAILS(cudaGraphAddMemsetNode(&x, g, nullptr, 0, &ms), cudaErrorInvalidValue);
  ms.elementSize = 4;
  ms.width = 1 << 20;  // beyond the allocation
  CHECK_FAILS(cudaGraphAddMemsetNode(&x, g, nullptr, 0, &ms), cudaErrorInvalidValue);
  cudaHostNodeParams hp = {nullptr, nullptr};
  CHECK_FAILS(cudaGraphAddHostNode(&x, g, nullptr, 0, &hp), cudaErrorInvalidValue);
  int v = 1;
  void* args[] = {&d, &v};
  cudaKernelNodeParams kp = {};
  kp.func = (void*)store;
  kp.gridDim = dim3(1);
  kp.blockDim = dim3(2048);  // more threads than a block may have
  kp.kernelParams = args;
  CHECK_FAILS(cudaGraphAddKernelNode(&x, g, nullptr, 0, &kp), EXPECTED_BAD_LAUNCH_SHAPE);
  size_t n = 0;
  CHECK(cudaGraphGetNodes(g, nullptr, &n));
  EXPECT(n == 3, "failed additions left nodes behind: %zu nodes", n);
  CHECK_FAILS(cudaGraphInstantiateWithFlags(&exec, g, 1ull << 40), cudaErrorInvalidValue);
  CHECK_FAILS(cudaGraphLaunch(nullptr, 0), cudaErrorInvalidValue);
  CHECK_FAILS(cudaGraphDestroy(nullptr), cudaErrorInvalidValue);

  // Update with a changed node type.
  CHECK(instantiate(&exec, g));
  cudaGraph_t changed;
  CHECK(cudaGraphCreate(&changed, 0));
  cudaGraphNode_t k1, k2, k3;
  kp.blockDim = dim3(32);
  CHECK(cudaGraphAddKernelNode(&k1, changed, nullptr, 0, &kp));
  CHECK(cudaGraphAddEmptyNode(&k2, changed, &k1, 1));
  CHECK(cudaGraphAddEmptyNode(&k3, changed, &k2, 1));
  cudaGraphExecUpdateResult result;
  cudaGraphNode_t error_node = nullptr;
  CHECK_FAILS(exec_update(exec, changed, &result, &error_node), cudaErrorGraphExecUpdateFailure);
  EXPECT(result == cudaGraphExecUpdateErrorNodeTypeChanged && error_node == k1,
         "update result %d", (int)result);
  CHECK_FAILS(cudaGraphExecKernelNodeSetParams(exec, a, &kp), cudaErrorInvalidValue);  // empty node
  CHECK(cudaGraphExecDestroy(exec));
  CHECK(cudaGraphDestroy(changed));
  CHECK(cudaGraphDestroy(outer));
  CHECK(cudaGraphDestroy(other));
  CHECK(cudaGraphDestroy(g));

  // A faulting kernel in a graph: out of bounds by a long way (1 GiB past a small allocation:
  // an illegal address on a GPU too; where an address lands decides which fault an H100
  // reports - 256 MiB past this allocation was cudaErrorInvalidAddressSpace there).
  cudaGraph_t fg;
  CHECK(cudaGraphCreate(&fg, 0));
  int* wild = d + (256 << 20);
  void* fargs[] = {&wild, &v};
  kp.kernelParams = fargs;
  cudaGraphNode_t fk, after;
  CHECK(cudaGraphAddKernelNode(&fk, fg, nullptr, 0, &kp));
  cudaHostNodeParams mark_p = {mark, nullptr};
  CHECK(cudaGraphAddHostNode(&after, fg, &fk, 1, &mark_p));
  CHECK(instantiate(&exec, fg));
  CHECK(cudaGraphLaunch(exec, 0));  // the launch itself succeeds: the fault is asynchronous
  cudaError_t e = cudaDeviceSynchronize();
  EXPECT(e == cudaErrorIllegalAddress, "synchronise after the faulting graph returned %s",
         cudaGetErrorName(e));
  EXPECT(host_ran == 0, "a node after the faulting kernel ran");
  e = cudaMalloc(&wild, 16);
  EXPECT(e == cudaErrorIllegalAddress, "the error is not sticky: cudaMalloc returned %s",
         cudaGetErrorName(e));
  printf("graph fault handled: %s\n", cudaGetErrorName(cudaGetLastError()));
  return report_pass();
}
