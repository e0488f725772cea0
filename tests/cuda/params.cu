// params.cu - kernel parameter passing and launch APIs.
//
// Covers:
//  - structs by value with mixed alignment (char, double, int), an __align__(16) struct,
//    float4, a struct holding an array, bool, short, unsigned long long, a pointer right
//    after a char, a 256-byte struct;
//  - a kernel with 20 parameters of assorted types;
//  - a kernel without parameters launched with grid dim3(2,3,4) x block dim3(8,4,2) that
//    records blockIdx/threadIdx/gridDim/blockDim of every thread into a __device__ array;
//  - a template kernel instantiated for int, float and double; a functor passed by value to a
//    template kernel;
//  - explicit cudaLaunchKernel with an argument-pointer array, and (CUDA >= 11.8)
//    cudaLaunchKernelExC with a cudaLaunchConfig_t plus the cudaLaunchKernelEx C++ template.
// All values are exact in their types, so results are compared exactly.
//
// Build: nvcc -cudart shared -o params params.cu        [also builds with CUDA 11.8]
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <cuda_runtime.h>

#define TEST_NAME "params"
#include "cuda_check.h"

static void check_ll(const char* what, const long long* got, const long long* want, int n) {
  for (int i = 0; i < n; ++i)
    if (got[i] != want[i])
      FAIL("%s: first mismatch at index %d: got %lld (%#llx), expected %lld (%#llx)", what, i,
           got[i], (unsigned long long)got[i], want[i], (unsigned long long)want[i]);
}

static void check_doubles(const char* what, const double* got, const double* want, int n) {
  for (int i = 0; i < n; ++i)
    if (got[i] != want[i])
      FAIL("%s: first mismatch at index %d: got %.17g, expected %.17g", what, i, got[i], want[i]);
}

struct Mixed {  // 24 bytes: 7 bytes of padding after c, double at offset 8
  char c;
  double d;
  int i;
};
struct __align__(16) Aligned16 {  // 16 bytes, 16-byte aligned
  float a;
  int b;
};
struct WithArray {
  int arr[5];
  short s;
  char tail;
};
struct Big {
  int v[64];
};

// ---- mixed parameter list ----
__global__ void k_mixed(Mixed m, char c2, Aligned16 al, float4 f4, bool flag, short sh,
                        unsigned long long ull, char small, int* ptr_after_small, WithArray wa,
                        long long* out) {
  int k = 0;
  out[k++] = m.c;
  out[k++] = (long long)(m.d * 4.0);
  out[k++] = m.i;
  out[k++] = c2;
  out[k++] = (long long)(al.a * 2.0f);
  out[k++] = al.b;
  out[k++] = (long long)(f4.x * 2.0f);
  out[k++] = (long long)(f4.y * 2.0f);
  out[k++] = (long long)(f4.z * 2.0f);
  out[k++] = (long long)(f4.w * 2.0f);
  out[k++] = flag ? 1 : 0;
  out[k++] = sh;
  out[k++] = (long long)ull;
  out[k++] = small;
  out[k++] = *ptr_after_small;
  *ptr_after_small = 4321;
  for (int i = 0; i < 5; ++i) out[k++] = wa.arr[i];
  out[k++] = wa.s;
  out[k++] = wa.tail;
  out[k++] = (long long)(((size_t)&al) % 16);  // the __align__(16) parameter is aligned
  out[k++] = -1;                               // end marker
}
static const int kMixedSlots = 24;

static void mixed_expected(long long* e) {
  long long v[kMixedSlots] = {'A', 13, -123456, -5, 5, 0x7fffffff, -3, 1, 7, 200001, 1,
                              -32768, (long long)0xfedcba9876543210ULL, 'z', 2024,
                              1, -2, 3, -4, 5, 12345, 'T', 0, -1};
  memcpy(e, v, sizeof v);
}

// ---- 20 parameters ----
__global__ void k_many(int a0, float a1, double a2, char a3, int a4, short a5, long long a6,
                       float a7, int a8, double a9, unsigned a10, char a11, int a12, float a13,
                       double a14, int a15, bool a16, int a17, unsigned long long a18,
                       double* out) {
  out[0] = a0;
  out[1] = a1;
  out[2] = a2;
  out[3] = a3;
  out[4] = a4;
  out[5] = a5;
  out[6] = (double)a6;
  out[7] = a7;
  out[8] = a8;
  out[9] = a9;
  out[10] = a10;
  out[11] = a11;
  out[12] = a12;
  out[13] = a13;
  out[14] = a14;
  out[15] = a15;
  out[16] = a16 ? 1.0 : 0.0;
  out[17] = a17;
  out[18] = (double)a18;
}
static const double kManyWant[19] = {1,      -2.5,  3.125, 4,  -5,     6,  -7000000000.0,
                                     8.25,   9,     -10.5, 11, -12,    13, 14.75,
                                     15e100, -16,   1,     18, 19000000000000.0};

static void launch_many_chevrons(double* out) {
  k_many<<<1, 1>>>(1, -2.5f, 3.125, (char)4, -5, (short)6, -7000000000LL, 8.25f, 9, -10.5, 11u,
                   (char)-12, 13, 14.75f, 15e100, -16, true, 18, 19000000000000ULL, out);
}

// ---- no parameters: indices go to a __device__ array ----
__device__ int g_ids[2 * 24 * 64];
__global__ void k_indices() {
  int b = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
  int t = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  int g = b * (blockDim.x * blockDim.y * blockDim.z) + t;
  g_ids[2 * g] = blockIdx.x | blockIdx.y << 4 | blockIdx.z << 8 | threadIdx.x << 12 |
                 threadIdx.y << 16 | threadIdx.z << 20;
  g_ids[2 * g + 1] = gridDim.x | gridDim.y << 4 | gridDim.z << 8 | blockDim.x << 12 |
                     blockDim.y << 16 | blockDim.z << 20;
}

// ---- templates and functors ----
template <typename T>
__global__ void k_axpy(T a, const T* x, T* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

struct Affine {
  float m, c;
  int skip;  // elements with i % skip == 0 are left alone
  __device__ float operator()(int i, float x) const { return i % skip == 0 ? x : m * x + c; }
};

template <typename F>
__global__ void k_apply(F f, const float* in, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = f(i, in[i]);
}

__global__ void k_big(Big b, int scale, int* out) {
  int i = threadIdx.x;
  if (i < 64) out[i] = b.v[i] * scale;
}

template <typename T>
static void run_axpy(const char* tname, T a) {
  const int n = 300;
  T hx[n], hy[n], want[n];
  for (int i = 0; i < n; ++i) {
    hx[i] = (T)(i % 17);
    hy[i] = (T)(i / 3);
    want[i] = a * hx[i] + hy[i];  // small integers / halves: exact in every T
  }
  T *dx = nullptr, *dy = nullptr;
  CHECK(cudaMalloc(&dx, sizeof hx));
  CHECK(cudaMalloc(&dy, sizeof hy));
  CHECK(cudaMemcpy(dx, hx, sizeof hx, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dy, hy, sizeof hy, cudaMemcpyHostToDevice));
  k_axpy<T><<<(n + 63) / 64, 64>>>(a, dx, dy, n);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(hy, dy, sizeof hy, cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i)
    EXPECT(hy[i] == want[i], "k_axpy<%s>: first mismatch at index %d: got %g, expected %g",
           tname, i, (double)hy[i], (double)want[i]);
  CHECK(cudaFree(dx));
  CHECK(cudaFree(dy));
}

int main() {
  CHECK(cudaSetDevice(0));
  long long* d_ll = nullptr;
  double* d_dbl = nullptr;
  int* d_int = nullptr;
  CHECK(cudaMalloc(&d_ll, 64 * sizeof(long long)));
  CHECK(cudaMalloc(&d_dbl, 64 * sizeof(double)));
  CHECK(cudaMalloc(&d_int, 64 * sizeof(int)));

  Mixed m;
  memset(&m, 0, sizeof m);
  m.c = 'A';
  m.d = 3.25;
  m.i = -123456;
  char c2 = -5;
  Aligned16 al;
  memset(&al, 0, sizeof al);
  al.a = 2.5f;
  al.b = 0x7fffffff;
  float4 f4 = make_float4(-1.5f, 0.5f, 3.5f, 100000.5f);
  bool flag = true;
  short sh = -32768;
  unsigned long long ull = 0xfedcba9876543210ULL;
  char small = 'z';
  WithArray wa;
  memset(&wa, 0, sizeof wa);
  for (int i = 0; i < 5; ++i) wa.arr[i] = (i % 2 ? -1 : 1) * (i + 1);
  wa.s = 12345;
  wa.tail = 'T';
  long long want[kMixedSlots], got[kMixedSlots];
  mixed_expected(want);

  // ---- <<<>>> launch with mixed parameters ----
  const int v2024 = 2024;
  CHECK(cudaMemcpy(d_int, &v2024, sizeof v2024, cudaMemcpyHostToDevice));
  CHECK(cudaMemset(d_ll, 0, 64 * sizeof(long long)));
  k_mixed<<<1, 1>>>(m, c2, al, f4, flag, sh, ull, small, d_int, wa, d_ll);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(got, d_ll, sizeof got, cudaMemcpyDeviceToHost));
  check_ll("k_mixed<<<>>>", got, want, kMixedSlots);
  int written = 0;
  CHECK(cudaMemcpy(&written, d_int, sizeof written, cudaMemcpyDeviceToHost));
  EXPECT(written == 4321, "write through pointer parameter: %d", written);

  // ---- the same through cudaLaunchKernel with an args array ----
  CHECK(cudaMemcpy(d_int, &v2024, sizeof v2024, cudaMemcpyHostToDevice));
  CHECK(cudaMemset(d_ll, 0, 64 * sizeof(long long)));
  {
    void* args[] = {&m, &c2, &al, &f4, &flag, &sh, &ull, &small, &d_int, &wa, &d_ll};
    CHECK(cudaLaunchKernel((const void*)k_mixed, dim3(1), dim3(1), args, 0, 0));
  }
  CHECK(cudaMemcpy(got, d_ll, sizeof got, cudaMemcpyDeviceToHost));
  check_ll("k_mixed via cudaLaunchKernel", got, want, kMixedSlots);

  // ---- 20 parameters ----
  double gotd[19];
  CHECK(cudaMemset(d_dbl, 0, 64 * sizeof(double)));
  launch_many_chevrons(d_dbl);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(gotd, d_dbl, sizeof gotd, cudaMemcpyDeviceToHost));
  check_doubles("k_many<<<>>>", gotd, kManyWant, 19);

  // ---- kernel without parameters, 3D grid and block ----
  {
    const dim3 grid(2, 3, 4), block(8, 4, 2);
    static int ids[2 * 24 * 64];
    CHECK(cudaMemcpyToSymbol(g_ids, ids, sizeof ids));  // zeros
    k_indices<<<grid, block>>>();
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpyFromSymbol(ids, g_ids, sizeof ids));
    const int dims = 2 | 3 << 4 | 4 << 8 | 8 << 12 | 4 << 16 | 2 << 20;
    for (unsigned bz = 0; bz < 4; ++bz)
      for (unsigned by = 0; by < 3; ++by)
        for (unsigned bx = 0; bx < 2; ++bx)
          for (unsigned tz = 0; tz < 2; ++tz)
            for (unsigned ty = 0; ty < 4; ++ty)
              for (unsigned tx = 0; tx < 8; ++tx) {
                unsigned b = bx + 2 * (by + 3 * bz), t = tx + 8 * (ty + 4 * tz);
                unsigned g = b * 64 + t;
                int want_id = (int)(bx | by << 4 | bz << 8 | tx << 12 | ty << 16 | tz << 20);
                EXPECT(ids[2 * g] == want_id && ids[2 * g + 1] == dims,
                       "k_indices: thread %u: got %#x/%#x, expected %#x/%#x", g, ids[2 * g],
                       ids[2 * g + 1], want_id, dims);
              }
  }

  // ---- templates ----
  run_axpy<int>("int", -3);
  run_axpy<float>("float", 0.5f);
  run_axpy<double>("double", 2.25);

  // ---- functor by value ----
  {
    const int n = 200;
    float hin[n], hout[n];
    for (int i = 0; i < n; ++i) hin[i] = (float)(i - 100) * 0.25f;
    float *din = nullptr, *dout = nullptr;
    CHECK(cudaMalloc(&din, sizeof hin));
    CHECK(cudaMalloc(&dout, sizeof hout));
    CHECK(cudaMemcpy(din, hin, sizeof hin, cudaMemcpyHostToDevice));
    Affine f;
    f.m = -2.0f;
    f.c = 0.75f;
    f.skip = 7;
    k_apply<<<(n + 31) / 32, 32>>>(f, din, dout, n);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(hout, dout, sizeof hout, cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; ++i) {
      float w = i % 7 == 0 ? hin[i] : -2.0f * hin[i] + 0.75f;
      EXPECT(hout[i] == w, "k_apply<Affine>: first mismatch at index %d: got %g, expected %g", i,
             (double)hout[i], (double)w);
    }
    CHECK(cudaFree(din));
    CHECK(cudaFree(dout));
  }

  // ---- 256-byte struct by value ----
  {
    Big b;
    for (int i = 0; i < 64; ++i) b.v[i] = i * i - 1000;
    k_big<<<1, 64>>>(b, -3, d_int);
    CHECK(cudaGetLastError());
    int h[64];
    CHECK(cudaMemcpy(h, d_int, sizeof h, cudaMemcpyDeviceToHost));
    for (int i = 0; i < 64; ++i)
      EXPECT(h[i] == (i * i - 1000) * -3, "k_big: index %d: got %d, expected %d", i, h[i],
             (i * i - 1000) * -3);
  }

#if CUDART_VERSION >= 11080
  // ---- cudaLaunchKernelExC with a launch config (C API) ----
  {
    cudaStream_t s;
    CHECK(cudaStreamCreate(&s));
    int a0 = 1, a4 = -5, a8 = 9, a12 = 13, a15 = -16, a17 = 18;
    float a1 = -2.5f, a7 = 8.25f, a13 = 14.75f;
    double a2 = 3.125, a9 = -10.5, a14 = 15e100;
    char a3 = 4, a11 = -12;
    short a5 = 6;
    long long a6 = -7000000000LL;
    unsigned a10 = 11;
    bool a16 = true;
    unsigned long long a18 = 19000000000000ULL;
    void* args[] = {&a0, &a1,  &a2,  &a3,  &a4,  &a5,  &a6,  &a7,  &a8,  &a9,    &a10,
                    &a11, &a12, &a13, &a14, &a15, &a16, &a17, &a18, &d_dbl};
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3(1);
    cfg.blockDim = dim3(1);
    cfg.dynamicSmemBytes = 0;
    cfg.stream = s;
    cfg.attrs = nullptr;
    cfg.numAttrs = 0;
    CHECK(cudaMemsetAsync(d_dbl, 0, 64 * sizeof(double), s));
    CHECK(cudaLaunchKernelExC(&cfg, (const void*)k_many, args));
    CHECK(cudaMemcpyAsync(gotd, d_dbl, sizeof gotd, cudaMemcpyDeviceToHost, s));
    CHECK(cudaStreamSynchronize(s));
    check_doubles("k_many via cudaLaunchKernelExC", gotd, kManyWant, 19);

    // C++ template wrapper (type-checked arguments), 2 blocks of 64 threads.
    const int n = 100;
    int hx[n], hy[n];
    for (int i = 0; i < n; ++i) {
      hx[i] = i;
      hy[i] = 1;
    }
    int* dx = nullptr;
    CHECK(cudaMalloc(&dx, sizeof hx));
    CHECK(cudaMemcpy(dx, hx, sizeof hx, cudaMemcpyHostToDevice));
    int* dy = nullptr;
    CHECK(cudaMalloc(&dy, sizeof hy));
    CHECK(cudaMemcpy(dy, hy, sizeof hy, cudaMemcpyHostToDevice));
    cfg.gridDim = dim3(2);
    cfg.blockDim = dim3(64);
    CHECK(cudaLaunchKernelEx(&cfg, k_axpy<int>, 7, (const int*)dx, dy, n));
    CHECK(cudaStreamSynchronize(s));
    CHECK(cudaMemcpy(hy, dy, sizeof hy, cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; ++i)
      EXPECT(hy[i] == 7 * i + 1, "k_axpy<int> via cudaLaunchKernelEx: index %d: got %d", i,
             hy[i]);
    CHECK(cudaFree(dx));
    CHECK(cudaFree(dy));
    CHECK(cudaStreamDestroy(s));
  }
#else
  printf("note: CUDART_VERSION < 11080, cudaLaunchKernelExC part not built\n");
#endif

  CHECK(cudaFree(d_ll));
  CHECK(cudaFree(d_dbl));
  CHECK(cudaFree(d_int));
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaGetLastError());
  return report_pass();
}
