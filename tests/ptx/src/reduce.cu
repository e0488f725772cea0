// reduce.cu -- sum reductions.
//
// reduce_shared(in, out, n): float in[n]; float out[gridDim.x].  blockDim.x must be
//     a power of two <= 1024; dynamic shared memory = blockDim.x * sizeof(float).
//     out[b] = sum of in[i] for i in block b's slice [b*blockDim.x, (b+1)*blockDim.x)
//     (elements >= n count as 0).  Classic shared-memory tree reduction.
// reduce_shuffle(in, out, n): float in[n]; float* out (one element, must be zeroed
//     before launch).  Grid-stride accumulation, warp reduction with
//     __shfl_down_sync, per-warp partials in static shared memory, then one
//     atomicAdd per block into out[0].  Result: out[0] = sum(in[0..n)).  Any
//     blockDim.x that is a multiple of 32 and <= 1024.
// reduce_int_max(in, out, n): int in[n]; int* out (one element, initialise to
//     INT_MIN).  out[0] = max over in[], via warp xor-shuffle + atomicMax.

extern "C" __global__ void reduce_shared(const float* in, float* out, unsigned n) {
  extern __shared__ float sdata[];
  unsigned tid = threadIdx.x;
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  sdata[tid] = (i < n) ? in[i] : 0.0f;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s) sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = sdata[0];
}

__device__ __forceinline__ float warp_sum(float v) {
  for (int off = 16; off > 0; off >>= 1) v += __shfl_down_sync(0xffffffffu, v, off);
  return v;
}

extern "C" __global__ void reduce_shuffle(const float* in, float* out, int n) {
  __shared__ float partial[32];
  float sum = 0.0f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    sum += in[i];
  sum = warp_sum(sum);
  int lane = threadIdx.x & 31;
  int warp = threadIdx.x >> 5;
  if (lane == 0) partial[warp] = sum;
  __syncthreads();
  if (warp == 0) {
    int nwarps = blockDim.x >> 5;
    sum = (lane < nwarps) ? partial[lane] : 0.0f;
    sum = warp_sum(sum);
    if (lane == 0) atomicAdd(out, sum);
  }
}

extern "C" __global__ void reduce_int_max(const int* in, int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = (i < n) ? in[i] : (int)0x80000000;
  for (int m = 16; m > 0; m >>= 1) v = max(v, __shfl_xor_sync(0xffffffffu, v, m));
  if ((threadIdx.x & 31) == 0) atomicMax(out, v);
}
