// rodinia/srad - speckle-reducing anisotropic diffusion (Rodinia SRAD, version 2 structure) of a
// synthetic ultrasound-like image: a piecewise-smooth scene multiplied by speckle noise.
// Per iteration the host computes the speckle statistic q0^2 = var/mean^2 of a region of interest
// (the image is copied back each iteration for it, as in the original), then:
//   srad_cuda_1  16x16 blocks, the block's J tile plus a one-pixel halo in shared memory:
//                directional derivatives dN, dS, dW, dE and the diffusion coefficient c;
//   srad_cuda_2  16x16 blocks, c tile plus its south/east halo in shared memory: the divergence
//                of c * grad J and the update J += lambda/4 * div.
// Image borders are clamped (a pixel outside the image is replaced by the nearest inside one).
#include <algorithm>
#include <cmath>
#include <vector>

#include "workload.h"

constexpr int kB = 16;

__global__ void srad_cuda_1(const float* __restrict__ J, float* __restrict__ dN,
                            float* __restrict__ dS, float* __restrict__ dW, float* __restrict__ dE,
                            float* __restrict__ C, int rows, int cols, float q0sqr) {
  __shared__ float t[kB + 2][kB + 2];  // J tile with a one-pixel halo on every side
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int i = blockIdx.y * kB + ty, j = blockIdx.x * kB + tx;  // rows, cols are multiples of 16
  t[ty + 1][tx + 1] = J[i * cols + j];
  if (ty == 0) t[0][tx + 1] = J[max(i - 1, 0) * cols + j];
  if (ty == kB - 1) t[kB + 1][tx + 1] = J[min(i + 1, rows - 1) * cols + j];
  if (tx == 0) t[ty + 1][0] = J[i * cols + max(j - 1, 0)];
  if (tx == kB - 1) t[ty + 1][kB + 1] = J[i * cols + min(j + 1, cols - 1)];
  __syncthreads();

  const float jc = t[ty + 1][tx + 1];
  const float n = t[ty][tx + 1] - jc, s = t[ty + 2][tx + 1] - jc;
  const float w = t[ty + 1][tx] - jc, e = t[ty + 1][tx + 2] - jc;
  // Normalised gradient magnitude and Laplacian, then the instantaneous coefficient of variation.
  const float g2 = (n * n + s * s + w * w + e * e) / (jc * jc);
  const float l = (n + s + w + e) / jc;
  const float num = 0.5f * g2 - (1.0f / 16.0f) * (l * l);
  const float den = 1.0f + 0.25f * l;
  const float qsqr = num / (den * den);
  // Diffusion coefficient: near 1 in homogeneous speckle, near 0 at edges.
  const float d = (qsqr - q0sqr) / (q0sqr * (1.0f + q0sqr));
  float c = 1.0f / (1.0f + d);
  c = c < 0.0f ? 0.0f : (c > 1.0f ? 1.0f : c);

  const int idx = i * cols + j;
  dN[idx] = n;
  dS[idx] = s;
  dW[idx] = w;
  dE[idx] = e;
  C[idx] = c;
}

__global__ void srad_cuda_2(float* __restrict__ J, const float* __restrict__ dN,
                            const float* __restrict__ dS, const float* __restrict__ dW,
                            const float* __restrict__ dE, const float* __restrict__ C, int rows,
                            int cols, float lambda) {
  __shared__ float t[kB + 1][kB + 1];  // c tile plus the row below and the column to the right
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int i = blockIdx.y * kB + ty, j = blockIdx.x * kB + tx;
  const int idx = i * cols + j;
  t[ty][tx] = C[idx];
  if (ty == kB - 1) t[kB][tx] = C[min(i + 1, rows - 1) * cols + j];
  if (tx == kB - 1) t[ty][kB] = C[i * cols + min(j + 1, cols - 1)];
  __syncthreads();

  // The north and west fluxes use this pixel's coefficient, south and east the neighbour's.
  const float cc = t[ty][tx], cs = t[ty + 1][tx], ce = t[ty][tx + 1];
  const float div = cc * dN[idx] + cs * dS[idx] + cc * dW[idx] + ce * dE[idx];
  J[idx] = J[idx] + 0.25f * lambda * div;
}

// q0^2 = var / mean^2 over rows r1..r2, columns c1..c2 (accumulated in double).
static float roi_q0sqr(const std::vector<float>& J, int cols, int r1, int r2, int c1, int c2) {
  double sum = 0.0, sum2 = 0.0;
  for (int i = r1; i <= r2; ++i)
    for (int j = c1; j <= c2; ++j) {
      const double v = J[static_cast<size_t>(i) * cols + j];
      sum += v;
      sum2 += v * v;
    }
  const double size = static_cast<double>(r2 - r1 + 1) * (c2 - c1 + 1);
  const double mean = sum / size, var = sum2 / size - mean * mean;
  return static_cast<float>(var / (mean * mean));
}

int main(int argc, char** argv) {
  workload::Run run("srad", argc, argv);
  const int rows = run.pick(128, 512, 2048), cols = rows;  // multiples of 16
  const int niter = run.pick(2, 4, 2);
  const int r1 = 0, r2 = 127, c1 = 0, c2 = 127;  // region of interest, as in the original's runs
  const float lambda = 0.5f;
  const dim3 grid(cols / kB, rows / kB), block(kB, kB);
  run.info("%d x %d image, %d iterations, lambda %.2f, ROI rows %d-%d cols %d-%d", rows, cols,
           niter, lambda, r1, r2, c1, c2);
  run.info("srad_cuda_1 and srad_cuda_2: grid %ux%u x block %ux%u", grid.x, grid.y, block.x,
           block.y);

  // Synthetic speckled image: a background gradient with bright and dark ellipses, times
  // gamma-distributed speckle (mean 1, the average of 4 exponentials), then J = exp(I) as the
  // original expands its log-compressed input.
  workload::Rng rng(run.seed());
  struct Ellipse {
    float cy, cx, ry, rx, level;
  };
  std::vector<Ellipse> shapes;
  for (int k = 0; k < 12; ++k)
    shapes.push_back({rng.uniform(0.0f, 1.0f) * rows, rng.uniform(0.0f, 1.0f) * cols,
                      rng.uniform(0.03f, 0.2f) * rows, rng.uniform(0.03f, 0.2f) * cols,
                      rng.uniform(0.05f, 0.9f)});
  const size_t pixels = static_cast<size_t>(rows) * cols;
  std::vector<float> J(pixels);
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < cols; ++j) {
      float level = 0.3f + 0.2f * j / cols;
      for (const auto& e : shapes) {
        const float y = (i - e.cy) / e.ry, x = (j - e.cx) / e.rx;
        if (x * x + y * y <= 1.0f) level = e.level;
      }
      float speckle = 0.0f;
      for (int k = 0; k < 4; ++k) speckle -= std::log(1.0f - rng.uniform());
      J[static_cast<size_t>(i) * cols + j] = std::exp(level * speckle * 0.25f);
    }

  float *d_J, *d_dN, *d_dS, *d_dW, *d_dE, *d_C;
  for (float** p : {&d_J, &d_dN, &d_dS, &d_dW, &d_dE, &d_C})
    CUDA_CHECK(cudaMalloc(p, pixels * sizeof(float)));
  CUDA_CHECK(cudaMemcpy(d_J, J.data(), pixels * sizeof(float), cudaMemcpyHostToDevice));

  // Each iteration is checked from the GPU's own input image, so rounding differences never
  // accumulate: c against a CPU evaluation, then the new J against a CPU update using the GPU's c.
  const double u = std::ldexp(1.0, -24);  // float unit roundoff
  std::vector<float> next(pixels), C(pixels);
  for (int it = 0; it < niter; ++it) {
    const float q0sqr = roi_q0sqr(J, cols, r1, r2, c1, c2);
    srad_cuda_1<<<grid, block>>>(d_J, d_dN, d_dS, d_dW, d_dE, d_C, rows, cols, q0sqr);
    CUDA_CHECK(cudaGetLastError());
    srad_cuda_2<<<grid, block>>>(d_J, d_dN, d_dS, d_dW, d_dE, d_C, rows, cols, lambda);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpy(next.data(), d_J, pixels * sizeof(float), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(C.data(), d_C, pixels * sizeof(float), cudaMemcpyDeviceToHost));

    auto at = [&](int i, int j) {
      return J[static_cast<size_t>(std::clamp(i, 0, rows - 1)) * cols + std::clamp(j, 0, cols - 1)];
    };
    auto coeff = [&](float qsqr) {
      const float c = 1.0f / (1.0f + (qsqr - q0sqr) / (q0sqr * (1.0f + q0sqr)));
      return c < 0.0f ? 0.0f : (c > 1.0f ? 1.0f : c);
    };
    for (int i = 0; i < rows; ++i)
      for (int j = 0; j < cols; ++j) {
        const size_t idx = static_cast<size_t>(i) * cols + j;
        const float jc = J[idx];
        const float n = at(i - 1, j) - jc, s = at(i + 1, j) - jc;
        const float w = at(i, j - 1) - jc, e = at(i, j + 1) - jc;
        // c: the GPU may fuse the products of g2 and num, so num (a difference of two positive
        // terms) can differ by a few roundings of those terms' magnitude; c must lie between
        // the CPU's c at qsqr -/+ 8u times that magnitude (c is monotone in qsqr), and may be
        // anything where that interval crosses the clamp's jump at 1 + d = 0.
        const float g2 = (n * n + s * s + w * w + e * e) / (jc * jc);
        const float l = (n + s + w + e) / jc;
        const float den = 1.0f + 0.25f * l;
        const float qsqr = (0.5f * g2 - (1.0f / 16.0f) * (l * l)) / (den * den);
        const float slack = static_cast<float>(8 * u * (0.5 * g2 + l * l / 16.0) / (den * den));
        const float k = q0sqr * (1.0f + q0sqr);
        const bool jump =
            (1.0f + (qsqr - slack - q0sqr) / k) * (1.0f + (qsqr + slack - q0sqr) / k) <= 0.0f;
        const float ca = coeff(qsqr - slack), cb = coeff(qsqr + slack);
        const float lo = std::min(ca, cb) - 4 * u, hi = std::max(ca, cb) + 4 * u;
        if (!jump && !(C[idx] >= lo && C[idx] <= hi))
          workload::fail("iteration %d: c[%d][%d] = %.9g, expected %.9g..%.9g", it, i, j, C[idx],
                         lo, hi);
        // J: the update from the GPU's c; at most 6 roundings of the terms' magnitude apart.
        const float cc = C[idx], cs = C[static_cast<size_t>(std::min(i + 1, rows - 1)) * cols + j],
                    ce = C[static_cast<size_t>(i) * cols + std::min(j + 1, cols - 1)];
        const float div = cc * n + cs * s + cc * w + ce * e;
        const float want = jc + 0.25f * lambda * div;
        const double mag = std::fabs(jc) + 0.25 * lambda *
                                               (std::fabs(cc * n) + std::fabs(cs * s) +
                                                std::fabs(cc * w) + std::fabs(ce * e));
        if (!(std::fabs(next[idx] - want) <= 8 * u * mag))
          workload::fail("iteration %d: J[%d][%d] = %.9g, expected %.9g", it, i, j, next[idx],
                         want);
      }
    J.swap(next);
  }

  double mean = 0.0;
  for (float v : J) mean += v;
  run.info("mean intensity after %d iterations: %.6f", niter, mean / pixels);
  for (float* p : {d_J, d_dN, d_dS, d_dW, d_dE, d_C}) CUDA_CHECK(cudaFree(p));
  return run.pass();
}
