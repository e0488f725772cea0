// crt/sm_70_rt.hpp -- stand-in for the CUDA header of the same name, which clang
// 14's __clang_cuda_intrinsics.h includes for sm_70+.  Provides the public
// __match_{any,all}_sync overloads on top of clang's __match{32,64}_*_sync.
#pragma once

static __device__ __forceinline__ unsigned int __match_any_sync(unsigned mask, unsigned v) {
  return __match32_any_sync(mask, v);
}
static __device__ __forceinline__ unsigned int __match_any_sync(unsigned mask, int v) {
  return __match32_any_sync(mask, (unsigned)v);
}
static __device__ __forceinline__ unsigned int __match_any_sync(unsigned mask,
                                                                unsigned long long v) {
  return (unsigned)__match64_any_sync(mask, v);
}
static __device__ __forceinline__ unsigned int __match_any_sync(unsigned mask, long long v) {
  return (unsigned)__match64_any_sync(mask, (unsigned long long)v);
}
static __device__ __forceinline__ unsigned int __match_all_sync(unsigned mask, unsigned v,
                                                                int* pred) {
  return __match32_all_sync(mask, v, pred);
}
static __device__ __forceinline__ unsigned int __match_all_sync(unsigned mask, int v,
                                                                int* pred) {
  return __match32_all_sync(mask, (unsigned)v, pred);
}
static __device__ __forceinline__ unsigned int __match_all_sync(unsigned mask,
                                                                unsigned long long v,
                                                                int* pred) {
  return (unsigned)__match64_all_sync(mask, v, pred);
}
