// sdk/fastWalshTransform - dyadic (XOR) convolution of a long signal with a short kernel through
// the fast Walsh-Hadamard transform (the CUDA SDK "fastWalshTransform" sample):
//   out = FWT(FWT(data) * FWT(kernel)) / N,  out[i] = sum_j kernel[j] * data[i ^ j].
// One FWT of N = 2^L points is L butterfly stages; the two stages of a bit pair form one radix-4
// butterfly. The stages on the top bits (strides >= 2^11) run as fwt_batch2 launches in global
// memory, one launch per bit pair, each thread doing one radix-4 butterfly; the remaining low 10
// or 11 bits run in one fwt_batch1 launch, one CTA per 2^10- or 2^11-point segment held in shared
// memory (radix-4 stages with __syncthreads between, a radix-2 stage when the bit count is odd).
// modulate multiplies the two spectra point-wise and scales by 1/N.
// Kernels per transform: (L - 10) / 2 fwt_batch2 (grid (N / 4 / 256, batches), block 256) and one
// fwt_batch1 (grid = segments, block = segment / 4); three transforms plus one modulate (grid 128,
// block 256).
#include <algorithm>
#include <vector>

#include "workload.h"

constexpr int ELEMENTARY_LOG2 = 11;  // largest segment fwt_batch1 keeps in shared memory
constexpr int BATCH2_THREADS = 256;

__device__ __forceinline__ void radix4(float& d0, float& d1, float& d2, float& d3) {
  // Butterflies on the higher bit (pairs 0-2, 1-3), then on the lower bit (pairs 0-1, 2-3).
  const float a0 = d0 + d2, a2 = d0 - d2, a1 = d1 + d3, a3 = d1 - d3;
  d0 = a0 + a1;
  d1 = a0 - a1;
  d2 = a2 + a3;
  d3 = a2 - a3;
}

// One radix-4 stage on bits (stride, 2 * stride) of every batch of 4 * blockDim.x * gridDim.x
// elements (blockIdx.y picks the batch). In place: each thread reads and writes its 4 elements.
__global__ void fwt_batch2(float* data, int stride) {
  const int pos = blockIdx.x * blockDim.x + threadIdx.x;
  const int n = 4 * blockDim.x * gridDim.x;
  float* d = data + size_t(blockIdx.y) * n;
  const int lo = pos & (stride - 1);
  const int i0 = ((pos - lo) << 2) + lo;  // insert two zero bits above the low bits
  float d0 = d[i0], d1 = d[i0 + stride], d2 = d[i0 + 2 * stride], d3 = d[i0 + 3 * stride];
  radix4(d0, d1, d2, d3);
  d[i0] = d0;
  d[i0 + stride] = d1;
  d[i0 + 2 * stride] = d2;
  d[i0 + 3 * stride] = d3;
}

// The complete FWT of segment blockIdx.x (2^log2n elements, blockDim.x = 2^log2n / 4) in shared
// memory.
__global__ void fwt_batch1(float* data, int log2n) {
  extern __shared__ float s[];
  const int n = 1 << log2n;
  float* d = data + (size_t(blockIdx.x) << log2n);
  for (int pos = threadIdx.x; pos < n; pos += blockDim.x) s[pos] = d[pos];
  for (int stride = n >> 2; stride > 0; stride >>= 2) {
    __syncthreads();
    for (int pos = threadIdx.x; pos < n / 4; pos += blockDim.x) {
      const int lo = pos & (stride - 1);
      const int i0 = ((pos - lo) << 2) + lo;
      float d0 = s[i0], d1 = s[i0 + stride], d2 = s[i0 + 2 * stride], d3 = s[i0 + 3 * stride];
      radix4(d0, d1, d2, d3);
      s[i0] = d0;
      s[i0 + stride] = d1;
      s[i0 + 2 * stride] = d2;
      s[i0 + 3 * stride] = d3;
    }
  }
  if (log2n & 1) {  // bit 0 is left over: one radix-2 stage
    __syncthreads();
    for (int pos = threadIdx.x; pos < n / 2; pos += blockDim.x) {
      const float d0 = s[2 * pos], d1 = s[2 * pos + 1];
      s[2 * pos] = d0 + d1;
      s[2 * pos + 1] = d0 - d1;
    }
  }
  __syncthreads();
  for (int pos = threadIdx.x; pos < n; pos += blockDim.x) d[pos] = s[pos];
}

__global__ void modulate(float* a, const float* b, int n) {
  const float scale = 1.0f / float(n);
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    a[i] *= b[i] * scale;
}

// In-place FWT of 2^log2n elements.
static void fwt(float* d, int log2n, int& launches) {
  int n = 1 << log2n, batches = 1;
  for (; log2n > ELEMENTARY_LOG2; log2n -= 2, n >>= 2, batches <<= 2) {
    fwt_batch2<<<dim3(n / (4 * BATCH2_THREADS), batches), BATCH2_THREADS>>>(d, n / 4);
    CUDA_CHECK(cudaGetLastError());
    ++launches;
  }
  fwt_batch1<<<batches, n / 4, n * sizeof(float)>>>(d, log2n);
  CUDA_CHECK(cudaGetLastError());
  ++launches;
}

int main(int argc, char** argv) {
  workload::Run run("fastWalshTransform", argc, argv);
  // The SDK's default is 2^23 data points and a 2^7-point kernel (large).
  const int log2_data = run.pick(15, 18, 23);
  const int log2_kernel = 7;
  const int n = 1 << log2_data, kn = 1 << log2_kernel;
  {
    int l = log2_data, batches = 1;
    for (; l > ELEMENTARY_LOG2; l -= 2, batches <<= 2)
      run.info("fwt_batch2 stride %d: grid %dx%d, block %d", 1 << (l - 2),
               (1 << l) / (4 * BATCH2_THREADS), batches, BATCH2_THREADS);
    run.info("fwt_batch1: grid %d, block %d, %d floats of shared memory", batches, (1 << l) / 4,
             1 << l);
  }
  run.info("dyadic convolution of %d points with a %d-point kernel: 3 FWTs + modulate (grid 128, "
           "block 256)", n, kn);

  // Uniform [0, 1) data and kernel, as in the SDK.
  workload::Rng rng(run.seed());
  std::vector<float> h_data(n), h_kernel(n, 0.0f), got(n);
  for (auto& v : h_data) v = rng.uniform();
  for (int i = 0; i < kn; ++i) h_kernel[i] = rng.uniform();

  float *d_data, *d_kernel;
  CUDA_CHECK(cudaMalloc(&d_data, n * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_kernel, n * sizeof(float)));
  CUDA_CHECK(cudaMemcpy(d_data, h_data.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(d_kernel, h_kernel.data(), n * sizeof(float), cudaMemcpyHostToDevice));

  int launches = 0;
  fwt(d_data, log2_data, launches);
  fwt(d_kernel, log2_data, launches);
  modulate<<<128, 256>>>(d_data, d_kernel, n);
  CUDA_CHECK(cudaGetLastError());
  ++launches;
  fwt(d_data, log2_data, launches);
  CUDA_CHECK(cudaMemcpy(got.data(), d_data, n * sizeof(float), cudaMemcpyDeviceToHost));
  run.info("%d kernel launches", launches);

  // Direct dyadic convolution in double.
  std::vector<float> want(n);
  double max_err = 0, max_val = 0;
  for (int i = 0; i < n; ++i) {
    double sum = 0;
    for (int j = 0; j < kn; ++j) sum += double(h_kernel[j]) * h_data[i ^ j];
    want[i] = static_cast<float>(sum);
    max_err = std::max(max_err, std::fabs(got[i] - sum));
    max_val = std::max(max_val, std::fabs(sum));
  }
  // Every output passes through 3 transforms of log2_data butterfly stages, each rounding at the
  // scale of the signal; the rounding errors of the large (DC-like) intermediate sums, brought
  // back to the output's scale by the final 1/N, behave like log2_data * 2^-24 * max |out| per
  // transform in practice (about half that is observed; the worst case grows with N and is far
  // looser). Tolerance: 2 * log2_data * 2^-24 * max |out|, absolute.
  const double tol = 2.0 * log2_data * 0x1p-24 * max_val;
  run.info("max abs error %.3g (max |out| %.3g, tolerance %.3g)", max_err, max_val, tol);
  run.check_close("output", got.data(), want.data(), n, 0.0, tol);

  CUDA_CHECK(cudaFree(d_data));
  CUDA_CHECK(cudaFree(d_kernel));
  return run.pass();
}
