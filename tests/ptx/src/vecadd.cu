// vecadd.cu -- element-wise vector kernels.
//
// vecadd(a, b, c, n):   float a[n], b[n] in; float c[n] out.  c[i] = a[i] + b[i]
//                       for i < n.  Any grid/block shape with >= n threads total.
// vecadd_grid_stride(a, b, c, n): same result using a grid-stride loop, so any
//                       launch configuration covers all n elements.
// saxpy(n, alpha, x, y): y[i] = alpha * x[i] + y[i] for i < n (y is in/out).
// vecadd_i64(a, b, c, n): long long a[n], b[n] in; c[i] = a[i] + b[i]; n is 64-bit.

extern "C" __global__ void vecadd(const float* a, const float* b, float* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

extern "C" __global__ void vecadd_grid_stride(const float* __restrict__ a,
                                              const float* __restrict__ b,
                                              float* __restrict__ c, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    c[i] = a[i] + b[i];
}

extern "C" __global__ void saxpy(int n, float alpha, const float* x, float* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = alpha * x[i] + y[i];
}

extern "C" __global__ void vecadd_i64(const long long* a, const long long* b, long long* c,
                                      long long n) {
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}
