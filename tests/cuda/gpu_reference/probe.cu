// probe.cu - measures what a CUDA runtime and GPU do where the documentation is silent or
// vague; prints one fact per line. h100/ holds its output on an H100 80GB HBM3 (CUDA 13.0,
// driver 580.159.04); ctest runs it under warpsim and compares (README.md).
//
// Build: nvcc -rdc=true -lcudadevrt -cudart shared -o probe probe.cu
// Run:   ./probe MODE [ARGS]    (one process per mode: some break or fix the context)
//   sticky                 the error state after a kernel fault, and cudaDeviceReset
//   heap BYTES             cudaLimitMallocHeapSize as read back, and how many blocks fit
//   fifo BYTES LINES [w]   cudaLimitPrintfFifoSize as read back, printf's returns and output
//                          when one thread prints LINES lines (w: eight arguments each)
//   dp                     dynamic parallelism: limits, 150 launches from one thread, device
//                          stream/memset/memcpy calls
//   dp2                    recursion down to the pending-launch limit (100 and 40)
//   capture                what waiting for events, querying the legacy stream and cudaMalloc
//                          do to a stream capture, in each capture mode
//   graphmem, graphmem2    graph memory attributes through capture, instantiation, launches,
//                          frees, destruction and cudaDeviceGraphMemTrim
//   pool, pool2            memory pool reservation granularity, cudaMemPoolTrimTo, maxSize
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <unistd.h>

#include <cuda_runtime.h>

#define P(key, val) printf("%s %lld\n", key, (long long)(val))
#define E(key, call)                                                        \
  do {                                                                      \
    cudaError_t e_ = (call);                                                \
    printf("%s %d %s\n", key, (int)e_, cudaGetErrorName(e_));               \
  } while (0)

__global__ void noop() {}
__global__ void store_far(int* p) { p[1 << 28] = 1; }

static void sticky() {
  int mode = -1;
  cudaDeviceGetAttribute(&mode, cudaDevAttrComputeMode, 0);
  P("compute_mode", mode);
  int* d = nullptr;
  E("malloc", cudaMalloc(&d, 256));
  store_far<<<1, 1>>>(d);
  E("launch_get", cudaGetLastError());
  E("sync", cudaDeviceSynchronize());
  E("get1", cudaGetLastError());
  E("get2", cudaGetLastError());
  E("peek", cudaPeekAtLastError());
  void* p = nullptr;
  E("malloc_after", cudaMalloc(&p, 64));
  E("peek_after_malloc", cudaPeekAtLastError());
  E("get_after_malloc", cudaGetLastError());
  E("get_after_malloc2", cudaGetLastError());
  noop<<<1, 1>>>();
  E("launch_after_get", cudaGetLastError());
  E("launch_after_get2", cudaGetLastError());
  int dev = -1;
  E("getdevice", cudaGetDevice(&dev));
  E("streamquery", cudaStreamQuery(0));
  cudaEvent_t ev;
  E("eventcreate", cudaEventCreate(&ev));
  E("get_end", cudaGetLastError());
  E("reset", cudaDeviceReset());
  E("get_after_reset", cudaGetLastError());
  E("malloc_after_reset", cudaMalloc(&p, 64));
  sleep(2);
  E("malloc_after_reset_2s", cudaMalloc(&p, 64));
  E("free0", cudaFree(0));
}

__global__ void take_chunks(size_t chunk, int max, int* count) {
  void* ptrs[256];
  int n = 0;
  while (n < max && n < 256) {
    void* q = malloc(chunk);
    if (!q) break;
    ptrs[n++] = q;
  }
  *count = n;
  for (int i = 0; i < n; ++i) free(ptrs[i]);
}

static void heap(size_t bytes) {
  E("set", cudaDeviceSetLimit(cudaLimitMallocHeapSize, bytes));
  size_t v = 0;
  cudaDeviceGetLimit(&v, cudaLimitMallocHeapSize);
  P("limit_before", v);
  int* d = nullptr;
  cudaMalloc(&d, sizeof(int));
  const size_t chunks[] = {1 << 10, 64 << 10, 1 << 20};
  for (size_t c : chunks) {
    take_chunks<<<1, 1>>>(c, 256, d);
    E("sync", cudaDeviceSynchronize());
    int n = -1;
    cudaMemcpy(&n, d, sizeof n, cudaMemcpyDeviceToHost);
    printf("chunks_of %zu %d\n", c, n);
  }
  cudaDeviceGetLimit(&v, cudaLimitMallocHeapSize);
  P("limit_after", v);
  E("set_after", cudaDeviceSetLimit(cudaLimitMallocHeapSize, bytes));
}

__global__ void print_lines(int n, int* rets) {
  for (int i = 0; i < n; ++i) rets[i] = printf("line %d\n", i);
}
__global__ void print_wide(int n, int* rets) {
  for (int i = 0; i < n; ++i)
    rets[i] = printf("w %d %d %d %d %d %d %d %d\n", i, i, i, i, i, i, i, i);
}

static void fifo(size_t bytes, int lines, int wide) {
  E("set", cudaDeviceSetLimit(cudaLimitPrintfFifoSize, bytes));
  size_t v = 0;
  cudaDeviceGetLimit(&v, cudaLimitPrintfFifoSize);
  P("limit_before", v);
  int* d = nullptr;
  cudaMalloc(&d, lines * sizeof(int));
  FILE* cap = tmpfile();
  fflush(stdout);
  int saved = dup(1);
  dup2(fileno(cap), 1);
  if (wide)
    print_wide<<<1, 1>>>(lines, d);
  else
    print_lines<<<1, 1>>>(lines, d);
  cudaError_t e = cudaDeviceSynchronize();
  fflush(stdout);
  dup2(saved, 1);
  close(saved);
  E("sync", e);
  int* rets = (int*)malloc(lines * sizeof(int));
  cudaMemcpy(rets, d, lines * sizeof(int), cudaMemcpyDeviceToHost);
  int ok = 0, minr = 1 << 30, first_bad = -1;
  for (int i = 0; i < lines; ++i) {
    if (rets[i] == (wide ? 8 : 1)) ++ok;
    else if (first_bad < 0) first_bad = i;
    if (rets[i] < minr) minr = rets[i];
  }
  P("rets_ok", ok);
  P("rets_min", minr);
  P("rets_first_bad", first_bad);
  fseek(cap, 0, SEEK_END);
  long len = ftell(cap);
  fseek(cap, 0, SEEK_SET);
  char* text = (char*)malloc(len + 1);
  len = (long)fread(text, 1, len, cap);
  text[len] = 0;
  P("out_bytes", len);
  // Count lines; the well-formed ones in order of appearance.
  int nl = 0, good = 0, first = -1, last = -1, in_order = 1, prev = -1;
  for (char* line = strtok(text, "\n"); line; line = strtok(nullptr, "\n")) {
    ++nl;
    int k = -1;
    char tail = 0;
    bool wf = wide ? sscanf(line, "w %d %*d %*d %*d %*d %*d %*d %*d%c", &k, &tail) == 1
                   : sscanf(line, "line %d%c", &k, &tail) == 1;
    if (wf) {
      ++good;
      if (first < 0) first = k;
      if (k != prev + 1 && prev >= 0) in_order = 0;
      prev = k;
      last = k;
    }
    if (nl <= 3 || good == 0) printf("out_line %d: %.60s\n", nl, line);
  }
  P("out_lines", nl);
  P("out_good", good);
  P("out_first", first);
  P("out_last", last);
  P("out_in_order", in_order);
  cudaDeviceGetLimit(&v, cudaLimitPrintfFifoSize);
  P("limit_after", v);
}

__global__ void count_one(int* c) { atomicAdd(c, 1); }
__global__ void pending(int* c, int n, int* errs) {
  for (int i = 0; i < n; ++i) {
    count_one<<<1, 1>>>(c);
    errs[i] = cudaGetLastError();
  }
}
__global__ void dp_misc(int* out, int* buf) {
  cudaStream_t s = 0;
  out[0] = cudaStreamCreateWithFlags(&s, cudaStreamDefault);
  out[1] = cudaGetLastError();
  if (out[0] == 0) out[2] = cudaStreamDestroy(s);
  out[3] = cudaStreamDestroy((cudaStream_t)0x12345678);
  out[4] = cudaGetLastError();
  out[5] = cudaGetLastError();
  noop<<<1, 1, 0, (cudaStream_t)0x12345678>>>();
  out[6] = cudaGetLastError();
  out[7] = cudaGetLastError();
  cudaStream_t t;
  cudaStreamCreateWithFlags(&t, cudaStreamNonBlocking);
  out[8] = cudaMemsetAsync(buf, 1, 16 * sizeof(int), t);
  out[9] = cudaMemcpyAsync(buf + 16, buf, 4 * sizeof(int), cudaMemcpyDeviceToDevice, t);
  out[10] = cudaGetLastError();
  out[11] = cudaMemsetAsync(buf + 32, 2, 16 * sizeof(int), 0);
  out[12] = cudaMemcpyAsync(buf + 48, buf + 32, 4 * sizeof(int), cudaMemcpyDeviceToDevice, 0);
  cudaStreamDestroy(t);
  out[13] = cudaMemsetAsync(buf + 64, 3, 16 * sizeof(int), cudaStreamTailLaunch);
  out[14] = cudaMemsetAsync(buf + 80, 4, 16 * sizeof(int), cudaStreamFireAndForget);
  out[15] = cudaGetLastError();
}

static void dp() {
  size_t v = 0;
  E("get_default", cudaDeviceGetLimit(&v, cudaLimitDevRuntimePendingLaunchCount));
  P("pending_default", v);
  const size_t sets[] = {8, 31, 33, 100, 3000, 2048};
  for (size_t s : sets) {
    cudaError_t e = cudaDeviceSetLimit(cudaLimitDevRuntimePendingLaunchCount, s);
    cudaDeviceGetLimit(&v, cudaLimitDevRuntimePendingLaunchCount);
    printf("pending_set %zu -> %d %zu\n", s, (int)e, v);
  }
  E("sync_depth_get", cudaDeviceGetLimit(&v, cudaLimitDevRuntimeSyncDepth));
  P("sync_depth", v);
  int *c, *errs, *out, *buf;
  cudaMalloc(&c, sizeof(int));
  cudaMalloc(&errs, 200 * sizeof(int));
  cudaMalloc(&out, 32 * sizeof(int));
  cudaMalloc(&buf, 128 * sizeof(int));
  const size_t limits[] = {32, 64};
  for (size_t lim : limits) {
    cudaDeviceSetLimit(cudaLimitDevRuntimePendingLaunchCount, lim);
    cudaDeviceGetLimit(&v, cudaLimitDevRuntimePendingLaunchCount);
    cudaMemset(c, 0, sizeof(int));
    cudaMemset(errs, 0xff, 200 * sizeof(int));
    pending<<<1, 1>>>(c, 150, errs);
    E("pending_sync", cudaDeviceSynchronize());
    int h[150], ran = 0;
    cudaMemcpy(h, errs, sizeof h, cudaMemcpyDeviceToHost);
    cudaMemcpy(&ran, c, sizeof ran, cudaMemcpyDeviceToHost);
    int first_err = -1, nerr = 0, code = 0;
    for (int i = 0; i < 150; ++i)
      if (h[i] != 0) {
        if (first_err < 0) first_err = i, code = h[i];
        ++nerr;
      }
    printf("pending_limit %zu: ran %d first_err %d code %d errors %d\n", v, ran, first_err, code,
           nerr);
  }
  cudaDeviceSetLimit(cudaLimitDevRuntimePendingLaunchCount, 2048);
  cudaMemset(out, 0xff, 32 * sizeof(int));
  cudaMemset(buf, 0, 128 * sizeof(int));
  dp_misc<<<1, 1>>>(out, buf);
  E("misc_sync", cudaDeviceSynchronize());
  int h[16], b[128];
  cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost);
  cudaMemcpy(b, buf, sizeof b, cudaMemcpyDeviceToHost);
  for (int i = 0; i < 16; ++i) printf("misc[%d] %d\n", i, h[i]);
  printf("buf memset_t %x memcpy_t %x memset_null %x memcpy_null %x tail %x ff %x\n", b[0], b[16],
         b[32], b[48], b[64], b[80]);
}

__global__ void scale(float* d, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) d[i] *= 2;
}

static void capture_case(const char* name, int which, cudaStreamCaptureMode mode) {
  cudaStream_t s0, s1;
  cudaStreamCreate(&s0);
  cudaStreamCreate(&s1);
  cudaEvent_t ev, other;
  cudaEventCreateWithFlags(&ev, cudaEventDisableTiming);
  cudaEventCreateWithFlags(&other, cudaEventDisableTiming);
  cudaEventRecord(other, 0);
  cudaDeviceSynchronize();
  float* d;
  cudaMalloc(&d, 1024 * sizeof(float));
  printf("== %s\n", name);
  E("begin", cudaStreamBeginCapture(s0, mode));
  scale<<<4, 256, 0, s0>>>(d, 1024);
  E("record", cudaEventRecord(ev, s0));
  E("wait", cudaStreamWaitEvent(s1, ev, 0));
  if (which == 0) E("event_sync_captured", cudaEventSynchronize(ev));
  if (which == 1) E("event_query_captured", cudaEventQuery(ev));
  if (which == 2) E("event_query_other", cudaEventQuery(other));
  if (which == 3) E("event_sync_other", cudaEventSynchronize(other));
  if (which == 4) E("stream_query_other", cudaStreamQuery(0));
  if (which == 5) E("malloc", cudaMalloc((void**)&d, 16));
  if (which == 6) E("stream_sync_capturing", cudaStreamSynchronize(s0));
  E("peek", cudaPeekAtLastError());
  E("get", cudaGetLastError());
  cudaStreamCaptureStatus st;
  E("is_capturing_s0", cudaStreamIsCapturing(s0, &st));
  P("status_s0", st);
  E("is_capturing_s1", cudaStreamIsCapturing(s1, &st));
  P("status_s1", st);
  scale<<<4, 256, 0, s1>>>(d, 1024);
  E("launch_s1", cudaGetLastError());
  E("record_s1", cudaEventRecord(other, s1));
  E("join", cudaStreamWaitEvent(s0, other, 0));
  cudaGraph_t g = nullptr;
  E("end", cudaStreamEndCapture(s0, &g));
  P("graph_null", g == nullptr);
  E("get_after_end", cudaGetLastError());
  E("is_capturing_s1_after", cudaStreamIsCapturing(s1, &st));
  P("status_s1_after", st);
  if (g) {
    size_t n = 0;
    cudaGraphGetNodes(g, nullptr, &n);
    P("nodes", n);
    cudaGraphDestroy(g);
  }
  cudaStreamDestroy(s0);
  cudaStreamDestroy(s1);
  cudaDeviceSynchronize();
  cudaGetLastError();
}

static void capture() {
  capture_case("sync_captured_threadlocal", 0, cudaStreamCaptureModeThreadLocal);
  capture_case("query_captured_threadlocal", 1, cudaStreamCaptureModeThreadLocal);
  capture_case("sync_captured_relaxed", 0, cudaStreamCaptureModeRelaxed);
  capture_case("query_captured_relaxed", 1, cudaStreamCaptureModeRelaxed);
  capture_case("query_other_global", 2, cudaStreamCaptureModeGlobal);
  capture_case("sync_other_global", 3, cudaStreamCaptureModeGlobal);
  capture_case("streamquery_legacy_global", 4, cudaStreamCaptureModeGlobal);
  capture_case("malloc_global", 5, cudaStreamCaptureModeGlobal);
  capture_case("malloc_relaxed", 5, cudaStreamCaptureModeRelaxed);
  capture_case("streamsync_global", 6, cudaStreamCaptureModeGlobal);
}

__global__ void iota(int* p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = i;
}

static void gm(const char* when) {
  unsigned long long uc = 0, uh = 0, rc = 0, rh = 0;
  cudaDeviceGetGraphMemAttribute(0, cudaGraphMemAttrUsedMemCurrent, &uc);
  cudaDeviceGetGraphMemAttribute(0, cudaGraphMemAttrUsedMemHigh, &uh);
  cudaDeviceGetGraphMemAttribute(0, cudaGraphMemAttrReservedMemCurrent, &rc);
  cudaDeviceGetGraphMemAttribute(0, cudaGraphMemAttrReservedMemHigh, &rh);
  printf("gm %-28s used %llu high %llu reserved %llu high %llu\n", when, uc, uh, rc, rh);
}

static cudaGraph_t capture_alloc(size_t bytes, bool free_it, int** ptr) {
  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
  cudaMallocAsync((void**)ptr, bytes, s);
  iota<<<4, 256, 0, s>>>(*ptr, 1024);
  if (free_it) cudaFreeAsync(*ptr, s);
  cudaGraph_t g = nullptr;
  E("capture_end", cudaStreamEndCapture(s, &g));
  cudaStreamDestroy(s);
  return g;
}

static void graphmem() {
  gm("start");
  int* p = nullptr;
  cudaGraph_t g = capture_alloc(4096, true, &p);
  gm("captured");
  cudaGraphExec_t x;
  E("inst", cudaGraphInstantiate(&x, g, 0));
  gm("instantiated");
  E("launch", cudaGraphLaunch(x, 0));
  E("sync", cudaDeviceSynchronize());
  gm("launched");
  cudaGraphLaunch(x, 0);
  cudaDeviceSynchronize();
  gm("launched2");
  unsigned long long zero = 0;
  E("reset_used_high", cudaDeviceSetGraphMemAttribute(0, cudaGraphMemAttrUsedMemHigh, &zero));
  gm("used_high_reset");
  E("reset_res_high", cudaDeviceSetGraphMemAttribute(0, cudaGraphMemAttrReservedMemHigh, &zero));
  gm("reserved_high_reset");
  E("trim_live_exec", cudaDeviceGraphMemTrim(0));
  gm("trim_with_exec");
  E("exec_destroy", cudaGraphExecDestroy(x));
  gm("exec_destroyed");
  E("graph_destroy", cudaGraphDestroy(g));
  gm("graph_destroyed");
  E("trim", cudaDeviceGraphMemTrim(0));
  gm("trimmed");

  g = capture_alloc(4096, false, &p);
  E("inst", cudaGraphInstantiate(&x, g, 0));
  cudaGraphLaunch(x, 0);
  cudaDeviceSynchronize();
  gm("live_launched");
  E("relaunch_live", cudaGraphLaunch(x, 0));
  E("get", cudaGetLastError());
  E("free", cudaFree(p));
  gm("live_freed");
  cudaGraphExecDestroy(x);
  cudaGraphDestroy(g);
  cudaDeviceGraphMemTrim(0);
  gm("live_trimmed");

  g = capture_alloc(40 << 20, true, &p);
  E("inst", cudaGraphInstantiate(&x, g, 0));
  gm("big_instantiated");
  cudaGraphLaunch(x, 0);
  cudaDeviceSynchronize();
  gm("big_launched");
  cudaGraphExecDestroy(x);
  cudaGraphDestroy(g);
  cudaDeviceGraphMemTrim(0);
  gm("big_trimmed");

  cudaGraphCreate(&g, 0);
  cudaMemAllocNodeParams ap = {};
  ap.poolProps.allocType = cudaMemAllocationTypePinned;
  ap.poolProps.location.type = cudaMemLocationTypeDevice;
  ap.poolProps.location.id = 0;
  ap.bytesize = 4096;
  cudaGraphNode_t n;
  cudaMemAllocNodeParams bad = ap;
  bad.poolProps.location.id = 3;
  E("alloc_node_dev3", cudaGraphAddMemAllocNode(&n, g, nullptr, 0, &bad));
  cudaGetLastError();
  bad = ap;
  bad.poolProps.location.id = -1;
  E("alloc_node_dev-1", cudaGraphAddMemAllocNode(&n, g, nullptr, 0, &bad));
  cudaGetLastError();
  bad = ap;
  bad.poolProps.location.type = cudaMemLocationTypeHost;
  E("alloc_node_host", cudaGraphAddMemAllocNode(&n, g, nullptr, 0, &bad));
  cudaGetLastError();
  E("alloc_node_ok", cudaGraphAddMemAllocNode(&n, g, nullptr, 0, &ap));
  gm("node_added");
  cudaGraphDestroy(g);
  gm("node_graph_destroyed");
}

static void pr(cudaMemPool_t pool, const char* when) {
  unsigned long long rc = 0, uc = 0;
  cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReservedMemCurrent, &rc);
  cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemCurrent, &uc);
  printf("pool %-24s reserved %llu used %llu\n", when, rc, uc);
}

static void pool() {
  cudaMemPool_t def;
  cudaDeviceGetDefaultMemPool(&def, 0);
  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  unsigned long long keep = ~0ull;
  cudaMemPoolSetAttribute(def, cudaMemPoolAttrReleaseThreshold, &keep);
  void* a;
  cudaMallocAsync(&a, 4 << 20, s);
  cudaFreeAsync(a, s);
  cudaStreamSynchronize(s);
  pr(def, "kept");
  const size_t keeps[] = {~(size_t)0, (size_t)1 << 62, (size_t)1 << 40, 64 << 20, 3 << 20, 1 << 20,
                          0};
  for (size_t k : keeps) {
    char w[64];
    snprintf(w, sizeof w, "trim_to_%zx", k);
    E(w, cudaMemPoolTrimTo(def, k));
    pr(def, w);
    cudaMallocAsync(&a, 4 << 20, s);
    cudaFreeAsync(a, s);
    cudaStreamSynchronize(s);
  }
  // 1 MiB + 1 MiB: reservation granularity.
  void* b;
  cudaMallocAsync(&a, 1 << 20, s);
  pr(def, "one_mib");
  cudaMallocAsync(&b, 3 << 20, s);
  pr(def, "plus_3mib");
  cudaFreeAsync(a, s);
  cudaFreeAsync(b, s);
  cudaStreamSynchronize(s);
  cudaMemPoolTrimTo(def, 0);
  pr(def, "end");
}


__global__ void recurse(int* deepest, int depth) {
  atomicMax(&deepest[0], depth);
  recurse<<<1, 1>>>(deepest, depth + 1);
  const cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess) {
    deepest[1] = e;
    deepest[2] = depth;
  }
}

static void dp2() {
  int* d;
  cudaMalloc(&d, 4 * sizeof(int));
  const size_t limits[] = {100, 40};
  for (size_t lim : limits) {
    cudaDeviceSetLimit(cudaLimitDevRuntimePendingLaunchCount, lim);
    cudaMemset(d, 0, 4 * sizeof(int));
    recurse<<<1, 1>>>(d, 0);
    E("recurse_sync", cudaDeviceSynchronize());
    int h[3];
    cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
    printf("recurse limit %zu: deepest %d error %d at depth %d\n", lim, h[0], h[1], h[2]);
  }
}

static void graphmem2() {
  int* p = nullptr;
  cudaGraph_t g = capture_alloc(4096, true, &p);
  setvbuf(stdout, nullptr, _IONBF, 0);
  cudaGraphExec_t x, y;
  E("inst1", cudaGraphInstantiate(&x, g, 0));
  E("inst2", cudaGraphInstantiate(&y, g, 0));
  cudaGraphLaunch(x, 0);
  cudaDeviceSynchronize();
  gm("one_exec_launched");
  cudaGraphExecDestroy(x);
  gm("exec_destroyed");
  cudaGraphDestroy(g);
  gm("graph_destroyed");
  cudaDeviceGraphMemTrim(0);
  gm("trimmed");
  g = capture_alloc(4096, false, &p);
  cudaGraphInstantiate(&x, g, 0);
  cudaGraphLaunch(x, 0);
  cudaDeviceSynchronize();
  gm("live_launched");
  E("trim_live", cudaDeviceGraphMemTrim(0));
  gm("live_trimmed");
  cudaFree(p);
  gm("live_freed");
  cudaDeviceGraphMemTrim(0);
  gm("freed_trimmed");
  cudaGraphExecDestroy(x);
  cudaGraphDestroy(g);
  unsigned long long zero = 0;
  cudaDeviceSetGraphMemAttribute(0, cudaGraphMemAttrUsedMemHigh, &zero);
  cudaDeviceSetGraphMemAttribute(0, cudaGraphMemAttrReservedMemHigh, &zero);
  gm("highs_reset");
}

static void pool2() {
  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  const size_t maxes[] = {4 << 20, 33 << 20, 64 << 20};
  for (size_t mx : maxes) {
    cudaMemPoolProps props;
    memset(&props, 0, sizeof props);
    props.allocType = cudaMemAllocationTypePinned;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = 0;
    props.maxSize = mx;
    cudaMemPool_t pool;
    E("create", cudaMemPoolCreate(&pool, &props));
    const size_t sizes[] = {3 << 20, 2 << 20, 20 << 20, 10 << 20, 30 << 20, 40 << 20};
    void* ptrs[6] = {};
    for (int i = 0; i < 6; ++i) {
      cudaError_t e = cudaMallocFromPoolAsync(&ptrs[i], sizes[i], pool, s);
      cudaGetLastError();
      unsigned long long rc = 0, uc = 0;
      cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReservedMemCurrent, &rc);
      cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemCurrent, &uc);
      printf("max %zu alloc %zu -> %d reserved %llu used %llu\n", mx, sizes[i], (int)e, rc, uc);
      if (e != cudaSuccess) ptrs[i] = nullptr;
    }
    for (int i = 0; i < 6; ++i)
      if (ptrs[i]) cudaFreeAsync(ptrs[i], s);
    cudaStreamSynchronize(s);
    cudaMemPoolDestroy(pool);
  }
  cudaMemPool_t def;
  cudaDeviceGetDefaultMemPool(&def, 0);
  void* a;
  size_t f0, f1, t;
  cudaMemGetInfo(&f0, &t);
  cudaMallocAsync(&a, 1 << 20, s);
  cudaStreamSynchronize(s);
  cudaMemGetInfo(&f1, &t);
  printf("meminfo free drop for a 1 MiB pool block %lld\n", (long long)f0 - (long long)f1);
  cudaFreeAsync(a, s);
  cudaStreamSynchronize(s);
  cudaMemGetInfo(&f1, &t);
  printf("meminfo after release %lld\n", (long long)f0 - (long long)f1);
}

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  cudaFree(0);
  if (!strcmp(argv[1], "sticky")) sticky();
  else if (!strcmp(argv[1], "heap")) heap(strtoull(argv[2], nullptr, 0));
  else if (!strcmp(argv[1], "fifo")) fifo(strtoull(argv[2], nullptr, 0), atoi(argv[3]), argc > 4);
  else if (!strcmp(argv[1], "dp")) dp();
  else if (!strcmp(argv[1], "capture")) capture();
  else if (!strcmp(argv[1], "graphmem")) graphmem();
  else if (!strcmp(argv[1], "pool")) pool();
  else if (!strcmp(argv[1], "dp2")) dp2();
  else if (!strcmp(argv[1], "graphmem2")) graphmem2();
  else if (!strcmp(argv[1], "pool2")) pool2();
  else return 2;
  fflush(stdout);
  return 0;
}
