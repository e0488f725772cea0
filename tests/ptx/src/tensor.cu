// tensor.cu -- warp matrix multiply-accumulate through nvcuda::wmma (no inline asm).
// One warp (blockDim.x == 32, gridDim.x == 1) computes one tile; all matrices are
// dense with the leading dimension given below.  Reference: plain triple loop
// in fp32/fp64/int32.
//
// wmma_f16_f32(A, B, C, D): __half A[16*16] row-major, __half B[16*16] col-major,
//     float C[16*16] row-major, float D[16*16] row-major: D = A*B + C
//     (m16n16k16, fp32 accumulate).  Works on every arch here (sm_70+).
// wmma_f16_f16(A, B, D): __half A (row-major), B (row-major), __half D (row-major)
//     = A*B with fp16 accumulate (m16n16k16).
// wmma_s8(A, B, D): signed char A[16*16] row-major, B[16*16] col-major;
//     int D[16*16] row-major = A*B (m16n16k16, int32 accumulate).
// The following do real work only when compiled for sm_80+ (__CUDA_ARCH__ >= 800);
// on older arches the body is empty (the kernel still exists):
// wmma_bf16(A, B, D): __nv_bfloat16 A[16*16] row-major, B[16*16] col-major;
//     float D[16*16] row-major = A*B.
// wmma_tf32(A, B, D): float A[16*8] row-major (m16n16k8), B[8*16] col-major;
//     inputs rounded to tf32 with wmma::__float_to_tf32; float D[16*16] = A*B.
// wmma_f64(A, B, D): double A[8*4] row-major, B[4*8] col-major; double D[8*8]
//     row-major = A*B (m8n8k4).

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <mma.h>
using namespace nvcuda;

extern "C" __global__ void wmma_f16_f32(const __half* A, const __half* B, const float* C,
                                        float* D) {
  wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> a;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::col_major> b;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
  wmma::load_matrix_sync(a, A, 16);
  wmma::load_matrix_sync(b, B, 16);
  wmma::load_matrix_sync(acc, C, 16, wmma::mem_row_major);
  wmma::mma_sync(acc, a, b, acc);
  wmma::store_matrix_sync(D, acc, 16, wmma::mem_row_major);
}

extern "C" __global__ void wmma_f16_f16(const __half* A, const __half* B, __half* D) {
  wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> a;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::row_major> b;
  wmma::fragment<wmma::accumulator, 16, 16, 16, __half> acc;
  wmma::fill_fragment(acc, __float2half(0.0f));
  wmma::load_matrix_sync(a, A, 16);
  wmma::load_matrix_sync(b, B, 16);
  wmma::mma_sync(acc, a, b, acc);
  wmma::store_matrix_sync(D, acc, 16, wmma::mem_row_major);
}

extern "C" __global__ void wmma_s8(const signed char* A, const signed char* B, int* D) {
  wmma::fragment<wmma::matrix_a, 16, 16, 16, signed char, wmma::row_major> a;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, signed char, wmma::col_major> b;
  wmma::fragment<wmma::accumulator, 16, 16, 16, int> acc;
  wmma::fill_fragment(acc, 0);
  wmma::load_matrix_sync(a, A, 16);
  wmma::load_matrix_sync(b, B, 16);
  wmma::mma_sync(acc, a, b, acc);
  wmma::store_matrix_sync(D, acc, 16, wmma::mem_row_major);
}

extern "C" __global__ void wmma_bf16(const __nv_bfloat16* A, const __nv_bfloat16* B, float* D) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major> a;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::col_major> b;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
  wmma::fill_fragment(acc, 0.0f);
  wmma::load_matrix_sync(a, A, 16);
  wmma::load_matrix_sync(b, B, 16);
  wmma::mma_sync(acc, a, b, acc);
  wmma::store_matrix_sync(D, acc, 16, wmma::mem_row_major);
#endif
}

extern "C" __global__ void wmma_tf32(const float* A, const float* B, float* D) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> a;
  wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::col_major> b;
  wmma::fragment<wmma::accumulator, 16, 16, 8, float> acc;
  wmma::fill_fragment(acc, 0.0f);
  wmma::load_matrix_sync(a, A, 8);
  wmma::load_matrix_sync(b, B, 8);
  for (int i = 0; i < a.num_elements; ++i) a.x[i] = wmma::__float_to_tf32(a.x[i]);
  for (int i = 0; i < b.num_elements; ++i) b.x[i] = wmma::__float_to_tf32(b.x[i]);
  wmma::mma_sync(acc, a, b, acc);
  wmma::store_matrix_sync(D, acc, 16, wmma::mem_row_major);
#endif
}

extern "C" __global__ void wmma_f64(const double* A, const double* B, double* D) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  wmma::fragment<wmma::matrix_a, 8, 8, 4, double, wmma::row_major> a;
  wmma::fragment<wmma::matrix_b, 8, 8, 4, double, wmma::col_major> b;
  wmma::fragment<wmma::accumulator, 8, 8, 4, double> acc;
  wmma::fill_fragment(acc, 0.0);
  wmma::load_matrix_sync(a, A, 4);
  wmma::load_matrix_sync(b, B, 4);
  wmma::mma_sync(acc, a, b, acc);
  wmma::store_matrix_sync(D, acc, 8, wmma::mem_row_major);
#endif
}
