// stream_attributes.cu - stream attributes and launch attributes (CUDA 12 and later).
//
// Covers: cudaStreamSetAttribute / cudaStreamGetAttribute round trips of an L2 access
// policy window (the persisting-L2 pattern of NVIDIA's samples, followed by kernels in the
// stream), the synchronisation policy, the priority (also seen by cudaStreamGetPriority, and
// clamped into cudaDeviceGetStreamPriorityRange), the memory synchronisation domain and its
// map; the values a new stream reports; cudaStreamCopyAttributes; the default stream;
// invalid values (a hit ratio above 1, a window larger than
// cudaDevAttrMaxAccessPolicyWindowSize, an unknown policy, an attribute a stream does not
// hold, a null value) -> cudaErrorInvalidValue; a destroyed stream ->
// cudaErrorInvalidResourceHandle; cudaLaunchKernelEx with priority and access policy
// attributes computes the same result.
//
// Build: nvcc -cudart shared -o stream_attributes stream_attributes.cu
#define TEST_NAME "stream_attributes"
#include "cuda_check.h"

__global__ void scale(int* data, int n, int factor) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] *= factor;
}

int main() {
  const int n = 4096;
  int* data;
  CHECK(cudaMalloc(&data, n * sizeof(int)));
  static int host[n], want[n];
  for (int i = 0; i < n; ++i) host[i] = i, want[i] = i * 6;
  CHECK(cudaMemcpy(data, host, sizeof host, cudaMemcpyHostToDevice));

  cudaStream_t s, t;
  CHECK(cudaStreamCreate(&s));
  CHECK(cudaStreamCreateWithFlags(&t, cudaStreamNonBlocking));

  // What a new stream reports.
  cudaStreamAttrValue v;
  memset(&v, 0x5a, sizeof v);
  CHECK(cudaStreamGetAttribute(s, cudaStreamAttributeAccessPolicyWindow, &v));
  EXPECT(v.accessPolicyWindow.base_ptr == nullptr && v.accessPolicyWindow.num_bytes == 0,
         "new stream window %p + %zu", v.accessPolicyWindow.base_ptr,
         v.accessPolicyWindow.num_bytes);
  CHECK(cudaStreamGetAttribute(s, cudaStreamAttributeSynchronizationPolicy, &v));
  EXPECT(v.syncPolicy == cudaSyncPolicyAuto, "new stream sync policy %d", (int)v.syncPolicy);
  CHECK(cudaStreamGetAttribute(s, cudaStreamAttributePriority, &v));
  EXPECT(v.priority == 0, "new stream priority %d", v.priority);

  // The persisting-L2 pattern: a window over the data, then kernels in the stream.
  int max_window = 0;
  CHECK(cudaDeviceGetAttribute(&max_window, cudaDevAttrMaxAccessPolicyWindowSize, 0));
  EXPECT(max_window > 0, "cudaDevAttrMaxAccessPolicyWindowSize %d", max_window);
  cudaStreamAttrValue window = {};
  window.accessPolicyWindow.base_ptr = data;
  window.accessPolicyWindow.num_bytes = n * sizeof(int);
  window.accessPolicyWindow.hitRatio = 0.6f;
  window.accessPolicyWindow.hitProp = cudaAccessPropertyPersisting;
  window.accessPolicyWindow.missProp = cudaAccessPropertyStreaming;
  CHECK(cudaStreamSetAttribute(s, cudaStreamAttributeAccessPolicyWindow, &window));
  scale<<<n / 256, 256, 0, s>>>(data, n, 2);
  CHECK(cudaGetLastError());
  memset(&v, 0, sizeof v);
  CHECK(cudaStreamGetAttribute(s, cudaStreamAttributeAccessPolicyWindow, &v));
  EXPECT(v.accessPolicyWindow.base_ptr == data && v.accessPolicyWindow.num_bytes == n * sizeof(int) &&
             v.accessPolicyWindow.hitRatio == 0.6f &&
             v.accessPolicyWindow.hitProp == cudaAccessPropertyPersisting &&
             v.accessPolicyWindow.missProp == cudaAccessPropertyStreaming,
         "window read back: %p + %zu, ratio %g, props %d/%d", v.accessPolicyWindow.base_ptr,
         v.accessPolicyWindow.num_bytes, v.accessPolicyWindow.hitRatio,
         (int)v.accessPolicyWindow.hitProp, (int)v.accessPolicyWindow.missProp);
  // Reset the window, as the samples do once they are done with it.
  window.accessPolicyWindow.num_bytes = 0;
  CHECK(cudaStreamSetAttribute(s, cudaStreamAttributeAccessPolicyWindow, &window));
  CHECK(cudaCtxResetPersistingL2Cache());

  // Synchronisation policy, priority, memory synchronisation domains.
  v = {};
  v.syncPolicy = cudaSyncPolicyBlockingSync;
  CHECK(cudaStreamSetAttribute(s, cudaStreamAttributeSynchronizationPolicy, &v));
  v = {};
  CHECK(cudaStreamGetAttribute(s, cudaStreamAttributeSynchronizationPolicy, &v));
  EXPECT(v.syncPolicy == cudaSyncPolicyBlockingSync, "sync policy %d", (int)v.syncPolicy);
  int least, greatest, priority = 1;
  CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
  v = {};
  v.priority = greatest;
  CHECK(cudaStreamSetAttribute(s, cudaStreamAttributePriority, &v));
  CHECK(cudaStreamGetPriority(s, &priority));
  EXPECT(priority == greatest, "priority after set %d, want %d", priority, greatest);
  v.priority = greatest - 100;  // clamped, as by cudaStreamCreateWithPriority
  CHECK(cudaStreamSetAttribute(s, cudaStreamAttributePriority, &v));
  v = {};
  CHECK(cudaStreamGetAttribute(s, cudaStreamAttributePriority, &v));
  EXPECT(v.priority == greatest, "clamped priority %d, want %d", v.priority, greatest);
  v = {};
  v.memSyncDomain = cudaLaunchMemSyncDomainRemote;
  CHECK(cudaStreamSetAttribute(s, cudaStreamAttributeMemSyncDomain, &v));
  v = {};
  v.memSyncDomainMap.default_ = 1;
  v.memSyncDomainMap.remote = 0;
  CHECK(cudaStreamSetAttribute(s, cudaStreamAttributeMemSyncDomainMap, &v));
  v = {};
  CHECK(cudaStreamGetAttribute(s, cudaStreamAttributeMemSyncDomainMap, &v));
  EXPECT(v.memSyncDomainMap.default_ == 1 && v.memSyncDomainMap.remote == 0, "domain map %d/%d",
         v.memSyncDomainMap.default_, v.memSyncDomainMap.remote);

  // Copy to another stream.
  CHECK(cudaStreamCopyAttributes(t, s));
  v = {};
  CHECK(cudaStreamGetAttribute(t, cudaStreamAttributeSynchronizationPolicy, &v));
  EXPECT(v.syncPolicy == cudaSyncPolicyBlockingSync, "copied sync policy %d", (int)v.syncPolicy);
  CHECK(cudaStreamGetAttribute(t, cudaStreamAttributeMemSyncDomain, &v));
  EXPECT(v.memSyncDomain == cudaLaunchMemSyncDomainRemote, "copied domain %d",
         (int)v.memSyncDomain);
  CHECK(cudaStreamGetPriority(t, &priority));
  EXPECT(priority == greatest, "copied priority %d", priority);
  unsigned flags = 0;
  CHECK(cudaStreamGetFlags(t, &flags));
  EXPECT(flags == cudaStreamNonBlocking, "flags after copy %u", flags);

  // The default stream holds attributes too.
  v = {};
  v.syncPolicy = cudaSyncPolicySpin;
  CHECK(cudaStreamSetAttribute(0, cudaStreamAttributeSynchronizationPolicy, &v));
  v = {};
  CHECK(cudaStreamGetAttribute(0, cudaStreamAttributeSynchronizationPolicy, &v));
  EXPECT(v.syncPolicy == cudaSyncPolicySpin, "default stream sync policy %d", (int)v.syncPolicy);

  // Values the runtime refuses.
  window.accessPolicyWindow.num_bytes = 1024;
  window.accessPolicyWindow.hitRatio = 1.5f;
  CHECK_FAILS(cudaStreamSetAttribute(s, cudaStreamAttributeAccessPolicyWindow, &window),
              cudaErrorInvalidValue);
  window.accessPolicyWindow.hitRatio = 1.0f;
  window.accessPolicyWindow.num_bytes = (size_t)max_window + 1;
  CHECK_FAILS(cudaStreamSetAttribute(s, cudaStreamAttributeAccessPolicyWindow, &window),
              cudaErrorInvalidValue);
  v = {};
  v.syncPolicy = (cudaSynchronizationPolicy)9;
  CHECK_FAILS(cudaStreamSetAttribute(s, cudaStreamAttributeSynchronizationPolicy, &v),
              cudaErrorInvalidValue);
  v = {};
  CHECK_FAILS(cudaStreamSetAttribute(s, cudaLaunchAttributeCooperative, &v), cudaErrorInvalidValue);
  CHECK_FAILS(cudaStreamGetAttribute(s, cudaStreamAttributePriority, nullptr), cudaErrorInvalidValue);
  // A refused value leaves the attribute as it was.
  CHECK(cudaStreamGetAttribute(s, cudaStreamAttributeSynchronizationPolicy, &v));
  EXPECT(v.syncPolicy == cudaSyncPolicyBlockingSync, "sync policy after refusal %d",
         (int)v.syncPolicy);

  // Launch attributes through cudaLaunchKernelEx.
  cudaLaunchAttribute attrs[2];
  attrs[0].id = cudaLaunchAttributePriority;
  attrs[0].val.priority = greatest;
  attrs[1].id = cudaLaunchAttributeAccessPolicyWindow;
  attrs[1].val.accessPolicyWindow = window.accessPolicyWindow;
  attrs[1].val.accessPolicyWindow.num_bytes = n * sizeof(int);
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3(n / 256);
  config.blockDim = dim3(256);
  config.stream = t;
  config.attrs = attrs;
  config.numAttrs = 2;
  CHECK(cudaStreamSynchronize(s));
  CHECK(cudaLaunchKernelEx(&config, scale, data, n, 3));
  CHECK(cudaStreamSynchronize(t));
  CHECK(cudaMemcpy(host, data, sizeof host, cudaMemcpyDeviceToHost));
  check_ints("data after both kernels", host, want, n);

  CHECK(cudaStreamDestroy(t));
  CHECK_FAILS(cudaStreamGetAttribute(t, cudaStreamAttributePriority, &v),
              cudaErrorInvalidResourceHandle);
  CHECK(cudaStreamDestroy(s));
  CHECK(cudaFree(data));
  return report_pass();
}
