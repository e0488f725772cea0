// intmath.cu -- integer arithmetic and bit manipulation.
//
// int_divrem(a, b, out, n): int a[n], b[n] (b != 0, and not (INT_MIN, -1));
//     int out[4n]: out[4i+0] = a/b, 1 = a%b, 2 = (unsigned)a/(unsigned)b,
//     3 = (unsigned)a%(unsigned)b.
// int_divrem64(a, b, out, n): long long a[n], b[n] (same restrictions);
//     long long out[4n]: same four results in 64 bits.
// int_mulhi(a, b, out, n): int a[n], b[n]; int out[6n].  With X = (i64)a << 20,
//     Y = (i64)b * 977:  0 = __mulhi(a,b)  1 = __umulhi(a,b)
//     2 = (int)(__mul64hi(X,Y) >> 7)  3 = (int)__umul64hi((u64)X, (u64)Y)
//     4 = __mul24(a,b)  5 = __umul24(a,b)  (24-bit ops use the low 24 bits,
//     sign-/zero-extended, low 32 bits of the product)
// int_bits(a, b, out, n): unsigned a[n], b[n]; unsigned out[12n]:
//     0 = __brev(a)  1 = __clz(a)  2 = __ffs(a)  3 = __popc(a)
//     4 = __popcll(((u64)a << 32) | b)  5 = __byte_perm(a, b, 0x5140)
//     6 = __funnelshift_l(a, b, b & 63)  7 = __funnelshift_r(a, b, b & 63)
//     8 = __funnelshift_lc(a, b, b)       9 = __funnelshift_rc(a, b, b)
//    10 = __sad(a, b, 7)  (as signed ints)  11 = __usad(a, b, 3)
// int_minmax(a, b, out, n): int a[n], b[n]; int out[6n]:
//     0 = min(a,b)  1 = max(a,b)  2 = min((unsigned)a,(unsigned)b)
//     3 = max((unsigned)a,(unsigned)b)  4 = abs(a)  5 = llabs((long long)a*b) truncated
// int_bitfield(x, out, n): unsigned x[n]; unsigned out[4n]:
//     0 = (x >> 5) & 0x3ff (extract 10 bits at 5), 1 = insert low 6 bits of
//     (x>>20) into x at bit 12, 2 = signed extract of 7 bits at bit 3 (as int),
//     3 = (x << 13) | (x >> 19) (rotate left 13).
// int_clz64(x, out, n): unsigned long long x[n]; int out[3n]: __clzll, __ffsll,
//     __popcll; also x[i] <- __brevll(x[i]).

extern "C" __global__ void int_divrem(const int* a, const int* b, int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int x = a[i], y = b[i];
  out[4 * i + 0] = x / y;
  out[4 * i + 1] = x % y;
  out[4 * i + 2] = (int)((unsigned)x / (unsigned)y);
  out[4 * i + 3] = (int)((unsigned)x % (unsigned)y);
}

extern "C" __global__ void int_divrem64(const long long* a, const long long* b, long long* out,
                                        int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  long long x = a[i], y = b[i];
  out[4 * i + 0] = x / y;
  out[4 * i + 1] = x % y;
  out[4 * i + 2] = (long long)((unsigned long long)x / (unsigned long long)y);
  out[4 * i + 3] = (long long)((unsigned long long)x % (unsigned long long)y);
}

extern "C" __global__ void int_mulhi(const int* a, const int* b, int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int x = a[i], y = b[i];
  long long X = (long long)x << 20, Y = (long long)y * 977;
  out[6 * i + 0] = __mulhi(x, y);
  out[6 * i + 1] = (int)__umulhi((unsigned)x, (unsigned)y);
  out[6 * i + 2] = (int)(__mul64hi(X, Y) >> 7);
  out[6 * i + 3] = (int)__umul64hi((unsigned long long)X, (unsigned long long)Y);
  out[6 * i + 4] = __mul24(x, y);
  out[6 * i + 5] = (int)__umul24((unsigned)x, (unsigned)y);
}

extern "C" __global__ void int_bits(const unsigned* a, const unsigned* b, unsigned* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned x = a[i], y = b[i];
  unsigned* o = out + 12 * i;
  o[0] = __brev(x);
  o[1] = (unsigned)__clz((int)x);
  o[2] = (unsigned)__ffs((int)x);
  o[3] = (unsigned)__popc(x);
  o[4] = (unsigned)__popcll(((unsigned long long)x << 32) | y);
  o[5] = __byte_perm(x, y, 0x5140);
  o[6] = __funnelshift_l(x, y, y & 63);
  o[7] = __funnelshift_r(x, y, y & 63);
  o[8] = __funnelshift_lc(x, y, y);
  o[9] = __funnelshift_rc(x, y, y);
  o[10] = __sad((int)x, (int)y, 7u);
  o[11] = __usad(x, y, 3u);
}

extern "C" __global__ void int_minmax(const int* a, const int* b, int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int x = a[i], y = b[i];
  out[6 * i + 0] = min(x, y);
  out[6 * i + 1] = max(x, y);
  out[6 * i + 2] = (int)min((unsigned)x, (unsigned)y);
  out[6 * i + 3] = (int)max((unsigned)x, (unsigned)y);
  out[6 * i + 4] = abs(x);
  out[6 * i + 5] = (int)llabs((long long)x * y);
}

extern "C" __global__ void int_bitfield(const unsigned* x, unsigned* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned v = x[i];
  out[4 * i + 0] = (v >> 5) & 0x3ffu;
  out[4 * i + 1] = (v & ~(0x3fu << 12)) | (((v >> 20) & 0x3fu) << 12);
  out[4 * i + 2] = (unsigned)(((int)(v << (32 - 10))) >> (32 - 7));
  out[4 * i + 3] = (v << 13) | (v >> 19);
}

extern "C" __global__ void int_clz64(unsigned long long* x, int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned long long v = x[i];
  out[3 * i + 0] = __clzll((long long)v);
  out[3 * i + 1] = __ffsll((long long)v);
  out[3 * i + 2] = __popcll(v);
  x[i] = __brevll(v);
}
