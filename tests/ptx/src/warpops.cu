// warpops.cu -- match.sync and redux.sync warp operations.
// All kernels: 1-D launch with blockDim.x a multiple of 32; t = global thread index.
//
// match_ops(in, out): int in[T]; unsigned out[3T].
//     out[3t+0] = __match_any_sync(full, in[t])  (mask of lanes with equal value)
//     out[3t+1] = __match_all_sync(full, in[t] & 1, &pred)  (full mask or 0)
//     out[3t+2] = pred
// match_partial(in, out): unsigned long long in[T]; unsigned out[T].  Only lanes
//     0..15 take part (mask 0x0000ffff): out[t] = __match_any_sync(0xffff, in[t])
//     (64-bit compare); lanes 16..31 write 0.
// warp_reduce(in, out): unsigned in[T]; unsigned out[6T]: for every lane, the
//     warp-wide add (mod 2^32), signed min, signed max (in[] viewed as int), and,
//     or, xor over the warp's 32 values.  On sm_80+ this uses __reduce_*_sync
//     (redux.sync); older arches compute the same result with a shuffle butterfly.
// warp_reduce_partial(in, out): unsigned in[T]; unsigned out[T].  Lanes with even
//     index reduce (add) over the even lanes only (mask 0x55555555); odd lanes
//     write 0xffffffff.

#define FULL 0xffffffffu

extern "C" __global__ void match_ops(const int* in, unsigned* out) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  int pred = 0;
  out[3 * t + 0] = __match_any_sync(FULL, in[t]);
  out[3 * t + 1] = __match_all_sync(FULL, in[t] & 1, &pred);
  out[3 * t + 2] = (unsigned)pred;
}

extern "C" __global__ void match_partial(const unsigned long long* in, unsigned* out) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned r = 0;
  if ((threadIdx.x & 31) < 16) r = __match_any_sync(0x0000ffffu, in[t]);
  out[t] = r;
}

__device__ __forceinline__ unsigned bfly_add(unsigned v) {
  for (int m = 16; m; m >>= 1) v += __shfl_xor_sync(FULL, v, m);
  return v;
}

extern "C" __global__ void warp_reduce(const unsigned* in, unsigned* out) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned v = in[t];
  unsigned* o = out + 6 * t;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  o[0] = __reduce_add_sync(FULL, v);
  o[1] = (unsigned)__reduce_min_sync(FULL, (int)v);
  o[2] = (unsigned)__reduce_max_sync(FULL, (int)v);
  o[3] = __reduce_and_sync(FULL, v);
  o[4] = __reduce_or_sync(FULL, v);
  o[5] = __reduce_xor_sync(FULL, v);
#else
  int mn = (int)v, mx = (int)v;
  unsigned a = v, r = v, x = v;
  for (int m = 16; m; m >>= 1) {
    mn = min(mn, __shfl_xor_sync(FULL, mn, m));
    mx = max(mx, __shfl_xor_sync(FULL, mx, m));
    a &= __shfl_xor_sync(FULL, a, m);
    r |= __shfl_xor_sync(FULL, r, m);
    x ^= __shfl_xor_sync(FULL, x, m);
  }
  o[0] = bfly_add(v);
  o[1] = (unsigned)mn;
  o[2] = (unsigned)mx;
  o[3] = a;
  o[4] = r;
  o[5] = x;
#endif
}

extern "C" __global__ void warp_reduce_partial(const unsigned* in, unsigned* out) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned r = 0xffffffffu;
  if ((threadIdx.x & 1) == 0) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    r = __reduce_add_sync(0x55555555u, in[t]);
#else
    unsigned v = in[t];
    for (int m = 16; m >= 2; m >>= 1) v += __shfl_xor_sync(0x55555555u, v, m);
    r = v;
#endif
  }
  out[t] = r;
}
