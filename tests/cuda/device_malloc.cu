// device_malloc.cu - device-side malloc/free and new/delete, cudaLimitMallocHeapSize, and the
// printf FIFO (cudaLimitPrintfFifoSize, printf's return value).
//
// Covers, in this order:
//  1. the default heap size (8 MiB); setting it to 1 MiB, which reads back as 4 MiB, the
//     smallest heap the runtime makes; the printf FIFO set to 4 KiB reads back as 512 KiB,
//     its smallest size (both measured on an H100 with CUDA 13);
//  2. 256 threads of two blocks each malloc a block of a different size: every pointer is
//     non-NULL, 16-byte aligned and no two blocks overlap; the blocks keep their contents into
//     a later launch, which checks them; a third launch frees them;
//  3. cudaLimitMallocHeapSize after a kernel that calls malloc: cudaErrorInvalidValue, limit kept;
//  4. heap exhaustion: one thread takes 64 KiB blocks until malloc returns NULL (at least one,
//     no more than the heap holds), frees them, and gets as many again (freed memory is reused);
//  5. malloc(0): free() accepts whatever it returned (NULL or a 16-byte aligned pointer);
//     free(NULL) does nothing;
//  6. new[] / new / delete / delete[] in device code (nvcc emits malloc/free calls for them);
//  7. printf returns the number of arguments it parsed (0 with none), also when the FIFO is
//     full; a thread printing 4000 lines into the smallest FIFO: the FIFO is circular, so some
//     lines are lost, the last line printed is among those that come out, and every line that
//     comes out is whole (on warpsim: exactly the newest ones, in order - a GPU may interleave
//     them); after cudaDeviceSynchronize (which empties the FIFO) every printf fits again;
//     cudaLimitPrintfFifoSize after a kernel that calls printf: cudaErrorInvalidValue. (stdout
//     is captured while the kernels print.)
//  8. free() of a pointer that malloc did not return (a cudaMalloc pointer): undefined
//     behaviour that a GPU ignores (an H100 went on without an error): the launch succeeds and
//     the heap keeps working (warpsim also prints a warning); cudaDeviceReset restores the
//     default heap size.
//
// Sources: cuda_runtime_api.h (cudaDeviceSetLimit: "Setting cudaLimitMallocHeapSize must not
// be performed after launching any kernel that uses the malloc() or free() device system
// calls - in such case cudaErrorInvalidValue will be returned", the same for
// cudaLimitPrintfFifoSize and printf()); CUDA C++ Programming Guide, "Dynamic Global Memory
// Allocation" (8 MB default heap, NULL when out of memory, 16-byte alignment) and "Formatted
// Output" (printf returns the number of arguments parsed; the buffer "is circular and if more
// output is produced during kernel execution than can fit in the buffer, older output is
// overwritten").
//
// Build: nvcc -cudart shared -o device_malloc device_malloc.cu
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <unistd.h>

#include <cuda_runtime.h>

#define TEST_NAME "device_malloc"
static void restore_stdout();  // defined below: a failure line goes to the real stdout
#define TEST_BEFORE_FAIL() restore_stdout()
#include "cuda_check.h"

static int g_saved_stdout = -1;  // original fd 1 while stdout is being captured

static void restore_stdout() {
  if (g_saved_stdout >= 0) {
    fflush(stdout);
    dup2(g_saved_stdout, 1);
    close(g_saved_stdout);
    g_saved_stdout = -1;
  }
}

static const size_t kDefaultHeap = 8u << 20;
static const size_t kHeap = 1u << 20;       // asked for...
static const size_t kMinHeap = 4u << 20;    // ...and what the runtime makes
static const size_t kFifo = 4096;
static const size_t kMinFifo = 512u << 10;
static const int kThreads = 256;  // part 2: 2 blocks of 128
static const size_t kChunk = 64u << 10;
static const int kMaxChunks = 128;  // 8 MiB: more than the heap holds
static const int kFloodLines = 4000;

__host__ __device__ static int block_size(int t) { return 1 + (t * 37) % 200; }
__device__ static char fill_byte(int t, int i) { return (char)(t * 3 + i); }

// ---- part 2: many threads, one block each --------------------------------------------------
__global__ void alloc_blocks(char** ptrs) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  char* p = (char*)malloc(block_size(t));
  ptrs[t] = p;
  if (p)
    for (int i = 0; i < block_size(t); ++i) p[i] = fill_byte(t, i);
}

__global__ void check_blocks(char* const* ptrs, int* bad) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  const char* p = ptrs[t];
  for (int i = 0; i < block_size(t); ++i)
    if (p[i] != fill_byte(t, i)) {
      atomicAdd(bad, 1);
      return;
    }
}

__global__ void free_blocks(char** ptrs) { free(ptrs[blockIdx.x * blockDim.x + threadIdx.x]); }

// ---- part 4: exhaustion ------------------------------------------------------------------------
__global__ void take_all(void** slots, int* count) {
  int n = 0;
  while (n < kMaxChunks) {
    void* p = malloc(kChunk);
    slots[n] = p;
    if (!p) break;
    ++n;
  }
  *count = n;
}

__global__ void give_back(void** slots, int n) {
  for (int i = 0; i < n; ++i) free(slots[i]);
}

// ---- part 5: malloc(0), free(NULL) -------------------------------------------------------------
__global__ void malloc_zero(unsigned long long* out) {
  void* p = malloc(0);
  out[0] = (unsigned long long)p;
  free(p);
  free(NULL);
}

// ---- part 6: new / delete ----------------------------------------------------------------------
struct Pair {
  int a;
  double b;
};

__global__ void use_new(int* out, int n) {
  int* v = new int[n];
  for (int i = 0; i < n; ++i) v[i] = i * (int)threadIdx.x;
  Pair* q = new Pair;
  q->a = 1000;
  q->b = 0.5;
  int sum = 0;
  for (int i = 0; i < n; ++i) sum += v[i];
  out[threadIdx.x] = sum + q->a + (int)(q->b * 4);
  delete q;
  delete[] v;
}

// ---- part 7: printf --------------------------------------------------------------------------
__global__ void printf_returns(int* rets) {
  rets[0] = printf("none\n");
  rets[1] = printf("two %d %s\n", 5, "x");
  rets[2] = printf("three %d %.1f %c\n", 1, 2.0, 'c');
}

__global__ void flood(int* rets, int n) {
  for (int i = 0; i < n; ++i) rets[i] = printf("line %d\n", i);
}

// ---- part 8: free of a pointer malloc did not return -------------------------------------------
__global__ void free_foreign(void* p) { free(p); }

// Sorts n pointers with their sizes by address (insertion sort: no C++ library).
static void sort_blocks(char** p, int* size, int n) {
  for (int i = 1; i < n; ++i)
    for (int j = i; j > 0 && p[j] < p[j - 1]; --j) {
      char* tp = p[j]; p[j] = p[j - 1]; p[j - 1] = tp;
      int ts = size[j]; size[j] = size[j - 1]; size[j - 1] = ts;
    }
}

static void check_limits_before_use() {
  size_t v = 0;
  CHECK(cudaDeviceGetLimit(&v, cudaLimitMallocHeapSize));
  EXPECT(v == kDefaultHeap, "default heap size %zu", v);
  CHECK(cudaDeviceSetLimit(cudaLimitMallocHeapSize, kHeap));
  CHECK(cudaDeviceGetLimit(&v, cudaLimitMallocHeapSize));
  EXPECT(v == kMinHeap, "heap size %zu after setting %zu", v, kHeap);
  CHECK(cudaDeviceGetLimit(&v, cudaLimitPrintfFifoSize));
  EXPECT(v >= kMinFifo, "default printf FIFO size %zu", v);
  CHECK(cudaDeviceSetLimit(cudaLimitPrintfFifoSize, kFifo));
  CHECK(cudaDeviceGetLimit(&v, cudaLimitPrintfFifoSize));
  EXPECT(v == kMinFifo, "printf FIFO size %zu after setting %zu", v, kFifo);
}

static void check_many_blocks() {
  char** d_ptrs = nullptr;
  int* d_bad = nullptr;
  CHECK(cudaMalloc(&d_ptrs, kThreads * sizeof(char*)));
  CHECK(cudaMalloc(&d_bad, sizeof(int)));
  CHECK(cudaMemset(d_bad, 0, sizeof(int)));
  alloc_blocks<<<2, kThreads / 2>>>(d_ptrs);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  static char* ptrs[kThreads];
  static int sizes[kThreads];
  CHECK(cudaMemcpy(ptrs, d_ptrs, sizeof ptrs, cudaMemcpyDeviceToHost));
  for (int t = 0; t < kThreads; ++t) {
    EXPECT(ptrs[t] != nullptr, "thread %d got NULL from malloc(%d)", t, block_size(t));
    EXPECT((size_t)ptrs[t] % 16 == 0, "thread %d: %p is not 16-byte aligned", t, (void*)ptrs[t]);
    sizes[t] = block_size(t);
  }
  sort_blocks(ptrs, sizes, kThreads);
  for (int i = 1; i < kThreads; ++i)
    EXPECT(ptrs[i - 1] + sizes[i - 1] <= ptrs[i], "blocks %p (+%d) and %p overlap",
           (void*)ptrs[i - 1], sizes[i - 1], (void*)ptrs[i]);

  check_blocks<<<2, kThreads / 2>>>(d_ptrs, d_bad);  // a later launch sees the same memory
  CHECK(cudaGetLastError());
  int bad = -1;
  CHECK(cudaMemcpy(&bad, d_bad, sizeof bad, cudaMemcpyDeviceToHost));
  EXPECT(bad == 0, "%d blocks lost their contents between launches", bad);

  // The heap exists now: its size can no longer change.
  CHECK_FAILS(cudaDeviceSetLimit(cudaLimitMallocHeapSize, 2 * kHeap), cudaErrorInvalidValue);
  size_t v = 0;
  CHECK(cudaDeviceGetLimit(&v, cudaLimitMallocHeapSize));
  EXPECT(v == kMinHeap, "heap size %zu after the refused change", v);

  free_blocks<<<2, kThreads / 2>>>(d_ptrs);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaFree(d_ptrs));
  CHECK(cudaFree(d_bad));
}

static void check_exhaustion() {
  void** d_slots = nullptr;
  int* d_count = nullptr;
  CHECK(cudaMalloc(&d_slots, (kMaxChunks + 1) * sizeof(void*)));
  CHECK(cudaMalloc(&d_count, sizeof(int)));
  int counts[2] = {-1, -1};
  for (int round = 0; round < 2; ++round) {
    take_all<<<1, 1>>>(d_slots, d_count);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(&counts[round], d_count, sizeof(int), cudaMemcpyDeviceToHost));
    const int n = counts[round];
    EXPECT(n >= 1 && n < kMaxChunks && n * kChunk <= kMinHeap,
           "round %d: %d blocks of %zu bytes from a %zu-byte heap", round, n, kChunk, kMinHeap);
    static void* slots[kMaxChunks + 1];
    CHECK(cudaMemcpy(slots, d_slots, (n + 1) * sizeof(void*), cudaMemcpyDeviceToHost));
    EXPECT(slots[n] == nullptr, "the failing malloc returned %p, not NULL", slots[n]);
    give_back<<<1, 1>>>(d_slots, n);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
  }
  EXPECT(counts[1] == counts[0], "%d blocks after freeing, %d before", counts[1], counts[0]);
  CHECK(cudaFree(d_slots));
  CHECK(cudaFree(d_count));
}

static void check_malloc_zero_and_new() {
  unsigned long long* d_out = nullptr;
  CHECK(cudaMalloc(&d_out, sizeof(unsigned long long)));
  malloc_zero<<<1, 1>>>(d_out);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  unsigned long long p = 1;
  CHECK(cudaMemcpy(&p, d_out, sizeof p, cudaMemcpyDeviceToHost));
  EXPECT(p % 16 == 0, "malloc(0) returned 0x%llx", p);
  CHECK(cudaFree(d_out));

  const int n = 10, threads = 32;
  int* d_sums = nullptr;
  CHECK(cudaMalloc(&d_sums, threads * sizeof(int)));
  use_new<<<1, threads>>>(d_sums, n);
  CHECK(cudaGetLastError());
  int sums[threads], want[threads];
  CHECK(cudaMemcpy(sums, d_sums, sizeof sums, cudaMemcpyDeviceToHost));
  for (int t = 0; t < threads; ++t) want[t] = t * n * (n - 1) / 2 + 1000 + 2;
  check_ints("new/delete sums", sums, want, threads);
  CHECK(cudaFree(d_sums));
}

// Runs the printf kernels with stdout captured; returns the captured text (static storage).
static const char* run_printf_kernels(int* rets3, int* flood_rets, int* again_rets) {
  int* d_rets = nullptr;
  CHECK(cudaMalloc(&d_rets, kFloodLines * sizeof(int)));
  FILE* cap = tmpfile();
  if (!cap) FAIL("tmpfile() failed");
  fflush(stdout);
  g_saved_stdout = dup(1);
  if (g_saved_stdout < 0 || dup2(fileno(cap), 1) < 0) FAIL("cannot redirect stdout");

  printf_returns<<<1, 1>>>(d_rets);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaMemcpy(rets3, d_rets, 3 * sizeof(int), cudaMemcpyDeviceToHost));
  flood<<<1, 1>>>(d_rets, kFloodLines);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaMemcpy(flood_rets, d_rets, kFloodLines * sizeof(int), cudaMemcpyDeviceToHost));
  flood<<<1, 1>>>(d_rets, 10);  // the synchronisation emptied the FIFO
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaMemcpy(again_rets, d_rets, 10 * sizeof(int), cudaMemcpyDeviceToHost));

  restore_stdout();
  static char got[256 * 1024];
  fseek(cap, 0, SEEK_SET);
  const size_t len = fread(got, 1, sizeof got - 1, cap);
  got[len] = '\0';
  fclose(cap);
  CHECK(cudaFree(d_rets));
  return got;
}

// Expects `text` to start with `n` lines "line <first>".."line <first + n - 1>"; returns what
// follows.
static const char* expect_lines(const char* text, int first, int n, const char* what) {
  char want[32];
  for (int i = first; i < first + n; ++i) {
    snprintf(want, sizeof want, "line %d\n", i);
    const size_t k = strlen(want);
    EXPECT(strncmp(text, want, k) == 0, "%s: expected \"line %d\" at: %.40s", what, i, text);
    text += k;
  }
  return text;
}

// The lines of the flood that came out: each whole ("line <k>" with k < kFloodLines), the last
// printed among them; returns how many, and the text after the last one in *rest.
static int flood_output(const char* text, const char** rest) {
  int count = 0, saw_last = 0;
  while (strncmp(text, "line ", 5) == 0) {
    char* end = nullptr;
    const long k = strtol(text + 5, &end, 10);
    EXPECT(end != text + 5 && *end == '\n' && k >= 0 && k < kFloodLines,
           "a broken flood line: %.40s", text);
    if (k == kFloodLines - 1) saw_last = 1;
    ++count;
    text = end + 1;
    if (saw_last) break;  // the launch after the sync follows
  }
  EXPECT(saw_last, "the last flood line is missing: %d lines came out", count);
  *rest = text;
  return count;
}

static void check_printf_fifo() {
  int rets3[3];
  static int flood_rets[kFloodLines];
  int again_rets[10];
  const char* got = run_printf_kernels(rets3, flood_rets, again_rets);

  EXPECT(rets3[0] == 0 && rets3[1] == 2 && rets3[2] == 3,
         "printf returned %d %d %d, expected the argument counts 0 2 3", rets3[0], rets3[1],
         rets3[2]);
  const char* head = "none\ntwo 5 x\nthree 1 2.0 c\n";
  EXPECT(strncmp(got, head, strlen(head)) == 0, "printf output starts: %.60s", got);
  got += strlen(head);

  // The FIFO is full long before the end: older records are overwritten, printf returns its
  // argument count all the same.
  for (int i = 0; i < kFloodLines; ++i)
    EXPECT(flood_rets[i] == 1, "printf %d of the flood returned %d", i, flood_rets[i]);
  const char* after = nullptr;
  const int kept = flood_output(got, &after);
  EXPECT(kept >= 1 && kept < kFloodLines, "%d of %d lines came out of a %zu-byte FIFO", kept,
         kFloodLines, kMinFifo);
  if (on_warpsim())  // exactly the newest ones, in order
    (void)expect_lines(got, kFloodLines - kept, kept, "the newest lines");
  got = after;
  for (int i = 0; i < 10; ++i)
    EXPECT(again_rets[i] == 1, "printf %d after the sync returned %d", i, again_rets[i]);
  got = expect_lines(got, 0, 10, "the launch after the sync");
  EXPECT(*got == '\0', "unexpected output: %.60s", got);

  CHECK_FAILS(cudaDeviceSetLimit(cudaLimitPrintfFifoSize, 2 * kMinFifo), cudaErrorInvalidValue);
  size_t v = 0;
  CHECK(cudaDeviceGetLimit(&v, cudaLimitPrintfFifoSize));
  EXPECT(v == kMinFifo, "printf FIFO size %zu after the refused change", v);
}

static void check_foreign_free() {
  void* d_buf = nullptr;
  CHECK(cudaMalloc(&d_buf, 256));
  free_foreign<<<1, 1>>>(d_buf);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());  // ignored, as a GPU ignores it
  unsigned long long* d_out = nullptr;
  CHECK(cudaMalloc(&d_out, sizeof(unsigned long long)));
  malloc_zero<<<1, 1>>>(d_out);  // the heap works on
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaFree(d_out));
  CHECK(cudaFree(d_buf));

  CHECK(cudaDeviceReset());
  size_t v = 0;
  CHECK(cudaDeviceGetLimit(&v, cudaLimitMallocHeapSize));
  EXPECT(v == kDefaultHeap, "heap size %zu after cudaDeviceReset", v);
  CHECK(cudaMalloc(&d_out, sizeof(unsigned long long)));
  malloc_zero<<<1, 1>>>(d_out);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaFree(d_out));
}

int main() {
  CHECK(cudaSetDevice(0));
  CHECK(cudaFree(0));
  check_limits_before_use();
  check_many_blocks();
  check_exhaustion();
  check_malloc_zero_and_new();
  check_printf_fifo();
  check_foreign_free();
  return report_pass();
}
