// half.cu -- __half, __half2 and __nv_bfloat16 arithmetic.
//
// half_ops(a, b, out, n): __half a[n], b[n] (IEEE binary16 bit patterns);
//     __half out[6n]: out[6i+0] = a+b  1 = a*b  2 = __hfma(a, b, 1.0)
//     3 = __hsub(a, b)  4 = __hmax(a, b)  5 = (a < b) ? a : b via __hlt.
//     All results rounded to nearest-even in binary16.
// half2_ops(a, b, out, n): __half2 a[n], b[n]; __half2 out[3n]:
//     out[3i+0] = __hadd2(a,b)  1 = __hmul2(a,b)  2 = __hfma2(a, b, a).
// half_convert(f, h, back, n): float f[n] in; __half h[n] out = __float2half_rn(f);
//     float back[n] out = __half2float(h) (+ an __int2half_rn / __half2int_rz round
//     trip added: back[i] += (float)__half2int_rz(__int2half_rn(i))).
// bf16_ops(a, b, out, fout, n): __nv_bfloat16 a[n], b[n]; __nv_bfloat16 out[3n]:
//     out[3i+0] = a+b  1 = a*b  2 = __hfma(a, b, a) (sm_75: fmaf in fp32 then
//     rounded to bf16, which can differ from a fused bf16 fma by double rounding
//     in rare cases);  float fout[n] =
//     __bfloat162float(a) + __bfloat162float(b) (exact in fp32).
// half_dot(a, b, out, n): __half2 a[n], b[n]; float out[1] (zero before launch):
//     out[0] += sum over i of (a.x*b.x + a.y*b.y) in fp32 via atomicAdd.

#include <cuda_bf16.h>
#include <cuda_fp16.h>

extern "C" __global__ void half_ops(const __half* a, const __half* b, __half* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  __half x = a[i], y = b[i];
  out[6 * i + 0] = x + y;
  out[6 * i + 1] = x * y;
  out[6 * i + 2] = __hfma(x, y, __float2half(1.0f));
  out[6 * i + 3] = __hsub(x, y);
  out[6 * i + 4] = __hmax(x, y);
  out[6 * i + 5] = __hlt(x, y) ? x : y;
}

extern "C" __global__ void half2_ops(const __half2* a, const __half2* b, __half2* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  __half2 x = a[i], y = b[i];
  out[3 * i + 0] = __hadd2(x, y);
  out[3 * i + 1] = __hmul2(x, y);
  out[3 * i + 2] = __hfma2(x, y, x);
}

extern "C" __global__ void half_convert(const float* f, __half* h, float* back, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  __half v = __float2half_rn(f[i]);
  h[i] = v;
  back[i] = __half2float(v) + (float)__half2int_rz(__int2half_rn(i));
}

extern "C" __global__ void bf16_ops(const __nv_bfloat16* a, const __nv_bfloat16* b,
                                    __nv_bfloat16* out, float* fout, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  __nv_bfloat16 x = a[i], y = b[i];
  out[3 * i + 0] = x + y;
  out[3 * i + 1] = x * y;
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800
  out[3 * i + 2] = __hfma(x, y, x);  // native fma.rn.bf16 on sm_80+
#else
  // CUDA 13 declares the bf16 __hfma only for sm_80+; emulate with one fp32 fma.
  out[3 * i + 2] = __float2bfloat16_rn(
      fmaf(__bfloat162float(x), __bfloat162float(y), __bfloat162float(x)));
#endif
  fout[i] = __bfloat162float(x) + __bfloat162float(y);
}

extern "C" __global__ void half_dot(const __half2* a, const __half2* b, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float2 x = __half22float2(a[i]), y = __half22float2(b[i]);
  atomicAdd(out, x.x * y.x + x.y * y.y);
}
