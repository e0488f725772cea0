// warpsim_cuda.h -- minimal CUDA device-side environment for compiling the corpus
// sources with clang 14 in `-nocudainc` mode (clang 14 cannot parse CUDA 13's
// headers).  Force-included with `-include`.  Provides the CUDA keywords, the
// builtin index variables, vector types, and thin atomic wrappers on top of
// clang's own __clang_cuda_*.h device headers (which ship with clang).
#pragma once

#ifndef __CUDA__
#error "warpsim_cuda.h is for clang CUDA device compilation"
#endif

// Lets corpus sources detect this environment.
#define WARPSIM_CLANG_DEVICE 1

#define __host__ __attribute__((host))
#define __device__ __attribute__((device))
#define __global__ __attribute__((global))
#define __shared__ __attribute__((shared))
#define __constant__ __attribute__((constant))
#define __managed__ __attribute__((managed))
#define __noinline__ __attribute__((noinline))
#define __forceinline__ __inline__ __attribute__((always_inline))
#define __align__(n) __attribute__((aligned(n)))
#define __launch_bounds__(...) __attribute__((launch_bounds(__VA_ARGS__)))

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#include <__clang_cuda_builtin_vars.h>

// clang's device headers key their feature checks on CUDA_VERSION; claim the
// newest CUDA that clang 14 knows (11.5).  Nothing from the real CUDA headers is used.
#ifndef CUDA_VERSION
#define CUDA_VERSION 11050
#endif
typedef uint32_t cuuint32_t;  // from cuda.h; used by __clang_cuda_intrinsics.h
typedef uint64_t cuuint64_t;
#ifndef HUGE_VAL
#define HUGE_VAL __builtin_huge_val()
#define HUGE_VALF __builtin_huge_valf()
#endif

// CUDA vector types (same size/alignment as CUDA's vector_types.h) and
// make_* helpers.
#define WARPSIM_VEC2(T, N, A) \
  struct __attribute__((aligned(A))) N##2 { T x, y; };
#define WARPSIM_VEC3(T, N) \
  struct N##3 { T x, y, z; };
#define WARPSIM_VEC4(T, N, A) \
  struct __attribute__((aligned(A))) N##4 { T x, y, z, w; };
#define WARPSIM_VEC(T, N, A2, A4) \
  WARPSIM_VEC2(T, N, A2) WARPSIM_VEC3(T, N) WARPSIM_VEC4(T, N, A4) \
  static __device__ __forceinline__ N##2 make_##N##2(T x, T y) { return N##2{x, y}; } \
  static __device__ __forceinline__ N##3 make_##N##3(T x, T y, T z) { return N##3{x, y, z}; } \
  static __device__ __forceinline__ N##4 make_##N##4(T x, T y, T z, T w) { \
    return N##4{x, y, z, w}; \
  }
WARPSIM_VEC(signed char, char, 2, 4)
WARPSIM_VEC(unsigned char, uchar, 2, 4)
WARPSIM_VEC(short, short, 4, 8)
WARPSIM_VEC(unsigned short, ushort, 4, 8)
WARPSIM_VEC(int, int, 8, 16)
WARPSIM_VEC(unsigned int, uint, 8, 16)
WARPSIM_VEC(long long, longlong, 16, 16)
WARPSIM_VEC(unsigned long long, ulonglong, 16, 16)
WARPSIM_VEC(float, float, 8, 16)
WARPSIM_VEC(double, double, 16, 16)
#undef WARPSIM_VEC
#undef WARPSIM_VEC2
#undef WARPSIM_VEC3
#undef WARPSIM_VEC4

// clang's device-function headers: __popc, __brev, __byte_perm, __fdividef,
// __float_as_int, __iAtomicAdd & friends, libdevice (__nv_*) declarations, math
// functions (sinf, expf, ... -> __nv_sinf ...), warp shuffles and votes.
#include <__clang_cuda_libdevice_declares.h>
#include <__clang_cuda_device_functions.h>
#include <__clang_cuda_math.h>
#include <__clang_cuda_intrinsics.h>

// Public atomic API (CUDA's device_atomic_functions.h equivalent) on top of
// clang's __*Atomic* helpers.
#define WARPSIM_ATOMIC(NAME, T, IMPL) \
  static __device__ __forceinline__ T NAME(T* p, T v) { return IMPL(p, v); }
WARPSIM_ATOMIC(atomicAdd, int, __iAtomicAdd)
WARPSIM_ATOMIC(atomicAdd, unsigned int, __uAtomicAdd)
WARPSIM_ATOMIC(atomicAdd, unsigned long long, __ullAtomicAdd)
WARPSIM_ATOMIC(atomicAdd, float, __fAtomicAdd)
WARPSIM_ATOMIC(atomicAdd, double, __dAtomicAdd)
WARPSIM_ATOMIC(atomicExch, int, __iAtomicExch)
WARPSIM_ATOMIC(atomicExch, unsigned int, __uAtomicExch)
WARPSIM_ATOMIC(atomicExch, unsigned long long, __ullAtomicExch)
WARPSIM_ATOMIC(atomicExch, float, __fAtomicExch)
WARPSIM_ATOMIC(atomicMax, int, __iAtomicMax)
WARPSIM_ATOMIC(atomicMax, unsigned int, __uAtomicMax)
WARPSIM_ATOMIC(atomicMax, long long, __illAtomicMax)
WARPSIM_ATOMIC(atomicMax, unsigned long long, __ullAtomicMax)
WARPSIM_ATOMIC(atomicMin, int, __iAtomicMin)
WARPSIM_ATOMIC(atomicMin, unsigned int, __uAtomicMin)
WARPSIM_ATOMIC(atomicMin, long long, __illAtomicMin)
WARPSIM_ATOMIC(atomicMin, unsigned long long, __ullAtomicMin)
WARPSIM_ATOMIC(atomicAnd, int, __iAtomicAnd)
WARPSIM_ATOMIC(atomicAnd, unsigned int, __uAtomicAnd)
WARPSIM_ATOMIC(atomicAnd, unsigned long long, __ullAtomicAnd)
WARPSIM_ATOMIC(atomicOr, int, __iAtomicOr)
WARPSIM_ATOMIC(atomicOr, unsigned int, __uAtomicOr)
WARPSIM_ATOMIC(atomicOr, unsigned long long, __ullAtomicOr)
WARPSIM_ATOMIC(atomicXor, int, __iAtomicXor)
WARPSIM_ATOMIC(atomicXor, unsigned int, __uAtomicXor)
WARPSIM_ATOMIC(atomicXor, unsigned long long, __ullAtomicXor)
WARPSIM_ATOMIC(atomicInc, unsigned int, __uAtomicInc)
WARPSIM_ATOMIC(atomicDec, unsigned int, __uAtomicDec)
#undef WARPSIM_ATOMIC
static __device__ __forceinline__ int atomicCAS(int* p, int cmp, int v) {
  return __iAtomicCAS(p, cmp, v);
}
static __device__ __forceinline__ unsigned int atomicCAS(unsigned int* p, unsigned int cmp,
                                                         unsigned int v) {
  return __uAtomicCAS(p, cmp, v);
}
static __device__ __forceinline__ unsigned long long atomicCAS(unsigned long long* p,
                                                               unsigned long long cmp,
                                                               unsigned long long v) {
  return __ullAtomicCAS(p, cmp, v);
}

// Unsigned / 64-bit min and max (CUDA's math_functions.hpp has these overloads).
static __device__ __forceinline__ unsigned int min(unsigned int a, unsigned int b) {
  return __nv_umin(a, b);
}
static __device__ __forceinline__ unsigned int max(unsigned int a, unsigned int b) {
  return __nv_umax(a, b);
}
static __device__ __forceinline__ long long min(long long a, long long b) {
  return __nv_llmin(a, b);
}
static __device__ __forceinline__ long long max(long long a, long long b) {
  return __nv_llmax(a, b);
}

// Device printf: clang lowers calls to printf in device code to vprintf.
extern "C" __device__ int printf(const char*, ...);
