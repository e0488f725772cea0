// globals.cu -- module-scope __device__ / __constant__ variables with initialisers.
//
// Module globals (values a test can check after loading the module):
//   __constant__ float c_coeffs[8] = {0.5, -1.25, 3.0, 1e-3, -0.0, 65504, 1.0/3, 2.5e10}
//   __constant__ int   c_lut[16]   = {0, 1, 4, 9, ..., 225} (k*k)
//   __constant__ double c_pi = 3.141592653589793
//   __device__ int    d_counter = 7
//   __device__ unsigned long long d_big = 0x0123456789abcdefull
//   __device__ float  d_table[4][3] = {{1,2,3},{4,5,6},{7,8,9},{10,11,12}}
//   __device__ int*   d_ptr = &d_counter + 0 (address of another global)
//   __device__ float* d_row_ptr = &d_table[2][0]
//   __device__ const char d_msg[] = "warpsim"
//   __device__ struct { short a; char b; int c; double d; } d_rec = {-3, 'q', 100000, -2.5}
//   __device__ unsigned char d_bytes[5] = {1, 2, 0xff, 0x80, 0}
//   __device__ int d_zero[32]   (no initialiser, zero-filled)
//   __device__ struct { int tag; int* p; short s; } d_ptrrec = {5, &d_counter, -2}
//       (struct with an embedded pointer: nvcc emits mask()/generic() byte syntax)
//   __device__ const float* d_ptrs[3] = {&d_table[0][0], &d_table[1][1], &d_table[3][2]}
//
// eval_poly(x, out, n): float x[n]; float out[n] = sum_k c_coeffs[k] * x^k (Horner,
//     k = 7..0).
// read_globals(out): 1 thread; double out[16]: out[0] = *d_ptr (7 before any
//     increment), out[1] = d_row_ptr[1] (8), out[2] = c_pi, out[3] = d_big & 0xffff
//     (0xcdef), out[4] = c_lut[(int)c_coeffs[2]] (9), out[5] = d_msg[3] ('p'),
//     out[6] = d_rec.a, 7 = d_rec.b, 8 = d_rec.c, 9 = d_rec.d,
//     out[10] = sum(d_bytes), out[11] = d_zero[5], out[12] = *d_ptrrec.p + d_ptrrec.tag
//     (7 + 5 = 12), out[13] = d_ptrrec.s (-2), out[14] = *d_ptrs[1] + *d_ptrs[2]
//     (5 + 12 = 17), out[15] = 0; then atomically increments
//     *d_ptr (so d_counter becomes 8).
// write_globals(v): every thread does d_zero[threadIdx.x % 32] = v + threadIdx.x % 32
//     and d_table[threadIdx.x % 4][0] = v (host can read them back).

struct Rec {
  short a;
  char b;
  int c;
  double d;
};

__constant__ float c_coeffs[8] = {0.5f, -1.25f, 3.0f, 1e-3f, -0.0f, 65504.0f, 1.0f / 3.0f, 2.5e10f};
__constant__ int c_lut[16] = {0, 1, 4, 9, 16, 25, 36, 49, 64, 81, 100, 121, 144, 169, 196, 225};
__constant__ double c_pi = 3.141592653589793;
__device__ int d_counter = 7;
__device__ unsigned long long d_big = 0x0123456789abcdefull;
__device__ float d_table[4][3] = {{1, 2, 3}, {4, 5, 6}, {7, 8, 9}, {10, 11, 12}};
// clang 14's NVPTX backend cannot emit address-of-global initialisers
// ("Unsupported expression in static initializer: addrspacecast"), so the
// clang build (WARPSIM_CLANG_DEVICE) omits the pointer-valued globals and
// read_globals computes the same values without them.
#ifndef WARPSIM_CLANG_DEVICE
#define HAVE_PTR_GLOBALS 1
#else
#define HAVE_PTR_GLOBALS 0
#endif
#if HAVE_PTR_GLOBALS
__device__ int* d_ptr = &d_counter;
__device__ float* d_row_ptr = &d_table[2][0];
#endif
__device__ const char d_msg[] = "warpsim";
__device__ Rec d_rec = {-3, 'q', 100000, -2.5};
__device__ unsigned char d_bytes[5] = {1, 2, 0xff, 0x80, 0};
__device__ int d_zero[32];
struct PtrRec {
  int tag;
  int* p;
  short s;
};
#if HAVE_PTR_GLOBALS
__device__ PtrRec d_ptrrec = {5, &d_counter, -2};
__device__ const float* d_ptrs[3] = {&d_table[0][0], &d_table[1][1], &d_table[3][2]};
#else
__device__ PtrRec d_ptrrec = {5, nullptr, -2};
#endif

extern "C" __global__ void eval_poly(const float* x, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float v = x[i], acc = 0.0f;
#pragma unroll 1
  for (int k = 7; k >= 0; --k) acc = acc * v + c_coeffs[k];
  out[i] = acc;
}

extern "C" __global__ void read_globals(double* out) {
  if (threadIdx.x != 0 || blockIdx.x != 0) return;
#if HAVE_PTR_GLOBALS
  int* const p_counter = d_ptr;
  const float* const row = d_row_ptr;
#else
  int* const p_counter = &d_counter;
  const float* const row = &d_table[2][0];
#endif
  out[0] = *p_counter;
  out[1] = row[1];
  out[2] = c_pi;
  out[3] = (double)(d_big & 0xffff);
  out[4] = c_lut[(int)c_coeffs[2]];
  out[5] = d_msg[3];
  out[6] = d_rec.a;
  out[7] = d_rec.b;
  out[8] = d_rec.c;
  out[9] = d_rec.d;
  int s = 0;
  for (int k = 0; k < 5; ++k) s += d_bytes[k];
  out[10] = s;
  out[11] = d_zero[5];
#if HAVE_PTR_GLOBALS
  out[12] = *d_ptrrec.p + d_ptrrec.tag;
  out[14] = *d_ptrs[1] + *d_ptrs[2];
#else
  out[12] = d_counter + d_ptrrec.tag;
  out[14] = d_table[1][1] + d_table[3][2];
#endif
  out[13] = d_ptrrec.s;
  out[15] = 0;
  atomicAdd(p_counter, 1);
}

extern "C" __global__ void write_globals(int v) {
  d_zero[threadIdx.x % 32] = v + (int)(threadIdx.x % 32);
  d_table[threadIdx.x % 4][0] = (float)v;
}
