// fmath.cu -- single-precision math library and intrinsics.
//
// fmath_unary(x, out, n): float x[n]; float out[16*n].  For each i < n, with v = x[i]:
//     out[16i + 0] = sinf(v)     1 = cosf(v)     2 = expf(v)    3 = logf(fabsf(v)+1)
//             4 = powf(fabsf(v), 1.5f)           5 = sqrtf(fabsf(v))
//             6 = rsqrtf(fabsf(v)+1)             7 = __sinf(v)  8 = __expf(v)
//             9 = __fdividef(v, 3.0f)           10 = floorf(v) 11 = ceilf(v)
//            12 = roundf(v)    13 = truncf(v)   14 = tanhf(v)  15 = exp2f(v)+log2f(fabsf(v)+2)
//     Tolerance vs. host libm: a few ulp for the accurate functions; the __
//     intrinsics need a loose (~1e-3 relative) tolerance.
// fmath_binary(a, b, c, out, n): float a[n], b[n], c[n]; float out[8*n].
//     out[8i+0] = fminf(a,b)  1 = fmaxf(a,b)  2 = fmaf(a,b,c)  3 = copysignf(a,b)
//     4 = a / b (IEEE div)    5 = fmodf(a, b)  6 = atan2f(a, b)  7 = hypotf(a, b)
// fmath_fast(x, out, n): float x[n]; float out[4*n]; uses rounding-mode
//     intrinsics: out[4i+0] = __fadd_rn(v, 1)  1 = __fmul_rz(v, 3)
//     2 = __fmaf_rd(v, v, 1)  3 = __frcp_rn(v) ; exact per IEEE for each mode.
// fmath_conv(x, iout, fout, n): float x[n]; int iout[4n]; float fout[2n].
//     iout[4i+0] = (int)v   1 = __float2int_rn(v)   2 = __float2int_rd(v)
//     3 = (int)(unsigned)(fabsf(v)); fout[2i+0] = (float)(int)v,
//     fout[2i+1] = __saturatef(v).

extern "C" __global__ void fmath_unary(const float* x, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float v = x[i];
  float* o = out + 16 * i;
  o[0] = sinf(v);
  o[1] = cosf(v);
  o[2] = expf(v);
  o[3] = logf(fabsf(v) + 1.0f);
  o[4] = powf(fabsf(v), 1.5f);
  o[5] = sqrtf(fabsf(v));
  o[6] = rsqrtf(fabsf(v) + 1.0f);
  o[7] = __sinf(v);
  o[8] = __expf(v);
  o[9] = __fdividef(v, 3.0f);
  o[10] = floorf(v);
  o[11] = ceilf(v);
  o[12] = roundf(v);
  o[13] = truncf(v);
  o[14] = tanhf(v);
  o[15] = exp2f(v) + log2f(fabsf(v) + 2.0f);
}

extern "C" __global__ void fmath_binary(const float* a, const float* b, const float* c,
                                        float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float x = a[i], y = b[i], z = c[i];
  float* o = out + 8 * i;
  o[0] = fminf(x, y);
  o[1] = fmaxf(x, y);
  o[2] = fmaf(x, y, z);
  o[3] = copysignf(x, y);
  o[4] = x / y;
  o[5] = fmodf(x, y);
  o[6] = atan2f(x, y);
  o[7] = hypotf(x, y);
}

extern "C" __global__ void fmath_fast(const float* x, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float v = x[i];
  out[4 * i + 0] = __fadd_rn(v, 1.0f);
  out[4 * i + 1] = __fmul_rz(v, 3.0f);
  out[4 * i + 2] = __fmaf_rd(v, v, 1.0f);
  out[4 * i + 3] = __frcp_rn(v);
}

extern "C" __global__ void fmath_conv(const float* x, int* iout, float* fout, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float v = x[i];
  iout[4 * i + 0] = (int)v;
  iout[4 * i + 1] = __float2int_rn(v);
  iout[4 * i + 2] = __float2int_rd(v);
  iout[4 * i + 3] = (int)(unsigned)fabsf(v);
  fout[2 * i + 0] = (float)(int)v;
  fout[2 * i + 1] = __saturatef(v);
}
