// dmath.cu -- double-precision math.
//
// dmath_unary(x, out, n): double x[n]; double out[10*n].  With v = x[i]:
//     out[10i+0] = sin(v)  1 = cos(v)  2 = exp(v)  3 = log(fabs(v)+1)
//     4 = pow(fabs(v), 2.5)  5 = sqrt(fabs(v))  6 = 1.0 / v  7 = floor(v)
//     8 = rsqrt(fabs(v)+1)  9 = cbrt(v)
//     Tolerance vs. host libm: a couple of ulp.
// dmath_binary(a, b, out, n): double a[n], b[n]; double out[6n].
//     out[6i+0] = a / b  1 = fma(a, b, a)  2 = fmin(a, b)  3 = fmax(a, b)
//     4 = atan2(a, b)  5 = __dadd_rz(a, b)
// dmath_conv(x, out_i64, out_f32, n): double x[n]; long long out_i64[2n];
//     float out_f32[n].  out_i64[2i] = (long long)v, out_i64[2i+1] =
//     __double2ll_rn(v); out_f32[i] = (float)v.
// dmath_bits(x, out, n): double x[n]; int out[2n]: out[2i] = __double2hiint(v),
//     out[2i+1] = __double2loint(v); x[i] (in/out) becomes
//     __hiloint2double(hi, lo) * 2.0, i.e. 2*x[i].

extern "C" __global__ void dmath_unary(const double* x, double* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  double v = x[i];
  double* o = out + 10 * i;
  o[0] = sin(v);
  o[1] = cos(v);
  o[2] = exp(v);
  o[3] = log(fabs(v) + 1.0);
  o[4] = pow(fabs(v), 2.5);
  o[5] = sqrt(fabs(v));
  o[6] = 1.0 / v;
  o[7] = floor(v);
  o[8] = rsqrt(fabs(v) + 1.0);
  o[9] = cbrt(v);
}

extern "C" __global__ void dmath_binary(const double* a, const double* b, double* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  double x = a[i], y = b[i];
  double* o = out + 6 * i;
  o[0] = x / y;
  o[1] = fma(x, y, x);
  o[2] = fmin(x, y);
  o[3] = fmax(x, y);
  o[4] = atan2(x, y);
  o[5] = __dadd_rz(x, y);
}

extern "C" __global__ void dmath_conv(const double* x, long long* out_i64, float* out_f32,
                                      int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  double v = x[i];
  out_i64[2 * i] = (long long)v;
  out_i64[2 * i + 1] = __double2ll_rn(v);
  out_f32[i] = (float)v;
}

extern "C" __global__ void dmath_bits(double* x, int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  double v = x[i];
  int hi = __double2hiint(v), lo = __double2loint(v);
  out[2 * i] = hi;
  out[2 * i + 1] = lo;
  x[i] = __hiloint2double(hi, lo) * 2.0;
}
