// symbols.cu - global device variables and the symbol API.
//
// Covers:
//  - __constant__ arrays/scalars and __device__ scalars/arrays/structs with static initialisers
//    (partially initialised arrays: the remaining elements must read as zero), read by kernels;
//  - cudaMemcpyToSymbol / cudaMemcpyFromSymbol with and without offset (to __device__ and to
//    __constant__ symbols), cudaMemcpyToSymbolAsync / cudaMemcpyFromSymbolAsync on a stream;
//  - cudaGetSymbolAddress + plain cudaMemcpy through the address, cudaGetSymbolSize;
//  - __managed__ variables with initialisers, read and written directly by the host (the first
//    host access happens before any other CUDA call: nvcc makes it initialise the runtime) and
//    by kernels;
//  - a __device__ variable written by one kernel and read by a later kernel;
//  - cudaMemcpyToSymbol / cudaMemcpyFromSymbol past the end of the symbol
//    -> cudaErrorInvalidValue.
//
// Build: nvcc -cudart shared -o symbols symbols.cu        [also builds with CUDA 11.8]
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <cuda_runtime.h>

#define TEST_NAME "symbols"
#include "cuda_check.h"

struct Pt {
  int x;
  float y;
  char tag;
  double w;
  short s[3];
};

// ---- statically initialised globals ----
__constant__ int c_table[16] = {1, 2, 3, 4, 5};  // elements 5..15 are zero
__constant__ float c_scale = 2.5f;
__constant__ int c_written[8];                   // zero, later set with cudaMemcpyToSymbol
__device__ int d_scalar = 42;
__device__ int d_array[8] = {10, 20, 30};        // elements 3..7 are zero
__device__ Pt d_struct = {7, 1.5f, 'q', 3.25, {-1, -2, -3}};
__device__ unsigned long long d_big[3] = {0x0123456789abcdefULL, 18446744073709551615ULL};
__device__ int d_zero[4];                        // zero-initialised
__device__ int d_target[32];
__device__ int d_handoff;                        // written by one kernel, read by another
__managed__ int m_value = 123;
__managed__ int m_array[4] = {1, 2, 3, 4};

// Dumps every initialised global into out[]; the layout is mirrored by expected_initial().
__global__ void read_initial(long long* out) {
  int k = 0;
  for (int i = 0; i < 16; ++i) out[k++] = c_table[i];
  out[k++] = (long long)(c_scale * 4.0f);  // 10
  out[k++] = d_scalar;
  for (int i = 0; i < 8; ++i) out[k++] = d_array[i];
  out[k++] = d_struct.x;
  out[k++] = (long long)(d_struct.y * 2.0f);  // 3
  out[k++] = d_struct.tag;
  out[k++] = (long long)(d_struct.w * 4.0);   // 13
  for (int i = 0; i < 3; ++i) out[k++] = d_struct.s[i];
  for (int i = 0; i < 3; ++i) out[k++] = (long long)d_big[i];
  for (int i = 0; i < 4; ++i) out[k++] = d_zero[i];
  out[k++] = m_value;
  for (int i = 0; i < 4; ++i) out[k++] = m_array[i];
  out[k++] = -999;  // end marker
}

static int expected_initial(long long* e) {
  int k = 0;
  for (int i = 0; i < 16; ++i) e[k++] = i < 5 ? i + 1 : 0;
  e[k++] = 10;
  e[k++] = 42;
  for (int i = 0; i < 8; ++i) e[k++] = i < 3 ? (i + 1) * 10 : 0;
  e[k++] = 7;
  e[k++] = 3;
  e[k++] = 'q';
  e[k++] = 13;
  e[k++] = -1;
  e[k++] = -2;
  e[k++] = -3;
  e[k++] = (long long)0x0123456789abcdefULL;
  e[k++] = (long long)18446744073709551615ULL;  // -1
  e[k++] = 0;
  for (int i = 0; i < 4; ++i) e[k++] = 0;
  e[k++] = 123;
  for (int i = 0; i < 4; ++i) e[k++] = i + 1;
  e[k++] = -999;
  return k;
}

__global__ void copy_target(int* out) {
  int i = threadIdx.x;
  if (i < 32) out[i] = d_target[i];
}

__global__ void read_const_written(int* out) {
  int i = threadIdx.x;
  if (i < 8) out[i] = c_written[i] * 2;
}

__global__ void producer(int v) { d_handoff = v * 3; }
__global__ void consumer(int* out) { *out = d_handoff + 1; }

__global__ void managed_update() {
  m_value += 1000;
  for (int i = 0; i < 4; ++i) m_array[i] *= -2;
}

int main() {
  // ---- __managed__: the first CUDA-related action of the program is a host access ----
  EXPECT(m_value == 123, "__managed__ m_value initially %d", m_value);
  EXPECT(m_array[0] == 1 && m_array[3] == 4, "__managed__ m_array initially {%d,..,%d}",
         m_array[0], m_array[3]);

  // ---- initial values as seen by a kernel ----
  const int max_slots = 128;
  long long want[max_slots], got[max_slots];
  const int nslots = expected_initial(want);
  long long* d_out = nullptr;
  CHECK(cudaMalloc(&d_out, sizeof got));
  CHECK(cudaMemset(d_out, 0, sizeof got));
  read_initial<<<1, 1>>>(d_out);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(got, d_out, sizeof got, cudaMemcpyDeviceToHost));
  for (int i = 0; i < nslots; ++i)
    EXPECT(got[i] == want[i], "initial values: slot %d: got %lld, expected %lld", i, got[i],
           want[i]);
  CHECK(cudaFree(d_out));

  // ---- cudaMemcpyFromSymbol of initialised data, with and without offset ----
  {
    int arr[8];
    memset(arr, 0x55, sizeof arr);
    CHECK(cudaMemcpyFromSymbol(arr, d_array, sizeof arr));
    int want_arr[8] = {10, 20, 30, 0, 0, 0, 0, 0};
    check_ints("cudaMemcpyFromSymbol(d_array)", arr, want_arr, 8);
    int tail[3];
    CHECK(cudaMemcpyFromSymbol(tail, c_table, sizeof tail, 3 * sizeof(int)));
    int want_tail[3] = {4, 5, 0};
    check_ints("cudaMemcpyFromSymbol(c_table, offset 12)", tail, want_tail, 3);
    Pt p;
    memset(&p, 0, sizeof p);
    CHECK(cudaMemcpyFromSymbol(&p, d_struct, sizeof p));
    EXPECT(p.x == 7 && p.y == 1.5f && p.tag == 'q' && p.w == 3.25 && p.s[2] == -3,
           "cudaMemcpyFromSymbol(d_struct) = {%d, %g, %c, %g, %d}", p.x, (double)p.y, p.tag, p.w,
           p.s[2]);
    int scalar = 0;
    CHECK(cudaMemcpyFromSymbol(&scalar, d_scalar, sizeof scalar));
    EXPECT(scalar == 42, "cudaMemcpyFromSymbol(d_scalar) = %d", scalar);
  }

  // ---- cudaGetSymbolSize ----
  {
    size_t sz = 0;
    CHECK(cudaGetSymbolSize(&sz, d_struct));
    EXPECT(sz == sizeof(Pt), "cudaGetSymbolSize(d_struct) = %zu, expected %zu", sz, sizeof(Pt));
    CHECK(cudaGetSymbolSize(&sz, c_table));
    EXPECT(sz == 16 * sizeof(int), "cudaGetSymbolSize(c_table) = %zu", sz);
    CHECK(cudaGetSymbolSize(&sz, d_big));
    EXPECT(sz == 3 * sizeof(unsigned long long), "cudaGetSymbolSize(d_big) = %zu", sz);
    CHECK(cudaGetSymbolSize(&sz, m_value));
    EXPECT(sz == sizeof(int), "cudaGetSymbolSize(m_value) = %zu", sz);
  }

  // ---- cudaMemcpyToSymbol with and without offset, read back by a kernel ----
  int* d_buf = nullptr;
  CHECK(cudaMalloc(&d_buf, 32 * sizeof(int)));
  {
    int h[32], back[32], expect32[32];
    for (int i = 0; i < 32; ++i) h[i] = 100 + i;
    CHECK(cudaMemcpyToSymbol(d_target, h, sizeof h));
    int part[8];
    for (int i = 0; i < 8; ++i) part[i] = -i - 1;
    CHECK(cudaMemcpyToSymbol(d_target, part, sizeof part, 16 * sizeof(int)));
    copy_target<<<1, 32>>>(d_buf);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(back, d_buf, sizeof back, cudaMemcpyDeviceToHost));
    for (int i = 0; i < 32; ++i) expect32[i] = (i >= 16 && i < 24) ? -(i - 16) - 1 : 100 + i;
    check_ints("cudaMemcpyToSymbol(d_target) + offset", back, expect32, 32);

    // From symbol with offset.
    int mid[4];
    CHECK(cudaMemcpyFromSymbol(mid, d_target, sizeof mid, 14 * sizeof(int)));
    int want_mid[4] = {114, 115, -1, -2};
    check_ints("cudaMemcpyFromSymbol(d_target, offset 56)", mid, want_mid, 4);

    // Device-to-device into a symbol.
    int src[32];
    for (int i = 0; i < 32; ++i) src[i] = i * i;
    CHECK(cudaMemcpy(d_buf, src, sizeof src, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpyToSymbol(d_target, d_buf, 4 * sizeof(int), 4 * sizeof(int),
                             cudaMemcpyDeviceToDevice));
    CHECK(cudaMemcpyFromSymbol(mid, d_target, sizeof mid, 4 * sizeof(int)));
    int want_d2d[4] = {0, 1, 4, 9};
    check_ints("cudaMemcpyToSymbol D2D", mid, want_d2d, 4);
  }

  // ---- __constant__ written with cudaMemcpyToSymbol(Async) ----
  cudaStream_t s;
  CHECK(cudaStreamCreate(&s));
  {
    static int hc[8];  // static: stays valid while the async copy is in flight
    for (int i = 0; i < 8; ++i) hc[i] = 7 * i + 1;
    CHECK(cudaMemcpyToSymbolAsync(c_written, hc, sizeof hc, 0, cudaMemcpyHostToDevice, s));
    read_const_written<<<1, 8, 0, s>>>(d_buf);
    CHECK(cudaGetLastError());
    static int out[8];
    CHECK(cudaMemcpyAsync(out, d_buf, sizeof out, cudaMemcpyDeviceToHost, s));
    CHECK(cudaStreamSynchronize(s));
    int want8[8];
    for (int i = 0; i < 8; ++i) want8[i] = (7 * i + 1) * 2;
    check_ints("cudaMemcpyToSymbolAsync(__constant__) + kernel", out, want8, 8);

    static int back2[2];
    CHECK(cudaMemcpyFromSymbolAsync(back2, c_written, sizeof back2, 6 * sizeof(int),
                                    cudaMemcpyDeviceToHost, s));
    CHECK(cudaStreamSynchronize(s));
    int want2[2] = {43, 50};
    check_ints("cudaMemcpyFromSymbolAsync(c_written, offset 24)", back2, want2, 2);
  }

  // ---- cudaGetSymbolAddress + cudaMemcpy through the address ----
  {
    int* addr = nullptr;
    CHECK(cudaGetSymbolAddress((void**)&addr, d_target));
    EXPECT(addr != nullptr, "cudaGetSymbolAddress(d_target) returned NULL");
    int h[32], back[32];
    for (int i = 0; i < 32; ++i) h[i] = 5000 - i;
    CHECK(cudaMemcpy(addr, h, sizeof h, cudaMemcpyHostToDevice));
    copy_target<<<1, 32>>>(d_buf);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(back, d_buf, sizeof back, cudaMemcpyDeviceToHost));
    check_ints("cudaMemcpy to cudaGetSymbolAddress(d_target)", back, h, 32);
    // Reading through the address sees symbol writes too.
    int v = 77;
    CHECK(cudaMemcpyToSymbol(d_target, &v, sizeof v, 31 * sizeof(int)));
    int r = 0;
    CHECK(cudaMemcpy(&r, addr + 31, sizeof r, cudaMemcpyDeviceToHost));
    EXPECT(r == 77, "read through symbol address: %d", r);
    // An address into the middle of the symbol works with cudaMemcpy as well.
    int* scalar_addr = nullptr;
    CHECK(cudaGetSymbolAddress((void**)&scalar_addr, d_scalar));
    CHECK(cudaMemcpy(&r, scalar_addr, sizeof r, cudaMemcpyDeviceToHost));
    EXPECT(r == 42, "d_scalar through cudaGetSymbolAddress: %d", r);
  }

  // ---- a __device__ variable handed from one kernel to the next ----
  {
    int* d_res = nullptr;
    CHECK(cudaMalloc(&d_res, sizeof(int)));
    producer<<<1, 1>>>(14);
    CHECK(cudaGetLastError());
    consumer<<<1, 1>>>(d_res);
    CHECK(cudaGetLastError());
    int r = 0;
    CHECK(cudaMemcpy(&r, d_res, sizeof r, cudaMemcpyDeviceToHost));
    EXPECT(r == 43, "producer/consumer through d_handoff: %d", r);
    CHECK(cudaFree(d_res));
  }

  // ---- __managed__ variables: host writes, kernel updates, host reads after sync ----
  {
    CHECK(cudaDeviceSynchronize());  // host access to managed data requires an idle device
    m_value = 5;
    m_array[2] = 30;
    managed_update<<<1, 1>>>();
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    EXPECT(m_value == 1005, "m_value after kernel: %d", m_value);
    int want_m[4] = {-2, -4, -60, -8};
    check_ints("m_array after kernel", m_array, want_m, 4);
    // Symbol API on a managed variable.
    int v = 0;
    CHECK(cudaMemcpyFromSymbol(&v, m_value, sizeof v));
    EXPECT(v == 1005, "cudaMemcpyFromSymbol(m_value) = %d", v);
  }

  // ---- out of range symbol copies: documented cudaErrorInvalidValue ----
  {
    int h[8] = {0};
    // 4 ints at offset 30 ints: ends 2 ints past the end of d_target[32].
    CHECK_FAILS(cudaMemcpyToSymbol(d_target, h, 4 * sizeof(int), 30 * sizeof(int)),
                cudaErrorInvalidValue);
    // Larger than the whole symbol.
    CHECK_FAILS(cudaMemcpyToSymbol(d_scalar, h, 2 * sizeof(int)), cudaErrorInvalidValue);
    CHECK_FAILS(cudaMemcpyFromSymbol(h, c_table, 17 * sizeof(int)), cudaErrorInvalidValue);
    // The failed copies did not modify anything.
    int r = 0;
    CHECK(cudaMemcpyFromSymbol(&r, d_scalar, sizeof r));
    EXPECT(r == 42, "d_scalar after failed copy: %d", r);
  }

  CHECK(cudaStreamDestroy(s));
  CHECK(cudaFree(d_buf));
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaGetLastError());
  return report_pass();
}
