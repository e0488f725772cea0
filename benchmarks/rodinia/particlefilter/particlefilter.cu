// rodinia/particlefilter - a particle filter tracking a disk moving through a sequence of noisy
// video frames (Rodinia ParticleFilter, float version). Every particle is a guess of the disk's
// centre; per frame each particle moves by the motion model plus Gaussian noise, is weighted by
// the likelihood of the pixels under a disk at its position, and the particles are resampled in
// proportion to their weights (systematic resampling).
// Kernels per frame, all on 512-thread blocks, one thread per particle unless noted:
//   likelihood_kernel   motion model, the disk's pixel indices (written to an index array),
//                       likelihood, weight, and a per-block shared-memory sum of the weights;
//   sum_kernel          one thread: the total weight from the per-block sums;
//   normalize_kernel    weights /= total;
//   cdf_kernel          one thread: the running sum (CDF) of the weights and the resampling offset;
//   find_index_kernel   each particle searches the CDF linearly for its resampling point and takes
//                       over the position of the particle found there.
// Randomness is device-side: each particle has its own 32-bit LCG state (in global memory, as the
// original's seed array), which the CPU reference reproduces exactly.
#include <algorithm>
#include <cmath>
#include <vector>

#include "workload.h"

constexpr int kThreads = 512;
constexpr int kRadius = 5;  // the disk's radius in pixels
constexpr float kForeground = 228.0f, kBackground = 100.0f, kNoise = 20.0f;
constexpr float kTwoPi = 6.28318530717958647692f;

// Uniform in (0, 1], from the particle's LCG (Numerical Recipes constants).
__host__ __device__ inline float randu(unsigned* seed, int i) {
  seed[i] = seed[i] * 1664525u + 1013904223u;
  return static_cast<float>((seed[i] >> 9) + 1u) * (1.0f / 8388608.0f);
}

// Standard normal by Box-Muller, two uniforms per draw as in the original.
__host__ __device__ inline float randn(unsigned* seed, int i) {
  const float u = randu(seed, i), v = randu(seed, i);
  return sqrtf(-2.0f * logf(u)) * cosf(kTwoPi * v);
}

// Log-likelihood ratio of one pixel, disk versus background, under Gaussian noise.
__host__ __device__ inline float pixel_likelihood(unsigned char p) {
  const float v = p;
  return ((v - kBackground) * (v - kBackground) - (v - kForeground) * (v - kForeground)) /
         (2.0f * kNoise * kNoise);
}

// The video is stored frame-fastest, I[x][y][frame], as in the original.
__host__ __device__ inline int pixel_index(int x, int y, int frame, int isz_x, int isz_y,
                                           int frames) {
  if (x < 0 || x >= isz_x || y < 0 || y >= isz_y) return 0;  // off-image: the original's index 0
  return (x * isz_y + y) * frames + frame;
}

__global__ void likelihood_kernel(float* __restrict__ array_x, float* __restrict__ array_y,
                                  const float* __restrict__ xj, const float* __restrict__ yj,
                                  int* __restrict__ ind, const int* __restrict__ objxy,
                                  int count_ones, const unsigned char* __restrict__ video,
                                  int isz_x, int isz_y, int frames, int frame,
                                  float* __restrict__ weights, unsigned* __restrict__ seed,
                                  float* __restrict__ partial_sums, int n) {
  __shared__ float buffer[kThreads];
  const int tx = threadIdx.x, i = blockIdx.x * kThreads + tx;
  float w = 0.0f;
  if (i < n) {
    // Motion model from the resampled position: drift (+1, -2) plus noise.
    const float x = xj[i] + 1.0f + 5.0f * randn(seed, i);
    const float y = yj[i] - 2.0f + 2.0f * randn(seed, i);
    array_x[i] = x;
    array_y[i] = y;
    const int rx = static_cast<int>(floorf(x + 0.5f)), ry = static_cast<int>(floorf(y + 0.5f));
    for (int c = 0; c < count_ones; ++c)
      ind[i * count_ones + c] =
          pixel_index(rx + objxy[2 * c], ry + objxy[2 * c + 1], frame, isz_x, isz_y, frames);
    float likelihood = 0.0f;
    for (int c = 0; c < count_ones; ++c)
      likelihood += pixel_likelihood(video[ind[i * count_ones + c]]);
    likelihood /= count_ones;
    // After resampling every particle's weight is 1/n.
    w = (1.0f / n) * expf(likelihood);
    weights[i] = w;
  }
  buffer[tx] = w;
  __syncthreads();
  for (int s = kThreads / 2; s > 0; s >>= 1) {
    if (tx < s) buffer[tx] += buffer[tx + s];
    __syncthreads();
  }
  if (tx == 0) partial_sums[blockIdx.x] = buffer[0];
}

__global__ void sum_kernel(const float* __restrict__ partial_sums, int blocks,
                           float* __restrict__ total) {
  float s = 0.0f;
  for (int b = 0; b < blocks; ++b) s += partial_sums[b];
  *total = s;
}

__global__ void normalize_kernel(float* __restrict__ weights, const float* __restrict__ total,
                                 int n) {
  const int i = blockIdx.x * kThreads + threadIdx.x;
  if (i < n) weights[i] = weights[i] / *total;
}

__global__ void cdf_kernel(const float* __restrict__ weights, float* __restrict__ cdf,
                           unsigned* __restrict__ seed, float* __restrict__ u1, int n) {
  float s = 0.0f;
  for (int x = 0; x < n; ++x) {
    s += weights[x];
    cdf[x] = s;
  }
  *u1 = (1.0f / n) * randu(seed, 0);  // systematic resampling: one offset for all particles
}

__global__ void find_index_kernel(const float* __restrict__ array_x,
                                  const float* __restrict__ array_y, const float* __restrict__ cdf,
                                  const float* __restrict__ u1, float* __restrict__ u,
                                  float* __restrict__ xj, float* __restrict__ yj, int n) {
  const int i = blockIdx.x * kThreads + threadIdx.x;
  if (i >= n) return;
  const float ui = *u1 + i / static_cast<float>(n);
  u[i] = ui;
  int index = n - 1;  // if rounding leaves the CDF's end below ui, take the last particle
  for (int x = 0; x < n; ++x)
    if (cdf[x] >= ui) {
      index = x;
      break;
    }
  xj[i] = array_x[index];
  yj[i] = array_y[index];
}

int main(int argc, char** argv) {
  workload::Run run("particlefilter", argc, argv);
  const int isz_x = 128, isz_y = 128;
  const int frames = run.pick(3, 10, 10);
  const int n = run.pick(1000, 1800, 10000);
  const int blocks = static_cast<int>(workload::ceil_div(n, kThreads));
  run.info(
      "%dx%d video, %d frames, %d particles: 5 kernels per frame, grid %d x block %d "
      "(sum and CDF: 1 thread)",
      isz_x, isz_y, frames, n, blocks, kThreads);

  // The video: a disk of radius 5 starting at the centre and moving (+1, -2) pixels per frame,
  // intensity 228 on a background of 100, plus Gaussian noise of sigma 20.
  workload::Rng rng(run.seed());
  const int x0 = isz_x / 2, y0 = isz_y / 2;
  const size_t video_size = static_cast<size_t>(isz_x) * isz_y * frames;
  std::vector<unsigned char> video(video_size);
  for (int x = 0; x < isz_x; ++x)
    for (int y = 0; y < isz_y; ++y)
      for (int k = 0; k < frames; ++k) {
        const int dx = x - (x0 + k), dy = y - (y0 - 2 * k);
        const float base = dx * dx + dy * dy <= kRadius * kRadius ? kForeground : kBackground;
        const float v = std::round(base + kNoise * rng.normal());
        video[(static_cast<size_t>(x) * isz_y + y) * frames + k] =
            static_cast<unsigned char>(std::clamp(v, 0.0f, 255.0f));
      }
  // Offsets (dx, dy) of the disk's pixels.
  std::vector<int> objxy;
  for (int dx = -kRadius; dx <= kRadius; ++dx)
    for (int dy = -kRadius; dy <= kRadius; ++dy)
      if (dx * dx + dy * dy <= kRadius * kRadius) {
        objxy.push_back(dx);
        objxy.push_back(dy);
      }
  const int count_ones = static_cast<int>(objxy.size() / 2);

  std::vector<unsigned> seed(n);
  for (auto& s : seed) s = static_cast<unsigned>(rng.next() >> 32);
  std::vector<float> xj(n, static_cast<float>(x0)), yj(n, static_cast<float>(y0));

  unsigned char* d_video;
  int *d_objxy, *d_ind;
  unsigned* d_seed;
  float *d_x, *d_y, *d_xj, *d_yj, *d_w, *d_partial, *d_total, *d_cdf, *d_u, *d_u1;
  CUDA_CHECK(cudaMalloc(&d_video, video_size));
  CUDA_CHECK(cudaMalloc(&d_objxy, objxy.size() * sizeof(int)));
  CUDA_CHECK(cudaMalloc(&d_ind, static_cast<size_t>(n) * count_ones * sizeof(int)));
  CUDA_CHECK(cudaMalloc(&d_seed, n * sizeof(unsigned)));
  for (float** p : {&d_x, &d_y, &d_xj, &d_yj, &d_w, &d_cdf, &d_u})
    CUDA_CHECK(cudaMalloc(p, n * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_partial, blocks * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_total, sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_u1, sizeof(float)));
  CUDA_CHECK(cudaMemcpy(d_video, video.data(), video_size, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(d_objxy, objxy.data(), objxy.size() * sizeof(int), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(d_seed, seed.data(), n * sizeof(unsigned), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(d_xj, xj.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(d_yj, yj.data(), n * sizeof(float), cudaMemcpyHostToDevice));

  // The CPU reference checks every kernel of every frame from the GPU's own inputs (so a
  // rounding difference can never flip a later resampling choice and make the runs diverge).
  // Exact: the per-particle random states, the total (a sequential sum of the GPU's block sums),
  // the CDF (a sequential sum of the GPU's weights), the resampling points and the chosen
  // particles. With tolerances, where only transcendental functions differ (CUDA's logf, cosf,
  // expf are within 1-2 ulp, the host's within 1 ulp; everything else is rounded identically):
  //  - positions, 1e-4 absolute: 5 * randn (|randn| < 6) off by a few ulps, plus the sum's ulp
  //    at 128;
  //  - weights, 1e-6 relative: expf's 2 ulp and the host's 1 ulp plus two roundings (4.8e-7);
  //  - block sums, 3e-6 relative: the weights' error plus both sides' 9-level tree roundings.
  std::vector<float> ref_w(n), gx(n), gy(n), gw(n), gcdf(n), gu(n), gxj(n), gyj(n), gpart(blocks);
  for (int k = 1; k < frames; ++k) {
    likelihood_kernel<<<blocks, kThreads>>>(d_x, d_y, d_xj, d_yj, d_ind, d_objxy, count_ones,
                                            d_video, isz_x, isz_y, frames, k, d_w, d_seed,
                                            d_partial, n);
    CUDA_CHECK(cudaGetLastError());
    sum_kernel<<<1, 1>>>(d_partial, blocks, d_total);
    CUDA_CHECK(cudaGetLastError());
    normalize_kernel<<<blocks, kThreads>>>(d_w, d_total, n);
    CUDA_CHECK(cudaGetLastError());
    cdf_kernel<<<1, 1>>>(d_w, d_cdf, d_seed, d_u1, n);
    CUDA_CHECK(cudaGetLastError());
    find_index_kernel<<<blocks, kThreads>>>(d_x, d_y, d_cdf, d_u1, d_u, d_xj, d_yj, n);
    CUDA_CHECK(cudaGetLastError());

    float gtotal;
    const std::pair<float*, float*> copies[] = {
        {gx.data(), d_x}, {gy.data(), d_y},   {gw.data(), d_w},  {gcdf.data(), d_cdf},
        {gu.data(), d_u}, {gxj.data(), d_xj}, {gyj.data(), d_yj}};
    for (const auto& [host, dev] : copies)
      CUDA_CHECK(cudaMemcpy(host, dev, n * sizeof(float), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(gpart.data(), d_partial, blocks * sizeof(float), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(&gtotal, d_total, sizeof(float), cudaMemcpyDeviceToHost));

    for (int i = 0; i < n; ++i) {
      const float x = xj[i] + 1.0f + 5.0f * randn(seed.data(), i);
      const float y = yj[i] - 2.0f + 2.0f * randn(seed.data(), i);
      if (!(std::fabs(gx[i] - x) <= 1e-4f && std::fabs(gy[i] - y) <= 1e-4f))
        workload::fail("frame %d: particle %d moved to (%.7g, %.7g), expected (%.7g, %.7g)", k, i,
                       gx[i], gy[i], x, y);
      // The likelihood from the GPU's position, so both sides read the same pixels.
      const int rx = static_cast<int>(std::floor(gx[i] + 0.5f));
      const int ry = static_cast<int>(std::floor(gy[i] + 0.5f));
      float likelihood = 0.0f;
      for (int c = 0; c < count_ones; ++c)
        likelihood += pixel_likelihood(
            video[pixel_index(rx + objxy[2 * c], ry + objxy[2 * c + 1], k, isz_x, isz_y, frames)]);
      likelihood /= count_ones;
      ref_w[i] = (1.0f / n) * std::exp(likelihood);
    }
    for (int b = 0; b < blocks; ++b) {
      float buffer[kThreads];
      for (int t = 0; t < kThreads; ++t)
        buffer[t] = b * kThreads + t < n ? ref_w[b * kThreads + t] : 0.0f;
      for (int s = kThreads / 2; s > 0; s >>= 1)
        for (int t = 0; t < s; ++t) buffer[t] += buffer[t + s];
      if (!(std::fabs(gpart[b] - buffer[0]) <= 3e-6f * buffer[0]))
        workload::fail("frame %d: block %d weight sum %.9g, expected %.9g", k, b, gpart[b],
                       buffer[0]);
    }
    float total = 0.0f;
    for (int b = 0; b < blocks; ++b) total += gpart[b];
    if (gtotal != total)
      workload::fail("frame %d: total weight %.9g, expected %.9g", k, gtotal, total);
    for (int i = 0; i < n; ++i) {
      const float want = ref_w[i] / gtotal;
      if (!(std::fabs(gw[i] - want) <= 1e-6f * want))
        workload::fail("frame %d: weight %d is %.9g, expected %.9g", k, i, gw[i], want);
    }
    float s = 0.0f;
    for (int i = 0; i < n; ++i) {
      s += gw[i];
      if (gcdf[i] != s) workload::fail("frame %d: CDF[%d] = %.9g, expected %.9g", k, i, gcdf[i], s);
    }
    const float u1 = (1.0f / n) * randu(seed.data(), 0);
    for (int i = 0; i < n; ++i) {
      const float ui = u1 + i / static_cast<float>(n);
      if (gu[i] != ui) workload::fail("frame %d: u[%d] = %.9g, expected %.9g", k, i, gu[i], ui);
      // The CDF is non-decreasing, so the first entry >= ui is a lower bound.
      const int index =
          static_cast<int>(std::lower_bound(gcdf.begin(), gcdf.end(), ui) - gcdf.begin());
      const int want = std::min(index, n - 1);
      if (gxj[i] != gx[want] || gyj[i] != gy[want])
        workload::fail(
            "frame %d: particle %d resampled to (%.7g, %.7g), expected particle %d (%.7g, %.7g)", k,
            i, gxj[i], gyj[i], want, gx[want], gy[want]);
    }
    xj = gxj;
    yj = gyj;
  }
  std::vector<unsigned> gseed(n);
  CUDA_CHECK(cudaMemcpy(gseed.data(), d_seed, n * sizeof(unsigned), cudaMemcpyDeviceToHost));
  run.check_equal("random state", gseed.data(), seed.data(), n);

  // The estimate after the last frame: the weighted mean of the particles (as the original).
  double xe = 0.0, ye = 0.0;
  for (int i = 0; i < n; ++i) {
    xe += static_cast<double>(gx[i]) * gw[i];
    ye += static_cast<double>(gy[i]) * gw[i];
  }
  const double tx = x0 + (frames - 1), ty = y0 - 2.0 * (frames - 1);
  run.info("estimate (%.3f, %.3f), true position (%.0f, %.0f), distance %.3f", xe, ye, tx, ty,
           std::hypot(xe - tx, ye - ty));

  CUDA_CHECK(cudaFree(d_video));
  CUDA_CHECK(cudaFree(d_objxy));
  CUDA_CHECK(cudaFree(d_ind));
  CUDA_CHECK(cudaFree(d_seed));
  for (float* p : {d_x, d_y, d_xj, d_yj, d_w, d_cdf, d_u, d_partial, d_total, d_u1})
    CUDA_CHECK(cudaFree(p));
  return run.pass();
}
