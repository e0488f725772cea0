// templates.cu -- templated kernels (mangled C++ names in the PTX).
//
// axpby<T>(x, y, out, a, b, n), instantiated for float, double and int:
//     out[i] = a * x[i] + b * y[i] for i < n.
// block_sum<T, BLOCK>(in, out): T in[gridDim.x * BLOCK]; T out[gridDim.x].
//     out[b] = sum of the block's BLOCK elements.  Launch with blockDim.x == BLOCK.
//     Instantiated as <float,128>, <int,256>, <double,64>.
// scale_functor<Op>(data, n): in-place data[i] = Op()(data[i]) with Op = Square
//     (float) or Negate (int) -- exercises functor inlining inside a template,
//     and a namespace-qualified name.
// Name mangling: e.g. _Z5axpbyIfEvPKT_S2_PS0_S0_S0_i for axpby<float>.

template <typename T>
__global__ void axpby(const T* x, const T* y, T* out, T a, T b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = a * x[i] + b * y[i];
}

template __global__ void axpby<float>(const float*, const float*, float*, float, float, int);
template __global__ void axpby<double>(const double*, const double*, double*, double, double,
                                       int);
template __global__ void axpby<int>(const int*, const int*, int*, int, int, int);

template <typename T, int BLOCK>
__global__ void block_sum(const T* in, T* out) {
  __shared__ T s[BLOCK];
  int tid = threadIdx.x;
  s[tid] = in[blockIdx.x * BLOCK + tid];
  __syncthreads();
#pragma unroll
  for (int st = BLOCK / 2; st > 0; st /= 2) {
    if (tid < st) s[tid] += s[tid + st];
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = s[0];
}

template __global__ void block_sum<float, 128>(const float*, float*);
template __global__ void block_sum<int, 256>(const int*, int*);
template __global__ void block_sum<double, 64>(const double*, double*);

namespace warpsim_test {
struct Square {
  __device__ float operator()(float v) const { return v * v; }
};
struct Negate {
  __device__ int operator()(int v) const { return -v; }
};

template <typename Op, typename T>
__global__ void scale_functor(T* data, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] = Op()(data[i]);
}

template __global__ void scale_functor<Square, float>(float*, int);
template __global__ void scale_functor<Negate, int>(int*, int);
}  // namespace warpsim_test
