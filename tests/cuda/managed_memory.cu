// managed_memory.cu - unified (managed) memory.
//
// Covers:
//  - cudaMallocManaged with cudaMemAttachGlobal (host init -> kernel -> host read after
//    cudaDeviceSynchronize) and with cudaMemAttachHost (attached to a stream with
//    cudaStreamAttachMemAsync(cudaMemAttachSingle) before a kernel uses it in that stream);
//  - a linked list built by the host in managed memory (one array of nodes linked in a
//    scrambled order, plus nodes from separate cudaMallocManaged calls), traversed and updated
//    by a kernel, then walked again by the host;
//  - cudaMemAdvise(cudaMemAdviseSetReadMostly / UnsetReadMostly) (CUDA 13 takes a
//    cudaMemLocation, earlier versions a device ordinal) with cudaMemRangeGetAttribute
//    (cudaMemRangeAttributeReadMostly) reading it back, kernels and host reading the data;
//  - cudaPointerGetAttributes: type cudaMemoryTypeManaged for managed allocations (also for
//    interior pointers).
//
// Build: nvcc -cudart shared -o managed_memory managed_memory.cu
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <cuda_runtime.h>

#define TEST_NAME "managed_memory"
#include "cuda_check.h"

struct Node {
  int value;
  int visit;  // order in which the kernel reached the node
  Node* next;
};

__global__ void scale_add(int* p, int n, int mul, int add) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = p[i] * mul + add;
}

// One thread walks the list: sums values, counts nodes, doubles each value.
__global__ void traverse(Node* head, long long* result) {
  long long sum = 0;
  int count = 0;
  for (Node* p = head; p != nullptr; p = p->next) {
    sum += p->value;
    p->visit = count++;
    p->value *= 2;
  }
  result[0] = sum;
  result[1] = count;
}

// Block-wide sums of read-mostly data into out[blockIdx.x].
__global__ void block_sums(const int* p, int n, long long* out) {
  __shared__ long long s;
  if (threadIdx.x == 0) s = 0;
  __syncthreads();
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd((unsigned long long*)&s, (unsigned long long)(long long)p[i]);
  __syncthreads();
  if (threadIdx.x == 0) out[blockIdx.x] = s;
}

static void expect_managed(const char* what, const void* p) {
  cudaPointerAttributes a;
  memset(&a, 0, sizeof a);
  CHECK(cudaPointerGetAttributes(&a, p));
  EXPECT(a.type == cudaMemoryTypeManaged, "%s: cudaPointerGetAttributes type %d", what,
         (int)a.type);
}

#if CUDART_VERSION >= 13000
static cudaMemLocation device_location(int dev) {
  cudaMemLocation loc;
  memset(&loc, 0, sizeof loc);
  loc.type = cudaMemLocationTypeDevice;
  loc.id = dev;
  return loc;
}
#define ADVISE(ptr, bytes, advice) cudaMemAdvise((ptr), (bytes), (advice), device_location(0))
#else
#define ADVISE(ptr, bytes, advice) cudaMemAdvise((ptr), (bytes), (advice), 0)
#endif

int main() {
  CHECK(cudaSetDevice(0));
  int concurrent = 0;
  CHECK(cudaDeviceGetAttribute(&concurrent, cudaDevAttrConcurrentManagedAccess, 0));
  int managed = 0;
  CHECK(cudaDeviceGetAttribute(&managed, cudaDevAttrManagedMemory, 0));
  EXPECT(managed == 1, "cudaDevAttrManagedMemory = %d", managed);

  // ---- cudaMemAttachGlobal ----
  const int n = 5000;
  int* g = nullptr;
  CHECK(cudaMallocManaged(&g, n * sizeof(int), cudaMemAttachGlobal));
  expect_managed("cudaMemAttachGlobal allocation", g);
  expect_managed("interior pointer", g + 1234);
  for (int i = 0; i < n; ++i) g[i] = i - 2500;
  scale_add<<<(n + 127) / 128, 128>>>(g, n, 3, 1);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  for (int i = 0; i < n; ++i)
    EXPECT(g[i] == (i - 2500) * 3 + 1, "cudaMemAttachGlobal: index %d: got %d", i, g[i]);

  // ---- cudaMemAttachHost, then attached to one stream ----
  {
    int* hbuf = nullptr;
    CHECK(cudaMallocManaged(&hbuf, n * sizeof(int), cudaMemAttachHost));
    expect_managed("cudaMemAttachHost allocation", hbuf);
    for (int i = 0; i < n; ++i) hbuf[i] = 2 * i;
    cudaStream_t s;
    CHECK(cudaStreamCreate(&s));
    CHECK(cudaStreamAttachMemAsync(s, hbuf, 0, cudaMemAttachSingle));
    scale_add<<<(n + 127) / 128, 128, 0, s>>>(hbuf, n, -1, 7);
    CHECK(cudaGetLastError());
    CHECK(cudaStreamSynchronize(s));
    for (int i = 0; i < n; ++i)
      EXPECT(hbuf[i] == 7 - 2 * i, "cudaMemAttachHost: index %d: got %d", i, hbuf[i]);
    CHECK(cudaStreamDestroy(s));
    CHECK(cudaFree(hbuf));
  }

  // ---- linked list in managed memory ----
  {
    const int N = 1000;  // nodes in one allocation, linked in the order k*7 mod N
    const int M = 50;    // nodes from separate allocations, appended at the end
    Node* nodes = nullptr;
    CHECK(cudaMallocManaged(&nodes, N * sizeof(Node)));
    std::vector<Node*> extra(M);
    for (int k = 0; k < M; ++k) CHECK(cudaMallocManaged(&extra[k], sizeof(Node)));
    std::vector<Node*> order;
    for (int k = 0; k < N; ++k) order.push_back(&nodes[(k * 7) % N]);
    for (int k = 0; k < M; ++k) order.push_back(extra[k]);
    long long want_sum = 0;
    for (size_t k = 0; k < order.size(); ++k) {
      order[k]->value = (int)k * 3 + 1;
      order[k]->visit = -1;
      order[k]->next = k + 1 < order.size() ? order[k + 1] : nullptr;
      want_sum += (int)k * 3 + 1;
    }
    long long* result = nullptr;
    CHECK(cudaMallocManaged(&result, 2 * sizeof(long long)));
    result[0] = result[1] = -1;
    expect_managed("list node", order[17]);
    traverse<<<1, 1>>>(order[0], result);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    EXPECT(result[1] == (long long)order.size(), "list length %lld, expected %zu", result[1],
           order.size());
    EXPECT(result[0] == want_sum, "list sum %lld, expected %lld", result[0], want_sum);
    int k = 0;
    for (Node* p = order[0]; p != nullptr; p = p->next, ++k)
      EXPECT(p->value == (k * 3 + 1) * 2 && p->visit == k,
             "node %d after traversal: value %d visit %d", k, p->value, p->visit);
    CHECK(cudaFree(result));
    for (int j = 0; j < M; ++j) CHECK(cudaFree(extra[j]));
    CHECK(cudaFree(nodes));
  }

  // ---- cudaMemAdvise read-mostly ----
  {
    const size_t bytes = n * sizeof(int);
    CHECK(ADVISE(g, bytes, cudaMemAdviseSetReadMostly));
    if (concurrent) {
      int rm = -1;
      CHECK(cudaMemRangeGetAttribute(&rm, sizeof rm, cudaMemRangeAttributeReadMostly, g, bytes));
      EXPECT(rm == 1, "cudaMemRangeAttributeReadMostly = %d after SetReadMostly", rm);
    }
    const int blocks = (n + 255) / 256;
    long long* sums = nullptr;
    CHECK(cudaMallocManaged(&sums, blocks * sizeof(long long)));
    for (int rep = 0; rep < 2; ++rep) {
      block_sums<<<blocks, 256>>>(g, n, sums);
      CHECK(cudaGetLastError());
      CHECK(cudaDeviceSynchronize());
      for (int b = 0; b < blocks; ++b) {
        long long want = 0;
        for (int i = b * 256; i < n && i < (b + 1) * 256; ++i) want += g[i];  // host reads too
        EXPECT(sums[b] == want, "read-mostly pass %d: block %d sum %lld, expected %lld", rep, b,
               sums[b], want);
      }
    }
    // Writing read-mostly data is allowed (it invalidates the copies).
    g[10] = 424242;
    scale_add<<<1, 32>>>(g, 32, 1, 1);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    EXPECT(g[10] == 424243, "write to read-mostly data: %d", g[10]);
    CHECK(ADVISE(g, bytes, cudaMemAdviseUnsetReadMostly));
    if (concurrent) {
      int rm = -1;
      CHECK(cudaMemRangeGetAttribute(&rm, sizeof rm, cudaMemRangeAttributeReadMostly, g, bytes));
      EXPECT(rm == 0, "cudaMemRangeAttributeReadMostly = %d after UnsetReadMostly", rm);
    } else {
      printf("note: cudaDevAttrConcurrentManagedAccess = 0, range attribute checks skipped\n");
    }
    CHECK(cudaFree(sums));
  }

  CHECK(cudaFree(g));
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaGetLastError());
  return report_pass();
}
