// printf.cu -- device-side printf (lowered to vprintf with a packed argument buffer).
//
// print_values(i, u, l, f, d): scalar parameters, no outputs.  Thread 0 of block 0
//     prints one line per format; every thread with threadIdx.x < 2 prints a
//     line "tid=<t> block=<b>".  Expected stdout (for i=-7, u=42, l=-1234567890123,
//     f=1.5f, d=2.25, 1 block of 2 threads; line order between threads unspecified):
//       int=-7 unsigned=42 long=-1234567890123
//       float=1.500000 double=2.250000 sci=2.250000e+00
//       str=hello char=Z hex=2a HEX=2A
//       ptr=<address of the string, implementation-defined>
//       tid=0 block=0
//       tid=1 block=0
//       100%
// print_loop(n): thread 0 prints "i=<k>" for k in [0, n).

extern "C" __global__ void print_values(int i, unsigned u, long long l, float f, double d) {
  const char* s = "hello";
  if (threadIdx.x == 0 && blockIdx.x == 0) {
    printf("int=%d unsigned=%u long=%lld\n", i, u, l);
    printf("float=%f double=%f sci=%e\n", f, d, d);
    printf("str=%s char=%c hex=%x HEX=%X\n", s, 'Z', u, u);
    printf("ptr=%p\n", (const void*)s);
  }
  if (threadIdx.x < 2) printf("tid=%d block=%d\n", (int)threadIdx.x, (int)blockIdx.x);
  if (threadIdx.x == 0 && blockIdx.x == 0) printf("100%%\n");
}

extern "C" __global__ void print_loop(int n) {
  if (threadIdx.x != 0) return;
  for (int k = 0; k < n; ++k) printf("i=%d\n", k);
}
