// Kernels for the offload_chains pass's tests: each compiles, with nvcc 13, to
// one chain of the pattern its name gives (Pattnaik et al., ISCA 2019,
// Table 1). patterns.ptx is `nvcc -ptx -lineinfo -arch=sm_75 patterns.cu`.
__global__ void p2_dot(const float* a, const float* b, float* out, int n) {
  float sum = 0.0f;
  for (int i = threadIdx.x; i < n; i += blockDim.x) sum += a[i] * b[i];  // fma(a, b, sum)
  out[threadIdx.x] = sum;
}

__global__ void p4_offset(const float* a, float* c) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  c[i] = a[i] + static_cast<float>(threadIdx.x);  // the thread's own value comes from the core
}

__global__ void p8_scale_add(const float* a, const float* b, float* c, float s) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const float d = a[i] + b[i] * s;        // fma(b, s, a), returned to the core ...
  c[i] = d * static_cast<float>(i & 7);   // ... which scales it by its own value
}

__global__ void p9_triad(const float* a, const float* b, float* c, float s) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  c[i] = a[i] + s * b[i];
}
